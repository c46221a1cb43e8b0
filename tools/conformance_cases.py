"""The cases of the conformance table (``tools/conformance.py``): every operator, builtin
and conversion of the kernel language on scalars, with its Python reference.

A case is a kernel expression of ``x`` (and ``y``) of one scalar type, the result type,
and a reference computed here in plain Python (floats as binary64, then rounded once to
binary32, which for ``+ - * /`` and ``sqrt`` is the correctly rounded binary32 result)
with the rules docs/language.md states: integers wrap, ``//`` and ``%`` floor, float
division by zero is IEEE's, ``min(a, b)`` is ``b if b < a else a``. Where Python raises
(``math.log10(-1.0)``, ``7 // 0``) the reference says so: the cpu device must raise, and
a GPU must give the value the docs promise (``x // 0`` is ``x``; the math functions give
IEEE's special value).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np

I32_MIN, I32_MAX, U32_MAX = -2**31, 2**31 - 1, 2**32 - 1
F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.finfo(np.float32).tiny)         # smallest normal
F32_SUB = float(np.float32(1.4e-45))                # smallest subnormal
F32_SUB_BIG = float(np.float32(1.1e-38))            # a large subnormal

# The edge values of each type (issue: 0, 1, -1, min, max, NaN, +-inf, subnormal, -0.0)
# and a few ordinary ones, so that general values are covered too.
EDGES: dict[str, list] = {
    "i32": [0, 1, -1, 2, -7, 100, I32_MIN, I32_MIN + 1, I32_MAX],
    "u32": [0, 1, 2, 7, 100, 2**31 - 1, 2**31, U32_MAX],
    "f32": [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e10, F32_MAX, -F32_MAX, F32_TINY,
            F32_SUB, -F32_SUB_BIG, math.inf, -math.inf, math.nan],
}
SHIFT_COUNTS = [0, 1, 31]


class Raises(Exception):
    """The reference raises (as Python does): the cpu device must raise; a GPU gives
    ``gpu`` (None: a value docs/language.md leaves undefined)."""

    def __init__(self, gpu: float | int | None) -> None:
        super().__init__(gpu)
        self.gpu = gpu


def wrap(v: int, ty: str) -> int:
    """``v`` wrapped to the integer type ``ty``."""
    if ty == "u32":
        return v & U32_MAX
    return ((v + 2**31) & U32_MAX) - 2**31


def f32(v: float) -> float:
    """``v`` rounded once to binary32 (IEEE's overflow to infinity, no exception)."""
    with np.errstate(all="ignore"):
        return float(np.float32(v))


def ieee(op: Callable[[np.float64, np.float64], np.float64], a: float, b: float) -> float:
    """``a op b`` in binary64 with IEEE's special values (numpy does not raise)."""
    with np.errstate(all="ignore"):
        return float(op(np.float64(a), np.float64(b)))


def math_ref(fn: Callable[..., float], *args: float, gpu: float | None = None) -> float:
    """Python's ``math`` function in binary64; where it raises ValueError the reference
    is a ``Raises`` with the GPU's IEEE value ``gpu``; OverflowError means infinity."""
    try:
        return fn(*args)
    except ValueError:
        raise Raises(gpu) from None
    except OverflowError:
        # sinh(1000.0), exp(1000.0), pow(10.0, 400.0): the float type overflows anyway
        return gpu if gpu is not None else math.inf


def pymin(a, b):
    """Python's ``min`` of two values."""
    return b if b < a else a


def pymax(a, b):
    """Python's ``max`` of two values."""
    return b if b > a else a


def floordiv_int(a: int, b: int, ty: str) -> int:
    """Python's ``a // b`` wrapped; by zero the cpu device raises and GPUs give ``a``."""
    if b == 0:
        raise Raises(a)
    return wrap(a // b, ty)


def mod_int(a: int, b: int, ty: str) -> int:
    """Python's ``a % b``; by zero the cpu device raises and GPUs give ``a``."""
    if b == 0:
        raise Raises(a)
    return wrap(a % b, ty)


def f_floordiv(a: float, b: float) -> float:
    """Float ``a // b`` as docs/design.md defines it: ``floor(a / b)`` in binary32, then
    one step towards the quotient whose remainder ``a - q * b`` has ``b``'s sign and is
    smaller than ``b`` (Python's binary64 ``fmod`` route differs in rare cases)."""
    q = f32(math.floor(x) if math.isfinite(x := f32(ieee(np.divide, a, b))) and x != 0
            else x)
    rem = f32(a - f32(q * b)) if math.isfinite(q) or math.isnan(q) else math.nan
    if b > 0 and rem < 0 or b < 0 and rem > 0:
        q = f32(q - 1.0)
    elif b > 0 and rem >= b or b < 0 and rem <= b:
        q = f32(q + 1.0)
    return q


def f_mod(a: float, b: float) -> float:
    """Float ``a % b`` as docs/design.md defines it: ``a - b * (a // b)``, each step
    rounded to binary32 (so ``x % inf`` is NaN, where Python gives ``x``)."""
    return f32(a - f32(ieee(np.multiply, b, f_floordiv(a, b))))


def f_pow(a: float, b: float) -> float:
    """``math.pow``: IEEE's values, but a negative base with a fractional exponent
    raises on the cpu device (as Python does) and is NaN on a GPU."""
    if a < 0 and math.isfinite(a) and math.isfinite(b) and b != math.floor(b):
        raise Raises(math.nan)
    odd = math.isfinite(b) and b == math.floor(b) and b % 2 == 1
    try:
        return math.pow(a, b)
    except ValueError:                  # 0 ** negative: C's infinity
        return math.copysign(math.inf, a) if odd else math.inf
    except OverflowError:
        return -math.inf if a < 0 and odd else math.inf


def to_int(x: float, ty: str) -> int:
    """``i32(x)``/``u32(x)`` of a float: truncate toward zero, saturate, NaN gives 0."""
    if math.isnan(x):
        return 0
    lo, hi = (I32_MIN, I32_MAX) if ty == "i32" else (0, U32_MAX)
    if math.isinf(x):
        return hi if x > 0 else lo
    return max(lo, min(hi, math.trunc(x)))


def bits_f32(x: float) -> int:
    """The binary32 bit pattern of ``x`` as a u32."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def clz(x: int) -> int:
    """Leading zeros of the 32-bit pattern of ``x``."""
    return 32 - (x & U32_MAX).bit_length()


def rev(x: int, ty: str) -> int:
    """The 32 bits of ``x`` in reverse order."""
    return wrap(int(f"{x & U32_MAX:032b}"[::-1], 2), ty)


def f32_exact(v: Fraction) -> float:
    """The exact value ``v`` rounded once to binary32 (nearest, ties to even; infinity
    past the largest finite value's rounding boundary)."""
    edge = Fraction(2) ** 128 - Fraction(2) ** 103     # halfway from f32 max to 2^128
    if abs(v) >= edge:
        return math.copysign(math.inf, v)
    f = np.float32(float(v))                # within an ulp; then the nearest of three
    with np.errstate(all="ignore"):
        cands = [f, np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf))]
    cands = [c for c in cands if np.isfinite(c)]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - v),
                                     int(np.array(c).view(np.uint32)) & 1))
    return float(best) if best != 0 or v >= 0 else -0.0


