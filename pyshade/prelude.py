"""The prelude: Python's semantics of operators and builtins, written once in the
kernel language for every GPU target.

After typing, the frontend replaces ``a // b``, ``a % b``, ``x ** n``, signed
and float ``min``/``max``/``clamp``/``abs``, ``int(f32)`` and ``math.isnan``/
``math.isinf`` by calls of these functions (``frontend/prelude_calls.py``).
They then go through the ordinary helper path: monomorphised per argument
types (scalars and vectors alike), named, placed before their callers and
line-mapped to this file, so an emitter translates them exactly as it
translates a user's helper and needs no semantics of its own.

The ``python`` target keeps Python's own operators (the CPU device is the
reference, with its errors: ZeroDivisionError...); tests run these functions
on the CPU device and compare them with Python on edge values.

Rules for this file:

- Only operators the prelude does not replace: ``+ - *``, bit operations,
  shifts, comparisons, float ``/``, ``math.floor`` and ``select``, plus the
  primitives of ``lang`` below (``tdiv``, ``bits``, ``convert``), each of
  which has one spelling per target. Using ``//``, ``%``, ``**``, ``min``...
  here is an error: it would call itself.
- Branch-free where a vector may come in (a condition must be a scalar bool):
  ``select`` evaluates both sides, so every operand must be defined for every
  input, which is why divisors are guarded here (C-family targets leave
  ``x / 0`` and ``MIN / -1`` undefined, and optimisers exploit that).
- A remainder is ``a - q * b``, never the target's ``%``: on NVIDIA's Vulkan
  driver (through naga) i32 ``%`` gave unsigned remainders for negative
  operands (``bench/probes/floordiv_probe.py``); ``/`` was right.
- ``T(0)`` with ``T`` a TypeVar is the zero of whatever ``T`` is bound to.
"""

from __future__ import annotations

import math
from typing import TypeVar

from . import lang
from .lang import atomic_compare_exchange, select, target
from .types import f32, u32

T = TypeVar("T")        # any numeric scalar or vector type
F = TypeVar("F")        # a float scalar or vector type
I = TypeVar("I")        # noqa: E741 - an integer scalar or vector type
# The bits of an f32 (vector). Its own TypeVar: a helper's call inherits its caller's
# bindings, and ps_float_to_int's I may be u32 where the bits are i32.
B = TypeVar("B")
U = TypeVar("U")        # the unsigned integer (vector) type of an integer's width

tdiv = lang._tdiv
bits = lang._bits
convert = lang._convert
smin = lang._smin
smax = lang._smax


# -- division -------------------------------------------------------------------------
def ps_trunc_div(a: T, b: T) -> T:
    """Signed ``a / b`` rounded toward zero, defined for every operand: ``x / 0`` is ``x``
    and ``MIN / -1`` wraps to ``MIN`` (WGSL's rules; naga and Tint guard alike)."""
    one = T(1)
    neg = b == -one
    q = tdiv(a, select(b, one, (b == T(0)) | neg))
    return select(q, T(0) - q, neg)


def ps_floordiv_signed(a: T, b: T) -> T:
    """Python's ``a // b`` of signed integers, rounded toward -inf; ``x // 0`` is ``x``."""
    q = ps_trunc_div(a, b)
    r = a - q * b
    zero = T(0)
    return select(q, q - T(1), (r != zero) & ((r < zero) != (b < zero)) & (b != zero))


def ps_mod_signed(a: T, b: T) -> T:
    """Python's ``a % b`` of signed integers: the remainder has the divisor's sign."""
    r = a - ps_trunc_div(a, b) * b
    zero = T(0)
    return select(r, r + b, (r != zero) & ((r < zero) != (b < zero)))


def ps_floordiv_unsigned(a: T, b: T) -> T:
    """``a // b`` of unsigned integers (``x // 0`` is ``x``)."""
    return tdiv(a, select(b, T(1), b == T(0)))


