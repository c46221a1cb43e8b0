"""Library algorithms written in pyshade, run on every device: ``sort``, ``argsort``,
``scan`` (prefix sums) and ``reduce`` (sum, min, max).

Each takes a 1-D uint32, int32 or float32 array: a device array (the result is a
device array on the same device, with no host round trip), a CuPy array or torch
CUDA tensor (used in place by the cuda device), or host data (numpy in, numpy out).
"""

from .reduce import reduce
from .scan import scan
from .sort import argsort, sort

__all__ = ["argsort", "reduce", "scan", "sort"]