FMA_C = f32(-0.1)


def fma_ref(a: float, b: float) -> float:
    """``ps.fma(a, b, -0.1)``: a * b - 0.1 (its f32) rounded once; IEEE's special values."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return f32(ieee(np.multiply, a, b) + FMA_C)
    v = Fraction(a) * Fraction(b) + Fraction(FMA_C)
    if v == 0:      # the sign of an exact zero sum: -0.0 only from -0.0 + -0.0
        return 0.0
    return f32_exact(v)


def pyround(x: float) -> float:
    """Python's ``round(x)`` returned as a float (ties to even; infinities and NaN kept)."""
    if math.isnan(x) or math.isinf(x):
        return x
    return math.copysign(float(round(x)), x)


# -- builtins defined by a formula ---------------------------------------------------------
# Vulkan and WGSL define mix, smoothstep, dot, cross, length, normalize and distance by a
# formula whose precision they "inherit"; pyshade's cpu device (and CUDA and MSL) compute
# that formula rounding each operation to f32, which is the reference here. A GPU may
# evaluate it otherwise (another order, a fused step, inversesqrt): its result is held to
# an absolute bound built from the formula's operations (``tol``), not to a number of ulp.
U = 2.0**-24                    # the unit roundoff of f32: half an ulp of 1.0


