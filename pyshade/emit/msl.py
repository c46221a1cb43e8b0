"""Metal Shading Language emitter: one ``kernel void`` entry point per specialisation.

Binding convention (what a Metal runtime binds; ``Layout`` describes it)::

    kernel void NAME(
        [const] device T0* buf0 [[buffer(0)]], ..., [const] device Tk* bufk [[buffer(k)]],
        constant ps_Params& ps_params [[buffer(k + 1)]],
        uint3 ps_global_id [[thread_position_in_grid]], ...)

- ``NAME`` is ``Compiled.entry``. One ``device`` pointer per ``Buffer[T]`` parameter,
  in binding order, at buffer index = its position (``Layout.buffers``); ``const`` when
  the kernel never writes it. A buffer used atomically points at ``atomic_uint`` or
  ``atomic_int`` (``atomic_uint`` for f32 elements, used through their bits). The
  element type has the canonical layout (``float3`` is 16 bytes in MSL, as a vec3 slot
  of the canonical layout), except that ``Buffer[vec3]`` (``ivec3``, ``uvec3``) is
  numpy's packed ``(n, 3)``: ``device float*`` of 3n scalars (``packed.py``).
- Then, only when ``Layout.params`` is not None, the parameter block at buffer index
  N = the number of buffers (``setBytes`` of ``ParamBlock.size`` bytes): each field at
  its ``ParamBlock.fields`` offset, bools as uint, the hidden element count of each
  buffer whose ``len()`` the kernel reads inside it (``ParamBlock.lengths``).
  ``static_assert`` checks its size and offsets, as for every struct.
- The invocation ids are entry-point parameters with their attributes; dispatch with
  threadsPerThreadgroup = ``Layout.workgroup_size`` and the group counts (folded
  launches unfold them, as on the other targets). Threadgroup arrays are declared in
  the kernel function (MSL allows them only there) and passed to helpers as pointers.

Design notes: MSL is C++14 with real vector and matrix types (operators, swizzles,
``float3(v.xy, z)``), so unlike CUDA no operator functions are generated. The scalar
rules (signed ``+ - * <<`` through the unsigned type: signed overflow is undefined in
C++), the struct padding, static_asserts, the hidden helper arguments and the formula
functions (``mix``... rounding each operation as the CPU device does) are the C++
base's (``cpp.py``), over MSL's tables (``msl_tables.py``). MSL has no f64: using it
is a TranslationError at the Python line. ``#line`` directives map the Metal
compiler's errors to Python lines.
"""

from __future__ import annotations

import ast

from .. import types as T
from ..frontend.deep import walk
from ..frontend.program import FuncInfo
from . import msl_tables as M
from .clike import array_parts, elem_type
from .cpp import CppEmitter, is_vec3
from .features import scalars_in
from .spellings.msl import SPELLINGS


