"""``@ps.struct``: an annotated class becomes a portable GPU struct (a dataclass with
the canonical layout's numpy dtype), and the conversion of its instances to and from
numpy records. The struct's kernel type is ``types.StructType``."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import numpy as np

from .types import EnumType, ScalarType, StructType, Type, bool_, resolve_type, zero_value

__all__ = ["struct"]


def struct(cls: type) -> type:
    """Class decorator: an annotated class becomes a portable GPU struct.

    The class becomes a dataclass whose fields default to zero; ``Cls.dtype``
    is the numpy structured dtype of its canonical layout;
    ``Cls.from_numpy(arr)`` converts records back to instances, checking that
    enum fields hold valid members.
    """
    hints = typing.get_type_hints(cls, include_extras=True)
    own = [n for n in cls.__dict__.get("__annotations__", {})]
    fields = [(n, resolve_type(hints[n], where=f"field {cls.__name__}.{n}")) for n in own]
    defaults = {}
    for fname, ftype in fields:
        if fname in cls.__dict__:
            defaults[fname] = _field_default(cls, fname, ftype, cls.__dict__[fname])
        elif not hasattr(cls, fname):
            if isinstance(ftype, (ScalarType, EnumType)):
                # an immutable zero: a plain default keeps the generated __init__ fast
                setattr(cls, fname, zero_value(ftype))
            else:
                setattr(cls, fname, dataclasses.field(
                    default_factory=lambda t=ftype: zero_value(t)))
    cls = dataclasses.dataclass(cls)
    st = StructType(cls, fields)
    st.defaults = defaults
    cls.__pyshade_struct__ = st
    cls.dtype = st.np_dtype
    cls.from_numpy = classmethod(_from_numpy)
    cls.to_numpy = _to_numpy
    return cls


def _field_default(cls: type, fname: str, ftype: Type, value: Any) -> Any:
    """The checked default ``value`` written in the class body for field ``fname``: kernels
    use it for the field when a constructor leaves it out, as the host dataclass does."""
    where = f"struct field {cls.__name__}.{fname}"
    if isinstance(ftype, EnumType):
        if not isinstance(value, ftype.cls):
            raise TypeError(f"{where}: the default {value!r} is not a member of "
                            f"{ftype.cls.__name__}")
        return value
    if not isinstance(ftype, ScalarType):
        raise TypeError(f"{where}: only scalar and enum fields take a default in the class "
                        f"body; a {ftype.name} field defaults to zero (leave the default out)")
    if isinstance(value, bool) != (ftype == bool_) or \
            not isinstance(value, (bool, int, float)) or (ftype.is_int and isinstance(value, float)):
        raise TypeError(f"{where}: the default {value!r} is not a {ftype.name} constant")
    return value


def _record_to_value(t: Type, v: Any) -> Any:
    if isinstance(t, StructType):
        return t.cls(**{f: _record_to_value(ft, v[f]) for f, ft in t.fields})
    if isinstance(t, EnumType):
        iv = int(v)
        try:
            return t.cls(iv)
        except ValueError:
            raise ValueError(f"{iv} is not a valid {t.name} member "
                             f"(valid: {sorted(t.members.values())})") from None
    if isinstance(t, ScalarType):
        return bool(v) if t.kind == "bool" else t.np_dtype.type(v)
    return np.array(v)


def _from_numpy(cls: type, arr: np.ndarray) -> Any:
    """Convert a record (or an array of records) of ``cls.dtype`` to instances."""
    st = cls.__pyshade_struct__
    arr = np.asarray(arr)
    if arr.dtype != st.np_dtype:
        arr = arr.view(st.np_dtype) if arr.dtype.itemsize == 1 else arr.astype(st.np_dtype)
    if arr.ndim == 0:
        return _record_to_value(st, arr[()])
    return [_record_to_value(st, r) for r in arr]


def _value_to_record(t: Type, v: Any, out: np.ndarray) -> None:
    if isinstance(t, StructType):
        for f, ft in t.fields:
            if isinstance(ft, StructType):
                _value_to_record(ft, getattr(v, f), out[f])
            else:
                out[f] = _field_host_value(ft, getattr(v, f))
    else:
        out[...] = _field_host_value(t, v)


def _field_host_value(t: Type, v: Any) -> Any:
    if isinstance(t, EnumType):
        return int(v)
    if isinstance(t, ScalarType):
        return int(bool(v)) if t.kind == "bool" else t(v)
    return v


def _to_numpy(self: Any) -> np.ndarray:
    """This instance as a 0-d record of ``type(self).dtype``."""
    st = type(self).__pyshade_struct__
    out = np.zeros((), dtype=st.np_dtype)
    _value_to_record(st, self, out)
    return out


_TUPLES: dict[tuple[Type, ...], StructType] = {}


def tuple_type(elems: list[Type] | tuple[Type, ...]) -> StructType:
    """The struct a tuple of ``elems`` lowers to: ``ps_tuple_u32_f32`` with fields ``_0, _1``
    (one struct per element types, shared by every kernel)."""
    key = tuple(elems)
    st = _TUPLES.get(key)
    if st is None:
        name = "ps_tuple_" + "_".join(t.name for t in key)
        cls = type(name, (), {"__annotations__": {f"_{i}": t for i, t in enumerate(key)},
                              "__module__": __name__})
        st = struct(cls).__pyshade_struct__
        st.tuple_of = key
        _TUPLES[key] = st
    return st


def tuple_elems(t: Any) -> tuple[Type, ...] | None:
    """The element types of a tuple struct (``tuple_type``), else None."""
    return getattr(t, "tuple_of", None) if isinstance(t, StructType) else None
