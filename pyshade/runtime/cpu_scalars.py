"""Scalar helpers of the CPU target: wrapping, rounding, conversions, math, bits.

Part of ``pyshade.runtime.cpu_support`` (which re-exports everything): ``i32
u32 i64 u64`` are Python ``int`` kept in range with ``_i32 _u32 _i64 _u64``;
``f16 f32 f64`` are Python ``float`` holding exactly a binary16 / binary32 /
binary64 value, computed in double precision and rounded with ``_f16`` /
``_f32`` (double precision has more than twice the bits of binary32, so
``_f32(a + b)`` is the correctly rounded binary32 result for ``+ - * /`` and
``sqrt``). Like a GPU, nothing raises on floating-point trouble. Moves keep the bits:
``_f32``/``_f16`` of a NaN and ``_bitcast`` keep its sign, quiet bit and payload
(a binary32/binary16 NaN's significand sits at the top of the binary64 one).
"""

# Deliberate: ``x != x`` is the fastest nan test and conditional expressions are
# much faster than min()/max() calls.
# ruff: noqa: PLR0124, FURB136

from __future__ import annotations

import math
import struct

__all__ = [
    "_acos", "_asin", "_atan", "_atan2", "_bitcast", "_btoi", "_ceil", "_clz", "_cos", "_exp",
    "_f32_bits", "_tdiv",
    "_f16", "_f32", "_f64", "_fabs", "_fdiv", "_ffloordiv", "_floor", "_fmod", "_ftoi", "_i32",
    "_i64", "_idx", "_isinf", "_isnan", "_log", "_log2", "_popcount", "_pow", "_reverse_bits",
    "_round", "_shl", "_shr", "_sin", "_sqrt", "_tan", "_trunc", "_u32", "_u64",
]

_INF = math.inf
_NAN = math.nan
_TWO52 = 4503599627370496.0
_TWO53 = 1 << 53
_F32_MAX = 3.4028234663852886e38
_F32_OVF = 2.0 ** 128 * (1.0 - 2.0 ** -25)   # |x| >= this rounds to inf
_F32_OVF_INT = (1 << 128) - (1 << 103)
_F16_MAX = 65504.0
_F16_OVF = 65520.0

_tnew = tuple.__new__
_S_f = struct.Struct("<f")
_S_e = struct.Struct("<e")
_S_d = struct.Struct("<d")
_S_q = struct.Struct("<q")
_f_pack, _f_unpack = _S_f.pack, _S_f.unpack
_e_pack, _e_unpack = _S_e.pack, _S_e.unpack
_d_pack, _d_unpack = _S_d.pack, _S_d.unpack
_Q_pack, _Q_unpack = struct.Struct("<Q").pack, struct.Struct("<Q").unpack
_I_pack, _I_unpack = struct.Struct("<I").pack, struct.Struct("<I").unpack
_H_pack, _H_unpack = struct.Struct("<H").pack, struct.Struct("<H").unpack


# --------------------------------------------------------------- NaN moves
# A binary32 (binary16) NaN lives in a Python float with its significand moved to the
# top of the binary64 significand (<< 29, << 42): sign, quiet bit and payload survive.
# C's float <-> double conversions (inside struct and numpy) quiet signalling NaNs, and
# a move must keep the bits, so every NaN crossing a width goes through these.

def _f32_nan_bits(x):
    """The binary32 pattern of a NaN held in a Python float (never an infinity)."""
    b = _Q_unpack(_d_pack(x))[0]
    m = (b >> 29) & 0x7FFFFF
    return (b >> 32) & 0x80000000 | 0x7F800000 | (m or 0x400000)


def _f32_nan_float(b):
    """The Python float holding the binary32 NaN pattern ``b``."""
    return _d_unpack(_Q_pack((b & 0x80000000) << 32 | 0x7FF0000000000000
                             | (b & 0x7FFFFF) << 29))[0]


def _f16_nan_bits(x):
    """The binary16 pattern of a NaN held in a Python float (never an infinity)."""
    b = _Q_unpack(_d_pack(x))[0]
    m = (b >> 42) & 0x3FF
    return (b >> 48) & 0x8000 | 0x7C00 | (m or 0x200)


