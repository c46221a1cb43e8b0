"""Bitonic sort: the demo's kernel (``examples/bitonic_sort.py``), usable as a library function.

The kernel below is the canonical example (with docstrings added): a NewType, an IntEnum
with ``match``, a portable struct, a TypeVar generic and a ``Const`` trait
class. ``sort`` pads the data to a power of two with a value that sorts last,
records every step in one ``dev.batch()`` submission, and drops the padding.
With ``in_place=True`` a device array, CuPy array or torch CUDA tensor is sorted
where it lives, without a copy to the host.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NewType, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

T = TypeVar("T", u32, i32, f32)
Stage = NewType("Stage", u32)                 # newtype: zero cost
Pass = NewType("Pass", u32)


class SortOrder(IntEnum):                     # repr(u32) enum
    """Direction of the sort; a u32 enum in the kernel."""

    ASCENDING = 0
    DESCENDING = 1


@ps.struct
class BitonicParams:                          # repr(C) struct, portable layout
    """Parameters of one ``bitonic_step`` launch: padded length, stage, pass and order."""

    n: u32
    stage: Stage
    pass_of_stage: Pass
    order: SortOrder


class Natural:                                # a "trait implementation"
    """The default comparison "trait" for ``bitonic_step``: natural ``<`` order."""

    @staticmethod
    def before(a: T, b: T) -> bool:
        """True when ``a`` sorts before ``b`` (``a < b``)."""
        return a < b


@ps.kernel(workgroup_size=256)
def bitonic_step(data: ps.Buffer[T], p: BitonicParams, cmp: ps.Const[type[Natural]] = Natural) -> None:
    """One pass of the bitonic network: invocation i compare-exchanges ``data[i]`` with
    ``data[i ^ (1 << (stage - pass_of_stage))]``, ordering each block up or down."""
    i = ps.global_id().x
    partner = i ^ (u32(1) << (p.stage - p.pass_of_stage))
    if partner > i and partner < p.n:
        up = ((i >> (p.stage + 1)) & 1) == 0
        match p.order:
            case SortOrder.ASCENDING:
                pass
            case SortOrder.DESCENDING:
                up = not up
        a, b = data[i], data[partner]
        if cmp.before(b, a) == up:
            data[i], data[partner] = b, a


# Floats are not compared as floats: GPUs may flush subnormals in comparisons
# (NVIDIA does), -0.0 < 0.0 is false, and NaN compares false with everything.
# float_keys maps each f32 bit pattern to a u32 key whose unsigned order is the
# IEEE total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), the
# bitonic network sorts the keys, and float_from_keys maps them back, moving
# the negative NaNs (which sort first) behind the positive ones so that every
# NaN ends up last, as in numpy.sort. Only bits move, so every element keeps
# its exact bit pattern, NaN payloads and signs included.
_SIGN = 0x80000000
_NEG_INF_KEY = 0x007FFFFF     # key of -inf (0xFF800000): only negative NaNs have smaller keys
_PAD_BITS = 0x7FFFFFFF        # a positive NaN whose key is 0xFFFFFFFF, the largest: sorts last


@ps.kernel(workgroup_size=256)
def float_keys(data: ps.Buffer[u32]) -> None:
    """In place: f32 bit patterns -> u32 keys whose unsigned order is IEEE total order.

    Negatives get all bits flipped (a larger magnitude gives a smaller key),
    non-negatives get the sign bit set (they sort above every negative)."""
    i = ps.global_id().x
    if i < len(data):
        b = data[i]
        if (b & _SIGN) != 0:
            data[i] = ~b
        else:
            data[i] = b | _SIGN


@ps.kernel(workgroup_size=256)
def float_from_keys(keys: ps.Buffer[u32], out: ps.Buffer[u32], n: u32, order: SortOrder) -> None:
    """``out[i]`` = the f32 bits of the i-th element of the sorted result.

    ``keys[:n]`` are sorted ascending; the negative NaNs form a prefix (their
    keys are below the key of -inf) of length m, found by binary search, and
    are rotated to the end: the ascending result is ``keys[m:n] + keys[:m]``.
    ``DESCENDING`` reads that result backwards, so it is exactly its reverse."""
    i = ps.global_id().x
    if i < n:
        lo = u32(0)
        hi = n
        while lo < hi:
            mid = lo + (hi - lo) // 2
            if keys[mid] < _NEG_INF_KEY:
                lo = mid + 1
            else:
                hi = mid
        j = i
        match order:
            case SortOrder.ASCENDING:
                pass
            case SortOrder.DESCENDING:
                j = n - 1 - i
        src = j + lo
        if j >= n - lo:
            src = j - (n - lo)
        k = keys[src]
        if (k & _SIGN) != 0:
            out[i] = k ^ _SIGN
        else:
            out[i] = ~k


_DTYPES = (np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32))


def _pad_value(dtype: np.dtype, descending: bool) -> Any:
    info = np.iinfo(dtype)
    return info.min if descending else info.max


def sort_steps(n: int) -> list[tuple[int, int]]:
    """The (stage, pass_of_stage) pairs of a bitonic network over n = 2^k items."""
    k = max(n - 1, 0).bit_length()
    return [(s, p) for s in range(k) for p in range(s + 1)]


@ps.kernel(workgroup_size=256)
def _pad_copy(src: ps.Buffer[T], dst: ps.Buffer[T], n: u32, pad: T) -> None:
    """dst[i] = src[i] for i < n, else the padding value (dst is 2^k long)."""
    i = ps.global_id().x
    if i < len(dst):
        if i < n:
            dst[i] = src[i]
        else:
            dst[i] = pad


@ps.kernel(workgroup_size=256)
def _copy_prefix(src: ps.Buffer[T], dst: ps.Buffer[T]) -> None:
    """dst[i] = src[i] for every i of dst (src may be longer)."""
    i = ps.global_id().x
    if i < len(dst):
        dst[i] = src[i]


def sort(array: Any, descending: bool = False, device: Any = None, *,
         in_place: bool = False) -> Any:
    """Sort a 1-D u32/i32/f32 array on ``device`` (default: the best available).

    With ``in_place=True``, ``array`` is a device array (``dev.array``), a CuPy array
    or a torch CUDA tensor: it is sorted on its device, with no copy to the host, and
    returned (the cuda device uses CuPy and torch memory in place; a padded scratch
    buffer is used when the length is not a power of two, or for float32 keys).

    Returns a new numpy array equal to ``numpy.sort(array)`` (reversed when
    ``descending``), bit for bit: float32 subnormals and infinities sort by
    value, -0.0 before +0.0, and NaNs (of either sign) last, each element
    keeping its bits, NaN payloads included. Among NaNs, which numpy leaves
    unordered, the result is ascending by bit pattern for positive NaNs,
    then negative NaNs by descending bit pattern (the IEEE total order with
    negative NaNs moved to the end). Any length works: the data are padded to
    a power of two with a value that sorts last.
    """
    from ..launch.binder import is_foreign_array
    if in_place:
        if isinstance(array, ps.DeviceArray):
            return _sort_in_place(array.device, array, descending, array)
        if not is_foreign_array(array):
            raise TypeError(f"sort(in_place=True) needs a device array, a CuPy array or a "
                            f"torch CUDA tensor, got {type(array).__name__}")
        dev = ps.device(device or "cuda") if not isinstance(device, ps.Device) else device
        adopt = getattr(dev, "adopt", None)
        if adopt is None:
            raise TypeError(f"sort(): a {type(array).__name__} lives on a GPU that "
                            f"{dev.name} cannot use in place: pass device='cuda'")
        return _sort_in_place(dev, adopt(array), descending, array)
    dev = ps.device(device) if not isinstance(device, ps.Device) else device
    adopt = getattr(dev, "adopt", None)
    if isinstance(array, ps.DeviceArray):
        host = array.numpy()
    elif is_foreign_array(array) and adopt is not None:
        host = adopt(array).numpy()
    else:
        host = np.asarray(array)
    if host.ndim != 1 or host.dtype not in _DTYPES:
        raise TypeError(f"sort() needs a 1-D uint32, int32 or float32 array, got "
                        f"{host.dtype} with shape {host.shape}")
    n = host.size
    if n < 2:
        return host.copy()
    n2 = 1 << (n - 1).bit_length()
    if host.dtype.kind == "f":
        return _sort_float32(dev, host, n2, descending)
    padded = np.full(n2, _pad_value(host.dtype, descending), dtype=host.dtype)
    padded[:n] = host
    buf = dev.array(padded)
    order = SortOrder.DESCENDING if descending else SortOrder.ASCENDING
    with dev.batch():
        _network(dev, buf, n2, order)
    return buf.numpy()[:n]


def _sort_in_place(dev: ps.Device, arr: Any, descending: bool, result: Any) -> Any:
    """Sort the device array ``arr`` in place; returns ``result`` (what the caller gave)."""
    if len(arr.shape) != 1 or arr.dtype not in _DTYPES:
        raise TypeError(f"sort() needs a 1-D uint32, int32 or float32 array, got "
                        f"{arr.dtype} with shape {arr.shape}")
    n = arr.size
    if n < 2:
        return result
    n2 = 1 << (n - 1).bit_length()
    order = SortOrder.DESCENDING if descending else SortOrder.ASCENDING
    with dev.batch():
        if arr.dtype.kind == "f":
            # keys in a padded scratch buffer, mapped back into the array itself
            bits = arr.view(np.uint32)
            keys = dev.empty(n2, np.uint32)
            _pad_copy.launch(bits, keys, n, bits.dtype.type(_PAD_BITS), threads=n2, device=dev)
            float_keys.launch(keys, threads=n2, device=dev)
            _network(dev, keys, n2, SortOrder.ASCENDING)
            float_from_keys.launch(keys, bits, n, order, threads=n, device=dev)
        elif n2 == n:
            _network(dev, arr, n, order)
        else:
            pad = arr.dtype.type(_pad_value(arr.dtype, descending))
            work = dev.empty(n2, arr.dtype)
            _pad_copy.launch(arr, work, n, pad, threads=n2, device=dev)
            _network(dev, work, n2, order)
            _copy_prefix.launch(work, arr, threads=n, device=dev)
    return result


def _network(dev: ps.Device, buf: ps.DeviceArray, n2: int, order: SortOrder) -> None:
    """Record the whole bitonic network over ``buf`` (n2 = 2^k elements)."""
    for stage, pass_of_stage in sort_steps(n2):
        params = BitonicParams(n=n2, stage=Stage(stage), pass_of_stage=Pass(pass_of_stage),
                               order=order)
        bitonic_step.launch(buf, params, Natural, threads=n2, device=dev)


def _sort_float32(dev: ps.Device, host: np.ndarray, n2: int, descending: bool) -> np.ndarray:
    """Sort f32 data as u32 keys (see the module docstring)."""
    n = host.size
    # The data travel as u32 bit patterns: a f32 buffer could change bits on the
    # way (the cpu device holds f32 values as Python floats, which quiets
    # signalling NaNs), while u32 words are only ever moved.
    padded = np.full(n2, _PAD_BITS, dtype=np.uint32)
    padded[:n] = host.view(np.uint32)
    keys = dev.array(padded)
    out = dev.zeros(n, np.uint32)
    order = SortOrder.DESCENDING if descending else SortOrder.ASCENDING
    with dev.batch():
        float_keys.launch(keys, threads=n2, device=dev)
        _network(dev, keys, n2, SortOrder.ASCENDING)
        float_from_keys.launch(keys, out, n, order, threads=n, device=dev)
    return out.numpy().view(np.float32)
