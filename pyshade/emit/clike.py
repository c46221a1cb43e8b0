"""Brace-language syntax shared by WGSL, GLSL, HLSL, MSL and CUDA C."""

from __future__ import annotations

import ast
import struct
from typing import Any

from .. import types as T
from ..frontend.program import FuncInfo
from .base import CMP_SYMBOLS, Emitter, IdNames

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "*", ast.Div: "/",
          ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
          ast.RShift: ">>"}
ID_NAMES = ("global_id", "local_id", "group_id", "num_groups", "local_index")


class CLikeEmitter(Emitter):
    """Blocks in braces, statements ending in ``;``, ``&&``/``||``/``!``.

    Subclasses give the spellings as tables and a few hooks: ``type_name``,
    ``literal``, ``zero_value``, ``bool_to_u32``, ``atomic_load``/``atomic_store``,
    ``BARRIER`` (the statements of ``barrier()``), ``resources`` and the function
    header/prologue.
    """

    bool_ops = {ast.And: "&&", ast.Or: "||"}
    families = ("clike",)
    BARRIER: tuple[str, ...] = ()
    # True where the target's compiler takes C preprocessor ``#line N "file"`` directives:
    # ``line`` then writes them, so that the compiler's own errors name the Python line.
    line_directives = False
    _cpp_line: tuple[str, int] | None = None     # what the compiler counts for the next line

    def line(self, text: str = "", node: ast.AST | None = None) -> None:
        """One output line; with ``line_directives``, preceded by ``#line N "file.py"`` where
        the compiler's count would differ from the statement's Python line."""
        if not self.line_directives:
            return super().line(text, node)
        lineno = getattr(node, "lineno", None) if node is not None else None
        if lineno and text:
            where = (self.func_file().replace('"', "'"), lineno)
            if self._cpp_line != where:
                self.out.append(f'#line {lineno} "{where[0]}"')
                self.line_map.append(None)
            self._cpp_line = where
        super().line(text, node)
        if self._cpp_line is not None:
            self._cpp_line = (self._cpp_line[0], self._cpp_line[1] + 1)

    def func_node(self) -> ast.AST:
        """The tree of the function being emitted (else the kernel's), to place errors."""
        return self.func.tree if self.func else self.k.tree

    def all_types(self) -> list:
        """Every type the program mentions: buffers, parameters, locals, struct fields and
        the type of every expression (to decide which extensions the header enables)."""
        ts = [b.type.elem for b in self.k.buffers] + [t for _, t in self.k.values]
        for f in self.prog.funcs + [self.k]:
            ts += list(f.locals.values())
        for s in self.prog.structs:
            ts += [t for _, t in s.fields]
        return ts

    # -- hooks with C-like defaults -----------------------------------------------------
    def zero_value(self, t: T.Type, node: ast.AST | None = None) -> str:
        """The zero of ``t`` in its storage form: ``T()``."""
        return f"{self.type_name(t, node, storage=True)}()"

    def bool_to_u32(self, v: str) -> str:
        """A bool value as the u32 that stores it (1 or 0)."""
        return f"select(0u, 1u, {v})"

    def atomic_load(self, s: str, node: ast.AST) -> str:
        """Reading the atomic element ``s``."""
        return f"atomicLoad(&{s})"

    def atomic_store(self, place: str, v: str, node: ast.AST) -> None:
        """The statement storing ``v`` in the atomic element ``place``."""
        self.line(f"atomicStore(&{place}, {v});", node)

    def discard(self, text: str, call: ast.expr) -> str:
        """A call statement whose result (if any) is unused."""
        return text

    def stmt_end(self, text: str) -> str:
        """A simple statement ends with ``;``."""
        return text + ";"

    def begin_if(self, cond: str, node: ast.AST) -> None:
        """``if (cond) {``."""
        self.line(f"if ({cond}) {{", node)

    def begin_elif(self, cond: str, node: ast.AST) -> None:
        """``} else if (cond) {``."""
        self.line(f"}} else if ({cond}) {{", node)

    def begin_else(self, node: ast.AST | None = None) -> None:
        """``} else {``."""
        self.line("} else {", node)

    def begin_block(self, node: ast.AST) -> None:
        """A plain ``{`` block: unlike ``if (true)``, naga and Tint see that it always runs
        (a function whose body ends in it needs no return after it)."""
        self.line("{", node)

    def end_block(self) -> None:
        """``}``."""
        self.line("}")

    def int_literal(self, value: Any, t: T.Type, suffix: str) -> str:
        """An integer literal of type ``t`` with the target's ``suffix``; the most negative
        value as ``(MIN + 1) - 1``, since ``-MIN`` is not a literal of the type."""
        v = int(value)
        if t.kind == "int" and v == t.min:
            return f"({v + 1}{suffix} - 1{suffix})"
        return f"{v}{suffix}"

    # -- C-family declarations and statements (WGSL overrides them with its own forms) --
    def declarator(self, t: T.Type, name: str, node: ast.AST | None = None,
                   storage: bool = False) -> str:
        """``T name``: the type and name of a declaration (HLSL puts array sizes after
        the name)."""
        return f"{self.type_name(t, node, storage)} {name}"

    def function_footer(self, f: FuncInfo) -> None:
        """``}``."""
        self.line("}")

    def cast(self, text: str, t: T.Type) -> str:
        """``T(text)``."""
        return f"{self.type_name(t)}({text})"

    def begin_for(self, var: str, t: T.Type, start: str, cond: str, step: str,
                  node: ast.AST) -> None:
        """``for (T v = start; cond; v += step) {``."""
        self.line(f"for ({self.type_name(t)} {var} = {start}; {cond}; {var} += {step}) {{", node)

    def declare(self, name: str, t: T.Type, value: ast.expr, node: ast.AST) -> None:
        """``T name = value;``; ``ps.array(T, N)`` is a zeroed declaration."""
        if isinstance(t, T.ArrayType) and getattr(value, "ps_call", (None,))[0] == "array":
            return self.declare_default(name, node)
        self.line(f"{self.declarator(t, self.local(name), node)} = {self.value(value)};", node)

    def declare_temp(self, name: str, t: T.Type, value: str, node: ast.AST) -> None:
        """``T name = value;``."""
        self.line(f"{self.declarator(t, name, node)} = {value};", node)

    def select(self, if_false: str, if_true: str, cond: str) -> str:
        """``(cond ? if_true : if_false)``."""
        return f"({cond} ? {if_true} : {if_false})"

    def begin_while(self, cond: str, node: ast.AST) -> None:
        """``while (cond) {``."""
        self.line(f"while ({cond}) {{", node)

    def ex_UnaryOp(self, node: ast.UnaryOp) -> str:
        """``not`` as ``!``, ``~``, unary ``+`` dropped; unary minus through ``negate``."""
        if isinstance(node.op, ast.Not):
            return f"!{self.sub(node.operand)}"
        if isinstance(node.op, ast.UAdd):
            return self.expr(node.operand)
        if isinstance(node.op, ast.Invert):
            return f"~{self.sub(node.operand)}"
        return self.negate(node)

    def unfold_ids(self, f: Any) -> None:
        """Groups beyond the per-dimension limit are folded into y/z by the runtime: the
        kernel rebuilds the 1-D ids from the raw builtins (``raw_id``, per target)."""
        wid, nwg, lid = (self.raw_id(w) for w in ("group_id", "num_groups", "local_id"))
        v3 = lambda *parts: self.vector_text(T.uvec3, parts)  # noqa: E731
        x = f.workgroup_size[0]
        lin = self.id_value("group_id")
        self.declare_temp(lin, T.uvec3, v3(f"{wid}.x + {wid}.y * {nwg}.x + {wid}.z * "
                                           f"{nwg}.x * {nwg}.y", "0u", "0u"), None)
        if "num_groups" in f.ids_used:
            self.declare_temp(self.id_value("num_groups"), T.uvec3,
                              v3(f"{nwg}.x * {nwg}.y * {nwg}.z", "1u", "1u"), None)
        if "global_id" in f.ids_used:
            self.declare_temp(self.id_value("global_id"), T.uvec3,
                              v3(f"{lin}.x * {x}u + {lid}.x", f"{lid}.y", f"{lid}.z"), None)
        if "local_id" in f.ids_used:
            self.declare_temp(self.id_value("local_id"), T.uvec3, lid, None)
        if "local_index" in f.ids_used:
            self.declare_temp(self.id_value("local_index"), T.u32, self.raw_id("local_index"),
                              None)

    def vector_text(self, t: T.Type, parts: Any) -> str:
        """The vector ``t`` built from one text per component: ``T(a, b, c)``."""
        return f"{self.type_name(t)}({', '.join(parts)})"

    def negate(self, node: ast.UnaryOp) -> str:
        """Unary minus: ``-x``."""
        return f"-{self.sub(node.operand)}"

    def compare(self, op: type, a: ast.expr, b: ast.expr, node: ast.AST) -> str:
        """``a OP b`` for one comparison operator ``op`` (an ``ast`` class)."""
        sym = CMP_SYMBOLS[op]
        return f"{self.sub(a)} {sym} {self.sub(b)}"

    # -- places and values shared by the brace targets ---------------------------------
    def place(self, target: ast.expr) -> str:
        """A reference expression (store side)."""
        if isinstance(target, ast.Name):
            return self.ref(target)
        if isinstance(target, ast.Subscript):
            return f"{self.place(target.value)}[{self.expr(target.slice)}]"
        return f"{self.place(target.value)}.{self.member(target)}"

    def member(self, node: ast.Attribute) -> str:
        """A struct field's target name, or a vector component/swizzle as written."""
        st = node.value.ps_type
        if isinstance(st, T.StructType):
            return self.field_name(st.name, node.attr, [n for n, _ in st.fields])
        return node.attr

    def atomic_element(self, node: ast.expr) -> bool:
        """True when ``node`` indexes a buffer or shared array that is used atomically."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            return False
        ref = getattr(node.value, "ps_ref", None)
        if not ref or ref[0] != "global":
            return False
        for b in self.k.buffers:
            if b.name == ref[1]:
                return b.atomic
        sh = self.k.shared.get(ref[1])
        return bool(sh and sh.atomic)

    def has_side_effects(self, node: ast.AST) -> bool:
        """True when evaluating ``node`` may write memory (a store, an atomic, a helper
        that writes): such a side may not be evaluated speculatively or skipped."""
        for n in ast.walk(node):
            call = getattr(n, "ps_call", None)
            if call and call[0] in ("builtin", "func") and not call[1].pure:
                return True
        return False

    def broadcast(self, s: str, t: T.Type, want: T.Type) -> str:
        """``s`` converted to the vector type ``want`` when its type ``t`` is a scalar."""
        if isinstance(want, T.VectorType) and not isinstance(t, T.VectorType):
            return f"{self.type_name(want)}({s})"
        return s


    # -- statements and expressions shared by the brace targets --------------------------
    def assign(self, target: ast.expr, value: ast.expr, node: ast.AST) -> None:
        """An assignment; an atomic element through ``atomic_store``, a bool struct field
        stored as u32."""
        v = self.value(value)
        if isinstance(target, ast.Attribute) and target.value.ps_type is not None and \
                isinstance(target.value.ps_type, T.StructType) and target.ps_type == T.bool_:
            v = self.bool_to_u32(v)
        if self.atomic_element(target):
            return self.atomic_store(self.place(target), v, node)
        self.line(f"{self.place(target)} = {v};", node)

    def call_statement(self, call: ast.expr, node: ast.AST) -> None:
        """A call statement: ``barrier()`` is the ``BARRIER`` statements; other calls go
        through ``discard``."""
        kind, what = call.ps_call
        if kind == "builtin" and what.name == "barrier":
            for stmt in self.BARRIER:
                self.line(f"{stmt};", node)
            return
        self.line(f"{self.discard(self.expr(call), call)};", node)

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]``, through ``atomic_load`` for an atomic element."""
        s = f"{self.sub(node.value)}[{self.expr(node.slice)}]"
        if self.atomic_element(node):
            return self.atomic_load(s, node)
        return s

    def ex_Attribute(self, node: ast.Attribute) -> str:
        """A struct field (a bool field read from u32), a vector component, or an enum's
        ``.value``."""
        vt = node.value.ps_type
        if getattr(node.value, "ps_enum_type", None) is not None:       # .value
            return self.expr(node.value)
        s = f"{self.sub(node.value)}.{self.member(node)}"
        if isinstance(vt, T.StructType) and node.ps_type == T.bool_:
            return f"({s} != 0u)"
        return s

    def ex_BinOp(self, node: ast.BinOp) -> str:
        """A binary operator from ``BINOPS``; shifts through ``shift``, bool ``& | ^``
        through ``bool_bitop`` (``//``, ``%`` and ``**`` are prelude calls by now)."""
        op = type(node.op)
        if op not in BINOPS:
            raise self.error(node, "internal: //, % and ** reach the emitter as prelude calls")
        if op in (ast.LShift, ast.RShift):
            return self.shift(node, op)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor) and elem_type(node.ps_type) == T.bool_:
            return self.bool_bitop(node, op)
        return f"{self.sub(node.left)} {BINOPS[op]} {self.sub(node.right)}"

    def shift(self, node: ast.BinOp, op: type) -> str:
        """``a << b`` / ``a >> b`` (arithmetic on signed types in every C-like target)."""
        return f"{self.sub(node.left)} {BINOPS[op]} {self.sub(node.right)}"

    def bool_bitop(self, node: ast.BinOp, op: type) -> str:
        """Bool ``&``/``|`` (both sides evaluated) and ``^`` as ``!=``."""
        a, b = self.sub(node.left), self.sub(node.right)
        return f"{a} != {b}" if op is ast.BitXor else f"{a} {BINOPS[op]} {b}"

    # -- calls --------------------------------------------------------------------------
    def call_cast(self, node: ast.Call, t: T.Type) -> str:
        """A conversion ``T(x)`` (f32 -> int is a prelude call by now)."""
        return f"{self.type_name(t, node)}({self.expr(node.args[0])})"

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor."""
        return f"{self.type_name(t, node)}({', '.join(self.value(a) for a in node.args)})"

    def call_struct(self, node: ast.Call, st: T.StructType) -> str:
        """A struct constructor with every field (a missing one zero, bools as u32)."""
        vals = []
        for f, a in node.ps_fields:
            ft = st.field_types[f]
            if a is None:
                vals.append(self.zero_value(T.decayed(ft), node))
            elif ft == T.bool_:
                vals.append(self.bool_to_u32(self.value(a)))
            else:
                vals.append(self.value(a))
        return f"{self.struct_constructor(st)}({', '.join(vals)})"

    def struct_constructor(self, st: T.StructType) -> str:
        """What a struct value is built with: its name (HLSL: a generated maker)."""
        return self.global_name(st.name)

    def call_array(self, node: ast.Call, at: T.ArrayType) -> str:
        """``ps.array(T, N)``: its zero value."""
        return self.zero_value(at, node)

    def param_block_ref(self) -> str:
        """The expression naming the parameter block, whose members are ``.field``: the
        block's variable (a target that binds it as an array element says so)."""
        return self.globals.name("_ps_params")

    def unsigned_abs(self, node: ast.Call) -> str:
        """``abs`` of an unsigned value is the value (GLSL has no unsigned abs, HLSL's
        converts to int first); of a float, ``abs`` (signed integers go through the
        prelude)."""
        if elem_type(node.ps_type).kind == "uint":
            return self.sub(node.args[0])       # an operand where the call stood: parenthesised
        return f"abs({self.value(node.args[0])})"

    def spell_extras(self, node: ast.Call, b: Any, args: list[str]) -> dict:
        """Fields of builtin format strings: ``ids``, ``len`` and the result type ``T``."""
        extras: dict[str, Any] = {}
        if b.name in ID_NAMES:
            extras["ids"] = IdNames(self)
        if b.name == "len":
            t = node.args[0].ps_type
            if not isinstance(t, T.BufferType):
                extras["len"] = f"{t.n}u"
            else:
                # The element count the launch path stores: the target's own length
                # would count the padding of small buffers (a binding is at least 16 bytes).
                block = self.prog.param_block
                member = block.lengths[node.args[0].ps_ref[1]]
                extras["len"] = (f"{self.param_block_ref()}."
                                 f"{self.field_name('_ps_Params', member, [n for n, _ in block.types])}")
        if b.name in ("bitcast", "prelude.bits", "prelude.convert", "popcount",
                      "count_leading_zeros"):
            extras["T"] = self.type_name(node.ps_type, node)
        return extras


def elem_type(t: T.Type) -> T.Type:
    """The scalar type of a scalar, vector or matrix type."""
    return t.elem if isinstance(t, (T.VectorType, T.MatrixType)) else t


def shortest_f32(v: float) -> str:
    """Shortest decimal that reads back as the same binary32 value."""
    f = struct.unpack("<f", struct.pack("<f", v))[0]
    for digits in range(1, 18):
        s = f"{f:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(s)))[0] == f:
            if "e" in s and "inf" not in s and "nan" not in s:
                s = repr(float(s))      # same digits, positional where Python's is (180.0)
            if "e" not in s and "." not in s and "inf" not in s and "nan" not in s:
                s += ".0"
            return s
    return repr(f)
