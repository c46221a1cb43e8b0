"""CUDA C++ emitter: one ``extern "C" __global__`` kernel per specialisation, for NVRTC.

Kernel signature (what ``runtime/cuda.py`` launches; ``Layout`` describes it)::

    extern "C" __global__ void __launch_bounds__(X*Y*Z) NAME(
        [const] T0* __restrict__ buf0, ..., [const] Tk* __restrict__ bufk,
        const ps_Params ps_params)

- ``NAME`` is ``Compiled.entry`` (the kernel's Python name unless it clashes with a
  reserved word).
- One pointer per ``Buffer[T]`` parameter, in binding order (``Layout.buffers``),
  ``const`` when the kernel never writes it (``BufferSlot.writable`` false). The
  element type has the canonical layout: ``Buffer[vec3]`` points at 16-byte slots.
- Then, only when ``Layout.params`` is not None, the parameter block as ONE struct
  passed by value: ``ParamBlock.size`` bytes, packed exactly as for every other
  target (each field at its ``ParamBlock.fields`` offset, bools as u32); the hidden
  element count of each buffer whose ``len()`` the kernel reads is a u32 inside it,
  at the offsets ``ParamBlock.lengths`` names. With the driver API that is one
  kernel argument pointing at those bytes. ``static_assert`` checks its size and
  every offset at compile time, as for every struct.
- Launch with blockDim = ``Layout.workgroup_size`` and gridDim = the group counts
  (folded launches unfold them, as on the other targets); no dynamic shared memory.

Design notes:
- Mostly tables (``cuda_tables.py``) over the shared brace-language code of
  ``clike.py``; builtins are spelled by their ``clike`` rows in ``lang.py`` and
  ``cuda`` rows where CUDA differs. Buffers are kernel parameters, not globals as in
  GLSL: a helper that touches a buffer (or ``len`` of one) gets the pointers (and the
  block) as hidden arguments after the invocation ids, under the same names.
- Python semantics: signed ``+ - * <<`` and unary minus go through the unsigned type
  (signed overflow is undefined in C++, and NVVM optimises on it); f16 arithmetic uses
  the ``__h*_rn`` intrinsics and f16 math goes through f32 with one rounding; f32
  literals carry ``f`` (else C++ would compute in double). ``toolchains/nvrtc.py``
  compiles with ``--fmad=false`` (a fused multiply-add rounds once where numpy rounds
  twice) and IEEE division and square root, without flush-to-zero.
- CUDA's ``float2..4``/``int``/``uint`` vectors have no operators, swizzles or bool
  forms: each operator, swizzle, constructor and vector builtin a kernel uses becomes
  a small ``__device__ __forceinline__`` function, written once (``Emitter.helper``);
  ``ps_boolN``, ``ps_matN`` (columns padded as in the canonical layout) and
  ``ps_array<T, N>`` (C arrays are no values) are declared in the header when used.
- Structs get explicit padding members, ``alignas`` of their canonical alignment, a
  constructor of all fields and ``static_assert``s of size and offsets; bool is a
  ``uint`` in memory.
- ``#line N "file.py"`` precedes statements (``line_directives``), so NVRTC's errors
  name the Python line; ``printf`` implements ``print``.
"""

from __future__ import annotations

import ast
import math
import os
import struct
from typing import Any

import numpy as np

from .. import types as T
from ..frontend.program import FuncInfo
from . import cuda_tables as C
from .clike import CLikeEmitter, shortest_f32
from .cuda_ops import CudaOps


def _walk_types(t: Any, out: list) -> None:
    """Collect ``t`` and every type inside it (fields, elements, columns)."""
    # By identity: a shared array equals a local one of the same shape, but only local
    # arrays need ps_array.
    if t is None or not isinstance(t, T.Type) or any(t is u for u in out):
        return
    out.append(t)
    if isinstance(t, (T.ArrayType, T.BufferType)):
        _walk_types(t.elem, out)
    elif isinstance(t, T.MatrixType):
        _walk_types(t.column, out)
    elif isinstance(t, T.StructType):
        for _, ft in t.fields:
            _walk_types(ft, out)


def is_vec3(t: Any) -> bool:
    """True for a 3-component vector (a 16-byte slot in arrays and buffers)."""
    return isinstance(t, T.VectorType) and t.n == 3


