"""The math prelude: Python's ``math`` functions that a GPU target lacks, or has only with
an accuracy its API leaves to formulas that fail, written once in the kernel language.

A target's spelling table (``pyshade/emit/spellings/``) marks such a builtin ``PRELUDE``;
the frontend then calls ``ps_<name>`` of this module instead (``frontend/prelude_calls.py``),
which goes through the ordinary helper path as ``pyshade.prelude`` does: monomorphised,
named, line-mapped to this file. These functions are written for f32 scalars and vectors:
an f16 argument is converted to f32 and the result rounded back to f16 (one rounding of
an f32 result, as CUDA computes f16 math), and f64 is refused on the targets that need
this module (WGSL and MSL have no f64; GLSL and HLSL have no f64 transcendentals).

They do not lean on the accuracy of the target's ``exp`` and ``log``: Vulkan and WebGPU
allow an error of 3 + 2|x| ulp for ``exp(x)`` and only an absolute 2**-21 for ``log``
near 1, which makes ``exp(x) - 1`` and ``log(1 + x)`` useless for small x. exp is
reduced by Cody and Waite's method to ``2**k * exp(r)``, ``|r| <= ln(2)/2``, with a
Taylor polynomial for ``exp(r) - 1``; log splits the bits into ``2**k * m``,
``m`` in ``[sqrt(2)/2, sqrt(2))``, with the series of ``2 * atanh(f / (2 + f))``,
``f = m - 1``, as fdlibm does. The measured errors (docs/language.md) hold on every
device that rounds ``+ - * /`` and ``sqrt`` correctly, whatever its ``exp``/``log``.

Rules for this file, besides those of ``pyshade.prelude``:

- Every operation of the kernel language may be used (``min``, ``abs``, ``math.isnan``
  go to ``pyshade.prelude`` as in a user's kernel), and the ``math`` functions are the
  target's own: a function here that needs another one a target lacks calls its
  ``ps_*`` function directly (routing ``math.expm1`` here to ``ps_expm1`` would
  recurse).
- Branch-free (``select``) so that a vector argument works, except ``ps_fmod`` (a loop
  per value): the frontend calls ``ps_fmod_vecN`` for vectors, which applies it per
  component.
- Helpers that are not a ``math`` function are named ``ps_m_*`` (``docs/builtins.md``
  lists ``ps_<name>*`` under ``math.<name>``).
- No result may depend on a compensation such as ``x - ((1 + x) - 1)``: Mesa's optimiser
  folds it to 0 (WGSL cannot mark an operation exact), so small arguments take paths
  that need none (``ps_log1p``).
"""

from __future__ import annotations

import math
from typing import TypeVar

from . import lang
from .lang import select

F = TypeVar("F")        # f32 or an f32 vector (any float type in ANY_FLOAT's functions)
# An f32 vector, in the per-component wrappers: a helper's call inherits its caller's
# bindings, so the scalar function they call keeps F for f32.
V = TypeVar("V")

bits = lang._bits
from_bits = lang._from_bits


