"""Types of the kernel language: scalars, vectors, matrices, arrays, buffers,
structs and enums, their numpy dtypes, and the portable struct layout.

The canonical byte layout is WGSL's storage layout (the same as GLSL std430):
every target's emitter inserts whatever padding its language needs to
reproduce it, so one numpy structured dtype describes a struct everywhere.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Any

import numpy as np


class Type:
    """Base class of every kernel-language type."""

    name: str = "?"

    def __repr__(self) -> str:
        return self.name

    # Layout of a value of this type in host-shareable memory.
    @property
    def size(self) -> int:
        """Size in bytes in the canonical (std430 / WGSL storage) layout."""
        raise TypeError(f"{self.name} has no memory layout")

    @property
    def align(self) -> int:
        """Alignment in bytes in the canonical layout."""
        raise TypeError(f"{self.name} has no memory layout")

    @property
    def np_dtype(self) -> np.dtype:
        """The numpy dtype of one value in host-shareable memory."""
        raise TypeError(f"{self.name} has no numpy dtype")


class ScalarType(Type):
    """A scalar type; also a callable cast (``u32(x)``) in kernels and on the host."""

    def __init__(self, name: str, kind: str, bits: int, np_name: str):
        self.name = name
        self.kind = kind          # "bool", "int", "uint", "float"
        self.bits = bits
        self._np = np.dtype(np_name)

    @property
    def is_int(self) -> bool:
        """True for signed and unsigned integers."""
        return self.kind in ("int", "uint")

    @property
    def is_float(self) -> bool:
        """True for f16, f32 and f64."""
        return self.kind == "float"

    @property
    def signed(self) -> bool:
        """True for signed integers and floats."""
        return self.kind in ("int", "float")

    @property
    def min(self) -> int:
        """Smallest integer value (integers only)."""
        return -(1 << (self.bits - 1)) if self.kind == "int" else 0

    @property
    def max(self) -> int:
        """Largest integer value (integers only)."""
        return (1 << (self.bits - 1)) - 1 if self.kind == "int" else (1 << self.bits) - 1

    @property
    def size(self) -> int:
        """Size in bytes: ``bits // 8``; 4 for bool, stored as a u32."""
        # bool is not host-shareable on most targets: it is stored as a u32.
        return 4 if self.kind == "bool" else self.bits // 8

    @property
    def align(self) -> int:
        """Alignment in bytes: the size."""
        return self.size

    @property
    def np_dtype(self) -> np.dtype:
        """The numpy dtype (uint32 for bool)."""
        return np.dtype(np.uint32) if self.kind == "bool" else self._np

    def __call__(self, value: Any = 0) -> Any:
        """Host-side cast with the kernel's semantics (integers wrap)."""
        if self.kind == "bool":
            return bool(value)
        if self.is_int:
            if isinstance(value, (float, np.floating)):
                value = int(value)
            v = int(value) & ((1 << self.bits) - 1)
            if self.kind == "int" and v > self.max:
                v -= 1 << self.bits
            return self._np.type(v)
        return self._np.type(value)

    def __reduce__(self):
        return (_scalar_by_name, (self.name,))


bool_ = ScalarType("bool", "bool", 32, "bool")
i32 = ScalarType("i32", "int", 32, "int32")
u32 = ScalarType("u32", "uint", 32, "uint32")
f32 = ScalarType("f32", "float", 32, "float32")
f16 = ScalarType("f16", "float", 16, "float16")
f64 = ScalarType("f64", "float", 64, "float64")
i64 = ScalarType("i64", "int", 64, "int64")
u64 = ScalarType("u64", "uint", 64, "uint64")
SCALARS = {t.name: t for t in (bool_, i32, u32, f32, f16, f64, i64, u64)}


def _scalar_by_name(name: str) -> ScalarType:
    return SCALARS[name]


class AbstractType(Type):
    """Type of an untyped literal (``1``, ``2.5``): concretised by its context."""

    def __init__(self, name: str, kind: str):
        self.name = name
        self.kind = kind


abstract_int = AbstractType("int literal", "int")
abstract_float = AbstractType("float literal", "float")