def _ulp(v: float) -> float:
    return float(np.spacing(np.float32(abs(v)))) if math.isfinite(v) else 0.0


def _sqrt32(v: float) -> float:
    return f32(ieee(lambda p, q: np.sqrt(p), v, 0.0))


def _dot32(a: tuple, b: tuple) -> float:
    s = f32(ieee(np.multiply, a[0], b[0]))
    for p, q in zip(a[1:], b[1:]):
        s = f32(ieee(np.add, s, f32(ieee(np.multiply, p, q))))
    return s


def _length32(v: tuple) -> float:
    return _sqrt32(_dot32(v, v))


def mix_ref(a: float, b: float, t: float = 0.25) -> float:
    """``a * (1 - t) + b * t``, each operation rounded."""
    return f32(ieee(np.add, f32(ieee(np.multiply, a, f32(1.0 - t))), f32(ieee(np.multiply, b, t))))


def smoothstep_ref(x: float, e0: float = -1.0, e1: float = 2.5) -> float:
    """``t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 t)``, each step rounded."""
    t = f32(ieee(np.divide, f32(ieee(np.subtract, x, e0)), f32(e1 - e0)))
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)     # NaN stays NaN
    return f32(f32(t * t) * f32(3.0 - f32(2.0 * t)))


def normalize_x_ref(a: float, b: float) -> float:
    """``normalize(vec2(a, b)).x``: ``a / length``, rounded."""
    return f32(ieee(np.divide, a, _length32((a, b))))


def cross_z_ref(a: float, b: float) -> float:
    """``cross(vec3(a, b, 1), vec3(b, 2, a)).z`` = ``a * 2 - b * b``, each step rounded."""
    return f32(ieee(np.subtract, f32(ieee(np.multiply, a, 2.0)), f32(ieee(np.multiply, b, b))))


def _len_tol(n: int, ref: float) -> float:
    """sqrt of a sum of n squares, then rounded: a few u relative, two ulp."""
    return abs(ref) * ((n + 4) * U + 10 * U) + 2 * _ulp(ref)


# Absolute bounds of a GPU's result against the stepwise reference (the fuzzer's
# tests/fuzz/ulp.py holds devices to the same ones): sums of products 2 (n + 1) u
# sum |a_i b_i|, square roots and divisions a few u relative, plus the result's ulp.
INHERITED: dict[str, tuple[str, Callable[[float, float, float], float]]] = {
    "mix": ("a * (1 - t) + b * t",
            lambda a, b, r: 4 * U * (abs(a) * 1.25 + abs(b * 0.25)) + 2 * _ulp(r)),
    "smoothstep": ("t * t * (3 - 2 t), t = clamp((x - e0) / (e1 - e0), 0, 1)",
                   lambda a, b, r: 24 * U + _ulp(r)),
    "dot": ("a0 b0 + a1 b1 + ...",
            lambda a, b, r: 6 * U * (abs(a * b) + abs(b * 0.5)) + _ulp(r)),
    "cross": ("a1 b2 - a2 b1 (and the other two)",
              lambda a, b, r: 4 * U * (abs(2 * a) + abs(b * b)) + _ulp(r)),
    "length": ("sqrt(dot(v, v))", lambda a, b, r: _len_tol(2, r)),
    "distance": ("length(a - b)", lambda a, b, r: _len_tol(2, r)),
    "normalize": ("v / length(v)",
                  lambda a, b, r: abs(r) * (6 * U + 20 * U) + 2 * _ulp(r)),
}