def _f16_nan_float(b):
    """The Python float holding the binary16 NaN pattern ``b``."""
    return _d_unpack(_Q_pack((b & 0x8000) << 48 | 0x7FF0000000000000 | (b & 0x3FF) << 42))[0]


# ----------------------------------------------------------------- wrapping

def _i32(x):
    """Wrap an int into the i32 range (two's complement)."""
    if -0x80000000 <= x <= 0x7FFFFFFF:
        return x
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _u32(x):
    """Wrap an int into the u32 range."""
    return x & 0xFFFFFFFF


def _i64(x):
    """Wrap an int into the i64 range (two's complement)."""
    if -0x8000000000000000 <= x <= 0x7FFFFFFFFFFFFFFF:
        return x
    return ((x + 0x8000000000000000) & 0xFFFFFFFFFFFFFFFF) - 0x8000000000000000


def _u64(x):
    """Wrap an int into the u64 range."""
    return x & 0xFFFFFFFFFFFFFFFF


# ----------------------------------------------------------------- rounding

def _f32_slow(x):
    # Non-float input: ints beyond 2**53 are rounded exactly (float(x) first
    # would round twice); everything else goes through struct.
    if type(x) is int and not -_TWO53 <= x <= _TWO53:
        n = -x if x < 0 else x
        if n >= _F32_OVF_INT:
            y = _INF
        else:
            shift = n.bit_length() - 24
            q, rem = n >> shift, n & ((1 << shift) - 1)
            half = 1 << (shift - 1)
            if rem > half or (rem == half and q & 1):
                q += 1
            y = float(q << shift)
        return -y if x < 0 else y
    try:
        y = _f_unpack(_f_pack(x))[0]
    except OverflowError:
        return _f32_overflow(x)
    return y if y == y else _f32_nan_float(_f32_nan_bits(float(x)))


def _f32_overflow(x):
    if -_F32_OVF < x < _F32_OVF:
        return _F32_MAX if x > 0 else -_F32_MAX
    return _INF if x > 0 else -_INF


def _f32(x):
    """Round to the nearest binary32 value (ties to even); overflow gives +-inf; a NaN
    keeps its sign, quiet bit and the top 23 bits of its payload."""
    if type(x) is float:
        try:
            y = _f_unpack(_f_pack(x))[0]
        except OverflowError:
            return _f32_overflow(x)
        # struct quiets a signalling NaN: `y == y` is the cheap test that it was none
        return y if y == y else _f32_nan_float(_f32_nan_bits(x))
    return _f32_slow(x)


def _f16(x):
    """Round to the nearest binary16 value (ties to even); overflow gives +-inf; a NaN
    keeps its sign, quiet bit and the top 10 bits of its payload."""
    try:
        y = _e_unpack(_e_pack(x))[0]
    except OverflowError:
        if -_F16_OVF < x < _F16_OVF:
            return _F16_MAX if x > 0 else -_F16_MAX
        return _INF if x > 0 else -_INF
    return y if y == y else _f16_nan_float(_f16_nan_bits(float(x)))


def _f64(x):
    """Convert to a binary64 float (ints are rounded correctly by ``float``)."""
    return float(x)


# -------------------------------------------------------------- conversions

def _ftoi(x, lo, hi):
    """Float to int truncating toward zero, saturating to [lo, hi]; NaN gives 0.

    The same rule as ``pyshade.types.float_to_int`` (the frontend's constant folding),
    written again because this module imports only the standard library;
    test_cpu_support checks that the two agree."""
    if x != x:
        return 0
    if x <= lo:
        return lo
    if x >= hi:
        return hi
    return int(x)


def _btoi(b):
    """Bool to int: 0 or 1."""
    return 1 if b else 0


# ------------------------------------------------------- float arithmetic