class CudaEmitter(CudaOps, CLikeEmitter):
    """Writes a Program as CUDA C++ for NVRTC."""

    target = "cuda"
    explicit_lengths = True
    line_directives = True
    # __syncthreads() waits for the block and makes its shared and global stores visible.
    BARRIER = ("__syncthreads()",)
    DEVICE = "__device__ "          # the qualifier of a struct constructor

    def __init__(self, prog: Any):
        super().__init__(prog)
        self.uses: dict[str, tuple[list[str], bool]] = {}   # helper -> (buffers, block)
        for f in prog.funcs:                                 # callees first
            self.uses[f.emit_name] = self._resource_use(f)

    def _resource_use(self, f: FuncInfo) -> tuple[list[str], bool]:
        """The buffers a helper reads or writes and whether it needs the parameter
        block (``len`` of a buffer), its callees' included."""
        bufs, block = set(), False
        order = self.resource_names()
        names = set(order)
        for n in ast.walk(f.tree):
            ref = getattr(n, "ps_ref", None)
            if isinstance(n, ast.Name) and ref and ref[0] == "global" and ref[1] in names:
                bufs.add(ref[1])
            call = getattr(n, "ps_call", None)
            if call and call[0] == "func":
                b2, p2 = self.uses.get(call[1].emit_name, ((), False))
                bufs |= set(b2)
                block |= p2
            elif call and call[0] == "builtin" and call[1].name == "len" and \
                    isinstance(n.args[0].ps_type, T.BufferType):
                block = True
        return [n for n in order if n in bufs], block

    def resource_names(self) -> list[str]:
        """The kernel-scope resources a helper gets as hidden arguments: the buffers (an
        MSL threadgroup array, declared in the kernel, is one too)."""
        return [b.name for b in self.k.buffers]

    # -- types ----------------------------------------------------------------------------
    def type_name(self, t: T.Type, node: ast.AST | None = None, storage: bool = False) -> str:
        """CUDA spelling of ``t`` (bool as uint where ``storage``)."""
        if isinstance(t, T.EnumType):
            return self.type_name(t.base)
        if isinstance(t, T.ScalarType):
            return "uint" if t.kind == "bool" and storage else C.SCALARS[t.name]
        if isinstance(t, T.VectorType):
            if t.elem == T.bool_:
                return f"uint{t.n}" if storage else self.global_name(f"_ps_bool{t.n}")
            return f"{C.VEC_BASE[t.elem.name]}{t.n}"
        if isinstance(t, T.MatrixType):
            return self.global_name(f"_ps_mat{t.n}")
        if isinstance(t, T.ArrayType):
            elem = self.type_name(t.elem, node, storage)
            return f"{self.global_name('_ps_array')}<{elem}, {t.n}>"
        if isinstance(t, T.StructType):
            return self.global_name(t.name)
        raise self.error(node or self.func_node(), f"internal: no CUDA type for {t}")

    def slot_name(self, t: T.Type) -> str:
        """The type of one buffer element: a 3-vector sits in a 16-byte slot."""
        name = self.type_name(t, storage=True)
        return f"{self.global_name('_ps_slot')}<{name}>" if is_vec3(t) else name

    def cpp_layout(self, t: T.Type) -> tuple[int, int]:
        """(size, alignment) of ``t``'s storage type in C++, to place padding members."""
        if isinstance(t, T.VectorType):
            return t.size, C.VEC_ALIGN[t.n]
        if isinstance(t, T.ArrayType):
            if is_vec3(t.elem):
                return t.size, 16
            return t.size, self.cpp_layout(t.elem)[1]
        return t.size, t.align          # scalars, matrices, structs: the canonical alignment

    def make_name(self, t: T.VectorType) -> str:
        """The constructor function of a vector type (``make_float3``, ``ps_make_bool3``)."""
        if t.elem == T.bool_:
            return self.global_name(f"_ps_make_bool{t.n}")
        return f"make_{self.type_name(t)}"

    def vector_text(self, t: T.Type, parts: Any) -> str:
        """``make_uint3(a, b, c)``: CUDA vectors have no constructors."""
        return f"{self.make_name(t)}({', '.join(parts)})"

    # -- literals -------------------------------------------------------------------------
    def literal(self, value: Any, t: T.Type) -> str:
        """A C++ literal of exactly type ``t`` (``1u``, ``1.5f``, ``2ll``); f16 and the
        special floats through their bits or a conversion."""
        if isinstance(t, T.VectorType):
            return self.vector_text(t, [self.literal(value, t.elem)] * t.n)
        if t == T.bool_ or isinstance(value, bool):
            return "true" if value else "false"
        if t.is_int:
            return self.int_literal(value, t, self.tables.LITERAL_SUFFIX[t.name])
        v = float(value)
        if math.isnan(v) or math.isinf(v):
            fmt = {"f32": "<f", "f64": "<d", "f16": "<e"}[t.name]
            bits = int.from_bytes(struct.pack(fmt, v), "little")
            return self.tables.SPECIAL_FLOAT[t.name].format(bits)
        if t == T.f16:      # the f16 value, exact in f32: one rounding, as on the CPU
            return self.tables.HALF_LITERAL.format(shortest_f32(float(np.float16(v))))
        return shortest_f32(v) + "f" if t == T.f32 else repr(v)

    def zero_value(self, t: T.Type, node: ast.AST | None = None) -> str:
        """A scalar's zero literal, else ``T()`` (value-initialised: all zeros)."""
        if isinstance(t, T.ScalarType):
            return self.literal(0, T.u32 if t == T.bool_ else t)
        return f"{self.type_name(t, node, storage=True)}()"

    def bool_to_u32(self, v: str) -> str:
        """``uint(b)``: 1 or 0."""
        return f"uint({v})"

    # -- declarations ---------------------------------------------------------------------
    def header(self) -> None:
        """The comment line, ``cuda_fp16.h`` where f16 is used, the typedefs and the
        support types the program uses."""
        super().header()
        used: list = []
        for t in self.all_types() + [b.type for b in self.k.buffers]:
            _walk_types(t, used)
        for f in [self.k] + self.prog.funcs:
            for n in ast.walk(f.tree):
                _walk_types(getattr(n, "ps_type", None), used)
        names = {t.name for t in used if isinstance(t, T.ScalarType)}
        if "f16" in names:
            self.line("#include <cuda_fp16.h>")
        for s, line in C.TYPEDEFS.items():
            if s == "u32" or s in names:
                self.line(line)
        for line in C.OFFSETOF:
            self.line(line)
        slots = sorted({self.type_name(t.elem, storage=True) for t in used
                        if isinstance(t, (T.ArrayType, T.BufferType)) and is_vec3(t.elem)}
                       | ({"float3"} if T.mat3 in used else set()))
        arrays = any(isinstance(t, T.ArrayType) and not t.shared for t in used)
        slot = self.global_name("_ps_slot")
        if arrays or slots:
            self.line(C.SLOT.format(slot=slot))
        for s in slots:
            self.line(C.SLOT3.format(slot=slot, t=s))
        if arrays:
            for ln in C.ARRAY.format(array=self.global_name("_ps_array"), slot=slot).split("\n"):
                self.line(ln)
        for n in (2, 3, 4):
            if T.vector_of(T.bool_, n) in used:
                self.line(C.BOOL_VECTOR.format(name=self.global_name(f"_ps_bool{n}"),
                                               fields=", ".join(C.COMPONENTS[:n])))
        for m in (T.mat2, T.mat3, T.mat4):
            if m in used:
                col = self.type_name(m.column)
                text = C.MATRIX.format(align=m.align, name=self.type_name(m), n=m.n, col=col,
                                       col_decl=f"{slot}<{col}>" if m.n == 3 else col,
                                       v=".v" if m.n == 3 else "")
                for ln in text.split("\n"):
                    self.line(ln)
        self.line()

    def enum_decl(self, e: T.EnumType) -> None:
        """One ``constexpr`` per enum member."""
        for m, v in e.members.items():
            self.line(f"constexpr {self.type_name(e.base)} {self.global_name(f'{e.name}_{m}')} "
                      f"= {self.literal(v, e.base)};")
        self.line()

    def padded_members(self, name: str, members: list, size: int) -> tuple[list, list]:
        """Member lines placing each (member, type, offset) at its canonical offset with
        ``unsigned char`` padding, then the static_asserts of ``size`` and the offsets."""
        lines, asserts, off, pads = [], [], 0, 0
        for i, (member, t, want) in enumerate(members):
            room = (members[i + 1][2] if i + 1 < len(members) else size) - want
            tname, csize, calign = self.member_type(t, room)
            natural = (off + calign - 1) // calign * calign
            if want > natural:
                lines.append(f"    unsigned char _ps_pad{pads}[{want - natural}];")
                pads += 1
            lines.append(f"    {tname} {member};")
            asserts.append(f"static_assert(PS_OFFSETOF({name}, {member}) == {want}, "
                           f'"offset of {name}.{member}");')
            off = want + csize
        if asserts:
            asserts = ["#ifdef PS_OFFSETOF", *asserts, "#endif"]
        return lines, [f'static_assert(sizeof({name}) == {size}, "size of {name}");'] + asserts

    def member_type(self, t: T.Type, room: int) -> tuple[str, int, int]:
        """(type name, C++ size, alignment) of a struct member of type ``t`` that has
        ``room`` bytes before the next member (a target with wide 3-vectors packs them)."""
        return (self.type_name(t, storage=True), *self.cpp_layout(t))

    def struct_decl(self, s: T.StructType) -> None:
        """A struct with the canonical layout (padding members, ``alignas``), bool fields
        as uint, a constructor of all fields, and static_asserts of the layout."""
        name = self.global_name(s.name)
        fields = [(self.field_name(s.name, f, [n for n, _ in s.fields]), ft, s.offsets[f])
                  for f, ft in s.fields]
        members, asserts = self.padded_members(name, fields, s.size)
        self.line(f"struct alignas({s.align}) {name} {{")
        for ln in members:
            self.line(ln)
        params = ", ".join(f"{self.type_name(t, storage=True)} {m}" for m, t, _ in fields)
        inits = ", ".join(f"{m}({m})" for m, _, _ in fields)
        self.line(f"    {name}() = default;")
        self.line(f"    {self.DEVICE}{name}({params}) : {inits} {{}}")
        self.line("};")
        for ln in asserts:
            self.line(ln)
        self.line()

    def resources(self) -> None:
        """The parameter block struct and the ``__shared__`` arrays (buffers are kernel
        parameters)."""
        self.param_struct()
        for name, sh in self.k.shared.items():
            elem = self.type_name(sh.type.elem, storage=True)
            self.line(f"__shared__ {elem} {self.global_name(name)}[{sh.type.n}];")
        self.line()

    def param_struct(self) -> None:
        """The parameter block's struct, laid out as ``ParamBlock`` says."""
        pb = self.prog.param_block
        if pb.types:
            name = self.globals.name("_ps_Params")
            names = [n for n, _ in pb.types]
            fields = [(self.field_name("_ps_Params", n, names), t, off)
                      for (n, t), (_, off, _a, _s) in zip(pb.types, pb.placed)]
            members, asserts = self.padded_members(name, fields, pb.size)
            self.line(f"struct alignas(16) {name} {{")
            for ln in members:
                self.line(ln)
            self.line("};")
            for ln in asserts:
                self.line(ln)

    # -- functions ------------------------------------------------------------------------
    def buffer_param(self, name: str) -> str:
        """``[const] T* __restrict__ name`` of a buffer (const when never written)."""
        b = next(b for b in self.k.buffers if b.name == name)
        const = "" if b.written or b.atomic else "const "
        return f"{const}{self.slot_name(b.type.elem)}* __restrict__ {self.global_name(name)}"

    def function_header(self, f: FuncInfo) -> None:
        """The kernel is ``extern "C" __global__`` with the buffers and the parameter
        block; a helper is ``__device__`` with its parameters, then the ids, buffers and
        block it uses as hidden parameters."""
        if f.is_kernel:
            params = [self.buffer_param(b.name) for b in self.k.buffers]
            if self.prog.param_block.types:
                params.append(f"const {self.globals.name('_ps_Params')} "
                              f"{self.globals.name('_ps_params')}")
            x, y, z = f.workgroup_size
            self.line(f'extern "C" __global__ void __launch_bounds__({x * y * z}) '
                      f"{self.global_name(f.name)}({', '.join(params)}) {{", f.tree)
            return
        params = [f"{self.type_name(t, f.tree)} {self.local(name)}" for name, t in f.params]
        params += [f"{C.IDS[w][0]} {self.id_value(w)}" for w in sorted(f.ids_used)]
        bufs, block = self.uses[f.emit_name]
        params += [self.buffer_param(b) for b in bufs]
        if block:
            params.append(f"const {self.globals.name('_ps_Params')}& "
                          f"{self.globals.name('_ps_params')}")
        ret = self.type_name(f.ret, f.tree) if f.ret is not None else "void"
        inline = " __forceinline__" if os.path.basename(f.src.filename) == "prelude.py" else ""
        self.line(f"__device__{inline} {ret} {self.global_name(f.emit_name)}"
                  f"({', '.join(params)}) {{", f.tree)

    def id_args(self, info: FuncInfo) -> list[str]:
        """The hidden arguments of a helper call: the ids, buffers and block it uses."""
        bufs, block = self.uses.get(info.emit_name, ((), False))
        extra = [self.global_name(b) for b in bufs]
        if block:
            extra.append(self.globals.name("_ps_params"))
        return super().id_args(info) + extra

    def function_prologue(self, f: FuncInfo) -> None:
        """A kernel names the ids it uses (unfolding folded groups) and copies its
        parameters out of the parameter block."""
        if not f.is_kernel:
            return
        if f.folded:
            self.unfold_ids(f)
        else:
            for which, (t, value) in C.IDS.items():
                if which in f.ids_used:
                    self.line(f"{t} {self.id_value(which)} = {value};")
        self.copy_params(f)

    def copy_params(self, f: FuncInfo) -> None:
        """The kernel's scalar parameters, copied out of the parameter block."""
        params = self.globals.name("_ps_params")
        for name, t in f.values:
            v = f"{params}.{self.field_name('_ps_Params', name)}"
            if t == T.bool_:
                v = f"({v} != 0u)"
            self.line(f"{self.type_name(t)} {self.local(name)} = {v};")

    def raw_id(self, which: str) -> str:
        """The builtin id as CUDA names it (blockIdx, gridDim, threadIdx)."""
        return C.RAW_IDS[which]

    # -- statements -----------------------------------------------------------------------
    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """``T name = 0;`` for a scalar, ``T name = {};`` (all zeros) otherwise."""
        t = self.func.locals[name]
        zero = self.literal(0, t) if isinstance(t, T.ScalarType) else "{}"
        self.line(f"{self.type_name(t, node)} {self.local(name)} = {zero};", node)

    def atomic_load(self, s: str, node: ast.AST) -> str:
        """An atomic read: adding zero (a plain load could be torn or cached)."""
        return f"atomicAdd(&{s}, {self.literal(0, node.ps_type)})"

    def atomic_store(self, place: str, v: str, node: ast.AST) -> None:
        """An atomic store: ``atomicExch``, its old value unused."""
        self.line(f"atomicExch(&{place}, {v});", node)

    def call_statement(self, call: ast.expr, node: ast.AST) -> None:
        """``print``'s vector arguments are evaluated once, into temporaries."""
        kind, what = call.ps_call
        if kind == "builtin" and what.name == "print":
            for a in call.args:
                if isinstance(getattr(a, "ps_type", None), T.VectorType) and \
                        not isinstance(a, ast.Name):
                    tmp = self.names.fresh("shown")
                    self.declare_temp(tmp, a.ps_type, self.value(a), node)
                    self.emitted[id(a)] = tmp
        super().call_statement(call, node)

    # -- places ---------------------------------------------------------------------------
    def member(self, node: ast.Attribute) -> str:
        """A struct field's name, or a vector component as x/y/z/w."""
        if isinstance(node.value.ps_type, T.VectorType):
            return "".join(C.COMPONENTS["rgba".find(c)] if c in "rgba" else c
                           for c in node.attr)
        return super().member(node)

    def place(self, target: ast.expr) -> str:
        """A store place: a vector element by a runtime index through ``ps_elem``, a
        3-vector buffer element through its slot's ``.v``."""
        if isinstance(target, ast.Subscript):
            vt = target.value.ps_type
            if isinstance(vt, T.VectorType):
                return self.vector_index(self.place(target.value), target.slice, vt)
            if isinstance(vt, T.BufferType) and is_vec3(vt.elem):
                return super().place(target) + ".v"
        return super().place(target)

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]``; a vector component; a 3-vector buffer element's ``.v``."""
        vt = node.value.ps_type
        if isinstance(vt, T.VectorType):
            return self.vector_index(self.sub(node.value), node.slice, vt)
        s = super().ex_Subscript(node)
        return s + ".v" if isinstance(vt, T.BufferType) and is_vec3(vt.elem) else s

    def ex_Attribute(self, node: ast.Attribute) -> str:
        """A swizzle of several components is a generated function (CUDA has none)."""
        vt = node.value.ps_type
        if isinstance(vt, T.VectorType) and len(node.attr) > 1:
            return f"{self.swizzle(self.member(node), vt)}({self.value(node.value)})"
        return super().ex_Attribute(node)

