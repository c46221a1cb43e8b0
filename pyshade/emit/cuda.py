"""CUDA C++ emitter: one ``extern "C" __global__`` kernel per specialisation, for NVRTC.

Kernel signature (what ``runtime/cuda.py`` launches; ``Layout`` describes it)::

    extern "C" __global__ void __launch_bounds__(X*Y*Z) NAME(
        [const] T0* __restrict__ buf0, ..., [const] Tk* __restrict__ bufk,
        const ps_Params ps_params)

- ``NAME`` is ``Compiled.entry`` (the kernel's Python name unless it clashes with a
  reserved word).
- One pointer per ``Buffer[T]`` parameter, in binding order (``Layout.buffers``),
  ``const`` when the kernel never writes it (``BufferSlot.writable`` false). The
  element type has the canonical layout, except that ``Buffer[vec3]`` (``ivec3``,
  ``uvec3``) is numpy's packed ``(n, 3)``: a ``float*`` (``int*``, ``uint*``) of 3n
  scalars (``packed.py``).
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
- ``CppEmitter`` (``cpp.py``) writes what CUDA shares with MSL: the scalar rules
  through the unsigned type, struct padding and static_asserts, the parameter block,
  hidden helper arguments (buffers are kernel parameters, not globals as in GLSL),
  formula functions and ``#line`` directives. This file adds CUDA's tables
  (``cuda_tables.py``), entry point and support types; builtins are spelled by their
  ``clike`` rows in ``lang.py`` and ``cuda`` rows where CUDA differs.
- Python semantics: f16 arithmetic uses the ``__h*_rn`` intrinsics and f16 math goes
  through f32 with one rounding. ``toolchains/nvrtc.py`` compiles with
  ``--fmad=false`` (a fused multiply-add rounds once where numpy rounds twice) and
  IEEE division and square root, without flush-to-zero.
- CUDA's ``float2..4``/``int``/``uint`` vectors have no operators, swizzles or bool
  forms: each operator, swizzle, constructor and vector builtin a kernel uses becomes
  a small ``__device__ __forceinline__`` function, written once (``cuda_ops.py``);
  ``ps_boolN``, ``ps_matN`` (columns padded as in the canonical layout) and
  ``ps_array<T, N>`` (C arrays are no values) are declared in the header when used.
- ``printf`` implements ``print``.
- f32 atomics: ``atomicAdd`` (sub adds the negation) and ``atomicExch`` are CUDA's own;
  min and max are the prelude's compare-exchange loops over ``atomicCAS`` on the bits.
"""

from __future__ import annotations

import ast
import os
from typing import Any

from .. import types as T
from ..frontend.deep import walk
from ..frontend.program import FuncInfo
from . import cuda_tables as C
from .clike import array_parts
from .cpp import CppEmitter, is_vec3
from .cuda_ops import CudaOps
from .spellings.cuda import SPELLINGS


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


