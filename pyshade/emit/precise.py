"""``precise`` declarations of the SPIR-V targets (GLSL and HLSL), a mixin of a C-like
emitter, so that Vulkan drivers may not contract float arithmetic.

A Vulkan driver may fuse a float multiply and add into one FMA (one rounding where
Python rounds twice) or reassociate a sum, unless the SPIR-V instruction carries
``NoContraction``. GLSL and HLSL ask for it with ``precise``: glslang and DXC decorate an
arithmetic operation when its value flows, through any chain of variables, into a
``precise`` variable, buffer or shared array, or into the result of a ``precise``
function (``bench/probes/precise_probe.py`` shows each form). So the emitter writes
``precise`` (the target's ``PRECISE``) on:

* every local and temporary whose type holds a float, or that is assigned float
  arithmetic (``bool c = x * y > z``, an integer converted from a float expression);
* every buffer the kernel writes and every shared array, unless used atomically, where
  the element holds a float or the program computes with floats at all (what a store
  puts there is traced back);
* the result of every helper that returns a float, or computes its result with floats.

What reaches no such declaration (conditions of ``if``/``while``, indices, arguments of
a call statement; for DXC also arguments of helper calls and ``?:`` conditions) is not
traced by either compiler: ``toolchains/spirv.py`` decorates every float operation of a
kernel's SPIR-V after compiling, so the vulkan routes hold for all of it.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from ..frontend.deep import walk


def holds_float(t: Any) -> bool:
    """True when ``t`` is, or contains, an f16/f32/f64 value (matrices are f32)."""
    if isinstance(t, T.ScalarType):
        return t.is_float
    if isinstance(t, (T.VectorType, T.MatrixType)):
        return t.elem.is_float
    if isinstance(t, (T.ArrayType, T.BufferType)):
        return holds_float(t.elem)
    if isinstance(t, T.StructType):
        return any(holds_float(ft) for _, ft in t.fields)
    return False


def float_arith(node: ast.AST | None) -> bool:
    """True when ``node`` holds a float operation (a binary operator or negation whose
    result holds a float): what a driver could contract."""
    if node is None:
        return False
    for n in walk(node):
        if isinstance(n, (ast.BinOp, ast.UnaryOp)) and holds_float(getattr(n, "ps_type", None)):
            return True
        if isinstance(n, ast.AugAssign) and float_arith(getattr(n, "ps_binop", None)):
            return True
    return False


def own_exprs(stmt: ast.AST | None) -> list[ast.AST]:
    """The expressions statement ``stmt`` evaluates itself (not its body's statements)."""
    if stmt is None:
        return []
    if isinstance(stmt, ast.expr):
        return [stmt]
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, ast.For):
        return [stmt.iter]
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    if isinstance(stmt, ast.Assign):
        return [stmt.value, *stmt.targets]
    if isinstance(stmt, ast.AugAssign):
        return [getattr(stmt, "ps_binop", stmt.value), stmt.target]
    if isinstance(stmt, (ast.AnnAssign, ast.Return, ast.Expr)):
        return [stmt.value] if stmt.value is not None else []
    return []


class PreciseFloats:
    """``decl_head`` and the qualifiers of declarations; the class using it provides
    ``func``, ``prog``, ``k`` and ``names``, and sets ``PRECISE``."""

    # The qualifier, with its space ("precise "); empty: the target writes none.
    PRECISE = ""
    func: Any
    prog: Any
    k: Any
    names: Any

    def decl_head(self, name: str, t: T.Type, mutable: bool, node: ast.AST | None = None) -> str:
        """A local's or temporary's declaration, ``precise`` where ``local_qualifier``
        says so."""
        head = super().decl_head(name, t, mutable, node)  # type: ignore[misc]
        return self.local_qualifier(name, t, node) + head

    def local_qualifier(self, name: str, t: T.Type, node: ast.AST | None = None) -> str:
        """``PRECISE`` for the local or temporary ``name`` (its target name) of type ``t``,
        declared at statement ``node``, when it holds a float or is assigned float
        arithmetic (by that statement, or anywhere in the function); else ``""``."""
        if not self.PRECISE:
            return ""
        if holds_float(t) or any(float_arith(e) for e in own_exprs(node)) or \
                name in self._fed_names():
            return self.PRECISE
        return ""

    def result_qualifier(self, f: Any) -> str:
        """``PRECISE`` before the result type of helper ``f`` when it returns a float or
        computes its result with floats (the compilers trace a ``precise`` function's
        return values back)."""
        if self.PRECISE and f.ret is not None and (holds_float(f.ret) or float_arith(f.tree)):
            return self.PRECISE
        return ""

    def store_qualifier(self, elem: T.Type, atomic: bool) -> str:
        """``PRECISE`` for a written buffer or a shared array of element type ``elem`` (not
        one used atomically: atomics are no stores to trace back), when the element holds
        a float or the program computes with floats at all."""
        if not self.PRECISE or atomic:
            return ""
        return self.PRECISE if holds_float(elem) or self._program_floats() else ""

    def _fed_names(self) -> set[str]:
        """Target names of the current function's locals assigned float arithmetic (their
        Python names found once per typed Program: GLSL and HLSL share them)."""
        cache = self.prog.memo.setdefault("precise_fed", {})
        key = id(self.func)
        if key not in cache:
            fed = set()
            for n in walk(self.func.tree):
                if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and \
                        any(float_arith(e) for e in own_exprs(n)[:1]):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    fed |= {x.id for x in targets if isinstance(x, ast.Name)}
            cache[key] = fed
        return {self.names.lookup(p) for p in cache[key]} - {None}

    def _program_floats(self) -> bool:
        """True when the kernel or a helper it calls computes with floats (found once per
        typed Program)."""
        memo = self.prog.memo
        if "precise_floats" not in memo:
            memo["precise_floats"] = any(float_arith(f.tree) for f in [self.k, *self.prog.funcs])
        return memo["precise_floats"]  # type: ignore[no-any-return]
