"""Checking one launch argument's value against its kernel type, and its bytes in the
canonical layout (the general path behind the generated packers of ``packer.py``).

Each check raises ``_Bad(why)``, where ``why`` completes the sentence
"parameter 'x' is T and got V, which ..."; ``_Where`` turns it into the
located ``LaunchError``.
"""

from __future__ import annotations

import enum
import math
import struct
from typing import Any

import numpy as np

from .. import types as T
from ..errors import LaunchError

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_F32_MAX_ROUNDING = 3.4028235677973366e38   # the largest double that rounds to FLT_MAX


def _plain_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _desc(v: Any) -> str:
    """A short description of a bad argument for messages."""
    if isinstance(v, np.ndarray):
        return f"an array of {v.dtype} with shape {v.shape}"
    r = repr(v)
    if len(r) > 44:
        r = r[:40] + "..."
    if isinstance(v, (int, float, bool, str)) or v is None:
        return r
    return f"{r} ({type(v).__name__})"


# ------------------------------------------------------------------ value checks (slow paths)

class _Bad(Exception):
    """A value that does not fit: ``why`` completes "... and got X, which ...\"."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


class _Where:
    """Names the argument (and struct field) a value belongs to, for messages."""

    def __init__(self, kname: str, param: str, t: T.Type, path: str = ""):
        self.kname, self.param, self.t, self.path = kname, param, t, path

    def bad(self, v: Any, why: str, desc: str | None = None) -> LaunchError:
        """The LaunchError for value ``v`` (described as ``desc`` if given)."""
        field = f" field '{self.path}'" if self.path else ""
        return LaunchError(f"{self.kname}(): parameter '{self.param}'{field} is "
                           f"{T.host_type_name(self.t)} and got {desc or _desc(v)}, "
                           f"which {why}")


def _int_value(v: Any, t: T.ScalarType) -> int:
    if isinstance(v, (bool, np.bool_)):
        raise _Bad(f"is a bool, not an integer (pass int({v!r}))")
    if isinstance(v, enum.Enum) and not isinstance(v, int):
        raise _Bad("is not an integer")
    if not _plain_int(v):
        if isinstance(v, (float, np.floating)):
            raise _Bad(f"is not an integer (pass {t.name}(x) or int(x) to convert explicitly)")
        raise _Bad("is not an integer")
    iv = int(v)
    if not t.min <= iv <= t.max:
        raise _Bad(f"is out of range for {t.name} ({t.min}..{t.max})")
    return iv


def _float_number(v: Any) -> float:
    if isinstance(v, (bool, np.bool_)) or isinstance(v, enum.Enum) or \
            not isinstance(v, (int, float, np.integer, np.floating)):
        raise _Bad("is not a number")
    try:
        return float(v)
    except OverflowError:
        raise _Bad("is out of range for every float type") from None


def _f32_bits(v: Any) -> int:
    """The binary32 bits of ``v``; a np.float32 keeps its exact bits (NaN payloads too)."""
    if isinstance(v, np.float32):
        return int(v.view(np.uint32))
    x = _float_number(v)
    if math.isfinite(x) and abs(x) > _F32_MAX_ROUNDING:
        raise _Bad("is out of range for f32 (largest finite value 3.4028235e+38)")
    return _U32.unpack(_F32.pack(x))[0]


def _f16_bits(v: Any) -> int:
    if isinstance(v, np.float16):
        return int(v.view(np.uint16))
    x = _float_number(v)
    with np.errstate(over="ignore"):
        h = np.float16(x)
    if math.isfinite(x) and not np.isfinite(h):
        raise _Bad("is out of range for f16 (largest finite value 65504)")
    return int(h.view(np.uint16))


def _bool_value(v: Any) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(bool(v))
    if _plain_int(v) and int(v) in (0, 1):
        return int(v)
    raise _Bad("is not a bool (pass True or False)")


def _enum_value(v: Any, t: T.EnumType) -> int:
    if isinstance(v, t.cls):
        return int(v)
    if isinstance(v, enum.Enum):
        raise _Bad(f"is a member of {type(v).__name__}, not of {t.name}")
    if _plain_int(v) and int(v) in t.members.values():
        return int(v)
    valid = ", ".join(f"{m}={val}" for m, val in t.members.items())
    raise _Bad(f"is not a {t.name} member ({valid})")


def _scalar(t: T.Type, v: Any) -> int | float:
    """The value to pack for one scalar or enum: an int, float bits, or an f64."""
    if isinstance(t, T.EnumType):
        return _enum_value(v, t)
    assert isinstance(t, T.ScalarType)
    if t.kind == "bool":
        return _bool_value(v)
    if t.is_int:
        return _int_value(v, t)
    if t == T.f32:
        return _f32_bits(v)
    if t == T.f16:
        return _f16_bits(v)
    return _float_number(v)


def scalar_bits(t: T.Type, v: Any, w: _Where) -> int | float:
    """``_scalar`` with the located LaunchError (the generated packers' slow path)."""
    try:
        return _scalar(t, v)
    except _Bad as e:
        raise w.bad(v, e.why) from None


_FMT = {"i32": "i", "u32": "I", "f32": "I", "f16": "H", "f64": "d", "i64": "q", "u64": "Q",
        "bool": "I"}


def _fmt(t: T.Type) -> str:
    return "I" if isinstance(t, T.EnumType) and t.base == T.u32 else \
        "i" if isinstance(t, T.EnumType) else _FMT[t.name]


def value_bytes(t: T.Type, v: Any, w: _Where) -> bytes:
    """Any parameter value -> its bytes in the canonical layout (the general path)."""
    try:
        return _bytes(t, v)
    except _Bad as e:
        raise w.bad(v, e.why, "a record" if isinstance(v, (np.void, np.ndarray)) and
                    v.dtype.names else None) from None


def _bytes(t: T.Type, v: Any) -> bytes:
    if isinstance(t, (T.ScalarType, T.EnumType)):
        return struct.pack("<" + _fmt(t), _scalar(t, v))
    if isinstance(t, T.VectorType):
        return _vector_bytes(t, v)
    if isinstance(t, T.MatrixType):
        return _matrix_bytes(t, v)
    if isinstance(t, T.ArrayType):
        return _array_bytes(t, v)
    if isinstance(t, T.StructType):
        return _struct_bytes(t, v)
    raise _Bad(f"cannot be passed: {t} is not a parameter type")


def _sequence(v: Any, n: int, what: str) -> list:
    if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__len__") or \
            (isinstance(v, np.ndarray) and v.ndim != 1):
        raise _Bad(f"is not a sequence of {n} {what}")
    if len(v) != n:
        raise _Bad(f"has {len(v)} {what}, not {n}")
    return list(v)


def _vector_bytes(t: T.VectorType, v: Any) -> bytes:
    if isinstance(v, np.ndarray) and v.dtype == t.elem.np_dtype and v.shape == (t.n,) and \
            t.elem != T.bool_:
        return v.tobytes()
    out = []
    for i, c in enumerate(_sequence(v, t.n, "components")):
        try:
            out.append(_scalar(t.elem, c))
        except _Bad as e:
            raise _Bad(f"has component {i} = {_desc(c)}, which {e.why}") from None
    return struct.pack("<" + _fmt(t.elem) * t.n, *out)


def _matrix_bytes(t: T.MatrixType, v: Any) -> bytes:
    try:
        arr = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise _Bad(f"is not a {t.n}x{t.n} array of numbers (one row per column)") from None
    if arr.shape != (t.n, t.n):
        raise _Bad(f"is not a {t.n}x{t.n} array (one row per column)")
    if np.any(np.isfinite(arr) & (np.abs(arr) > _F32_MAX_ROUNDING)):
        raise _Bad("has a component out of range for f32")
    out = np.zeros(t.np_dtype.shape, dtype=np.float32)
    out[:, :t.n] = arr
    return out.tobytes()


def _array_bytes(t: T.ArrayType, v: Any) -> bytes:
    out = bytearray(t.size)
    for i, x in enumerate(_sequence(v, t.n, "elements")):
        try:
            b = _bytes(t.elem, x)
        except _Bad as e:
            raise _Bad(f"has element {i} = {_desc(x)}, which {e.why}") from None
        out[i * t.stride:i * t.stride + len(b)] = b
    return bytes(out)


def _struct_bytes(t: T.StructType, v: Any) -> bytes:
    v = _instance(t, v)
    out = bytearray(t.size)
    for f, ft in t.fields:
        x = getattr(v, f)
        try:
            b = _bytes(ft, x)
        except _Bad as e:
            raise _Bad(f"has field {f} = {_desc(x)}, which {e.why}") from None
        out[t.offsets[f]:t.offsets[f] + len(b)] = b
    return bytes(out)


def _instance(t: T.StructType, v: Any) -> Any:
    """An instance of the struct class from an instance or a record of its dtype (whose enum
    fields are checked); anything else is refused."""
    if isinstance(v, t.cls):
        return v
    if isinstance(v, (np.ndarray, np.void)) and v.dtype.names:
        if v.dtype != t.np_dtype or v.size != 1:
            raise _Bad(f"is not a record of {t.name}.dtype")
        try:
            return t.cls.from_numpy(v.reshape(()) if isinstance(v, np.ndarray) else v)
        except ValueError as e:
            raise _Bad(f"holds an invalid field: {e}") from None
    raise _Bad(f"is not a {t.name} instance")


def _to_instance(v: Any, w: _Where) -> Any:
    """``_instance`` with the located LaunchError (the generated packers' slow path)."""
    try:
        return _instance(w.t, v)   # type: ignore[arg-type]
    except _Bad as e:
        raise w.bad(v, e.why, "a record" if isinstance(v, (np.void, np.ndarray)) and
                    v.dtype.names else None) from None
