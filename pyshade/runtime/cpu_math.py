"""More ``math`` functions of the CPU target: the hyperbolic functions, exp2, expm1, log10,
log1p, hypot, copysign, C's fmod, degrees, radians, erf and erfc.

Part of ``pyshade.runtime.cpu_support`` (which re-exports everything). Each is Python's own
function, computed in double precision; the generated code rounds the result to the
kernel's float type (``_f32(_tanh(x))``), so the CPU device gives Python's value at that
width. Where Python raises ValueError (``math.log10(-1.0)``, ``math.acosh(0.5)``,
``math.fmod(1.0, 0.0)``) these raise it too, naming the call, so that the bug is found
on the CPU: a GPU gives nan or an infinity there. Where Python raises OverflowError
(``math.sinh(1000.0)``) the result is the infinity that the kernel's float type
overflows to anyway, as on a GPU.
"""

from __future__ import annotations

import math

from .cpu_scalars import _BITCAST

__all__ = ["_f32_of_bits", "_acosh", "_asinh", "_atanh", "_cfmod", "_copysign", "_cosh", "_degrees", "_erf",
           "_erfc", "_exp2", "_expm1", "_hypot", "_log10", "_log1p", "_radians", "_sinh",
           "_tanh"]

_INF = math.inf
_I32_TO_F32 = _BITCAST["i32", "f32"]


def _f32_of_bits(i):
    """The f32 whose bits are the i32 ``i`` (the prelude's ``from_bits`` primitive)."""
    return _I32_TO_F32(i)


def _exp2_host(x):
    return 2.0 ** x


def _python(fn, name, gpu, overflow=None):
    """``fn`` with ValueError made to name the call and OverflowError turned into the
    infinity ``overflow(*args)`` gives (+inf by default)."""
    def f(*args):
        try:
            return fn(*args)
        except OverflowError:
            return overflow(*args) if overflow is not None else _INF
        except ValueError:
            call = f"math.{name}({', '.join(map(repr, args))})"
            raise ValueError(f"{call}: math domain error (Python raises it; a GPU gives "
                             f"{gpu})") from None
    f.__name__ = f.__qualname__ = f"_{name}"
    f.__doc__ = f"Python's math.{name}; " + (f"ValueError where Python raises it (a GPU "
                                               f"gives {gpu})." if gpu else "never raises.")
    return f


_tanh = _python(math.tanh, "tanh", "")
_sinh = _python(math.sinh, "sinh", "", lambda x: math.copysign(_INF, x))
_cosh = _python(math.cosh, "cosh", "")
_asinh = _python(math.asinh, "asinh", "")
_acosh = _python(math.acosh, "acosh", "nan")
_atanh = _python(math.atanh, "atanh", "+-inf at +-1, nan beyond")
_exp2 = _python(getattr(math, "exp2", _exp2_host), "exp2", "")
_expm1 = _python(math.expm1, "expm1", "")
_log10 = _python(math.log10, "log10", "-inf at 0, nan below")
_log1p = _python(math.log1p, "log1p", "-inf at -1, nan below")
_degrees = _python(math.degrees, "degrees", "")
_radians = _python(math.radians, "radians", "")
_erf = _python(math.erf, "erf", "")
_erfc = _python(math.erfc, "erfc", "")
_hypot = _python(math.hypot, "hypot", "")
_copysign = _python(math.copysign, "copysign", "")
_cfmod = _python(math.fmod, "fmod", "nan")