class VectorType(Type):
    """``vecN`` of f32, ``ivecN`` of i32, ``uvecN`` of u32, ``bvecN`` of bool."""

    def __init__(self, name: str, elem: ScalarType, n: int):
        self.name = name
        self.elem = elem
        self.n = n

    @property
    def size(self) -> int:
        """Size in bytes: n elements."""
        return self.elem.size * self.n

    @property
    def align(self) -> int:
        """Alignment in bytes: 2 elements for a vec2, 4 for a vec3 or vec4."""
        return self.elem.size * (2 if self.n == 2 else 4)

    @property
    def np_dtype(self) -> np.dtype:
        """A sub-array dtype of n elements."""
        return np.dtype((self.elem.np_dtype, (self.n,)))

    def __call__(self, *args: Any) -> np.ndarray:
        """Host-side constructor: a numpy array of the components."""
        vals = [c for a in args for c in (np.ravel(a) if np.ndim(a) else [a])]
        if len(vals) == 1:
            vals = vals * self.n
        return np.array(vals, dtype=self.elem.np_dtype)


_VEC_PREFIX = {"f32": "vec", "i32": "ivec", "u32": "uvec", "bool": "bvec"}
VECTORS: dict[tuple[str, int], VectorType] = {}
for _e in (f32, i32, u32, bool_):
    for _n in (2, 3, 4):
        VECTORS[(_e.name, _n)] = VectorType(f"{_VEC_PREFIX[_e.name]}{_n}", _e, _n)
vec2, vec3, vec4 = (VECTORS[("f32", n)] for n in (2, 3, 4))
ivec2, ivec3, ivec4 = (VECTORS[("i32", n)] for n in (2, 3, 4))
uvec2, uvec3, uvec4 = (VECTORS[("u32", n)] for n in (2, 3, 4))
bvec2, bvec3, bvec4 = (VECTORS[("bool", n)] for n in (2, 3, 4))


def packed_vec3(t: Any) -> bool:
    """True for ``vec3``, ``ivec3`` and ``uvec3``: a ``Buffer`` of them holds numpy's packed
    ``(n, 3)`` layout (elements 12 bytes apart) on every target, not the 16-byte slots of
    the canonical layout (which arrays and struct fields of them keep)."""
    return isinstance(t, VectorType) and t.n == 3 and t.elem.kind != "bool"


def vector_of(elem: ScalarType, n: int) -> VectorType:
    """The vector type of ``n`` elements of ``elem`` (raises KeyError if none)."""
    return VECTORS[(elem.name, n)]


