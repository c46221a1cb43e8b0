"""The d3d12 device's parts that need no GPU: the D3D12 registers of a kernel, how they
become compushady's ``Compute(cbv=, srv=, uav=)`` lists on each compushady backend, the
shader binary for that backend, and the check of which fields D3D12 would place elsewhere
than the canonical layout (``layout_problems``).

D3D's packing: the HLSL emitter pads every struct to the canonical offsets, which DXC's
Vulkan rules and D3D's packed structured-buffer rules both honour; D3D differs anyway for
arrays of 3-component vectors and for ``mat3`` in structured buffers (12-byte rows), and
in constant buffers (the parameter block when it is small) for arrays whose stride is not
a multiple of 16, for ``mat2`` and for what follows a ``mat3``. A kernel with such a field
is refused by the device, not run with shifted fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import types as T
from ..interface import Layout, registers

__all__ = ["Bindings", "bindings", "layout_problems", "resource_lists", "shader_binary"]

# compushady's Vulkan backend puts the cbv list at bindings 0.., srv at 1024.., uav at
# 2048.. (vulkan.cpp create_compute, the shifts of its own hlsl.compile).
VK_UAV_BASE = 2048
# The emitter's Vulkan-only attributes (``emit/hlsl.py``): DXIL ignores them, so without
# them the SPIR-V's bindings come from the D3D12 registers, as D3D12's do.
_VK_ATTRIBUTES = re.compile(r"^\[\[vk::(?:binding\(\d+, 0\)|push_constant)\]\] ", re.MULTILINE)


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


def resource_lists(b: Bindings, n_buffers: int,
                   backend: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """compushady's (cbv, srv, uav) lists for a kernel with registers ``b``: indices into
    the launch's buffers, ``n_buffers`` standing for the parameter block.

    On D3D12 (``backend="d3d12"``) each list is its register class in register order: the
    root signature compushady builds numbers them from ``b0``, ``t0``, ``u0``. compushady's
    Vulkan backend binds every srv *buffer* as a uniform-buffer descriptor (vulkan.cpp,
    create_compute), while DXC's SPIR-V of a ``StructuredBuffer`` is a storage buffer: so
    there the read-only buffers (and a storage parameter block) follow the writable ones
    in the uav list, which ``shader_binary``'s ``-fvk-t-shift`` matches."""
    params = () if b.params is None else (n_buffers,)
    cbv = params if b.params == "b0" else ()
    srv = b.srv + (params if b.params is not None and b.params.startswith("t") else ())
    if backend == "d3d12":
        return cbv, srv, b.uav
    return cbv, (), b.uav + srv


def shader_options(b: Bindings) -> list[str]:
    """DXC's flags for the SPIR-V of compushady's Vulkan backend (``resource_lists``):
    ``b0`` at binding 0, ``uK`` at 2048 + K, ``tK`` after the u registers, and D3D's
    memory layout (``-fvk-use-dx-layout``, as compushady compiles HLSL for Vulkan) so that
    the constant buffer packs as on D3D12."""
    return ["-fvk-b-shift", "0", "0", "-fvk-u-shift", str(VK_UAV_BASE), "0",
            "-fvk-t-shift", str(VK_UAV_BASE + len(b.uav)), "0", "-fvk-use-dx-layout"]


def shader_binary(source: str, entry: str, b: Bindings, backend: str) -> bytes:
    """The kernel's shader for compushady's ``backend``: DXIL (validated, signed where
    DXC finds dxil.dll, as on Windows) for "d3d12"; for "vulkan" DXC's SPIR-V of the same
    HLSL, without the emitter's ``[[vk::...]]`` attributes, bound by registers
    (``shader_options``). A DXC failure is a CompileError at the Python line (the lines
    are unchanged, so the ``#line`` directives still hold)."""
    from ..toolchains.dxc import compile_hlsl
    if backend == "d3d12":
        return compile_hlsl(source, entry=entry, target="dxil")
    return compile_hlsl(_VK_ATTRIBUTES.sub("", source), entry=entry, target="spirv",
                        options=shader_options(b))


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


def layout_problems(layout: Layout) -> list[str]:
    """The fields of ``layout``'s buffers and parameter block that D3D12 would place
    elsewhere than the canonical layout (an empty list: the kernel's data means the same
    there)."""
    out: list[str] = []
    for b in layout.buffers:
        out += _problems(b.elem, False, b.name)
    pb = layout.params
    if pb is not None and pb.fields:
        members = [(n, t, off) for n, off, t in pb.fields]
        out += _members(members, None, pb.kind == "push", "", "the parameter block")
    return out
