"""Brace-language syntax shared by WGSL, GLSL, HLSL, MSL and CUDA C."""

from __future__ import annotations

import ast
import struct

from .. import types as T
from .base import CMP_SYMBOLS, Emitter


class CLikeEmitter(Emitter):
    """Blocks in braces, statements ending in ``;``, ``&&``/``||``/``!``."""

    bool_ops = {ast.And: "&&", ast.Or: "||"}
    families = ("clike",)

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

    def broadcast(self, s: str, t: T.Type, want: T.Type) -> str:
        """``s`` converted to the vector type ``want`` when its type ``t`` is a scalar."""
        if isinstance(want, T.VectorType) and not isinstance(t, T.VectorType):
            return f"{self.type_name(want)}({s})"
        return s


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
