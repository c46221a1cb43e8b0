"""The kernel language's ``math``: Python's own math functions, typed for vectors too.

``from pyshade import math`` in a kernel module gives the very function objects of the
standard library's ``math`` (kernels translate them exactly as they translate
``import math``), but the stub ``pyshade/math.pyi`` types them as the kernel language
does: ``math.sin(v)`` of a ``vec3`` is a ``vec3``, ``math.isnan(v)`` a ``bvec3``,
``math.floor(x)`` keeps the float type (GPUs return one). Type checkers read the
standard ``math`` with typeshed's float-only signatures, which flag every vector call.

Only the functions kernels support are here, so a checker also flags one they do not
(``math.gcd``). On the host these are the standard functions, with their host types;
``exp2`` (Python 3.11) is a stand-in on Python 3.10, which kernels translate alike.
"""

from math import (
                  acos,
                  acosh,
                  asin,
                  asinh,
                  atan,
                  atan2,
                  atanh,
                  ceil,
                  copysign,
                  cos,
                  cosh,
                  degrees,
                  e,
                  erf,
                  erfc,
                  exp,
                  expm1,
                  fabs,
                  floor,
                  fmod,
                  hypot,
                  inf,
                  isinf,
                  isnan,
                  log,
                  log1p,
                  log2,
                  log10,
                  nan,
                  pi,
                  pow,
                  radians,
                  sin,
                  sinh,
                  sqrt,
                  tan,
                  tanh,
                  tau,
                  trunc,
)

try:
    from math import exp2
except ImportError:                 # Python 3.10
    from .lang import _exp2 as exp2

__all__ = ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "copysign",
           "cos", "cosh", "degrees", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs",
           "floor", "fmod", "hypot", "inf", "isinf", "isnan", "log", "log10", "log1p", "log2",
           "nan", "pi", "pow", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "tau", "trunc"]
