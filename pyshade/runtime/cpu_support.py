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

from __future__ import annotations

from keyword import iskeyword

from .cpu_math import *  # noqa: F403
from .cpu_math import __all__ as _math_names
from .cpu_scalars import *  # noqa: F403
from .cpu_scalars import __all__ as _scalar_names
from .cpu_scalars import _f32_to_bits
from .cpu_vectors import *  # noqa: F403
from .cpu_vectors import __all__ as _vector_names

_own = [
    "Shaped", "Struct", "_atomic", "_atomic_cas", "_copy", "_ixn", "make_struct_class",
]
__all__ = [*_scalar_names, *_math_names, *_vector_names, *_own]


# ------------------------------------------------------------------ N-D buffers

class Shaped(list):
    """The elements of a ``Buffer[T, 2]`` (or 3) in C order, with the array's ``shape``."""

    __slots__ = ("shape",)


def _ixn(shape, *idx):
    """The flat index of ``a[i, j]`` (``a[i, j, k]``), each index checked against the
    size of its own axis, as numpy checks them (a GPU has no bounds)."""
    flat = 0
    for axis, (size, i) in enumerate(zip(shape, idx)):
        if not 0 <= i < size:
            raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")
        flat = flat * size + i
    return flat


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

# The list's own item access: the race detector's tracked lists (``cpu_races``) record
# an atomic as one atomic access, not as the plain read and write inside it.
_lget = list.__getitem__
_lset = list.__setitem__

_ATOMIC_OPS = {
    "add": lambda o, v: o + v, "sub": lambda o, v: o - v,
    "min": lambda o, v: v if v < o else o, "max": lambda o, v: v if v > o else o,
    "and": lambda o, v: o & v, "or": lambda o, v: o | v, "xor": lambda o, v: o ^ v,
    "exchange": lambda o, v: v,
}


def _atomic(op, lst, i, v, wrap):
    """Atomic read-modify-write of ``lst[i]``: store ``wrap(old OP v)`` and
    return old. op is add sub min max and or xor exchange; f32 elements pass
    ``_f32`` (min and max are Python's, NaN and -0.0 included)."""
    if i < 0:
        raise IndexError(f"index {i} is negative")
    old = _lget(lst, i)
    fn = _ATOMIC_OPS.get(op)
    if fn is None:
        raise ValueError(f"unknown atomic operation {op!r}")
    _lset(lst, i, wrap(fn(old, v)))
    return old


def _atomic_cas(lst, i, expected, new):
    """Atomic compare-exchange of ``lst[i]``: store new if old == expected;
    return old. Floats (f32) compare their bits: a NaN matches the same NaN,
    -0.0 does not match 0.0."""
    if i < 0:
        raise IndexError(f"index {i} is negative")
    old = _lget(lst, i)
    if type(old) is float:
        same = _f32_to_bits(old) == _f32_to_bits(expected)
    else:
        same = old == expected
    if same:
        _lset(lst, i, new)
    return old
