"""WGSL emitter: the language of WebGPU (naga in wgpu-py, Tint in browsers).

Design notes:
- Resources: each ``Buffer[T]`` is ``@group(0) @binding(i)`` storage (read or
  read_write as used); scalar/struct parameters are members of one struct
  ``Params`` in a uniform buffer (read-only storage where the uniform layout
  rules would move a field), copied into locals named as in Python.
- ``bool`` is not host-shareable in WGSL: bool struct fields and parameters
  are u32 in memory, converted at each access.
- Python semantics: ``//``, ``%``, ``**``, signed and float min/max/clamp/abs,
  f32 -> int conversions and isnan/isinf arrive as calls of ``pyshade.prelude``
  functions, emitted like any helper; WGSL integer arithmetic already wraps;
  ``round`` is ties-to-even; ``&&``/``||`` short-circuit. ``x if c else y``
  becomes ``select`` (both sides evaluated: WGSL defines out-of-bounds reads
  and division by zero), which is refused when a side has side effects.
- WGSL has no f64/i64/u64: using them is a TranslationError naming wgsl.
- What stays here are WGSL's own workarounds: constant ``<<`` masking, inf/nan
  through a run-time bitcast (``special_float``), the strong compare-exchange
  retry loop over the weak one (``cas``).
"""

from __future__ import annotations

import ast
import math
from typing import Any

from .. import types as T
from ..frontend.exprs import CT
from ..frontend.program import FuncInfo
from .clike import CLikeEmitter, elem_type, shortest_f32
from .wgsl_helpers import WgslHelpers

SCALAR = {"bool": "bool", "i32": "i32", "u32": "u32", "f32": "f32", "f16": "f16"}
ID_BUILTINS = {"global_id": "global_invocation_id", "local_id": "local_invocation_id",
               "group_id": "workgroup_id", "num_groups": "num_workgroups",
               "local_index": "local_invocation_index"}