class MatrixType(Type):
    """Square f32 matrix, column-major: ``m[i]`` is column i."""

    def __init__(self, n: int):
        self.name = f"mat{n}"
        self.n = n
        self.elem = f32
        self.column = VECTORS[("f32", n)]

    @property
    def size(self) -> int:
        """Size in bytes: n columns, each padded to its alignment."""
        return self.n * _round_up(self.column.align, self.column.size)

    @property
    def align(self) -> int:
        """Alignment in bytes: a column's."""
        return self.column.align

    @property
    def np_dtype(self) -> np.dtype:
        """float32 of shape (n, padded column length)."""
        # Columns are padded to their alignment (mat3: 3 columns of 4 floats).
        return np.dtype((np.float32, (self.n, self.column.align // 4)))

    def __call__(self, *args: Any) -> np.ndarray:
        """Host-side constructor from n*n column-major scalars."""
        return np.array(args, dtype=np.float32).reshape(self.n, self.n)


mat2, mat3, mat4 = MatrixType(2), MatrixType(3), MatrixType(4)
MATRICES = {2: mat2, 3: mat3, 4: mat4}


class ArrayType(Type):
    """Fixed-size array ``ps.array(T, N)``: locals, shared memory, struct fields."""

    def __init__(self, elem: Type, n: int, shared: bool = False):
        self.elem = elem
        self.n = n
        self.shared = shared
        self.name = f"array({elem.name}, {n})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArrayType) and (self.elem, self.n) == (other.elem, other.n)

    def __hash__(self) -> int:
        return hash(("array", self.elem, self.n))

    @property
    def stride(self) -> int:
        """Distance in bytes between consecutive elements."""
        return _round_up(self.elem.align, self.elem.size)

    @property
    def size(self) -> int:
        """Size in bytes: n strides."""
        return self.n * self.stride

    @property
    def align(self) -> int:
        """Alignment in bytes: the element's."""
        return self.elem.align

    @property
    def np_dtype(self) -> np.dtype:
        """A sub-array dtype of n elements, each padded to the stride where needed."""
        e = self.elem.np_dtype
        if e.itemsize != self.stride:
            e = np.dtype({"names": ["v"], "formats": [e], "offsets": [0], "itemsize": self.stride})
        return np.dtype((e, (self.n,)))


class BufferType(Type):
    """``ps.Buffer[T]`` (``ps.Buffer[T, 2]``, ``ps.Buffer[T, 3]``): a kernel parameter bound
    to a C-contiguous device array of T with ``ndim`` dimensions."""

    def __init__(self, elem: Type, ndim: int = 1):
        self.elem = elem
        self.ndim = ndim
        self.name = f"Buffer[{elem.name}]" if ndim == 1 else f"Buffer[{elem.name}, {ndim}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BufferType) and (self.elem, self.ndim) == \
            (other.elem, other.ndim)

    def __hash__(self) -> int:
        return hash(("buffer", self.elem, self.ndim))


class EnumType(Type):
    """An ``IntEnum`` subclass used in a kernel: u32 unless a member is negative."""

    def __init__(self, cls: type):
        self.cls = cls
        self.name = cls.__name__
        self.members = {m.name: int(m.value) for m in cls}
        self.base = i32 if any(v < 0 for v in self.members.values()) else u32

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EnumType) and self.cls is other.cls

    def __hash__(self) -> int:
        return hash(("enum", self.cls))

    @property
    def size(self) -> int:
        """Size in bytes: 4 (u32 or i32)."""
        return 4

    @property
    def align(self) -> int:
        """Alignment in bytes: 4."""
        return 4

    @property
    def np_dtype(self) -> np.dtype:
        """The base integer type's dtype."""
        return self.base.np_dtype


def decayed(t: Any) -> Any:
    """``t`` as generated code holds it: an enum is its base integer type, an array or buffer
    of enums one of that base; any other type is itself (a struct keeps its fields' types,
    which the host reads)."""
    if isinstance(t, EnumType):
        return t.base
    if isinstance(t, (ArrayType, BufferType)):
        elem = decayed(t.elem)
        if elem is not t.elem:
            return ArrayType(elem, t.n, t.shared) if isinstance(t, ArrayType) else \
                BufferType(elem, t.ndim)
    return t


class StructType(Type):
    """Layout and field types of a ``@ps.struct`` class."""

    def __init__(self, cls: type, fields: list[tuple[str, Type]]):
        self.cls = cls
        self.name = cls.__name__
        self.fields = fields
        self.field_types = dict(fields)
        # Defaults written in the class body (``structs.struct``), used for omitted fields.
        self.defaults: dict[str, Any] = {}
        offset, align = 0, 4
        self.offsets: dict[str, int] = {}
        for fname, ftype in fields:
            offset = _round_up(ftype.align, offset)
            self.offsets[fname] = offset
            offset += ftype.size
            align = max(align, ftype.align)
        self._align = align
        self._size = _round_up(align, offset)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StructType) and self.cls is other.cls

    def __hash__(self) -> int:
        return hash(("struct", self.cls))

    @property
    def size(self) -> int:
        """Size in bytes, rounded up to the alignment."""
        return self._size

    @property
    def align(self) -> int:
        """Alignment in bytes: the largest field alignment, at least 4."""
        return self._align

    @property
    def np_dtype(self) -> np.dtype:
        """A structured dtype with the canonical field offsets and size."""
        return np.dtype({"names": [f for f, _ in self.fields],
                         "formats": [t.np_dtype for _, t in self.fields],
                         "offsets": [self.offsets[f] for f, _ in self.fields],
                         "itemsize": self._size})


def _round_up(align: int, n: int) -> int:
    return (n + align - 1) // align * align


# ----------------------------------------------------------------------------
# Annotation markers: Buffer[T], Const[T], array(T, N)

class Buffer:
    """``ps.Buffer[T]`` in a kernel signature: a device array of T; ``ps.Buffer[T, 2]``
    (or 3) a C-contiguous 2-D (3-D) one, indexed ``a[i, j]``."""

    def __class_getitem__(cls, item: Any) -> "BufferAnnotation":
        if isinstance(item, tuple):
            if len(item) != 2 or isinstance(item[1], bool) or item[1] not in (1, 2, 3):
                raise TypeError("ps.Buffer takes an element type and optionally a number of "
                                "dimensions (1, 2 or 3): ps.Buffer[f32], ps.Buffer[f32, 2]")
            return BufferAnnotation(item[0], item[1])
        return BufferAnnotation(item)


class BufferAnnotation:
    """The object ``Buffer[T]`` (``Buffer[T, N]``) evaluates to (T may be a TypeVar)."""

    def __init__(self, elem: Any, ndim: int = 1):
        self.elem = elem
        self.ndim = ndim

    def __repr__(self) -> str:
        name = getattr(self.elem, '__name__', self.elem)
        return f"Buffer[{name}]" if self.ndim == 1 else f"Buffer[{name}, {self.ndim}]"


class Const:
    """``ps.Const[int]`` (or bool, float, type): a compile-time parameter."""

    def __class_getitem__(cls, item: Any) -> "ConstAnnotation":
        return ConstAnnotation(item)


class ConstAnnotation:
    """The object ``Const[T]`` evaluates to."""

    def __init__(self, kind: Any):
        self.kind = kind

    def __repr__(self) -> str:
        return f"Const[{getattr(self.kind, '__name__', self.kind)}]"


def array(elem: Any, n: int | tuple[int, ...]) -> Any:
    """A zero-initialised local array of ``n`` elements (kernels only); a shape tuple
    ``(rows, cols)`` (or three sizes) makes a 2-D (3-D) array, indexed ``a[i, j]``.

    Outside a kernel, ``ps.array(T, N)`` in an annotation or struct field
    describes the array type.
    """
    return ArrayAnnotation(elem, n)


def shared_array(elem: Any, n: int | tuple[int, ...]) -> Any:
    """Workgroup-shared memory of ``n`` elements (kernels only, top level); a shape tuple
    ``(16, 16)`` makes a 2-D tile, indexed ``tile[y, x]``."""
    return ArrayAnnotation(elem, n, shared=True)


class Array:
    """``ps.Array[T, Literal[N]]``: the type of a fixed array of N elements of T, as an
    annotation (a struct field, a helper's parameter), where type checkers accept no call
    such as ``ps.array(T, N)``; ``ps.Array[T, N]`` also works at run time."""

    def __class_getitem__(cls, item: Any) -> "ArrayAnnotation":
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError("ps.Array takes the element type and the length: "
                            "ps.Array[f32, Literal[4]]")
        elem, n = item
        if typing.get_origin(n) is typing.Literal and len(typing.get_args(n)) == 1:
            n = typing.get_args(n)[0]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise TypeError(f"ps.Array[T, N]: N must be a positive int or Literal[int], "
                            f"not {n!r}")
        return ArrayAnnotation(elem, n)


class ArrayAnnotation:
    """What ``ps.array(T, N)`` and ``ps.Array[T, N]`` evaluate to on the host: a type
    description."""

    def __init__(self, elem: Any, n: int, shared: bool = False):
        self.elem, self.n, self.shared = elem, n, shared


# ----------------------------------------------------------------------------
# Structs (the @ps.struct decorator and host records: ``structs.py``)

def zero_value(t: Type) -> Any:
    """The host-side zero of type ``t``."""
    if isinstance(t, ScalarType):
        return t(0)
    if isinstance(t, EnumType):
        return t.cls(min(t.members.values(), key=abs)) if 0 not in t.members.values() else t.cls(0)
    if isinstance(t, StructType):
        return t.cls()
    return np.zeros((), dtype=t.np_dtype)[()]


def struct_type(cls: Any) -> StructType | None:
    """The StructType of a ``@ps.struct`` class, else None."""
    return getattr(cls, "__pyshade_struct__", None) if isinstance(cls, type) else None


# ----------------------------------------------------------------------------
# Resolution of annotation objects to kernel types

class TypeResolutionError(TypeError):
    """An annotation object is not a kernel-language type."""


def is_newtype(obj: Any) -> bool:
    """True for ``typing.NewType`` objects."""
    return hasattr(obj, "__supertype__") and callable(obj)


def resolve_type(obj: Any, typevars: dict | None = None, where: str = "annotation") -> Type:
    """Map an annotation object (``u32``, ``int``, a struct class, ...) to a Type."""
    if isinstance(obj, Type):
        return obj
    if obj is int:
        return i32
    if obj is float:
        return f32
    if obj is bool:
        return bool_
    if isinstance(obj, typing.TypeVar):
        if typevars and obj in typevars:
            return typevars[obj]
        raise TypeResolutionError(f"TypeVar {obj.__name__} is not bound in {where}")
    if is_newtype(obj):
        return resolve_type(obj.__supertype__, typevars, where)
    if isinstance(obj, type) and issubclass(obj, enum.IntEnum):
        return EnumType(obj)
    st = struct_type(obj)
    if st is not None:
        return st
    if typing.get_origin(obj) is tuple:
        args = typing.get_args(obj)
        if not args or Ellipsis in args:
            raise TypeResolutionError(f"a tuple annotation names each element type, as "
                                      f"tuple[u32, f32] ({where})")
        from .structs import tuple_type
        return tuple_type([resolve_type(a, typevars, where) for a in args])
    if isinstance(obj, BufferAnnotation):
        return BufferType(resolve_type(obj.elem, typevars, where), obj.ndim)
    if isinstance(obj, ArrayAnnotation):
        t = resolve_type(obj.elem, typevars, where)
        for n in reversed(obj.n if isinstance(obj.n, tuple) else (obj.n,)):   # (rows, cols)
            t = ArrayType(t, int(n), obj.shared)
        return t
    if isinstance(obj, type) and dataclasses.is_dataclass(obj):
        raise TypeResolutionError(f"{obj.__name__} is a dataclass but not a @ps.struct ({where})")
    raise TypeResolutionError(f"{obj!r} is not a pyshade type ({where})")


def typevar_options(var: typing.TypeVar) -> list[Type]:
    """The kernel types a TypeVar admits: its constraints, or the members of its
    ``bound=`` (a type or a Union); empty when it admits anything."""
    opts = list(var.__constraints__)
    if var.__bound__ is not None:
        b = var.__bound__
        opts = list(getattr(b, "__args__", [b]))
    out = []
    for o in opts:
        try:
            out.append(resolve_type(o))
        except TypeResolutionError:
            pass
    return out


def type_of_dtype(dt: Any) -> Type:
    """The scalar type of a numpy dtype (for binding TypeVars from arguments)."""
    dt = np.dtype(dt)
    for t in (i32, u32, f32, f16, f64, i64, u64):
        if t.np_dtype == dt:
            return t
    if dt == np.dtype(bool):
        return bool_
    raise TypeResolutionError(f"no pyshade scalar type for numpy dtype {dt}")


def host_type_name(t: Type) -> str:
    """The name a user writes for ``t`` in Python (for messages)."""
    if isinstance(t, ScalarType) and t.kind == "bool":
        return "bool"
    return t.name


def float_to_int(x: float, lo: int, hi: int) -> int:
    """A float converted to an integer type of range [lo, hi] as every device converts
    it (docs/language.md): truncated toward zero, saturated, NaN gives 0. The frontend
    folds constant conversions with it; the cpu device's ``_ftoi`` (stdlib only, so
    written again) follows the same rule, and test_cpu_support checks they agree."""
    return 0 if x != x else int(min(max(x, lo), hi))