@dataclass
class Case:
    """One row of the table: ``expr`` over ``x``/``y`` of type ``ty`` giving ``out``."""

    label: str
    ty: str
    out: str
    expr: str
    ref: Callable[..., float | int]
    arity: int = 1
    kind: str = "exact"            # "exact" or the name of a math function (ulp bound)
    ys: list | None = None         # second operands, when not the type's edges
    note: str = ""
    key: str = field(default="")

    def __post_init__(self) -> None:
        if not self.key:
            self.key = f"{self.label} [{self.ty}]"


def _int_cases(ty: str) -> list[Case]:
    w = (lambda f: (lambda a, b: wrap(f(a, b), ty)))
    c = [
        Case("x + y", ty, ty, "x + y", w(lambda a, b: a + b), 2),
        Case("x - y", ty, ty, "x - y", w(lambda a, b: a - b), 2),
        Case("x * y", ty, ty, "x * y", w(lambda a, b: a * b), 2),
        Case("x // y", ty, ty, "x // y", lambda a, b: floordiv_int(a, b, ty), 2),
        Case("x % y", ty, ty, "x % y", lambda a, b: mod_int(a, b, ty), 2),
        Case("x & y", ty, ty, "x & y", w(lambda a, b: a & b), 2),
        Case("x | y", ty, ty, "x | y", w(lambda a, b: a | b), 2),
        Case("x ^ y", ty, ty, "x ^ y", w(lambda a, b: a ^ b), 2),
        Case("x << y", ty, ty, "x << y", w(lambda a, b: a << b), 2, ys=SHIFT_COUNTS),
        Case("x >> y", ty, ty, "x >> y", w(lambda a, b: a >> b), 2, ys=SHIFT_COUNTS),
        Case("~x", ty, ty, "~x", lambda a: wrap(~a, ty)),
        Case("min(x, y)", ty, ty, "min(x, y)", pymin, 2),
        Case("max(x, y)", ty, ty, "max(x, y)", pymax, 2),
        Case("x < y", ty, "bool", "x < y", lambda a, b: a < b, 2),
        Case("x <= y", ty, "bool", "x <= y", lambda a, b: a <= b, 2),
        Case("x == y", ty, "bool", "x == y", lambda a, b: a == b, 2),
        Case("x != y", ty, "bool", "x != y", lambda a, b: a != b, 2),
        Case("x ** 3", ty, ty, "x ** 3", lambda a: wrap(a ** 3, ty)),
        Case("ps.popcount(x)", ty, ty, "ps.popcount(x)", lambda a: (a & U32_MAX).bit_count()),
        Case("ps.count_leading_zeros(x)", ty, ty, "ps.count_leading_zeros(x)", clz),
        Case("ps.reverse_bits(x)", ty, ty, "ps.reverse_bits(x)", lambda a: rev(a, ty)),
        Case("f32(x)", ty, "f32", "f32(x)", lambda a: f32(a)),
        Case("bool(x)", ty, "bool", "bool(x)", lambda a: a != 0),
    ]
    if ty == "i32":
        c += [Case("-x", ty, ty, "-x", lambda a: wrap(-a, ty)),
              Case("abs(x)", ty, ty, "abs(x)", lambda a: wrap(abs(a), ty)),
              Case("u32(x)", ty, "u32", "u32(x)", lambda a: wrap(a, "u32"))]
    else:
        c += [Case("i32(x)", ty, "i32", "i32(x)", lambda a: wrap(a, "i32"))]
    return c


