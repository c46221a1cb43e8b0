"""Vectors, geometry and matrices of the CPU target.

Part of ``pyshade.runtime.cpu_support`` (which re-exports everything): vectors
are ``Vec`` (a tuple without arithmetic operators, so that nothing skips the
rounding), matrices ``Mat`` (a tuple of column ``Vec``, column-major like
WGSL/GLSL). ``r`` arguments are the rounding function of the element type,
applied after each basic operation in the order a GPU evaluates it.
"""

# ruff: noqa: PLR0124, FURB136

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product, repeat
from operator import itemgetter

from .cpu_scalars import (
    _INF,
    _f64,
    _fdiv,
    _S_d,
    _S_q,
    _sqrt,
    _tnew,
)

__all__ = [
    "Mat", "Vec", "_clamp", "_cross", "_distance", "_dot", "_fma", "_length", "_mat",
    "_matmul", "_mix", "_mset", "_normalize", "_select", "_smoothstep", "_step", "_vall",
    "_vany", "_vmap", "_vset",
]

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
    if lo > hi:
        # GPU drivers turn min(max(x, lo), hi) into a clamp or median-of-three whose
        # result then differs (seen on NVIDIA): the CPU device reports the call instead.
        raise ValueError(f"clamp(x, lo, hi) with lo > hi (lo={lo}, hi={hi}): the result "
                         "differs between GPUs")
    x = lo if x < lo else x
    return hi if x > hi else x


def _clamp(x, lo, hi):
    """``min(max(x, lo), hi)`` (ints or floats; Vecs element-wise); ValueError when
    ``lo > hi``, whose result is not portable."""
    if isinstance(x, Vec) or isinstance(lo, Vec) or isinstance(hi, Vec):
        return _vmap(_clamp1, x, lo, hi)
    return _clamp1(x, lo, hi)


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