def ps_mod_unsigned(a: T, b: T) -> T:
    """``a % b`` of unsigned integers, as ``a - (a // b) * b``."""
    return a - ps_floordiv_unsigned(a, b) * b


def ps_floordiv_float(a: F, b: F) -> F:
    """Python's float ``a // b``: ``floor(a / b)`` corrected by the remainder, since GPU
    division may be off by ulps (Vulkan allows 2.5)."""
    zero = F(0.0)
    one = F(1.0)
    q = math.floor(a / b)
    r = a - q * b
    pos = b > zero
    dec = select(r > zero, r < zero, pos)
    inc = select((b < zero) & (r <= b), r >= b, pos)
    return select(select(q, q + one, inc), q - one, dec)


def ps_mod_float(a: F, b: F) -> F:
    """Python's float ``a % b`` (the sign of the divisor): ``a - b * (a // b)``."""
    return a - b * ps_floordiv_float(a, b)


def ps_pow(x: T, n: u32) -> T:
    """Float ``x ** n`` for a constant ``n``: n - 1 multiplications, left to right (integers
    use ps_pow_unsigned and ps_pow_signed)."""
    if n == 0:
        return T(1)
    r = x
    for _i in range(1, n):
        r = r * x
    return r


def ps_pow_unsigned(x: T, n: u32) -> T:
    """``x ** n`` of unsigned integers (scalar or vector) by squaring, which wraps to the
    same bits as n - 1 multiplications. Not ps_pow's counted loop: NVIDIA's Vulkan driver
    (580) unrolled and folded that loop for a constant ``x`` and then negated the result
    wrongly (-(2147483647 ** 3) gave 2147483647; the same with a loop over a fixed bit
    count; bench/probes/nvidia_vulkan_fold_probe.py); this loop's shape it folds right."""
    r = T(1)
    b = x
    e = n
    while e != u32(0):
        if (e & u32(1)) != u32(0):
            r = r * b
        b = b * b
        e = e >> u32(1)
    return r


def ps_pow_signed(x: T, n: u32, unsigned_zero: U) -> T:
    """Signed ``x ** n``: computed in the unsigned type of the same width (``unsigned_zero``
    names it), which wraps to the same bits without signed overflow, which SPIR-V's
    consumers may treat as undefined."""
    b = convert(U, x)
    r = U(1)
    e = n
    while e != u32(0):          # ps_pow_unsigned's loop: a call would bind its T to this T
        if (e & u32(1)) != u32(0):
            r = r * b
        b = b * b
        e = e >> u32(1)
    return convert(T, r)


# -- min, max, clamp, abs -----------------------------------------------------------------
# Signed integers use select, not the targets' min/max: on NVIDIA's Vulkan driver a
# nested min(a, min(b, c)) of i32 gave wrong results while each pairwise min was right
# (bench/probes/nvidia_last_line_probe.py). Unsigned integers keep the native min/max.
# On CUDA they are inline PTX instead (lang.smin/smax): the H200's ptxas got
# clamp(max(-x, x), lo, hi) wrong as its min/max instruction (bench/probes/cuda_diff_probe.py).
def ps_min_signed(a: T, b: T) -> T:
    """``min(a, b)`` of signed integers."""
    if target == "cuda":
        return smin(a, b)
    return select(b, a, a < b)


def ps_max_signed(a: T, b: T) -> T:
    """``max(a, b)`` of signed integers."""
    if target == "cuda":
        return smax(a, b)
    return select(b, a, a > b)


def ps_clamp_signed(x: T, lo: T, hi: T) -> T:
    """``min(max(x, lo), hi)`` of signed integers."""
    return ps_min_signed(ps_max_signed(x, lo), hi)


def ps_abs_signed(x: T) -> T:
    """``abs(x)`` of a signed integer; ``abs(MIN)`` wraps to ``MIN``. Not the targets' abs:
    Mesa (llvmpipe) assumes abs(x) >= 0 and folds what follows (abs(abs(x) >> 31) gave -1
    for x = -2**31)."""
    if target == "cuda":
        return smax(x, -x)          # -MIN wraps to MIN: max(MIN, MIN) is MIN, as wanted
    return select(x, -x, x < T(0))