def _fdiv(a, b):
    """IEEE double division: x/0 is +-inf (by the signs, b's zero too) or nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return _NAN
        return _INF if (a > 0) == (math.copysign(1.0, b) > 0) else -_INF


def _ffloordiv(a, b, r):
    """Float ``a // b`` as every target computes it: ``q = floor(a / b)``, then
    corrected by the remainder ``a - q * b`` (GPU division may be off by
    ulps: Vulkan allows 2.5), so that exact quotients stay exact."""
    q = r(_floor(r(_fdiv(a, b))))
    rem = r(a - r(q * b))
    if b > 0:
        if rem < 0:
            q = r(q - 1.0)
        elif rem >= b:
            q = r(q + 1.0)
    elif b < 0:
        if rem > 0:
            q = r(q - 1.0)
        elif rem <= b:
            q = r(q + 1.0)
    return q


def _fmod(a, b, r):
    """Float ``a % b`` (Python's sign rule): ``a - b * (a // b)``, rounded stepwise."""
    return r(a - r(b * _ffloordiv(a, b, r)))


def _floor(x):
    """IEEE floor returning a float; inf, nan and -0.0 are kept."""
    if -_TWO52 < x < _TWO52 and x != 0:
        return float(math.floor(x))
    return x


def _ceil(x):
    """IEEE ceil returning a float (ceil(-0.5) is -0.0)."""
    if -_TWO52 < x < _TWO52:
        y = float(math.ceil(x))
        return y if y != 0 else math.copysign(0.0, x)
    return x


def _trunc(x):
    """Round toward zero returning a float (trunc(-0.5) is -0.0)."""
    if -_TWO52 < x < _TWO52:
        y = float(int(x))
        return y if y != 0 else math.copysign(0.0, x)
    return x


def _round(x):
    """Round to nearest, ties to even, returning a float (round(-0.4) is -0.0)."""
    if -_TWO52 < x < _TWO52:
        y = float(round(x))
        return y if y != 0 else math.copysign(0.0, x)
    return x


# --------------------------------------------------------------------- math

def _nan_on_domain_error(fn, name, doc):
    def f(x):
        try:
            return fn(x)
        except ValueError:
            return _NAN
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_sqrt = _nan_on_domain_error(math.sqrt, "_sqrt", "Square root; negative gives nan.")
_sin = _nan_on_domain_error(math.sin, "_sin", "Sine; inf gives nan.")
_cos = _nan_on_domain_error(math.cos, "_cos", "Cosine; inf gives nan.")
_tan = _nan_on_domain_error(math.tan, "_tan", "Tangent; inf gives nan.")
_asin = _nan_on_domain_error(math.asin, "_asin", "Arc sine; |x| > 1 gives nan.")
_acos = _nan_on_domain_error(math.acos, "_acos", "Arc cosine; |x| > 1 gives nan.")
_atan = math.atan                       # never raises; math's docstring applies
_atan2 = math.atan2
_fabs = math.fabs


def _minus_inf_at_zero(fn, name, doc):
    def f(x):
        try:
            return fn(x)
        except ValueError:
            return -_INF if x == 0 else _NAN
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_log = _minus_inf_at_zero(math.log, "_log", "Natural logarithm; log(0) is -inf, x < 0 nan.")
_log2 = _minus_inf_at_zero(math.log2, "_log2", "Base-2 logarithm; log2(0) is -inf, x < 0 nan.")


def _exp(x):
    """e**x; overflow gives inf."""
    try:
        return math.exp(x)
    except OverflowError:
        return _INF


def _odd_int(y):
    return -_TWO53 < y < _TWO53 and y == int(y) and int(y) & 1 == 1


def _pow(x, y):
    """x**y with C ``pow`` special cases: pow(0, -1) is inf, overflow +-inf. A negative
    base with a fractional exponent raises ValueError, as Python's ``math.pow`` does
    (a GPU gives nan there), so that the bug shows up on the cpu device."""
    try:
        return math.pow(x, y)
    except OverflowError:
        return -_INF if x < 0 and _odd_int(y) else _INF
    except ValueError:
        if x == 0:                      # 0 ** negative
            return -_INF if math.copysign(1.0, x) < 0 and _odd_int(y) else _INF
        raise ValueError(f"math.pow({x!r}, {y!r}): math domain error (Python raises it; "
                         "a GPU gives nan)") from None


def _isnan(x):
    """True when x is nan."""
    return x != x


def _isinf(x):
    """True when x is +inf or -inf."""
    return x == _INF or x == -_INF


# ------------------------------------------------------------ ints and bits

def _shl(a, b, bits):
    """``a << b`` unwrapped (the caller wraps); b must be in [0, bits)."""
    if 0 <= b < bits:
        return a << b
    raise ValueError(f"shift count out of range: {b} for a {bits}-bit value")


def _shr(a, b, bits):
    """``a >> b`` (arithmetic for negative a); b must be in [0, bits)."""
    if 0 <= b < bits:
        return a >> b
    raise ValueError(f"shift count out of range: {b} for a {bits}-bit value")


def _idx(i):
    """Return i, or raise IndexError when it is negative."""
    if i >= 0:
        return i
    raise IndexError(f"index {i} is negative")


def _popcount(x, bits):
    """Number of set bits in the ``bits``-wide two's-complement pattern of x."""
    return (x & ((1 << bits) - 1)).bit_count()


def _reverse_bits(x, bits):
    """Reverse the ``bits``-wide pattern of x; returns the pattern as a
    non-negative int (wrap with ``_i32``/``_i64`` for a signed type)."""
    return int(bin((x & ((1 << bits) - 1)) | (1 << bits))[:2:-1], 2)


def _clz(x, bits):
    """Count leading zeros of the ``bits``-wide two's-complement pattern of x."""
    return bits - (x & ((1 << bits) - 1)).bit_length()


def _f32_to_bits(x):
    if x == x:
        return _I_unpack(_f_pack(x))[0]
    return _f32_nan_bits(x)


def _f32_from_bits(b):
    if b & 0x7F800000 == 0x7F800000 and b & 0x7FFFFF:
        return _f32_nan_float(b)
    return _f_unpack(_I_pack(b))[0]


def _f16_to_bits(x):
    if x == x:
        return _H_unpack(_e_pack(x))[0]
    return _f16_nan_bits(x)


def _f16_from_bits(b):
    if b & 0x7C00 == 0x7C00 and b & 0x3FF:
        return _f16_nan_float(b)
    return _e_unpack(_H_pack(b))[0]


def _f64_to_bits(x):
    return _Q_unpack(_d_pack(x))[0]


def _f64_from_bits(b):
    return _d_unpack(_Q_pack(b))[0]


def _int_codec(bits, signed):
    mask, top = (1 << bits) - 1, 1 << (bits - 1)
    if not signed:
        return None, None                     # the value is its own bit pattern

    def to_bits(x):
        return x & mask

    def from_bits(b):
        return b - (mask + 1) if b & top else b
    return to_bits, from_bits


def _compose(to_bits, from_bits):
    if to_bits is None:
        return from_bits
    if from_bits is None:
        return to_bits
    return lambda x: from_bits(to_bits(x))


# type name -> (width, value -> bit pattern, bit pattern -> value), None where the value
# is the pattern (unsigned ints); floats go by bits so that NaN payloads survive (a
# bitcast is a move)
_CODECS = {"f16": (16, _f16_to_bits, _f16_from_bits), "f32": (32, _f32_to_bits, _f32_from_bits),
           "f64": (64, _f64_to_bits, _f64_from_bits)}
for _w in (16, 32, 64):
    for _sg in (True, False):
        _CODECS[f"{'iu'[not _sg]}{_w}"] = (_w, *_int_codec(_w, _sg))
del _w, _sg
_BITCAST = {}                                 # (src, dst) -> one function
for _s, (_sw, _to, _) in _CODECS.items():
    for _d, (_dw, _, _frm) in _CODECS.items():
        if _sw == _dw:
            _BITCAST[_s, _d] = _compose(_to, _frm) or (lambda x: x)
del _s, _sw, _to, _d, _dw, _frm


def _bitcast(x, src, dst):
    """Reinterpret x's bits from type ``src`` as type ``dst`` (same size); NaN bits are kept."""
    try:
        return _BITCAST[src, dst](x)
    except KeyError:
        raise ValueError(f"cannot bitcast {src} to {dst}") from None


_F32_TO_I32 = _BITCAST["f32", "i32"]


def _f32_bits(x):
    """The bits of the f32 ``x`` as an i32 (the prelude's ``bits`` primitive)."""
    return _F32_TO_I32(x)


def _tdiv(a, b):
    """Integer division rounded toward zero (the prelude's ``tdiv`` primitive); a zero
    divisor raises ZeroDivisionError, as a bug in the prelude's guard should."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q
