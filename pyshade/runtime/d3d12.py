"""The ``d3d12`` device: Direct3D 12 compute through compushady, DXIL from DXC. Windows only.

What runs everywhere, and is tested here:

* ``available()``: whether this system can have the device, and why not;
* ``bindings(layout)``: the D3D12 register of every buffer and of the parameter
  block, as the HLSL emitter writes them (``emit.hlsl_tables.registers``:
  dense per class, the order of compushady's ``Compute(srv=, uav=, cbv=)``);
* ``layout_problems(program)``: the fields whose D3D12 placement would differ
  from the canonical layout that the launch path packs and every other target
  keeps. The HLSL emitter pads every struct to the canonical offsets, which
  DXC's Vulkan rules and D3D's packed structured-buffer rules both honour; D3D
  differs anyway for arrays of 3-component vectors and for ``mat3`` in
  structured buffers (12-byte rows), and in constant buffers (the parameter
  block when it is small) for arrays whose stride is not a multiple of 16, for
  ``mat2`` and for what follows a ``mat3``. A kernel with such a field must be
  refused there, not run with shifted fields.

Argument checking and packing are the launch path's, shared with every device;
the group counts go into the parameter block (``base.with_group_counts``) as on
the vulkan device, HLSL having no built-in for them.

The device itself (arrays and dispatches through compushady's d3d12 backend)
is not part of this version: no Windows machine was at hand to test it. On
Windows ``ps.device("d3d12")`` says so; elsewhere it says D3D12 is Windows-only.
The same HLSL runs here with ``ps.device("vulkan", via="hlsl")``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from .. import types as T
from ..emit.hlsl_tables import registers
from ..errors import BackendUnavailable
from .base import Device, Layout

__all__ = ["Bindings", "D3D12Device", "available", "bindings", "layout_problems"]

_ELSEWHERE = ("the d3d12 device needs Windows (Direct3D 12); on this system run the same "
              "HLSL with ps.device(\"vulkan\", via=\"hlsl\")")


def available() -> tuple[bool, str]:
    """(True, "") where the device could exist, else (False, why not)."""
    if sys.platform != "win32":
        return False, _ELSEWHERE
    return False, ("the d3d12 device is not implemented in this version of pyshade (DXIL "
                   "compiles: pyshade.toolchains.dxc.compile_hlsl(..., target=\"dxil\"))")


class D3D12Device(Device):
    """``ps.device("d3d12")``: refused with the reason (``available``)."""

    name = backend = "d3d12"
    target = "hlsl"

    def __init__(self, index: int = 0):
        ok, why = available()
        if not ok:
            raise BackendUnavailable(why)


@dataclass(frozen=True)
class Bindings:
    """Registers of a kernel on D3D12: ``srv``/``uav`` list buffer indices in register
    order (``t0, t1...``, ``u0, u1...``); ``params`` is the parameter block's register
    ("b0" for the constant buffer, "tN" for the storage form) or None."""

    registers: tuple[str, ...]
    srv: tuple[int, ...]
    uav: tuple[int, ...]
    params: str | None


def bindings(layout: Layout) -> Bindings:
    """The D3D12 registers of ``layout``'s buffers and parameter block."""
    regs, preg = registers([s.writable or s.atomic for s in layout.buffers],
                           layout.params.kind if layout.params is not None else None)
    srv = tuple(i for i, r in enumerate(regs) if r.startswith("t"))
    uav = tuple(i for i, r in enumerate(regs) if r.startswith("u"))
    return Bindings(tuple(regs), srv, uav, preg)


# ---- D3D's packing, to compare with the canonical layout -----------------------------
# The emitted structs hold each field after padding words that fill the canonical gap
# before it; these functions place the same members by D3D's rules ("cbuffer": 16-byte
# registers that no scalar or vector straddles, arrays, matrices and structs starting a
# register and each array element or matrix row in its own; else structured buffers:
# packed, 4-byte aligned) and report every field that lands elsewhere.

_AGGREGATE = (T.StructType, T.ArrayType, T.MatrixType)