def ps_key_before(x: B, y: B):  # noqa: ANN202 - bool or a bool vector, as B is
    """True where the f32 whose bits are ``x`` sorts strictly before the one of ``y``,
    compared on order-preserving integer keys; false when either is NaN or both are zeros
    (Python's ``b if b < a else a`` then keeps ``a``)."""
    mag = B(0x7fffffff)
    inf = B(0x7f800000)
    kx = x ^ ((x >> 31) & mag)
    ky = y ^ ((y >> 31) & mag)
    ordered = ((x & mag) <= inf) & ((y & mag) <= inf) & (((x | y) & mag) != B(0))
    return (kx < ky) & ordered


# Floats: Python's min(a, b) is b if b < a else a (max: b > a), so NaN in either position
# and -0.0 against 0.0 give the first argument. The comparison is made on the bits:
# NVIDIA's driver turned select(a, b, b < a) into a min instruction (min(0.0, -0.0) gave
# -0.0), and drivers may flush subnormals in float comparisons.
def ps_min_float(a: F, b: F) -> F:
    """Python's ``min(a, b)`` of f32 values (scalars or vectors)."""
    return select(a, b, ps_key_before(bits(b), bits(a)))


def ps_max_float(a: F, b: F) -> F:
    """Python's ``max(a, b)`` of f32 values (scalars or vectors)."""
    return select(a, b, ps_key_before(bits(a), bits(b)))


def ps_clamp_float(x: F, lo: F, hi: F) -> F:
    """``min(max(x, lo), hi)`` of f32 values."""
    return ps_min_float(ps_max_float(x, lo), hi)


def ps_min_plain(a: F, b: F) -> F:
    """Python's ``min(a, b)`` of a float type without an integer of its width (f16)."""
    return select(a, b, b < a)


def ps_max_plain(a: F, b: F) -> F:
    """Python's ``max(a, b)`` of a float type without an integer of its width (f16)."""
    return select(a, b, b > a)


def ps_clamp_plain(x: F, lo: F, hi: F) -> F:
    """``min(max(x, lo), hi)`` of a float type without an integer of its width (f16)."""
    return ps_min_plain(ps_max_plain(x, lo), hi)


# -- conversions and classification -----------------------------------------------------
def ps_nan_bits(i: B):  # noqa: ANN202 - bool or a bool vector, as B is
    """True where the f32 bits ``i`` are a NaN."""
    return (i & B(0x7fffffff)) > B(0x7f800000)


def ps_inf_bits(i: B):  # noqa: ANN202 - bool or a bool vector, as B is
    """True where the f32 bits ``i`` are an infinity."""
    return (i & B(0x7fffffff)) == B(0x7f800000)


def ps_float_to_int(x: F, bottom: I, top: I) -> I:
    """``int(x)`` of an f32 as the CPU device computes it: truncation toward zero,
    saturating at ``[bottom, top]``, NaN gives 0. Only in-range values reach the target's
    conversion (out of range it is undefined in C, and WGSL saturates below ``top``). NaN
    is tested on the bits: drivers may assume ``x != x`` is false."""
    lo = convert(F, bottom)
    hi = convert(F, top)
    v = convert(I, select(F(0.0), x, (x > lo) & (x < hi)))
    v = select(select(v, top, x >= hi), bottom, x <= lo)
    return select(v, I(0), ps_nan_bits(bits(x)))


def ps_isnan(x: F):  # noqa: ANN201 - bool or a bool vector, as F is
    """``math.isnan`` of f32 on the bits: drivers may assume that no NaN occurs."""
    return ps_nan_bits(bits(x))


def ps_isinf(x: F):  # noqa: ANN201 - bool or a bool vector, as F is
    """``math.isinf`` of f32 on the bits."""
    return ps_inf_bits(bits(x))


