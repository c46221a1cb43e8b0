"""Buffer and parameter values of the CPU device: numpy arrays <-> the Python
values that the emitted code works with (``int``, ``float``, ``bool``, ``Vec``,
``Mat``, struct instances, lists).

Every conversion is a move and keeps the bits, NaN payloads included: numpy's
float32/float16 <-> float64 conversions quiet signalling NaNs (as C's do), so
the NaNs among the values go through integer bit manipulation instead, in the
same layout as ``cpu_scalars`` uses (the narrow significand at the top of the
binary64 significand). Whole arrays are converted at once, field by field.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np

from .. import types as T
from . import cpu_support as S

_U64 = np.uint64
_EXP64 = _U64(0x7FF0000000000000)
# narrow float dtype -> (unsigned view, width, significand bits)
_NARROW = {np.dtype(np.float32): (np.uint32, 32, 23), np.dtype(np.float16): (np.uint16, 16, 10)}


def floats_to_py(a: np.ndarray) -> np.ndarray:
    """A float array as a new float64 array whose NaNs keep their sign, quiet bit and
    payload (payload shifted to the top of the binary64 significand)."""
    with np.errstate(all="ignore"):
        d = a.astype(np.float64)
        info = _NARROW.get(a.dtype)
        if info is None:
            return d
        nan = np.isnan(a)
        if nan.any():
            ut, width, mbits = info
            b = np.ascontiguousarray(a[nan]).view(ut).astype(_U64)
            sign = (b >> _U64(width - 1)) << _U64(63)
            sig = (b & _U64((1 << mbits) - 1)) << _U64(52 - mbits)
            d.view(_U64)[nan] = sign | _EXP64 | sig
    return d


def floats_from_py(values: Any, dtype: np.dtype) -> np.ndarray:
    """Python floats (nested lists, or a float64 array) as an array of ``dtype``, NaNs
    keeping their bits as ``floats_to_py`` placed them (never becoming an infinity)."""
    d = np.ascontiguousarray(values, dtype=np.float64)
    info = _NARROW.get(np.dtype(dtype))
    if info is None:
        return d
    with np.errstate(all="ignore"):
        f = d.astype(dtype)
        nan = np.isnan(d)
        if nan.any():
            ut, width, mbits = info
            b = d.view(_U64)[nan]
            sig = (b >> _U64(52 - mbits)) & _U64((1 << mbits) - 1)
            sig[sig == 0] = 1 << (mbits - 1)        # a payload only in dropped bits: quiet
            sign = (b >> _U64(63)) << _U64(width - 1)
            exp = _U64(((1 << (width - mbits - 1)) - 1) << mbits)
            f.view(ut)[nan] = (sign | exp | sig).astype(ut)
    return f


def _nmap(fn: Any, vals: Any, depth: int) -> Any:
    """``fn`` applied to the items ``depth`` list levels down in ``vals``."""
    if depth == 0:
        return fn(vals)
    if depth == 1:
        return list(map(fn, vals))
    return [_nmap(fn, v, depth - 1) for v in vals]


def _nzip(fn: Any, cols: list, depth: int) -> Any:
    """``fn(*items)`` over the items ``depth`` list levels down in parallel lists."""
    if depth == 0:
        return fn(*cols)
    if depth == 1:
        return list(map(fn, *cols))
    return [_nzip(fn, list(c), depth - 1) for c in zip(*cols)]


class Converter:
    """numpy values <-> the Python values of one compiled kernel's code: ``ns`` is the
    executed namespace of the code, ``names`` maps each struct's Python name to the
    name of its generated class there (``Compiled.names``)."""

    def __init__(self, ns: dict, names: dict):
        self.ns = ns
        self.names = names

    def struct_cls(self, t: T.StructType) -> Any:
        """The generated Python class of struct ``t``."""
        return self.ns[self.names[t.name]]

    def zero(self, t: T.Type) -> Any:
        """The zero value of ``t`` as the generated code represents it (a struct's is its
        class called with no argument: the field defaults)."""
        t = t.base if isinstance(t, T.EnumType) else t
        if isinstance(t, T.ScalarType):
            return False if t.kind == "bool" else (0.0 if t.is_float else 0)
        if isinstance(t, T.VectorType):
            return S.Vec((self.zero(t.elem),) * t.n)
        if isinstance(t, T.MatrixType):
            return S._mat(t.n)
        if isinstance(t, T.StructType):
            return self.struct_cls(t)()
        if isinstance(t, T.ArrayType):
            if isinstance(t.elem, (T.StructType, T.ArrayType)):   # mutable: one each
                return [self.zero(t.elem) for _ in range(t.n)]
            return [self.zero(t.elem)] * t.n
        raise TypeError(f"cannot make a zero of {t}")

    def to_py_list(self, t: T.Type, data: np.ndarray) -> list:
        """The elements of ``data`` (of type ``t``, in C order) as a list of Python values."""
        return self.load(t, data.reshape((-1,) + t.np_dtype.shape))

    def from_py_list(self, t: T.Type, lst: list, out: np.ndarray) -> None:
        """Write a list of Python values of type ``t`` into ``out`` (C-contiguous), in order."""
        if not out.flags.c_contiguous:
            raise ValueError("internal: cpu arrays are C-contiguous")
        flat = out.reshape((-1,) + t.np_dtype.shape)     # a view: the array is contiguous
        if flat.shape[0]:
            self.store(t, lst, flat)

    def load(self, t: T.Type, arr: np.ndarray) -> Any:
        """The values of ``arr`` (leading dimensions, then ``t``'s own shape) as nested
        lists of the Python values of type ``t``."""
        t = t.base if isinstance(t, T.EnumType) else t
        if isinstance(t, T.ScalarType):
            if t.kind == "bool":
                return (arr != 0).tolist()
            return floats_to_py(arr).tolist() if t.is_float else arr.tolist()
        if isinstance(t, T.VectorType):
            return _nmap(S.Vec, self.load(t.elem, arr), arr.ndim - 1)
        if isinstance(t, T.MatrixType):
            n = t.n
            return _nmap(lambda cols: S._mat(n, *[S.Vec(c[:n]) for c in cols]),
                         floats_to_py(arr).tolist(), arr.ndim - 2)
        if isinstance(t, T.ArrayType):
            if arr.dtype.names == ("v",):          # elements padded to the array stride
                arr = arr["v"]
            return self.load(t.elem, arr)           # one more list level: the array
        if isinstance(t, T.StructType):
            cls = self.struct_cls(t)
            if not t.fields:
                return _nmap(lambda _: cls(), np.zeros(arr.shape).tolist(), arr.ndim)
            return _nzip(cls, [self.load(ft, arr[f]) for f, ft in t.fields], arr.ndim)
        raise TypeError(f"cannot convert {t}")

    def store(self, t: T.Type, vals: Any, out: np.ndarray) -> None:
        """Write nested lists of Python values of type ``t`` into the view ``out``
        (leading dimensions, then ``t``'s own shape)."""
        t = t.base if isinstance(t, T.EnumType) else t
        if isinstance(t, T.VectorType):
            t = t.elem                              # a Vec is a tuple: numpy reads it as is
        if isinstance(t, T.ScalarType):
            if t.kind == "bool":
                out[...] = np.asarray(vals, dtype=bool)
            elif t.is_float:
                out[...] = floats_from_py(vals, out.dtype)
            else:
                out[...] = np.asarray(vals, dtype=out.dtype)
            return
        if isinstance(t, T.MatrixType):
            out[..., :t.n] = floats_from_py(vals, out.dtype)
            out[..., t.n:] = 0
            return
        if isinstance(t, T.ArrayType):
            if out.dtype.names == ("v",):
                out = out["v"]
            self.store(t.elem, vals, out)
            return
        if isinstance(t, T.StructType):
            for f, ft in t.fields:
                self.store(ft, _nmap(attrgetter(f), vals, out.ndim), out[f])
            return
        raise TypeError(f"cannot convert {t}")
