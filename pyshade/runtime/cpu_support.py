"""Helpers for kernels translated to plain Python (the CPU target).

Generated code does ``from pyshade.runtime.cpu_support import *`` and calls
these helpers to get exact GPU fixed-width semantics out of Python numbers:

* ``bool`` is a Python ``bool``; ``i32 u32 i64 u64`` are Python ``int`` kept in
  range with ``_i32 _u32 _i64 _u64`` (two's complement wrapping);
* ``f16 f32 f64`` are Python ``float`` holding exactly a binary16 / binary32 /
  binary64 value: the code computes one basic operation in double precision and
  rounds it with ``_f16`` / ``_f32`` (double precision has more than twice the
  bits of binary32, so ``_f32(a + b)`` etc. is the correctly rounded binary32
  result for ``+ - * /`` and ``sqrt``);
* vectors are ``Vec`` (a tuple), matrices ``Mat`` (a tuple of column ``Vec``),
  structs instances of ``make_struct_class`` classes, local arrays ``list``.

Nothing here raises on floating-point trouble: like a GPU, division by zero and
domain errors give inf or nan. This module imports only the standard library.
"""

# Deliberate: ``x != x`` is the fastest nan test and conditional expressions are
# much faster than min()/max() calls; exec builds the struct methods.
# ruff: noqa: PLR0124, FURB136

from __future__ import annotations

import math
import struct
from fractions import Fraction
from itertools import product, repeat
from keyword import iskeyword
from operator import itemgetter