class WgslEmitter(WgslHelpers, CLikeEmitter):
    """Writes a Program as WGSL."""

    target = "wgsl"
    explicit_lengths = True
    BARRIER = ("storageBarrier()", "workgroupBarrier()")

    # -- types -------------------------------------------------------------------------
    def type_name(self, t: T.Type, node: ast.AST | None = None, storage: bool = False) -> str:
        """WGSL spelling of ``t`` (bool as u32 where ``storage``); a 64-bit type is an error."""
        if isinstance(t, T.EnumType):
            return self.type_name(t.base)
        if isinstance(t, T.ScalarType):
            if t.name not in SCALAR:
                raise self.error(node or self.func_node(), f"{t.name} is not supported by WGSL "
                                 "(no 64-bit types): use f32/i32/u32 or another target")
            if t.kind == "bool" and storage:
                return "u32"
            return SCALAR[t.name]
        if isinstance(t, T.VectorType):
            return f"vec{t.n}<{self.type_name(t.elem, node, storage)}>"
        if isinstance(t, T.MatrixType):
            return f"mat{t.n}x{t.n}<f32>"
        if isinstance(t, T.ArrayType):
            return f"array<{self.type_name(t.elem, node, storage)}, {t.n}>"
        if isinstance(t, T.StructType):
            return self.global_name(t.name)
        raise self.error(node or self.func_node(), f"internal: no WGSL type for {t}")

    def literal(self, value: Any, t: T.Type) -> str:
        """A WGSL literal with its suffix (``1i``, ``1u``, ``1.5f``, ``1.5h``); inf and nan through
        ``special_float``."""
        if t == T.bool_ or isinstance(value, bool):
            return "true" if value else "false"
        if t.kind == "int":
            v = int(value)
            return f"{v}i" if v != -2**31 else "i32(-2147483647 - 1)"
        if t.kind == "uint":
            return f"{int(value)}u"
        v = float(value)
        suffix = "h" if t == T.f16 else "f"
        if math.isnan(v) or math.isinf(v):
            return self.special_float(v, t)
        r = repr(float(v)) if t != T.f32 else shortest_f32(v)
        return r + suffix

    # -- declarations --------------------------------------------------------------------
    def enum_decl(self, e: T.EnumType) -> None:
        """One ``const`` per enum member."""
        for m, v in e.members.items():
            self.line(f"const {self.global_name(f'{e.name}_{m}')}: {self.type_name(e.base)} = "
                      f"{self.literal(v, e.base)};")
        self.line()

    def struct_decl(self, s: T.StructType) -> None:
        """A ``struct`` of the fields' storage types (bool fields as u32)."""
        self.line(f"struct {self.global_name(s.name)} {{")
        for f, ft in s.fields:
            fname = self.field_name(s.name, f, [n for n, _ in s.fields])
            self.line(f"    {fname}: {self.type_name(ft, storage=True)},")
        self.line("}")
        self.line()

    def resources(self) -> None:
        """``enable f16`` where needed, the storage buffers, the Params struct and its binding,
        and the workgroup arrays."""
        k = self.k
        uses_f16 = any(t == T.f16 or getattr(t, "elem", None) == T.f16
                       for t in self.all_types())
        if uses_f16:
            self.out.insert(1, "enable f16;")
            self.line_map.insert(1, None)
        for i, b in enumerate(k.buffers):
            elem = self.type_name(b.type.elem, storage=True)
            if b.atomic:
                elem = f"atomic<{elem}>"
            access = "read_write" if b.written else "read"
            self.line(f"@group(0) @binding({i}) var<storage, {access}> "
                      f"{self.global_name(b.name)}: array<{elem}>;")
        block = self.prog.param_block
        if block.types:
            self.line(f"struct {self.globals.name('_ps_Params')} {{")
            for (name, t), (_, _off, align, size) in zip(block.types, block.placed):
                attrs = ""
                if align:
                    attrs += f"@align({align}) "
                if size:
                    attrs += f"@size({size}) "
                member = self.field_name("_ps_Params", name, [n for n, _ in block.types])
                self.line(f"    {attrs}{member}: {self.type_name(t, storage=True)},")
            self.line("}")
            space = "uniform" if block.kind == "uniform" else "storage, read"
            self.line(f"@group(0) @binding({len(k.buffers)}) var<{space}> "
                      f"{self.globals.name('_ps_params')}: {self.globals.name('_ps_Params')};")
        for name, sh in k.shared.items():
            elem = self.type_name(sh.type.elem, storage=True)
            if sh.atomic:
                elem = f"atomic<{elem}>"
            self.line(f"var<workgroup> {self.global_name(name)}: array<{elem}, {sh.type.n}>;")
        self.line()

    # -- functions -------------------------------------------------------------------
    def function_header(self, f: FuncInfo) -> None:
        """The ``fn`` line: a kernel gets ``@compute @workgroup_size`` and its builtin ids;
        a helper its parameters, the ids it uses and its return type."""
        src_line = f.tree.lineno
        if f.is_kernel:
            x, y, z = f.workgroup_size
            self.line(f"@compute @workgroup_size({x}, {y}, {z})")
            params = []
            needed = set(f.ids_used)
            if f.folded and needed & {"global_id", "group_id", "num_groups"}:
                needed |= {"group_id", "num_groups", "local_id"}
            for which in ID_BUILTINS:
                if which in needed:
                    name = self.names.name(f"_ps_raw_{which}" if f.folded else "_ps_" + which)
                    t = "u32" if which == "local_index" else "vec3<u32>"
                    params.append(f"@builtin({ID_BUILTINS[which]}) {name}: {t}")
            self.line(f"fn {self.global_name(f.name)}({', '.join(params)}) {{  "
                      f"// {self.func_file()}:{src_line}")
            return
        params = []
        self.param_names: dict[str, str] = {}
        for name, t in f.params:
            pname = self.names.fresh(name) if name in f.mutated else self.local(name)
            self.param_names[name] = pname
            params.append(f"{pname}: {self.type_name(t, f.tree)}")
        for which in sorted(f.ids_used):
            t = "u32" if which == "local_index" else "vec3<u32>"
            params.append(f"{self.id_value(which)}: {t}")
        ret = f" -> {self.type_name(f.ret, f.tree)}" if f.ret is not None else ""
        self.line(f"fn {self.global_name(f.emit_name)}({', '.join(params)}){ret} {{  "
                  f"// {self.func_file()}:{src_line}")

    def function_prologue(self, f: FuncInfo) -> None:
        """A kernel unfolds folded ids and copies its parameters out of the Params block;
        a helper copies each parameter it modifies into a ``var``."""
        if f.is_kernel:
            if f.folded:
                self.unfold_ids(f)
            params = self.globals.name("_ps_params")
            for name, t in f.values:
                v = f"{params}.{self.field_name('_ps_Params', name)}"
                if t == T.bool_:
                    v = f"({v} != 0u)"
                kw = "var" if name in f.mutated else "let"
                self.line(f"{kw} {self.local(name)}: {self.type_name(t)} = {v};")
            return
        for name, t in f.params:
            if name in f.mutated:
                self.line(f"var {self.local(name)}: {self.type_name(t)} = {self.param_names[name]};")

    def raw_id(self, which: str) -> str:
        """The builtin id as the entry point receives it (an entry parameter)."""
        return self.names.name(f"_ps_raw_{which}")

    def function_footer(self, f: FuncInfo) -> None:
        """``}``."""
        self.line("}")

    # -- statements ---------------------------------------------------------------------
    def cast(self, text: str, t: T.Type) -> str:
        """``T(text)``."""
        return f"{self.type_name(t)}({text})"

    def select(self, if_false: str, if_true: str, cond: str) -> str:
        """``select(if_false, if_true, cond)``."""
        return f"select({if_false}, {if_true}, {cond})"

    def begin_for(self, var: str, t: T.Type, start: str, cond: str, step: str,
                  node: ast.AST) -> None:
        """``for (var v: T = start; cond; v += step) {``."""
        self.line(f"for (var {var}: {self.type_name(t)} = {start}; {cond}; {var} += {step}) {{",
                  node)

    def declare(self, name: str, t: T.Type, value: ast.expr, node: ast.AST) -> None:
        """A ``let`` local, or a ``var`` if modified or an array; ``ps.array(T, N)`` is a
        zero-initialised ``var``."""
        if isinstance(t, T.ArrayType) and getattr(value, "ps_call", (None,))[0] == "array":
            return self.declare_default(name, node)      # ps.array(T, N): zero-initialised
        # An array copy is a var: WGSL indexes a let array only with constants.
        kw = "var" if name in self.func.mutated or isinstance(t, T.ArrayType) else "let"
        self.line(f"{kw} {self.local(name)}: {self.type_name(t, node)} = {self.value(value)};",
                  node)

    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """``var name: T;`` (WGSL zero-initialises it)."""
        t = self.func.locals[name]
        self.line(f"var {self.local(name)}: {self.type_name(t, node)};", node)

    def declare_temp(self, name: str, t: T.Type, value: str, node: ast.AST) -> None:
        """``let name: T = value;``."""
        self.line(f"let {name}: {self.type_name(t, node)} = {value};", node)

    def discard(self, text: str, call: ast.expr) -> str:
        """An unused result is assigned to ``_``."""
        return f"_ = {text}" if call.ps_type is not None else text

    # -- expressions -------------------------------------------------------------------
    def ex_IfExp(self, node: ast.IfExp) -> str:
        """``select(...)``, refused when a side has side effects (both sides are evaluated)."""
        if self.has_side_effects(node.body) or self.has_side_effects(node.orelse):
            raise self.error(node, "x if c else y becomes select() in WGSL, which "
                                   "evaluates both sides: this side has side effects; "
                                   "use an if statement")
        return f"select({self.expr(node.orelse)}, {self.expr(node.body)}, {self.expr(node.test)})"

    def negate(self, node: ast.UnaryOp) -> str:
        """Unary minus; ``T() - x`` on unsigned types."""
        t = node.ps_type
        e = t.elem if isinstance(t, T.VectorType) else t
        if e.kind == "uint":
            return f"({self.type_name(t)}() - {self.sub(node.operand)})"
        return f"-{self.sub(node.operand)}"

    def shift(self, node: ast.BinOp, op: type) -> str:
        """``<<``/``>>`` with a u32 count; a constant ``<<`` clears the bits shifted out."""
        t = node.ps_type
        lt, rt = node.left.ps_type, node.right.ps_type
        a, b = self.sub(node.left), self.sub(node.right)
        e = elem_type(t)
        sym = "<<" if op is ast.LShift else ">>"
        want = T.u32 if not isinstance(lt, T.VectorType) else T.vector_of(T.u32, lt.n)
        if rt != want:
            b = f"{self.type_name(want)}({self.expr(node.right)})"
        if op is ast.LShift and _no_runtime_value(node):
            # naga and Tint evaluate a constant `<<` at shader creation, where bits
            # shifted out are an error, not a wrap: clear them first, in u32.
            ones = "4294967295u" if want == T.u32 else f"{self.type_name(want)}(4294967295u)"
            if e.kind != "uint":
                a = f"{self.type_name(want)}({a})"
            s = f"({a} & ({ones} >> {b})) << {b}"
            return s if e.kind == "uint" else f"{self.type_name(t)}({s})"
        return f"{a} {sym} {b}"

    # -- calls ----------------------------------------------------------------------------
    def spell_extras(self, node: ast.Call, b: Any, args: list[str]) -> dict:
        """The shared fields, plus the compare-exchange helper."""
        extras = super().spell_extras(node, b, args)
        if b.name == "atomic_compare_exchange":
            extras["cas"] = self.cas(node, args)
        return extras


def _no_runtime_value(node: ast.AST) -> bool:
    """True when ``node`` reads no variable, so that WGSL may evaluate it as a constant
    expression (compile-time values are Constant nodes; a call's function and a type
    argument are no values)."""
    if isinstance(node, ast.Name):
        return getattr(node, "ps_type", None) is None or isinstance(node.ps_type, CT)
    if isinstance(node, ast.Call):
        return all(_no_runtime_value(a) for a in node.args)
    return all(_no_runtime_value(c) for c in ast.iter_child_nodes(node))