def _round(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _place(t: T.Type, off: int, cbuffer: bool) -> tuple[int, int]:
    """(offset, size) of a member of type ``t`` placed after byte ``off`` by D3D."""
    if isinstance(t, T.EnumType):
        t = t.base
    if isinstance(t, _AGGREGATE):
        return _round(off, 16 if cbuffer else 4), _size(t, cbuffer)
    scalar = t.elem if isinstance(t, T.VectorType) else t
    width = 4 if scalar == T.bool_ else scalar.size
    size = width * (t.n if isinstance(t, T.VectorType) else 1)
    off = _round(off, min(width, 4) if not cbuffer else width)
    if cbuffer and off % 16 + size > 16:        # no member straddles a 16-byte register
        off = _round(off, 16)
    return off, size


def _stride(t: T.Type, cbuffer: bool) -> int:
    """D3D's distance between the elements of an array of ``t`` (rows of a matrix)."""
    size = _place(t, 0, cbuffer)[1]
    return _round(size, 16) if cbuffer else size


def _size(t: T.Type, cbuffer: bool) -> int:
    if isinstance(t, T.MatrixType):              # row_major: one row per pyshade column
        return _stride(t.column, cbuffer) * (t.n - 1) + t.column.size
    if isinstance(t, T.ArrayType):
        return _stride(t.elem, cbuffer) * (t.n - 1) + _place(t.elem, 0, cbuffer)[1]
    if isinstance(t, T.StructType):
        end, _ = _walk([(f, ft, t.offsets[f]) for f, ft in t.fields], t.size, cbuffer)
        return _round(end, 16 if cbuffer else 4)
    return _place(t, 0, cbuffer)[1]


def _walk(members: list[tuple[str, T.Type, int]], size: int | None,
          cbuffer: bool) -> tuple[int, list[tuple[str, T.Type, int, int]]]:
    """D3D's end and (name, type, D3D offset, canonical offset) of padded ``members``."""
    placed = []
    d3d = canon_end = 0
    for f, t, canon in members:
        off, n = _place(t, d3d + canon - canon_end, cbuffer)
        placed.append((f, t, off, canon))
        d3d, canon_end = off + n, canon + t.size
    if size is not None:                          # trailing padding words
        d3d += size - canon_end
    return d3d, placed


def _problems(t: T.Type, cbuffer: bool, where: str) -> list[str]:
    """Where D3D would lay out the inside of ``t`` otherwise than the canonical layout."""
    kind = "constant buffers" if cbuffer else "structured buffers"
    out: list[str] = []
    if isinstance(t, (T.ArrayType, T.MatrixType)):
        e = t.elem if isinstance(t, T.ArrayType) else t.column
        canon = t.stride if isinstance(t, T.ArrayType) else t.size // t.n
        if isinstance(e, _AGGREGATE):
            out += _problems(e, cbuffer, f"{where}[]")
        stride = _stride(e, cbuffer)
        if stride != canon:
            what = "columns" if isinstance(t, T.MatrixType) else "elements"
            out.append(f"{where}: D3D12 {kind} put the {what} of {t} {stride} bytes apart "
                       f"(canonically {canon})")
    elif isinstance(t, T.StructType):
        out += _members([(f, ft, t.offsets[f]) for f, ft in t.fields], t.size, cbuffer,
                        where, t.name)
    return out


def _members(members: list[tuple[str, T.Type, int]], size: int | None, cbuffer: bool,
             where: str, name: str) -> list[str]:
    out: list[str] = []
    for f, t, off, canon in _walk(members, size, cbuffer)[1]:
        here = f"{where}.{f}" if where else f
        if off != canon:
            out.append(f"{here}: D3D12 {'constant' if cbuffer else 'structured'} buffers "
                       f"put it at byte {off} of {name} (canonically {canon})")
        out += _problems(t, cbuffer, here)
    return out


def layout_problems(program: Any) -> list[str]:
    """The fields of ``program``'s buffers and parameter block that D3D12 would place
    elsewhere than the canonical layout (an empty list: the kernel's data means the same
    there)."""
    out: list[str] = []
    for b in program.kernel.buffers:
        out += _problems(b.type.elem, False, b.name)
    pb = program.param_block
    if pb is not None and pb.types:
        members = [(n, t, off) for (n, t), (_, off, _a, _s) in zip(pb.types, pb.placed)]
        out += _members(members, None, pb.kind == "push", "", "the parameter block")
    return out
