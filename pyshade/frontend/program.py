"""The typed program that the frontend hands to the emitters.

``Program`` holds the kernel, every helper it reaches (monomorphised copies,
callees first), and every struct and enum used. Expression nodes of the
function trees carry ``ps_type`` (their type; an enum's base type, the enum
itself in ``ps_enum_type``: see ``decay.py``) and, where relevant, ``ps_ref``
(what a name refers to), ``ps_call`` (what a call calls) and ``ps_attr``.
"""

from __future__ import annotations

import ast
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any

from .. import types as T
from .deep import walk
from .source import FunctionSource

# The records below are dataclasses whose ``__init__``, ``__repr__`` and ``__eq__`` come
# from ``_Record`` instead of being generated: a dataclass compiles each generated method
# when its class is made, which made importing this module (at the first translation)
# take about 3 ms.
_record = dataclass(init=False, repr=False, eq=False)
_INIT_FIELDS: dict[type, tuple] = {}


class _Record:
    """``__init__``, ``__repr__`` and ``__eq__`` as ``@dataclass`` writes them, from the
    class's fields: positional or keyword arguments, defaults and default factories; the
    fields with ``repr``; those with ``compare`` (instances unhashable)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        fs = _INIT_FIELDS.get(cls)
        if fs is None:
            fs = _INIT_FIELDS[cls] = tuple(f for f in fields(cls) if f.init)
        if len(args) > len(fs):
            raise TypeError(f"{cls.__name__}() takes {len(fs)} arguments, got {len(args)}")
        for f, v in zip(fs, args):
            if f.name in kwargs:
                raise TypeError(f"{cls.__name__}() got multiple values for {f.name!r}")
            setattr(self, f.name, v)
        for f in fs[len(args):]:
            if f.name in kwargs:
                v = kwargs.pop(f.name)
            elif f.default is not MISSING:
                v = f.default
            elif f.default_factory is not MISSING:
                v = f.default_factory()
            else:
                raise TypeError(f"{cls.__name__}() missing the argument {f.name!r}")
            setattr(self, f.name, v)
        if kwargs:
            raise TypeError(f"{cls.__name__}() got unexpected arguments {sorted(kwargs)}")

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(" + ", ".join(
            f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr) + ")"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = [f.name for f in fields(self) if f.compare]
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    __hash__ = None  # type: ignore[assignment]


@_record
class BufferParam(_Record):
    """A ``Buffer[T]`` kernel parameter."""

    name: str
    type: T.BufferType
    written: bool = False
    atomic: bool = False


@_record
class SharedArray(_Record):
    """A ``ps.shared_array`` declared in the kernel body."""

    name: str
    type: T.ArrayType
    atomic: bool = False


@_record
class FuncInfo(_Record):
    """One translated function: the kernel or one monomorphised helper."""

    src: FunctionSource
    tree: ast.FunctionDef
    name: str                               # Python name
    params: list[tuple[str, T.Type]]        # runtime parameters (buffers of helpers excluded)
    ret: T.Type | None = None
    locals: dict[str, T.Type] = field(default_factory=dict)
    is_kernel: bool = False
    pure: bool = True                       # no stores to buffers, atomics, barrier, print
    uses_barrier: bool = False
    key: tuple = ()
    emit_name: str = ""                     # unique name among the helpers (set by Program)
    mutated: set[str] = field(default_factory=set)     # locals/params assigned after decl
    inline_decl: dict[int, list[str]] = field(default_factory=dict)   # id(stmt) -> names
    block_decl: dict[int, list[str]] = field(default_factory=dict)    # id(stmt list) -> names
    direct_loop_vars: set[str] = field(default_factory=set)
    buffer_params: dict[str, str] = field(default_factory=dict)       # helper param -> global
    ids_used: set[str] = field(default_factory=set)                   # global_id, local_id...


@_record
class KernelInfo(FuncInfo):
    """The kernel: resources and launch configuration on top of FuncInfo."""

    buffers: list[BufferParam] = field(default_factory=list)
    values: list[tuple[str, T.Type]] = field(default_factory=list)     # scalar/struct params
    shared: dict[str, SharedArray] = field(default_factory=dict)
    workgroup_size: tuple[int, int, int] = (64, 1, 1)
    folded: bool = False
    # The buffers whose accesses the barriers must order in device memory (the frontend's
    # ``barrier_scope.device_ordered_buffers``); (): barrier() orders shared memory only;
    # None (not analysed): every written buffer, the safe answer.
    ordered_buffers: tuple[str, ...] | None = None

    @property
    def barrier_scope(self) -> str:
        """What ``barrier()`` orders besides execution: "device" (shared and buffer memory)
        when some buffer needs it or the kernel was not analysed, else "workgroup" (shared
        memory only)."""
        return "workgroup" if self.ordered_buffers == () else "device"


@_record
class Program(_Record):
    """Everything one specialisation of a kernel translates to."""

    kernel: KernelInfo
    funcs: list[FuncInfo]                   # helpers, callees before callers
    structs: list[T.StructType]
    enums: list[T.EnumType]
    target: str
    helpers_needed: set[str] = field(default_factory=set)
    consts: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, tuple] = field(default_factory=dict)   # name -> (ArrayType, values)
    # The questions the frontend asked of the target, with its answers (``target_view``):
    # the Program serves every target that answers them the same way (``for_target``).
    asked: dict[tuple, Any] = field(default_factory=dict, repr=False, compare=False)
    # What is computed once from the typed trees (the device requirements, the lengths
    # read), shared by the copies ``for_target`` makes.
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def for_target(self, target: str) -> Program:
        """This Program for ``target``, one that answers ``asked`` the same way: a copy
        that shares the typed functions, structs and ``memo`` (nothing downstream of the
        frontend changes them), with its own ``target`` and what ``Kernel.program`` sets
        per target (``param_block``)."""
        return replace(self, target=target, helpers_needed=set(self.helpers_needed))

    def lengths_used(self) -> list[tuple[str, int]]:
        """The (buffer, axis) pairs whose size the program reads (``len()``, ``.shape[k]``
        and N-D indexing), in binding order."""
        hit = self.memo.get("lengths_used")
        if hit is None:
            hit = self.memo["lengths_used"] = self._lengths_used()
        return list(hit)

    def _lengths_used(self) -> list[tuple[str, int]]:
        used = set()
        for f in [self.kernel] + self.funcs:
            for node in walk(f.tree):
                call = getattr(node, "ps_call", None)
                if call and call[0] == "builtin" and call[1].name == "len" and node.args and \
                        isinstance(node.args[0].ps_type, T.BufferType):
                    ref = getattr(node.args[0], "ps_ref", None)
                    if ref and ref[0] == "global":
                        used.add((ref[1], getattr(node, "ps_axis", 0)))
        return [(b.name, k) for b in self.kernel.buffers for k in range(b.type.ndim)
                if (b.name, k) in used]

    def uses_id(self, which: str) -> bool:
        """True when the kernel or a helper it calls reads the invocation id ``which``."""
        return any(which in f.ids_used for f in [self.kernel] + self.funcs)

    @property
    def filename(self) -> str:
        """The kernel's source file."""
        return self.kernel.src.filename
