"""What a kernel looks like from outside: its specialisation, its bindings and its
parameter block, described once for the kernel object, the launch path, the emitters
and the devices.

This module sits below ``kernel.py`` and ``launch/`` (both import it; it imports
neither) and below ``emit`` and ``runtime``:

* ``Spec``: one specialisation (TypeVar bindings, Const values, folded groups), and
  ``bind_typevar``: how a launch argument binds a TypeVar of the signature.
* ``param_layout``: the parameter block's offsets, the same on every target (WGSL's
  uniform rules), with the hidden buffer lengths and group counts some targets need.
* ``BufferSlot``, ``ParamBlock``, ``Layout``: the binding table a device binds, and
  ``layout_of``, which makes it from a typed program.
* ``registers``: the D3D12 register of each binding, which the HLSL emitter writes and
  the d3d12 device binds.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import types as T
from .errors import LaunchError

__all__ = ["BufferSlot", "Layout", "ParamBlock", "ParamLayout", "Spec", "bind_typevar",
           "layout_of", "param_layout", "registers"]


# ------------------------------------------------------------------ specialisation

@dataclass(frozen=True)
class Spec:
    """One specialisation of a kernel."""

    typevars: tuple          # ((TypeVar, Type), ...)
    consts: tuple            # ((name, value), ...)
    folded: bool = False

    @property
    def typevar_dict(self) -> dict:
        """The TypeVar bindings as a dict: TypeVar -> Type."""
        return dict(self.typevars)

    @property
    def const_dict(self) -> dict:
        """The Const parameter values as a dict: name -> value."""
        return dict(self.consts)


def bind_typevar(kname: str, name: str, ann: Any, v: Any, tv: dict) -> None:
    """Bind the TypeVars that parameter ``name`` (annotation ``ann``) of kernel ``kname``
    takes from its launch argument ``v`` into ``tv`` (TypeVar -> Type); a LaunchError when
    ``v`` cannot bind them or binds one two ways."""
    if isinstance(ann, T.BufferAnnotation) and isinstance(ann.elem, typing.TypeVar):
        dt = getattr(v, "dtype", None)
        if dt is None or not hasattr(v, "shape"):
            raise LaunchError(f"{kname}(): parameter {name!r} is a Buffer and got "
                              f"{type(v).__name__}, which is not an array")
        try:
            t = T.type_of_dtype(dt)
        except T.TypeResolutionError as e:
            raise LaunchError(f"{kname}(): parameter {name!r}: {e}") from None
        _bind(tv, ann.elem, t, name)
    elif isinstance(ann, typing.TypeVar):
        if isinstance(v, np.generic):
            t = T.type_of_dtype(v.dtype)
        elif isinstance(v, bool):
            t = T.bool_
        elif isinstance(v, int):
            t = tv.get(ann, T.i32)
        elif isinstance(v, float):
            t = tv.get(ann, T.f32)
        else:
            raise LaunchError(f"{kname}(): parameter {name!r} is generic "
                              f"({ann.__name__}) and got {v!r}, whose type cannot bind it")
        _bind(tv, ann, t, name)


def _bind(tv: dict, var: typing.TypeVar, t: T.Type, name: str) -> None:
    if var in tv and tv[var] != t:
        raise LaunchError(f"parameter {name!r} binds TypeVar {var.__name__} to {t}, but it "
                          f"is already {tv[var]}")
    opts = T.typevar_options(var)
    if opts and t not in opts:
        raise LaunchError(f"parameter {name!r}: {t} is not allowed for {var.__name__} "
                          f"(allowed: {', '.join(o.name for o in opts)})")
    tv[var] = t


# ------------------------------------------------------------------ the parameter block

def _round_up(a: int, n: int) -> int:
    return (n + a - 1) // a * a


def _uniform_ok(t: T.Type) -> bool:
    if isinstance(t, T.StructType):
        for f, ft in t.fields:
            if isinstance(ft, (T.StructType, T.ArrayType)) and t.offsets[f] % 16:
                return False
            if not _uniform_ok(ft):
                return False
    if isinstance(t, T.ArrayType):
        return t.stride % 16 == 0 and _uniform_ok(t.elem)
    return True


@dataclass
class ParamLayout:
    """Offsets of scalar/struct parameters in the parameter block."""

    placed: list            # (name, offset, align attribute or None, size attribute or None)
    size: int
    kind: str               # "uniform" or "storage"; "push" where the emitter chooses it
    types: list             # (name, type): the value parameters, then the hidden lengths
    lengths: dict           # (buffer name, axis) -> name of its hidden u32 length member
    groups: str | None = None   # name of the hidden uvec3 of group counts, if any


def param_layout(values: list[tuple[str, T.Type]],
                 lengths: Sequence[tuple[str, int]] = (),
                 groups: bool = False) -> ParamLayout:
    """Lay out kernel value parameters by WGSL's uniform rules (std140-like), followed by
    a hidden u32 size for each (buffer, axis) in ``lengths`` (targets whose own buffer
    length counts binding padding get ``len(buf)`` from there; an N-D buffer's sizes
    index it) and, with
    ``groups``, a hidden uvec3 of the launch's group counts (HLSL has no built-in for
    them: the device writes them there at each dispatch)."""
    taken = {n for n, _ in values}

    def hidden_name(name: str) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        return name
    hidden = {(b, k): hidden_name(f"_ps_len_{b}" + (f"_{k}" if k else "")) for b, k in lengths}
    values = list(values) + [(hidden[b], T.u32) for b in lengths]
    groups_name = None
    if groups:
        groups_name = hidden_name("_ps_num_groups")
        values.append((groups_name, T.uvec3))
    off, placed, kind = 0, [], "uniform"
    for name, t in values:
        a, size = t.align, t.size
        align_attr = size_attr = None
        if isinstance(t, (T.StructType, T.ArrayType)):
            if _round_up(16, a) != a:
                a = align_attr = _round_up(16, a)
            if _round_up(16, size) != size:
                size = size_attr = _round_up(16, size)
            if not _uniform_ok(t):
                kind = "storage"
        off = _round_up(a, off)
        placed.append((name, off, align_attr, size_attr))
        off += size
    return ParamLayout(placed, _round_up(16, max(off, 16)), kind, values, hidden, groups_name)


# ------------------------------------------------------------------ the binding table

@dataclass(frozen=True)
class BufferSlot:
    """One ``Buffer[T]`` parameter: binding ``binding`` of group 0."""

    name: str            # Python parameter name
    binding: int
    dtype: np.dtype      # host dtype of one element
    writable: bool       # the kernel stores to it (or uses atomics)
    atomic: bool = False
    elem: Any = None     # the pyshade type of one element (None: only the dtype is known)
    ndim: int = 1        # Buffer[T, 2]: the array has this many dimensions (before T's own)


@dataclass(frozen=True)
class ParamBlock:
    """Scalar and struct parameters packed in one buffer after the buffers."""

    binding: int
    size: int                        # bytes, multiple of 16
    kind: str = "uniform"            # "uniform", "storage" (read-only storage) or "push"
    fields: tuple = ()               # ((name, offset, pyshade type), ...)
    # ((buffer index, offset of a u32 size, axis), ...): the element count (axis 0) or the
    # size of another axis of an N-D buffer.
    lengths: tuple = ()
    # Offset of three u32 group counts the device writes at each dispatch (the HLSL
    # emitter's num_groups: HLSL has no built-in for them), or -1.
    groups: int = -1


@dataclass(frozen=True)
class Layout:
    """Everything a runtime needs to bind and dispatch a compiled kernel."""

    buffers: tuple[BufferSlot, ...]
    params: ParamBlock | None
    workgroup_size: tuple[int, int, int]
    folded: bool = False  # group counts > 65535 folded into y/z; the code unfolds them


def layout_of(prog: Any, workgroup_size: tuple[int, int, int], folded: bool) -> Layout:
    """The binding table of a typed program (``frontend.program.Program`` whose
    ``param_block`` is set): its buffers in binding order, then the parameter block."""
    k = prog.kernel
    slots = tuple(BufferSlot(b.name, i, b.type.elem.np_dtype, b.written or b.atomic,
                             b.atomic, b.type.elem, b.type.ndim)
                  for i, b in enumerate(k.buffers))
    pb = None
    pl = prog.param_block
    if pl.types:
        offsets = {n: off for n, off, _, _ in pl.placed}
        index = {b.name: i for i, b in enumerate(k.buffers)}
        pb = ParamBlock(len(slots), pl.size, pl.kind,
                        tuple((n, off, t) for (n, off, _, _), (_, t) in
                              zip(pl.placed, pl.types)),
                        tuple((index[b], offsets[m], k) for (b, k), m in pl.lengths.items()),
                        offsets[pl.groups] if pl.groups else -1)
    return Layout(slots, pb, workgroup_size, folded)


def registers(written: Sequence[bool], params: str | None) -> tuple[list[str], str | None]:
    """D3D12 registers: one per buffer (``written[i]``: the kernel writes buffer i) and one
    for the parameter block of kind ``params`` ("push" or "storage", None without one).

    Registers are numbered densely per class, in binding order, as compushady's root
    signature expects (its ``Compute(srv=[...], uav=[...], cbv=[...])`` lists start at
    ``t0``, ``u0``, ``b0``): a buffer the kernel only reads is ``tK``, one it writes (or
    uses atomically) ``uK``; the push-constant block is the constant buffer ``b0``, the
    storage block the next ``t`` register."""
    t = u = 0
    out = []
    for w in written:
        if w:
            out.append(f"u{u}")
            u += 1
        else:
            out.append(f"t{t}")
            t += 1
    if params is None:
        return out, None
    return out, ("b0" if params == "push" else f"t{t}")