__all__ = [
    "Mat", "Struct", "Vec", "_acos", "_asin", "_atan", "_atan2", "_atomic",
    "_atomic_cas", "_bitcast", "_btoi", "_ceil", "_clamp", "_clz", "_copy", "_cos",
    "_cross", "_distance", "_dot", "_exp", "_f16", "_f32", "_f64", "_fabs", "_fdiv",
    "_ffloordiv", "_floor", "_fma", "_fmod", "_ftoi", "_i32", "_i64", "_idx",
    "_isinf", "_isnan", "_length", "_log", "_log2", "_mat", "_matmul", "_mix",
    "_mset", "_normalize", "_popcount", "_pow", "_reverse_bits", "_round",
    "_select", "_shl", "_shr", "_sin", "_smoothstep", "_sqrt", "_step", "_tan",
    "_trunc", "_u32", "_u64", "_vall", "_vany", "_vmap", "_vset",
    "make_struct_class",
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
        return _f_unpack(_f_pack(x))[0]
    except OverflowError:
        return _f32_overflow(x)


def _f32_overflow(x):
    if -_F32_OVF < x < _F32_OVF:
        return _F32_MAX if x > 0 else -_F32_MAX
    return _INF if x > 0 else -_INF


def _f32(x):
    """Round to the nearest binary32 value (ties to even); overflow gives +-inf."""
    if type(x) is float:
        try:
            return _f_unpack(_f_pack(x))[0]
        except OverflowError:
            return _f32_overflow(x)
    return _f32_slow(x)


def _f16(x):
    """Round to the nearest binary16 value (ties to even); overflow gives +-inf."""
    try:
        return _e_unpack(_e_pack(x))[0]
    except OverflowError:
        if -_F16_OVF < x < _F16_OVF:
            return _F16_MAX if x > 0 else -_F16_MAX
        return _INF if x > 0 else -_INF


def _f64(x):
    """Convert to a binary64 float (ints are rounded correctly by ``float``)."""
    return float(x)


# -------------------------------------------------------------- conversions

def _ftoi(x, lo, hi):
    """Float to int truncating toward zero, saturating to [lo, hi]; nan gives 0."""
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
    """Float ``a // b`` as the GPU computes it: ``r(floor(r(a / b)))``."""
    return r(_floor(r(_fdiv(a, b))))


def _fmod(a, b, r):
    """Float ``a % b`` (Python's sign rule): ``r(a - r(b * r(floor(r(a / b)))))``."""
    return r(a - r(b * r(_floor(r(_fdiv(a, b))))))


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
    """x**y with C ``pow`` special cases, never raising: pow(0, -1) is inf,
    pow(-8, 1/3) nan, overflow +-inf."""
    try:
        return math.pow(x, y)
    except OverflowError:
        return -_INF if x < 0 and _odd_int(y) else _INF
    except ValueError:
        if x == 0:                      # 0 ** negative
            return -_INF if math.copysign(1.0, x) < 0 and _odd_int(y) else _INF
        return _NAN


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


_BITCAST_FMT = {"i32": "<i", "u32": "<I", "f32": "<f", "i64": "<q", "u64": "<Q",
                "f64": "<d", "f16": "<e", "i16": "<h", "u16": "<H"}
_BITCAST = {}
for _s, _sf in _BITCAST_FMT.items():
    for _d, _df in _BITCAST_FMT.items():
        if struct.calcsize(_sf) == struct.calcsize(_df):
            _BITCAST[_s, _d] = (struct.Struct(_sf).pack, struct.Struct(_df).unpack)
del _s, _sf, _d, _df


def _bitcast(x, src, dst):
    """Reinterpret x's bits from type ``src`` as type ``dst`` (same size)."""
    try:
        pack, unpack = _BITCAST[src, dst]
    except KeyError:
        raise ValueError(f"cannot bitcast {src} to {dst}") from None
    return unpack(pack(x))[0]


# ------------------------------------------------------------------ vectors

def _no_arith(self, other=None):
    raise TypeError(f"{type(self).__name__} has no arithmetic operators; "
                    "use the cpu_support helpers")


_SWIZZLE = {}          # name -> (itemgetter, largest index); x y z w r g b a too
_VSET = {}             # name without repeated letters -> (indices, largest index)
for _letters in ("xyzw", "rgba"):
    for _n in (1, 2, 3, 4):
        for _ix in product(range(4), repeat=_n):
            _name = "".join(_letters[i] for i in _ix)
            _SWIZZLE[_name] = (itemgetter(*_ix), max(_ix))
            if len(set(_ix)) == _n:
                _VSET[_name] = (_ix, max(_ix))
del _letters, _n, _ix, _name


class Vec(tuple):
    """A vector: an immutable tuple of 2-4 scalars with ``.x .y .z .w``
    (``.r .g .b .a``) and swizzles (``v.zyx``). ``Vec(1, 2, 3)`` or
    ``Vec(iterable)``. Arithmetic operators raise TypeError: use the helpers."""

    __slots__ = ()

    def __new__(cls, *args):
        return _tnew(cls, args[0] if len(args) == 1 else args)

    def __getattr__(self, name):        # reached only when a property failed
        sw = _SWIZZLE.get(name)
        if sw is None or sw[1] >= len(self):
            raise AttributeError(f"Vec of {len(self)} has no attribute {name!r}")
        return sw[0](self) if len(name) == 1 else _tnew(Vec, sw[0](self))

    def __repr__(self):
        return "Vec(" + ", ".join(map(repr, self)) + ")"

    __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _no_arith
    __truediv__ = __rtruediv__ = __neg__ = _no_arith


def _swizzle_property(name, get, top):
    # A property per component name and swizzle: much faster than __getattr__.
    if len(name) == 1:
        def f(self):
            if len(self) > top:
                return self[top]
            raise AttributeError(name)
    else:
        def f(self):
            if len(self) > top:
                return _tnew(Vec, get(self))
            raise AttributeError(name)
    return property(f, doc=f"Component{'s' * (len(name) > 1)} {name}.")


for _name, (_get, _top) in _SWIZZLE.items():
    setattr(Vec, _name, _swizzle_property(_name, _get, _top))
del _name, _get, _top


def _vset(v, comps, value):
    """Return a copy of Vec v with components ``comps`` ('x', 'zy', ...)
    replaced by value (a scalar for one component, a sequence for several)."""
    s = _VSET.get(comps)
    if s is None or s[1] >= len(v):
        raise AttributeError(f"cannot assign to component {comps!r} of a Vec of {len(v)}")
    idx = s[0]
    lst = list(v)
    if len(idx) == 1:
        lst[idx[0]] = value
    else:
        value = tuple(value)
        if len(value) != len(idx):
            raise ValueError(f"{len(value)} values for {len(idx)} components")
        for i, c in zip(idx, value):
            lst[i] = c
    return _tnew(Vec, lst)


def _vmap(f, *args):
    """Element-wise ``f``: args are Vecs of one length or scalars (broadcast);
    returns a Vec (or ``f(*args)`` when no argument is a Vec)."""
    if len(args) == 1 and isinstance(args[0], Vec):
        return _tnew(Vec, map(f, args[0]))
    n = -1
    its = []
    for a in args:
        if isinstance(a, Vec):
            if n != len(a):
                if n >= 0:
                    raise ValueError(f"vector lengths differ: {n} and {len(a)}")
                n = len(a)
            its.append(a)
        else:
            its.append(repeat(a))
    if n < 0:
        return f(*args)
    return _tnew(Vec, map(f, *its))


def _vall(v):
    """True when every component of v is true."""
    return all(v)


def _vany(v):
    """True when some component of v is true."""
    return any(v)


# ----------------------------------------------------------------- geometry

def _dot(a, b, r):
    """Dot product rounded stepwise: ``r(...r(r(a0*b0) + r(a1*b1)) + ...)``."""
    s = r(a[0] * b[0])
    for i in range(1, len(a)):
        s = r(s + r(a[i] * b[i]))
    return s


def _cross(a, b, r):
    """Cross product of two 3-vectors, each product and difference rounded."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return _tnew(Vec, (r(r(a1 * b2) - r(a2 * b1)),
                       r(r(a2 * b0) - r(a0 * b2)),
                       r(r(a0 * b1) - r(a1 * b0))))


def _length(a, r):
    """Euclidean length ``r(sqrt(dot(a, a)))`` (``|a|`` for a scalar)."""
    if isinstance(a, Vec):
        return r(_sqrt(_dot(a, a, r)))
    return math.fabs(a)


def _normalize(a, r):
    """``a / length(a)`` per component, rounded."""
    n = _length(a, r)
    return _tnew(Vec, [r(_fdiv(c, n)) for c in a])


def _distance(a, b, r):
    """``length(a - b)`` with the difference rounded per component."""
    if isinstance(a, Vec):
        return _length(_tnew(Vec, [r(x - y) for x, y in zip(a, b)]), r)
    return math.fabs(r(a - b))


def _mix1(a, b, t, r):
    return r(r(a * r(1.0 - t)) + r(b * t))


def _mix(a, b, t, r):
    """``a*(1-t) + b*t`` rounded after each operation; Vecs element-wise."""
    if isinstance(a, Vec) or isinstance(b, Vec) or isinstance(t, Vec):
        return _vmap(_mix1, a, b, t, r)
    return r(r(a * r(1.0 - t)) + r(b * t))


def _clamp1(x, lo, hi):
    x = lo if x < lo else x
    return hi if x > hi else x


def _clamp(x, lo, hi):
    """``min(max(x, lo), hi)`` (ints or floats; Vecs element-wise)."""
    if isinstance(x, Vec) or isinstance(lo, Vec) or isinstance(hi, Vec):
        return _vmap(_clamp1, x, lo, hi)
    x = lo if x < lo else x
    return hi if x > hi else x


def _step1(edge, x):
    return 0.0 if x < edge else 1.0


def _step(edge, x):
    """0.0 where x < edge else 1.0 (Vecs element-wise)."""
    if isinstance(edge, Vec) or isinstance(x, Vec):
        return _vmap(_step1, edge, x)
    return 0.0 if x < edge else 1.0


def _smoothstep1(e0, e1, x, r):
    t = r(_fdiv(r(x - e0), r(e1 - e0)))
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    return r(r(t * t) * r(3.0 - r(2.0 * t)))


def _smoothstep(e0, e1, x, r):
    """Hermite step: ``t = clamp((x-e0)/(e1-e0), 0, 1); t*t*(3-2t)``, each
    operation rounded (Vecs element-wise)."""
    if isinstance(e0, Vec) or isinstance(e1, Vec) or isinstance(x, Vec):
        return _vmap(_smoothstep1, e0, e1, x, r)
    return _smoothstep1(e0, e1, x, r)


_math_fma = getattr(math, "fma", None)     # Python 3.13+


def _fma1(a, b, c, r):
    if r is _f64 or r is float:
        if _math_fma is not None:
            try:
                return _math_fma(a, b, c)
            except (OverflowError, ValueError):
                pass
        if a - a != 0 or b - b != 0 or c - c != 0:     # some inf or nan
            return c if a - a == 0 and b - b == 0 else a * b + c
        e = Fraction(a) * Fraction(b) + Fraction(c)
        if e == 0:                      # sign of an exact zero as IEEE says
            return (a * b) + c
        try:
            return float(e)             # int / int division: correctly rounded
        except OverflowError:
            return _INF if e > 0 else -_INF
    # Narrower formats: a*b is exact in double; make the sum round to odd in
    # double, so the one rounding with r is correct (53 >= 24 + 2).
    p = a * b
    s = p + c
    if s - s != 0:                      # inf or nan
        return r(s)
    bb = s - p
    err = (p - (s - bb)) + (c - bb)     # TwoSum: p + c == s + err exactly
    if err != 0 and not _S_q.unpack(_S_d.pack(s))[0] & 1:
        s = math.nextafter(s, _INF if err > 0 else -_INF)
    return r(s)


def _fma(a, b, c, r):
    """``a*b + c`` with a single rounding by r (f16/f32/f64; Vecs element-wise)."""
    if isinstance(a, Vec) or isinstance(b, Vec) or isinstance(c, Vec):
        return _vmap(_fma1, a, b, c, r)
    return _fma1(a, b, c, r)


def _select1(f, t, cond):
    return t if cond else f


def _select(f, t, cond):
    """``t if cond else f``; element-wise when cond is a Vec of bools."""
    if isinstance(cond, Vec):
        return _vmap(_select1, f, t, cond)
    return t if cond else f


# ----------------------------------------------------------------- matrices

class Mat(tuple):
    """A matrix: an immutable tuple of column Vecs (column-major, ``m[i]`` is
    column i, ``m[i][j]`` row j). ``Mat(col0, col1, ...)`` or ``Mat(columns)``.
    Arithmetic operators raise TypeError: use ``_matmul`` etc."""

    __slots__ = ()

    def __new__(cls, *args):
        cols = args[0] if len(args) == 1 else args
        return _tnew(cls, [c if type(c) is Vec else _tnew(Vec, c) for c in cols])

    def __repr__(self):
        return "Mat(" + ", ".join(map(repr, self)) + ")"

    __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _no_arith
    __truediv__ = __rtruediv__ = __neg__ = __matmul__ = __rmatmul__ = _no_arith


def _mat(n, *args):
    """An n-column Mat from n*n scalars (column-major), from n column Vecs, or
    all zeros (0.0) when no argument is given."""
    if not args:
        col = _tnew(Vec, (0.0,) * n)
        return _tnew(Mat, (col,) * n)
    if len(args) == n:
        cols = [c if type(c) is Vec else _tnew(Vec, c) for c in args]
        if len({len(c) for c in cols}) != 1:
            raise ValueError("matrix columns differ in length")
        return _tnew(Mat, cols)
    if len(args) == n * n:
        return _tnew(Mat, [_tnew(Vec, args[i:i + n]) for i in range(0, n * n, n)])
    raise ValueError(f"a {n}x{n} matrix needs {n} columns or {n * n} scalars, got {len(args)}")


def _mat_vec(m, v, r):
    out = []
    for row in range(len(m[0])):
        s = r(m[0][row] * v[0])
        for k in range(1, len(m)):
            s = r(s + r(m[k][row] * v[k]))
        out.append(s)
    return _tnew(Vec, out)


def _matmul(a, b, r):
    """Mat @ Vec -> Vec, Mat @ Mat -> Mat, Vec @ Mat -> Vec (row vector); each
    dot product rounded stepwise with r like ``_dot``."""
    if isinstance(a, Mat):
        if isinstance(b, Mat):
            return _tnew(Mat, [_mat_vec(a, col, r) for col in b])
        if len(b) != len(a):
            raise ValueError(f"cannot multiply a {len(a)}-column matrix by a Vec of {len(b)}")
        return _mat_vec(a, b, r)
    if isinstance(b, Mat):
        if len(a) != len(b[0]):
            raise ValueError(f"cannot multiply a Vec of {len(a)} by {len(b[0])}-row matrix")
        return _tnew(Vec, [_dot(a, col, r) for col in b])
    raise TypeError("_matmul needs a Mat operand")


def _mset(m, i, col):
    """Return a copy of Mat m with column i replaced by col."""
    if not 0 <= i < len(m):
        raise IndexError(f"column {i} out of range for a matrix of {len(m)} columns")
    cols = list(m)
    cols[i] = col if type(col) is Vec else _tnew(Vec, col)
    return _tnew(Mat, cols)


# ------------------------------------------------------------------ structs

class Struct:
    """Base class of the struct classes made by ``make_struct_class``."""

    __slots__ = ()
    _fields: tuple = ()


def _copy(x):
    """Deep copy of a kernel value: Structs and lists are copied, Vec/Mat and
    scalars (immutable) are returned as they are."""
    if isinstance(x, Struct):
        return x._copy()
    if type(x) is list:
        if x and (type(x[0]) is list or isinstance(x[0], Struct)):
            return [_copy(e) for e in x]
        return x[:]
    return x


_MISSING = object()


def make_struct_class(name: str, fields: list[str], defaults: dict | None = None) -> type:
    """Make a Struct subclass with ``__slots__ = fields``: ``Name(*args,
    **kwargs)`` by position or name, missing fields get a copy of
    ``defaults[field]`` or 0; ``==``, ``repr`` and ``_copy()`` (deep copy).
    Fields whose default is a list or Struct also copy the value passed."""
    fields = list(fields)
    defaults = dict(defaults or {})
    for f in fields:
        if (not f.isidentifier() or iskeyword(f) or f.startswith(("__", "_ps_"))
                or f in ("_copy", "_fields")):
            raise ValueError(f"invalid struct field name {f!r}")
    if len(set(fields)) != len(fields):
        raise ValueError(f"duplicate field names in {fields}")
    unknown = set(defaults) - set(fields)
    if unknown:
        raise ValueError(f"defaults for unknown fields: {sorted(unknown)}")
    ns = {"_ps_MISSING": _MISSING, "_ps_copy": _copy, "_ps_new": object.__new__}
    init = [f"def __init__(_ps_self, {', '.join(f + '=_ps_MISSING' for f in fields)}):"]
    for k, f in enumerate(fields):
        d = defaults.get(f, 0)
        ns[f"_ps_d{k}"] = d
        aggregate = isinstance(d, (list, Struct))
        dexpr = f"_ps_copy(_ps_d{k})" if aggregate else f"_ps_d{k}"
        vexpr = f"_ps_copy({f})" if aggregate else f
        init.append(f"    _ps_self.{f} = {dexpr} if {f} is _ps_MISSING else {vexpr}")
    if not fields:
        init[0] = "def __init__(_ps_self):"
        init.append("    pass")
    eq = ["def __eq__(self, other):",
          "    if type(other) is not type(self):",
          "        return NotImplemented",
          "    return " + (" and ".join(f"self.{f} == other.{f}" for f in fields) or "True")]
    cp = ["def _copy(self):",
          "    new = _ps_new(type(self))"]
    cp += [f"    new.{f} = _ps_copy(self.{f})" for f in fields]
    cp.append("    return new")
    rp = ["def __repr__(self):",
          f"    return {name!r} + '(' + ', '.join(["
          + ", ".join(f"{f!r} + '=' + repr(self.{f})" for f in fields) + "]) + ')'"]
    exec("\n".join(init + eq + cp + rp), ns)  # noqa: S102
    body = {"__slots__": tuple(fields), "_fields": tuple(fields), "__hash__": None,
            "__doc__": f"Kernel struct {name}({', '.join(fields)}).",
            "__init__": ns["__init__"], "__eq__": ns["__eq__"],
            "_copy": ns["_copy"], "__repr__": ns["__repr__"]}
    return type(name, (Struct,), body)


# ------------------------------------------------------------------ atomics

_ATOMIC_OPS = {
    "add": lambda o, v: o + v, "sub": lambda o, v: o - v,
    "min": lambda o, v: v if v < o else o, "max": lambda o, v: v if v > o else o,
    "and": lambda o, v: o & v, "or": lambda o, v: o | v, "xor": lambda o, v: o ^ v,
    "exchange": lambda o, v: v,
}


def _atomic(op, lst, i, v, wrap):
    """Atomic read-modify-write of ``lst[i]``: store ``wrap(old OP v)`` and
    return old. op is add sub min max and or xor exchange."""
    if i < 0:
        raise IndexError(f"index {i} is negative")
    old = lst[i]
    fn = _ATOMIC_OPS.get(op)
    if fn is None:
        raise ValueError(f"unknown atomic operation {op!r}")
    lst[i] = wrap(fn(old, v))
    return old


def _atomic_cas(lst, i, expected, new):
    """Atomic compare-exchange of ``lst[i]``: store new if old == expected;
    return old."""
    if i < 0:
        raise IndexError(f"index {i} is negative")
    old = lst[i]
    if old == expected:
        lst[i] = new
    return old