class MslEmitter(CppEmitter):
    """Writes a Program as Metal Shading Language."""

    target = "msl"
    spellings = SPELLINGS
    tables = M
    SCALARS, LITERAL_SUFFIX, SPECIAL_FLOAT = M.SCALARS, M.LITERAL_SUFFIX, M.SPECIAL_FLOAT
    HALF_LITERAL = M.HALF_LITERAL
    UNSUPPORTED = "{name} is not supported by MSL (Metal has no double): use f32, or another target"
    ARRAY = "array<{elem}, {n}>"
    BARRIER = M.BARRIER
    BARRIER_SHARED = M.BARRIER_SHARED
    ENUM_CONST = "constant constexpr {type} {name} = {value};"   # program scope: constant
    TABLE_CONST = "constant {decl} = {init};"
    BLOCK_PARAM = "constant {}&"
    ATOMIC_LOAD = "atomic_load_explicit(&{place}, memory_order_relaxed)"
    ATOMIC_STORE = "atomic_store_explicit(&{place}, {value}, memory_order_relaxed)"
    # atomic<float> needs Metal 3 and has no min/max: f32 atomic elements are atomic_uint,
    # accessed through their bits (``AtomicBits``).
    FLOAT_BITS = ("as_type<uint>({})", "as_type<float>({})")

    # -- types ----------------------------------------------------------------------------
    def member_type(self, t: T.Type, room: int) -> tuple[str, int, int]:
        """A vec3 member followed by a member within 16 bytes is ``packed_float3`` (12
        bytes, aligned to 4) so that the canonical offsets hold."""
        if is_vec3(t) and room < 16:
            return f"packed_{self.type_name(t, storage=True)}", 12, 4
        return super().member_type(t, room)

    # -- conversions ----------------------------------------------------------------------
    def convert_text(self, x: str, src: T.Type, dst: T.Type) -> str:
        """A scalar value conversion ``T(x)``; MSL's half conversions round once."""
        if src == dst or dst == T.bool_:
            return super().convert_text(x, src, dst)
        return self.ctor(self.type_name(dst), x)

    # -- declarations ---------------------------------------------------------------------
    def header(self) -> None:
        """The comment line, ``metal_stdlib`` and the offsetof macro; f64 anywhere is an
        error at its Python line."""
        super().header()
        self.check_no_f64()
        self.line("#include <metal_stdlib>")
        self.line("using namespace metal;")
        self.line("#define PS_OFFSETOF(T, m) __builtin_offsetof(T, m)")
        self.line()

    def check_no_f64(self) -> None:
        """Raise at the first Python node of type f64 (buffers and parameters: the kernel)."""
        used: set = set()
        for t in self.all_types():
            scalars_in(t, used)
        if "f64" in used:
            for f in [self.k] + self.prog.funcs:
                for n in walk(f.tree):
                    here: set = set()
                    scalars_in(getattr(n, "ps_type", None), here)
                    if "f64" in here:
                        raise self.unsupported("f64", n)
            raise self.unsupported("f64", self.k.tree)

    def resources(self) -> None:
        """The parameter block struct (threadgroup arrays are declared in the kernel)."""
        self.param_struct()
        self.line()

    def resource_names(self) -> list[str]:
        """Buffers and threadgroup arrays: both are passed to the helpers that use them."""
        return [b.name for b in self.k.buffers] + list(self.k.shared)

    # -- functions ------------------------------------------------------------------------
    def buffer_param(self, name: str, binding: int | None = None) -> str:
        """``[const] device T* name [[buffer(i)]]``; a threadgroup array as a pointer."""
        if name in self.k.shared:
            # A pointer to the first element (of a 2-D tile: to its first row).
            sh = self.k.shared[name]
            et, dims = array_parts(sh.type)
            inner = dims[dims.index("]") + 1:]
            elem = self.elem_storage(et, sh.atomic)
            if inner:
                return f"threadgroup {elem} (*{self.global_name(name)}){inner}"
            return f"threadgroup {elem}* {self.global_name(name)}"
        b = next(b for b in self.k.buffers if b.name == name)
        const = "" if b.written or b.atomic else "const "
        attr = f" [[buffer({binding})]]" if binding is not None else ""
        return f"{const}device {self.elem_storage(self.buffer_elem(b), b.atomic)}* " \
               f"{self.global_name(name)}{attr}"

    def elem_storage(self, t: T.Type, atomic: bool) -> str:
        """The element type of a buffer or threadgroup array (atomic_uint if atomic, f32
        elements included: ``storage_elem``)."""
        if atomic:
            return M.ATOMIC_TYPES[self.storage_elem(t, atomic).name]
        return self.type_name(t, storage=True)

    def function_header(self, f: FuncInfo) -> None:
        """The ``kernel void`` entry point (buffers, parameter block, id attributes); a
        helper with its parameters, then the ids, buffers, threadgroup arrays and block it
        uses as hidden parameters."""
        block = self.globals.name("_ps_Params")
        if f.is_kernel:
            params = [self.buffer_param(b.name, i) for i, b in enumerate(self.k.buffers)]
            if self.prog.param_block.types:
                params.append(f"constant {block}& {self.globals.name('_ps_params')} "
                              f"[[buffer({len(self.k.buffers)})]]")
            for which, (t, attr) in M.IDS.items():
                if which in self.entry_ids(f):
                    params.append(f"{t} {self.entry_id(f, which)} [[{attr}]]")
            self.line(f"kernel void {self.global_name(f.name)}({', '.join(params)}) {{", f.tree)
            return
        self.helper_header(f, "")

    def entry_ids(self, f: FuncInfo) -> set:
        """The id attributes the entry point takes: those used, or, for a folded launch,
        the raw ids ``unfold_ids`` rebuilds them from."""
        if not f.folded:
            return set(f.ids_used)
        raw = {"group_id", "num_groups", "local_id"}
        return raw | ({"local_index"} & set(f.ids_used))

    def entry_id(self, f: FuncInfo, which: str) -> str:
        """The name of an id parameter of the entry point."""
        return self.raw_id(which) if f.folded else self.id_value(which)

    def raw_id(self, which: str) -> str:
        """The entry point's raw id parameter of a folded launch."""
        return self.globals.name(f"_ps_in_{which}")

    def function_prologue(self, f: FuncInfo) -> None:
        """A kernel declares its threadgroup arrays (MSL allows them only in the kernel
        function), then the prologue of every target (``CLikeEmitter``)."""
        if f.is_kernel:
            for name, sh in self.k.shared.items():
                et, dims = array_parts(sh.type)
                elem = self.elem_storage(et, sh.atomic)
                self.line(f"threadgroup {elem} {self.global_name(name)}{dims};")
        super().function_prologue(f)

    # -- operators: MSL's own ---------------------------------------------------------------
    def vector_binop(self, node: ast.BinOp, sym: str) -> str:
        """Vector operators as written; signed integer vectors wrap through the unsigned
        vector type, bool vectors combine through uint vectors."""
        res = node.ps_type
        e = elem_type(res)
        a, b = self.sub(node.left), self.sub(node.right)
        if sym == "/" and isinstance(res, T.MatrixType):
            return self.matrix_div(res, a, b)
        if isinstance(res, T.VectorType) and e.kind in ("int", "bool") and \
                (e.kind == "bool" or sym in ("+", "-", "*", "<<")):
            u = f"{M.UNSIGNED.get(M.SCALARS[e.name], 'uint')}{res.n}"
            return f"{self.type_name(res)}({u}({a}) {sym} {u}({b}))"
        return f"{a} {sym} {b}"

    def matrix_div(self, t: T.MatrixType, a: str, b: str) -> str:
        """``m / s`` as a generated function dividing each column: the Metal specification
        lists matrix * scalar but no matrix / scalar."""
        tm = self.tn(t)
        name = self.global_name(f"_ps_div_mat{t.n}")
        cols = ", ".join(f"m[{j}] / s" for j in range(t.n))
        self.support(f"div_mat{t.n}", f"{self.FDI} {tm} {name}({tm} m, float s) {{ "
                                      f"return {tm}({cols}); }}")
        return f"{name}({a}, {b})"

    def bool_bitop(self, node: ast.BinOp, op: type) -> str:
        """Bool ``&``/``|`` as ``bool(a & b)``: in C++ ``&`` of two bools is an int, which
        MSL's ``select(T, T, bool)`` would not take next to a bool."""
        text = super().bool_bitop(node, op)
        return text if op is ast.BitXor else f"bool({text})"

    def vector_negate(self, node: ast.UnaryOp) -> str:
        """Unary minus of a vector or matrix; of a signed integer vector through the
        unsigned vector type."""
        t = node.ps_type
        if isinstance(t, T.VectorType) and t.elem.kind == "int":
            u = f"{M.UNSIGNED[M.SCALARS[t.elem.name]]}{t.n}"
            return f"{self.type_name(t)}({u}(0) - {u}({self.sub(node.operand)}))"
        return f"-{self.sub(node.operand)}"

    # -- atomics --------------------------------------------------------------------------
    def atomic_call(self, node: ast.Call) -> str:
        """``atomic_fetch_OP_explicit(&buf[i], v, memory_order_relaxed)``; compare-exchange
        through a generated loop (``msl_tables.CAS``)."""
        kinds = node.ps_call[1].kinds
        buf = self.sub(node.args[0])
        vals = [self.value(a) for a in node.args[1:]]
        elem = f"&{buf}[{vals[0]}]"
        if kinds[1] != "cas":
            return f"{M.ATOMICS[kinds[1]]}({elem}, {vals[1]}, memory_order_relaxed)"
        name = node.args[0].ps_ref[1]
        space = "threadgroup" if name in self.k.shared else "device"
        e = node.ps_type
        t, a = self.tn(e), M.ATOMIC_TYPES[e.name]
        # One name per address space: on the CPU stand-in (tests/msl_host) the spaces are no
        # types, so overloads on them would be one function defined twice. The first space
        # a kernel uses keeps the plain name.
        names = self.__dict__.setdefault("_cas_names", {})
        if space not in names:
            names[space] = self.global_name(f"_ps_cas_{space}" if names else "_ps_cas")
        fn = names[space]
        self.support(f"cas_{space}_{t}", M.CAS.format(t=t, name=fn, space=space, a=a))
        return f"{fn}({elem}, {vals[1]}, {vals[2]})"