class CudaEmitter(CudaOps, CppEmitter):
    """Writes a Program as CUDA C++ for NVRTC."""

    target = "cuda"
    spellings = SPELLINGS
    tables = C
    SCALARS, LITERAL_SUFFIX, SPECIAL_FLOAT = C.SCALARS, C.LITERAL_SUFFIX, C.SPECIAL_FLOAT
    HALF_LITERAL, ID_VALUES, RAW_IDS = C.HALF_LITERAL, C.IDS, C.RAW_IDS
    # Atomic elements: a read adds zero (a plain load could be torn or cached), a store
    # exchanges, its old value unused.
    ATOMIC_LOAD = "atomicAdd(&{place}, {zero})"
    ATOMIC_STORE = "atomicExch(&{place}, {value})"
    FDI = "__device__ __forceinline__"
    # __syncthreads() waits for the block and makes its shared and global stores visible.
    BARRIER = ("__syncthreads()",)
    TABLE_CONST = "static __device__ const {decl} = {init};"
    DEVICE = "__device__ "          # the qualifier of a struct constructor

    # -- types ----------------------------------------------------------------------------
    def type_name(self, t: T.Type, node: ast.AST | None = None, storage: bool = False) -> str:
        """CUDA spelling of ``t``: bool vectors (outside memory), matrices and arrays are
        the support types of the header; the rest from the tables."""
        if isinstance(t, T.VectorType) and t.elem == T.bool_ and not storage:
            return self.global_name(f"_ps_bool{t.n}")
        if isinstance(t, T.MatrixType):
            return self.global_name(f"_ps_mat{t.n}")
        if isinstance(t, T.ArrayType):
            elem = self.type_name(t.elem, node, storage)
            return f"{self.global_name('_ps_array')}<{elem}, {t.n}>"
        return super().type_name(t, node, storage)

    def slot_name(self, t: T.Type) -> str:
        """The type of one buffer element: a 3-vector sits in a 16-byte slot."""
        name = self.type_name(t, storage=True)
        return f"{self.global_name('_ps_slot')}<{name}>" if is_vec3(t) else name

    def make_name(self, t: T.VectorType) -> str:
        """The constructor function of a vector type (``make_float3``, ``ps_make_bool3``)."""
        if t.elem == T.bool_:
            return self.global_name(f"_ps_make_bool{t.n}")
        return f"make_{self.type_name(t)}"

    def vector_text(self, t: T.Type, parts: Any) -> str:
        """``make_uint3(a, b, c)``: CUDA vectors have no constructors."""
        return f"{self.make_name(t)}({', '.join(parts)})"

    # -- declarations ---------------------------------------------------------------------
    def header(self) -> None:
        """The comment line, ``cuda_fp16.h`` where f16 is used, the typedefs and the
        support types the program uses."""
        super().header()
        used: list = []
        for t in self.all_types() + [b.type for b in self.k.buffers]:
            _walk_types(t, used)
        for f in [self.k] + self.prog.funcs:
            for n in walk(f.tree):
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
                        if isinstance(t, (T.ArrayType, T.BufferType)) and is_vec3(t.elem)
                        and not (isinstance(t, T.BufferType) and T.packed_vec3(t.elem))}
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

    def resources(self) -> None:
        """The parameter block struct and the ``__shared__`` arrays (buffers are kernel
        parameters)."""
        self.param_struct()
        for name, sh in self.k.shared.items():
            et, dims = array_parts(sh.type)         # a 2-D tile is a C array of rows
            elem = self.type_name(et, storage=True)
            self.line(f"__shared__ {elem} {self.global_name(name)}{dims};")
        self.line()

    # -- functions ------------------------------------------------------------------------
    def buffer_param(self, name: str) -> str:
        """``[const] T* __restrict__ name`` of a buffer (const when never written)."""
        b = next(b for b in self.k.buffers if b.name == name)
        const = "" if b.written or b.atomic else "const "
        return f"{const}{self.slot_name(self.buffer_elem(b))}* __restrict__ {self.global_name(name)}"

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
        inline = " __forceinline__" if os.path.basename(f.src.filename) == "prelude.py" else ""
        self.helper_header(f, f"__device__{inline} ")

    # -- statements -----------------------------------------------------------------------
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

    # -- atomics --------------------------------------------------------------------------
    def atomic_load(self, s: str, node: ast.AST, t: T.Type | None = None) -> str:
        """An atomic read (``ATOMIC_LOAD``); of an f32 element, adding 0 to its bits
        (adding 0.0f would turn -0.0 into 0.0)."""
        if (t or node.ps_type) == T.f32:
            return f"__uint_as_float(atomicAdd((uint*)&{s}, 0u))"
        return super().atomic_load(s, node, t)

    def atomic_by_elem(self, node: ast.Call, spelling: str, f32_spelling: str) -> str:
        """The first spelling for integer elements, the second for f32 ones.

        CUDA has no f32 ``atomicSub``, and its ``atomicCAS`` takes integers: the f32
        compare-exchange is the u32 one on the bits."""
        spell = f32_spelling if node.ps_type == T.f32 else spelling
        return spell.format(*(self.value(a) for a in node.args))

    # -- places ---------------------------------------------------------------------------
    def place(self, target: ast.expr) -> str:
        """A store place; a 3-vector buffer element through its slot's ``.v``."""
        s = super().place(target)
        return s + ".v" if _in_slot(target) else s

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]``; a 3-vector buffer element's ``.v``."""
        s = super().ex_Subscript(node)
        return s + ".v" if _in_slot(node) else s

    def ex_Attribute(self, node: ast.Attribute) -> str:
        """A swizzle of several components is a generated function (CUDA has none)."""
        vt = node.value.ps_type
        if isinstance(vt, T.VectorType) and len(node.attr) > 1:
            return f"{self.swizzle(self.member(node), vt)}({self.value(node.value)})"
        return super().ex_Attribute(node)


def _in_slot(node: ast.expr) -> bool:
    """True for an element of a buffer of bool 3-vectors (each in a 16-byte slot; other
    3-vector buffers are packed: ``packed.py``)."""
    return isinstance(node, ast.Subscript) and isinstance(node.value.ps_type, T.BufferType) \
        and is_vec3(node.value.ps_type.elem) and not T.packed_vec3(node.value.ps_type.elem)