def ps_isnan_plain(x: F):  # noqa: ANN201 - bool or a bool vector, as F is
    """``math.isnan`` of a float type without an integer of its width (f16)."""
    return x != x  # noqa: PLR0124 - the NaN test


def ps_isinf_f16(x: F):  # noqa: ANN201 - bool or a bool vector, as F is
    """``math.isinf`` of f16: beyond the largest finite f16."""
    return math.fabs(x) > F(65504.0)


# -- f32 atomics ------------------------------------------------------------------------
# What a target has no f32 instruction for (``Target.float_atomics``) is a compare-exchange
# loop on the element: read it, compute the new value as the operation does outside
# atomics (ps_min_float for min: NaN and -0.0 as in Python), store it if the element still
# holds the bits read, else retry with what it holds now. f32 compare-exchange compares
# bits, so a NaN element is replaced like any other.
def ps_cas_float(buf, i, expected: f32, desired: f32) -> f32:
    """``atomic_compare_exchange(buf, i, expected, desired)`` of an f32 element; nothing is
    stored where ``desired`` has the bits of ``expected`` (min and max mostly leave the
    element as it is)."""
    if bits(desired) == bits(expected):
        return expected
    return atomic_compare_exchange(buf, i, expected, desired)


def ps_atomic_add_float(buf, i, v: f32) -> f32:
    """``atomic_add`` of an f32 element where the target has no f32 add (all but CUDA):
    ``cur + v`` in a compare-exchange loop."""
    cur = buf[i]
    seen = ps_cas_float(buf, i, cur, cur + v)
    while bits(seen) != bits(cur):
        cur = seen
        seen = ps_cas_float(buf, i, cur, cur + v)
    return cur


def ps_atomic_sub_float(buf, i, v: f32) -> f32:
    """``atomic_sub`` of an f32 element where the target has no f32 add (all but CUDA):
    the ``atomic_add`` of ``-v`` (``x - y`` is ``x + -y`` in IEEE arithmetic)."""
    return ps_atomic_add_float(buf, i, -v)


def ps_atomic_min_float(buf, i, v: f32) -> f32:
    """``atomic_min`` of an f32 element: Python's ``min(cur, v)`` (``ps_min_float``) in a
    compare-exchange loop."""
    cur = buf[i]
    seen = ps_cas_float(buf, i, cur, ps_min_float(cur, v))
    while bits(seen) != bits(cur):
        cur = seen
        seen = ps_cas_float(buf, i, cur, ps_min_float(cur, v))
    return cur


def ps_atomic_max_float(buf, i, v: f32) -> f32:
    """``atomic_max`` of an f32 element: Python's ``max(cur, v)`` (``ps_max_float``) in a
    compare-exchange loop."""
    cur = buf[i]
    seen = ps_cas_float(buf, i, cur, ps_max_float(cur, v))
    while bits(seen) != bits(cur):
        cur = seen
        seen = ps_cas_float(buf, i, cur, ps_max_float(cur, v))
    return cur


def ps_float_to_int_plain(x: F, bottom: I, top: I) -> I:
    """``ps_float_to_int`` of f64 (NaN as ``x != x``; f16 goes through f32). Out of range
    the target's conversion is undefined: f16 -> u32 of -9.0 gave 0xfffffff7 on lavapipe
    (fuzz seed 20261204 kernel 10)."""
    lo = convert(F, bottom)
    hi = convert(F, top)
    v = convert(I, select(F(0.0), x, (x > lo) & (x < hi)))
    v = select(select(v, top, x >= hi), bottom, x <= lo)
    return select(v, I(0), x != x)  # noqa: PLR0124 - the NaN test


# -- last in the file, so that generated code's line references above stay ------------
def ps_isinf_f64(x: F):  # noqa: ANN201 - bool or a bool vector, as F is
    """``math.isinf`` of f64: beyond the largest finite f64 (GLSL, HLSL and CUDA's
    spellings of ``isinf`` are f32 only)."""
    return math.fabs(x) > F(1.7976931348623157e308)
