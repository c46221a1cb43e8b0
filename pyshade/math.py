"""The kernel language's ``math``: Python's own math functions, typed for vectors too.

``from pyshade import math`` in a kernel module gives the very function objects of the
standard library's ``math`` (kernels translate them exactly as they translate
``import math``), but the stub ``pyshade/math.pyi`` types them as the kernel language
does: ``math.sin(v)`` of a ``vec3`` is a ``vec3``, ``math.isnan(v)`` a ``bvec3``,
``math.floor(x)`` keeps the float type (GPUs return one). Type checkers read the
standard ``math`` with typeshed's float-only signatures, which flag every vector call.

Only the functions kernels support are here, so a checker also flags one they do not
(``math.gcd``). On the host these are the standard functions, with their host types.
"""

from math import (
                  acos,
                  asin,
                  atan,
                  atan2,
                  ceil,
                  cos,
                  e,
                  exp,
                  fabs,
                  floor,
                  inf,
                  isinf,
                  isnan,
                  log,
                  log2,
                  nan,
                  pi,
                  pow,
                  sin,
                  sqrt,
                  tan,
                  tau,
                  trunc,
)

__all__ = ["acos", "asin", "atan", "atan2", "ceil", "cos", "e", "exp", "fabs", "floor", "inf",
           "isinf", "isnan", "log", "log2", "nan", "pi", "pow", "sin", "sqrt", "tan", "tau",
           "trunc"]