def _float_cases() -> list[Case]:
    ty = "f32"
    r = (lambda f: (lambda a, b: f32(ieee(f, a, b))))

    def m1(name: str, gpu: Callable[[float], float] | None = None) -> Case:
        fn = getattr(math, name)
        gpu = gpu or (lambda a: ieee(lambda p, q: getattr(np, NP.get(name, name))(p), a, 0))
        if name in IEEE_ONLY:     # IEEE's special values on the cpu device too
            return Case(f"math.{name}(x)", ty, ty, f"math.{name}(x)", gpu, kind=name)
        return Case(f"math.{name}(x)", ty, ty, f"math.{name}(x)",
                    lambda a: math_ref(fn, a, gpu=gpu(a)), kind=name)

    def m2(name: str, gpu: Callable[[float, float], float]) -> Case:
        fn = getattr(math, name)
        return Case(f"math.{name}(x, y)", ty, ty, f"math.{name}(x, y)",
                    lambda a, b: math_ref(fn, a, b, gpu=gpu(a, b)), 2, kind=name)

    c = [
        Case("x + y", ty, ty, "x + y", r(np.add), 2),
        Case("x - y", ty, ty, "x - y", r(np.subtract), 2),
        Case("x * y", ty, ty, "x * y", r(np.multiply), 2),
        Case("x / y", ty, ty, "x / y", r(np.divide), 2, kind="divide"),
        Case("x // y", ty, ty, "x // y", f_floordiv, 2),
        Case("x % y", ty, ty, "x % y", f_mod, 2),
        Case("-x", ty, ty, "-x", lambda a: -a),
        Case("abs(x)", ty, ty, "abs(x)", abs),
        Case("min(x, y)", ty, ty, "min(x, y)", pymin, 2),
        Case("max(x, y)", ty, ty, "max(x, y)", pymax, 2),
        Case("x < y", ty, "bool", "x < y", lambda a, b: a < b, 2),
        Case("x <= y", ty, "bool", "x <= y", lambda a, b: a <= b, 2),
        Case("x == y", ty, "bool", "x == y", lambda a, b: a == b, 2),
        Case("x != y", ty, "bool", "x != y", lambda a, b: a != b, 2),
        Case("x ** 2", ty, ty, "x ** 2", lambda a: f32(a * a)),
        Case("round(x)", ty, ty, "round(x)", pyround),
        Case("math.floor(x)", ty, ty, "math.floor(x)",
             lambda a: a if not math.isfinite(a) else math.copysign(math.floor(a), a)),
        Case("math.ceil(x)", ty, ty, "math.ceil(x)",
             lambda a: a if not math.isfinite(a) else math.copysign(math.ceil(a), a)),
        Case("math.trunc(x)", ty, ty, "math.trunc(x)",
             lambda a: a if not math.isfinite(a) else math.copysign(math.trunc(a), a)),
        Case("math.fabs(x)", ty, ty, "math.fabs(x)", abs),
        Case("math.sqrt(x)", ty, ty, "math.sqrt(x)",
             lambda a: f32(ieee(lambda p, q: np.sqrt(p), a, 0)), kind="sqrt"),
        Case("math.copysign(x, y)", ty, ty, "math.copysign(x, y)", math.copysign, 2),
        Case("math.isnan(x)", ty, "bool", "math.isnan(x)", math.isnan),
        Case("math.isinf(x)", ty, "bool", "math.isinf(x)", math.isinf),
        Case("i32(x)", ty, "i32", "i32(x)", lambda a: to_int(a, "i32")),
        Case("u32(x)", ty, "u32", "u32(x)", lambda a: to_int(a, "u32")),
        Case("bool(x)", ty, "bool", "bool(x)", lambda a: a != 0),
        Case("ps.bitcast(u32, x)", ty, "u32", "ps.bitcast(u32, x)", bits_f32,
             note="NaN's payload may change on a GPU"),
        Case("ps.step(y, x)", ty, ty, "ps.step(y, x)",
             lambda a, b: 0.0 if a < b else 1.0, 2, kind="step"),
        Case("ps.clamp(x, -1.0, 2.5)", ty, ty, "ps.clamp(x, -1.0, 2.5)",
             lambda a: pymin(pymax(a, -1.0), 2.5)),
        Case("ps.fma(x, y, -0.1)", ty, ty, "ps.fma(x, y, -0.1)", fma_ref, 2),
        Case("ps.select(x, y, x < y)", ty, ty, "ps.select(x, y, x < y)",
             lambda a, b: b if a < b else a, 2),
        Case("ps.mix(x, y, 0.25)", ty, ty, "ps.mix(x, y, 0.25)", mix_ref, 2, kind="mix"),
        Case("ps.smoothstep(-1.0, 2.5, x)", ty, ty, "ps.smoothstep(-1.0, 2.5, x)",
             smoothstep_ref, kind="smoothstep"),
        Case("ps.dot(vec2(x, y), vec2(y, 0.5))", ty, ty, "ps.dot(vec2(x, y), vec2(y, 0.5))",
             lambda a, b: _dot32((a, b), (b, 0.5)), 2, kind="dot"),
        Case("ps.cross(vec3(x, y, 1.0), vec3(y, 2.0, x)).z", ty, ty,
             "ps.cross(vec3(x, y, 1.0), vec3(y, 2.0, x)).z", cross_z_ref, 2, kind="cross"),
        Case("ps.length(vec2(x, y))", ty, ty, "ps.length(vec2(x, y))",
             lambda a, b: _length32((a, b)), 2, kind="length"),
        Case("ps.distance(vec2(x, 1.0), vec2(y, 0.5))", ty, ty,
             "ps.distance(vec2(x, 1.0), vec2(y, 0.5))",
             lambda a, b: _length32((f32(ieee(np.subtract, a, b)), 0.5)), 2, kind="distance"),
        Case("ps.normalize(vec2(x, y)).x", ty, ty, "ps.normalize(vec2(x, y)).x",
             normalize_x_ref, 2, kind="normalize"),
        Case("any(bvec2(x < y, x == 1.0))", ty, "bool", "any(bvec2(x < y, x == 1.0))",
             lambda a, b: a < b or a == 1.0, 2),
        Case("all(bvec2(x <= y, y != 0.0))", ty, "bool", "all(bvec2(x <= y, y != 0.0))",
             lambda a, b: a <= b and b != 0.0, 2),
    ]
    for name in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                 "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2",
                 "log10", "log1p", "degrees", "radians", "erf", "erfc"):
        c.append(m1(name, GPU_SPECIAL.get(name)))
    c.append(m2("atan2", lambda a, b: ieee(np.arctan2, a, b)))
    c.append(Case("math.pow(x, y)", ty, ty, "math.pow(x, y)", f_pow, 2, kind="pow"))
    c.append(m2("hypot", lambda a, b: ieee(np.hypot, a, b)))
    c.append(m2("fmod", lambda a, b: ieee(np.fmod, a, b)))
    return c


# The functions whose special values are IEEE's on the cpu device too (docs/language.md:
# "older" ones); the others raise where Python raises.
IEEE_ONLY = {"sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "log2"}
NP = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
      "acosh": "arccosh", "atanh": "arctanh", "erf": "", "erfc": ""}
# The GPU's value where Python raises, for the functions numpy lacks or spells otherwise.
GPU_SPECIAL: dict[str, Callable[[float], float]] = {
    "erf": math.erf, "erfc": math.erfc, "degrees": math.degrees, "radians": math.radians,
}


def cases() -> list[Case]:
    """Every case of the table, integers first."""
    return [*_int_cases("i32"), *_int_cases("u32"), *_float_cases()]
