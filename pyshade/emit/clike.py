"""Brace-language syntax shared by WGSL, GLSL, HLSL, MSL and CUDA C."""

from __future__ import annotations

import ast

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
        self.depth -= 0
        self.out[-1:] = self.out[-1:]
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

    def is_signed_int(self, t: T.Type) -> bool:
        """True when ``t``'s scalar (a vector's element, an enum's base) is a signed integer."""
        e = t.elem if isinstance(t, T.VectorType) else (t.base if isinstance(t, T.EnumType) else t)
        return isinstance(e, T.ScalarType) and e.kind == "int"