class Prelude:
    """The spelling-table entry of a ``math`` builtin that the target lacks: the frontend
    calls this module's ``ps_<name>`` instead."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "PRELUDE"


PRELUDE = Prelude()
"""The one ``Prelude`` entry (``"math.expm1": PRELUDE`` in a spelling table)."""

SCALAR_ONLY = frozenset({"fmod"})
"""Functions written for scalars: a vector call goes to ``ps_<name>_vecN``."""
ANY_FLOAT = frozenset({"degrees", "radians"})
"""Functions written for every float type (one multiplication): f16 and f64 go as they are."""

# ln(2) split so that k * _LN2_HI is exact for |k| < 256 (16 significant bits).
_LN2_HI = 0.693145751953125
_LN2_LO = 1.4286068202862268e-06
_LOG2E = 1.4426950408889634
_LN2 = 0.6931471805599453
_LOG10_2_HI = 0.301025390625          # log10(2) with 12 significant bits
_LOG10_2_LO = 4.6050389811980175e-06
_INV_LN10 = 0.4342944819032518
_SQRT2 = 1.4142135623730951
_MAGIC = 12582912.0                   # 1.5 * 2**23: adding it puts an integer in the low bits
_TINY = 1.1754943508222875e-38        # the smallest normal f32
_BIG = 4096.0                         # above it asinh(x) is log(2x), acosh too


# -- exp ------------------------------------------------------------------------------
def ps_m_pow2(k: F) -> F:
    """``2 ** k`` for an integral ``k`` in ``[-126, 127]``, made from its bits (exact, also
    where the target's ``exp2`` of an integer is not)."""
    e = bits(k + F(_MAGIC + 127.0)) - bits(F(_MAGIC))
    return from_bits(e << 23)


def ps_m_exp_k(x: F) -> F:
    """``k = round(x / ln(2))`` of ``x`` clamped to ``[-110, 89]``: ``e**x = 2**k * e**r``."""
    xc = select(select(x, F(89.0), x > F(89.0)), F(-110.0), x < F(-110.0))
    return math.floor(xc * F(_LOG2E) + F(0.5))


def ps_m_exp_p(x: F, k: F) -> F:
    """``exp(r) - 1`` for ``r = x - k * ln(2)`` (``x`` clamped as for ``k``), ``|r| <=
    0.347``, by Taylor's series to ``r**8`` (the next term is under 2**-32 of ``r``);
    ``k * ln(2)`` in two parts (Cody and Waite), the first exact."""
    xc = select(select(x, F(89.0), x > F(89.0)), F(-110.0), x < F(-110.0))
    r = (xc - k * F(_LN2_HI)) - k * F(_LN2_LO)
    q = F(1.0 / 40320.0)
    q = q * r + F(1.0 / 5040.0)
    q = q * r + F(1.0 / 720.0)
    q = q * r + F(1.0 / 120.0)
    q = q * r + F(1.0 / 24.0)
    q = q * r + F(1.0 / 6.0)
    q = q * r + F(0.5)
    return r + r * r * q


def ps_m_exp(x: F) -> F:
    """``e ** x`` within about an ulp, subnormal results included (``2 ** k`` is applied in
    two steps where it would be subnormal)."""
    k = ps_m_exp_k(x)
    p = ps_m_exp_p(x, k)
    low = k < F(-120.0)
    h = ps_m_pow2(select(k, k + F(64.0), low) - F(1.0))
    e = (h * (F(1.0) + p)) * select(F(2.0), F(2.0 ** -63), low)
    return select(e, x, math.isnan(x))


def ps_expm1(x: F) -> F:
    """Python's ``math.expm1``: ``2**k * p + (2**k - 1)`` with one rounding, accurate for
    small ``x`` (``expm1(-0.0)`` is -0.0), -1 below -18, inf above ``log(MAX)``."""
    k = ps_m_exp_k(x)
    p = ps_m_exp_p(x, k)
    h = ps_m_pow2(k - F(1.0))              # 2**k / 2: k = 128 stays finite until the end
    e = ((h - F(0.5)) + h * p) * F(2.0)
    e = select(e, F(-1.0), x < F(-18.0))
    return select(e, x, (x == F(0.0)) | math.isnan(x))


# -- log ------------------------------------------------------------------------------
# A positive finite u (subnormals too) is 2**k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2)):
# ps_m_log_k gives k, ps_m_log_f gives f (both exact).
def ps_m_log_bits(u: F):  # noqa: ANN201 - the i32 (vector) of u's shape
    """The bits of ``u`` (made normal: subnormals times 2**25), offset so that the
    exponent field is ``k + 127`` and the fraction field that of ``1 + f``."""
    us = select(u, u * F(33554432.0), u < F(_TINY))
    return bits(us) + (0x3F800000 - 0x3F3504F3)


def ps_m_log_k(u: F) -> F:
    """``k`` of ``u = 2**k * (1 + f)``."""
    k = from_bits(((ps_m_log_bits(u) >> 23) - 127) + 0x4B400000) - F(_MAGIC)
    return k - select(F(0.0), F(25.0), u < F(_TINY))


def ps_m_log_f(u: F) -> F:
    """``f`` of ``u = 2**k * (1 + f)``."""
    return from_bits((ps_m_log_bits(u) & 0x007FFFFF) + 0x3F3504F3) - F(1.0)


def ps_m_log1p_tail(f: F) -> F:
    """``t`` with ``log(1 + f) = f - t`` for ``f`` in ``[sqrt(2)/2 - 1, sqrt(2) - 1)``:
    ``t = f*f/2 - s * (f*f/2 + R(s*s))``, ``s = f / (2 + f)``, R the series of
    ``2 * atanh(s) / s - 2`` to ``s**8`` (musl's minimax coefficients for f32)."""
    s = f / (F(2.0) + f)
    z = s * s
    w = z * z
    t1 = w * (F(0.40000972152) + w * F(0.24279078841))
    t2 = z * (F(0.66666662693) + w * F(0.28498786688))
    hfsq = F(0.5) * f * f
    return hfsq - s * (hfsq + (t1 + t2))


def ps_log1p(x: F) -> F:
    """Python's ``math.log1p`` (-inf at -1, nan below): ``x - tail(x)`` where ``1 + x`` is in
    ``[sqrt(2)/2, sqrt(2))``; elsewhere ``u = 1 + x`` split as ``2**k * (1 + f)``, plus the
    rounding error of ``u`` (``c / u``, under 0.2 ulp there: Mesa's optimiser folds
    ``x - (u - 1)`` to 0, which is why small ``x`` never goes through ``u``)."""
    near = (x > F(_SQRT2 / 2.0 - 1.0)) & (x < F(_SQRT2 - 1.0))
    xn = select(F(0.0), x, near)
    u = F(1.0) + select(x, F(1.0), near)
    k = ps_m_log_k(u)
    f = ps_m_log_f(u)
    c = select(x - (u - F(1.0)), F(1.0) - (u - x), k > F(0.0)) / u
    r = k * F(_LN2_HI) + (f - (ps_m_log1p_tail(f) - (k * F(_LN2_LO) + c)))
    r = select(r, xn - ps_m_log1p_tail(xn), near)
    r = select(r, x, (x == F(math.inf)) | math.isnan(x))
    return select(select(r, F(-math.inf), x == F(-1.0)), F(math.nan), x < F(-1.0))


def ps_m_log(x: F) -> F:
    """``log(x)`` of a positive finite ``x``, split as in ``ps_log1p``."""
    k = ps_m_log_k(x)
    f = ps_m_log_f(x)
    return k * F(_LN2_HI) + (f - (ps_m_log1p_tail(f) - k * F(_LN2_LO)))


def ps_log10(x: F) -> F:
    """Python's ``math.log10`` (-inf at 0, nan below): ``k * log10(2) + log(1 + f) /
    ln(10)`` with ``log10(2)`` split in two."""
    k = ps_m_log_k(x)
    f = ps_m_log_f(x)
    r = k * F(_LOG10_2_HI) + (k * F(_LOG10_2_LO) + (f - ps_m_log1p_tail(f)) * F(_INV_LN10))
    r = select(r, x, (x == F(math.inf)) | math.isnan(x))
    return select(select(r, F(-math.inf), x == F(0.0)), F(math.nan), x < F(0.0))


# -- hyperbolic -------------------------------------------------------------------------
# Mesa computes the SPIR-V (GLSL.std.450) hyperbolics by their textbook formulas: lavapipe
# gave tanh(1e-38) = 2.98e-08, sinh and atanh of small x off by millions of ulp, and
# asinh(1.9e19) = inf (x*x overflows). WebGPU and Vulkan allow that ("inherited from"
# the formulas), so WGSL, GLSL and HLSL use these.
def ps_sinh(x: F) -> F:
    """Python's ``math.sinh``: ``(E + E / (E + 1)) / 2`` of ``E = expm1(|x|)`` (``E - E*E /
    (E + 1) / 2`` below 1), ``(w / 2) * w`` of ``w = exp(|x| / 2)`` above 88 (finite up to
    89.4), with the sign of ``x``."""
    a = math.fabs(x)
    e = ps_expm1(select(a, F(0.0), a > F(88.0)))
    r = select(F(0.5) * (e + e / (e + F(1.0))), e - F(0.5) * (e * e / (e + F(1.0))),
               a < F(1.0))
    w = ps_m_exp(F(0.5) * select(F(0.0), a, a > F(88.0)))
    r = select(r, (F(0.5) * w) * w, a > F(88.0))
    return ps_copysign(select(r, x, math.isnan(x)), x)


def ps_cosh(x: F) -> F:
    """Python's ``math.cosh``: ``t/2 + 1/(2t)`` of ``t = exp(|x|)``, ``(w / 2) * w`` of
    ``w = exp(|x| / 2)`` above 88."""
    a = math.fabs(x)
    t = ps_m_exp(select(a, F(0.0), a > F(88.0)))
    w = ps_m_exp(F(0.5) * select(F(0.0), a, a > F(88.0)))
    r = select(F(0.5) * t + F(0.5) / t, (F(0.5) * w) * w, a > F(88.0))
    return select(r, a, math.isnan(x))


def ps_tanh(x: F) -> F:
    """Python's ``math.tanh``: ``1 - 2 / (expm1(2a) + 2)`` of ``a = |x|`` from 1,
    ``-t / (t + 2)`` of ``t = expm1(-2a)`` below, 1 above 9 (as fdlibm), with the sign of
    ``x``; tanh(+-inf) is +-1."""
    a = math.fabs(x)
    t = ps_expm1(select(F(-2.0) * a, F(2.0) * a, a >= F(1.0)))
    r = select(-t / (t + F(2.0)), F(1.0) - F(2.0) / (t + F(2.0)), a >= F(1.0))
    r = select(r, F(1.0), a > F(9.0))
    return ps_copysign(select(r, x, math.isnan(x)), x)


def ps_asinh(x: F) -> F:
    """Python's ``math.asinh``: ``log1p(a + a*a / (1 + sqrt(1 + a*a)))`` of ``a = |x|``,
    ``log(a) + ln(2)`` above 4096, with the sign of ``x``."""
    a = math.fabs(x)
    big = a > F(_BIG)
    am = select(a, F(1.0), big)
    r = ps_log1p(am + am * am / (F(1.0) + math.sqrt(F(1.0) + am * am)))
    r = select(r, ps_m_log(select(F(1.0), a, big)) + F(_LN2), big)
    r = select(r, a, (a == F(math.inf)) | math.isnan(x))
    return ps_copysign(r, x)


def ps_acosh(x: F) -> F:
    """Python's ``math.acosh`` (nan below 1): ``log1p(t + sqrt(t * (2 + t)))`` of
    ``t = x - 1``, ``log(x) + ln(2)`` above 4096."""
    big = x > F(_BIG)
    t = select(x - F(1.0), F(0.0), big | (x < F(1.0)))
    r = ps_log1p(t + math.sqrt(t * (F(2.0) + t)))
    r = select(r, ps_m_log(select(F(1.0), x, big)) + F(_LN2), big)
    r = select(r, x, (x == F(math.inf)) | math.isnan(x))
    return select(r, F(math.nan), x < F(1.0))


def ps_atanh(x: F) -> F:
    """Python's ``math.atanh`` (+-inf at +-1, nan beyond): ``log1p(2a / (1 - a)) / 2`` of
    ``a = |x|`` (``log1p(2a + 2a*a / (1 - a)) / 2`` below 0.5), with the sign of ``x``."""
    a = math.fabs(x)
    d = F(1.0) - a
    small = F(2.0) * a + F(2.0) * a * a / d
    r = F(0.5) * ps_log1p(select(F(2.0) * a / d, small, a < F(0.5)))
    r = select(select(r, F(math.inf), a == F(1.0)), F(math.nan), a > F(1.0))
    return ps_copysign(select(r, x, math.isnan(x)), x)


# -- sign, hypot, fmod, angles --------------------------------------------------------------
def ps_copysign(x: F, y: F) -> F:
    """Python's ``math.copysign``: the bits of ``|x|`` with the sign bit of ``y`` (NaNs and
    -0.0 included, as Python on the bits)."""
    return from_bits((bits(x) & 0x7FFFFFFF) | (bits(y) & ~0x7FFFFFFF))


def ps_hypot(x: F, y: F) -> F:
    """Python's ``math.hypot`` of two values: ``sqrt(a*a + b*b)`` after scaling the larger
    of ``|x|``, ``|y|`` into ``[2**-60, 2**60]`` by a power of two (no overflow, no loss to
    underflow); inf if either is infinite, even with a nan."""
    a = math.fabs(x)
    b = math.fabs(y)
    big = select(a, b, b > a)
    up = big < F(2.0 ** -60)
    down = big > F(2.0 ** 60)
    s = select(select(F(1.0), F(2.0 ** -70), down), F(2.0 ** 70), up)
    a2 = a * s
    b2 = b * s
    r = math.sqrt(a2 * a2 + b2 * b2) * select(select(F(1.0), F(2.0 ** 70), down),
                                                F(2.0 ** -70), up)
    return select(r, F(math.inf), (a == F(math.inf)) | (b == F(math.inf)))


def ps_fmod(x: F, y: F) -> F:
    """Python's ``math.fmod`` of scalars (C's fmod, exact, with the sign of ``x``; nan for
    ``y == 0``, an infinite ``x`` or a nan): binary long division, one exact subtraction
    per bit of the quotient."""
    ax = math.fabs(x)
    ay = math.fabs(y)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or ay == F(0.0):
        return F(math.nan)
    if ax < ay:
        return x
    t = ay
    n = 0
    while t + t <= ax:          # the largest y * 2**n <= |x| (2t overflows to inf: stops)
        t = t + t
        n += 1
    r = ax
    for _i in range(n + 1):
        if r >= t:              # t <= r < 2t: r - t is exact (Sterbenz)
            r = r - t
        t = t * F(0.5)
    return select(r, -r, x < F(0.0))


def ps_fmod_vec2(x: V, y: V) -> V:
    """``ps_fmod`` per component of 2-vectors."""
    return V(ps_fmod(x.x, y.x), ps_fmod(x.y, y.y))


def ps_fmod_vec3(x: V, y: V) -> V:
    """``ps_fmod`` per component of 3-vectors."""
    return V(ps_fmod(x.x, y.x), ps_fmod(x.y, y.y), ps_fmod(x.z, y.z))


def ps_fmod_vec4(x: V, y: V) -> V:
    """``ps_fmod`` per component of 4-vectors."""
    return V(ps_fmod(x.x, y.x), ps_fmod(x.y, y.y), ps_fmod(x.z, y.z), ps_fmod(x.w, y.w))


def ps_degrees(x: F) -> F:
    """Python's ``math.degrees``: ``x * (180 / pi)`` (the constant rounded to x's type)."""
    return x * F(180.0 / math.pi)


def ps_radians(x: F) -> F:
    """Python's ``math.radians``: ``x * (pi / 180)`` (the constant rounded to x's type)."""
    return x * F(math.pi / 180.0)


# -- erf, erfc --------------------------------------------------------------------------------
# erf(x) = x + x * R(x*x) on [0, 1]: R fitted to erf(x) / x - 1 (Chebyshev nodes, relative
# weights, degree 6); erfc(x) = exp(-x*x) * Q(t), t = 1 / (1 + x/2), on [0.5, 10.1]: Q fitted
# to erfc(x) * exp(x*x) (degree 9). tools: bench/probes/erf_fit.py.
def ps_m_erf_small(a: F) -> F:
    """``erf(a)`` for ``a`` in ``[0, 1]``: ``a + a * R(a*a)``."""
    z = a * a
    r = F(7.957687226777136e-05)
    r = r * z + F(-0.0008035623533675649)
    r = r * z + F(0.0051903817909017816)
    r = r * z + F(-0.02685433655671654)
    r = r * z + F(0.1128358042619993)
    r = r * z + F(-0.37612623351088087)
    r = r * z + F(0.12837916494238744)
    return a + a * r


def ps_m_erfc_tail(a: F) -> F:
    """``erfc(a)`` for ``a >= 0.5``: ``exp(-a*a) * Q(1 / (1 + a/2))``, with ``a*a`` split
    exactly (``h*h`` of ``a``'s top 12 bits, plus ``(a - h) * (a + h)``), since an f32
    ``a*a`` near 100 is off by up to 4e-6 and ``exp`` magnifies that. 0 beyond 10.06."""
    a = select(a, F(11.0), a > F(11.0))         # erfc(11) is under the smallest f32
    t = F(1.0) / (F(1.0) + F(0.5) * a)
    q = F(-0.0753295021567462)
    q = q * t + F(0.3549706467874653)
    q = q * t + F(-0.617523448512707)
    q = q * t + F(0.4129243450045005)
    q = q * t + F(-0.1122145108208552)
    q = q * t + F(0.23708611370097543)
    q = q * t + F(0.23438479678338664)
    q = q * t + F(0.2837143704610775)
    q = q * t + F(0.28197365885589176)
    q = q * t + F(3.959179349366515e-06)
    h = from_bits(bits(a) & ~0xFFF)
    return (ps_m_exp(-(h * h)) * ps_m_exp(-((a - h) * (a + h)))) * q


def ps_erf(x: F) -> F:
    """Python's ``math.erf``: ``erf_small`` below 1, ``1 - erfc_tail`` above, the sign of
    ``x`` (measured errors: docs/language.md)."""
    a = math.fabs(x)
    r = select(F(1.0) - ps_m_erfc_tail(select(F(1.0), a, a > F(1.0))),
               ps_m_erf_small(select(a, F(1.0), a > F(1.0))), a <= F(1.0))
    return ps_copysign(select(r, x, math.isnan(x)), x)


def ps_erfc(x: F) -> F:
    """Python's ``math.erfc``: ``1 - erf_small`` on ``(-0.5, 0.5)``, ``erfc_tail`` (its
    relative accuracy kept down to the subnormals near 10) above, ``2 - erfc_tail`` below."""
    a = math.fabs(x)
    mid = a < F(0.5)
    tail = ps_m_erfc_tail(select(a, F(1.0), mid))
    small = ps_m_erf_small(select(a, F(0.0), a > F(1.0)))
    r = select(select(tail, F(2.0) - tail, x < F(0.0)), F(1.0) - ps_copysign(small, x), mid)
    return select(r, x, math.isnan(x))


def ps_math_pow(x: F, y: F) -> F:
    """Python's ``math.pow`` (C's ``pow``) on targets whose own ``pow`` is defined only for
    ``x > 0`` (GLSL, WGSL, HLSL: ``exp2(y * log2(x))``): the target's pow of ``|x|``, with
    the sign of a negative base for an odd integral ``y``, nan for a negative base and a
    fractional ``y`` (where Python raises), 1 for ``y == 0`` or ``x == 1`` (a nan too), 1
    for ``(-1) ** +-inf``, and C's zeros and infinities for ``x == 0``."""
    ax = math.fabs(x)
    r = lang._native_pow(ax, y)
    integral = math.floor(y) == y                   # false for nan; true for +-inf
    half = y * F(0.5)
    odd = integral & (math.floor(half) != half)     # +-inf and |y| >= 2**25 are even
    zero = (ax == F(0.0)) & (y == y)                # pow(0, nan) stays nan
    # pow(+-0, y): +inf below 0, 0 above (C: the sign of x for an odd y, both ways)
    r = select(r, select(F(0.0), F(math.inf), y < F(0.0)), zero)
    r = select(r, -r, odd & ((x < F(0.0)) | zero & (bits(x) < 0)))
    finite_neg = (x < F(0.0)) & (x > F(-math.inf))
    r = select(r, F(math.nan), finite_neg & (math.floor(y) != y) & (math.fabs(y) < F(math.inf)))
    r = select(r, F(1.0), (ax == F(1.0)) & math.isinf(y))
    return select(r, F(1.0), (y == F(0.0)) | (x == F(1.0)))


RENAMED = {"pow": "ps_math_pow"}
"""Functions whose prelude name is not ``ps_<name>`` (``pyshade.prelude.ps_pow`` is ``**``)."""
