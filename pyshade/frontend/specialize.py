"""Specialisation: bind ``Const`` parameters and fold compile-time conditions.

``if ps.target == "cuda":`` and conditions on ``Const`` values or module
constants are decided here, before type checking, so that a dead branch may
use what only another target has. The pass is an ``ast.NodeTransformer``.
"""

from __future__ import annotations

import ast
import enum
from typing import Any

from .. import lang
from .deep import walk
from .source import FunctionSource
from .target_view import TargetView

_NOT_CONST = object()
_SCALARS = (bool, int, float, str)


def local_names(tree: ast.FunctionDef) -> set[str]:
    """Every name a function binds: parameters and assignment targets."""
    names = {a.arg for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    for node in walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


class Specializer(ast.NodeTransformer):
    """Replace Const params by their values and delete statically dead branches."""

    def __init__(self, src: FunctionSource, consts: dict[str, Any], target: TargetView):
        self.src = src
        self.consts = consts
        self.target = target            # asked only for ``ps.target`` (its name)
        self.locals = local_names(src.tree) - set(consts)

    # -- compile-time evaluation ------------------------------------------------
    def value_of(self, node: ast.AST) -> Any:
        """The compile-time value of ``node`` or ``_NOT_CONST``."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.consts:
                return self._norm(self.consts[node.id])
            if node.id in self.locals:
                return _NOT_CONST
            found, obj = self.src.lookup(node.id)
            return self._norm(obj) if found else _NOT_CONST
        if isinstance(node, ast.Attribute):
            base = self.value_of(node.value)
            if base is _NOT_CONST or isinstance(base, _SCALARS) and not isinstance(base, str):
                return _NOT_CONST
            try:
                return self._norm(getattr(base, node.attr))
            except AttributeError:
                return _NOT_CONST
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            v = self.value_of(node.operand)
            if not isinstance(v, _SCALARS):
                return _NOT_CONST
            return (not v) if isinstance(node.op, ast.Not) else -v
        if isinstance(node, ast.BoolOp):
            vals = [self.value_of(v) for v in node.values]
            if any(not isinstance(v, _SCALARS) for v in vals):
                return _NOT_CONST
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Compare):
            vals = [self.value_of(v) for v in [node.left, *node.comparators]]
            if any(not isinstance(v, _SCALARS) for v in vals):
                return _NOT_CONST
            ops = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                   ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                   ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
            for op, a, b in zip(node.ops, vals, vals[1:]):
                f = ops.get(type(op))
                if f is None:
                    return _NOT_CONST
                try:
                    if not f(a, b):
                        return False
                except TypeError:
                    return _NOT_CONST
            return True
        return _NOT_CONST

    def _norm(self, obj: Any) -> Any:
        if obj is lang.target:
            return self.target.name
        if isinstance(obj, enum.Enum):
            return obj  # enum members stay symbolic; the type checker types them
        return obj

    def _fold(self, test: ast.AST) -> Any:
        v = self.value_of(test)
        if isinstance(v, enum.Enum) or not isinstance(v, _SCALARS):
            return _NOT_CONST
        # Only fold tests that involve a compile-time name; `if 1 < 2` is left to the
        # type checker so that literal-only tests keep their line in the output.
        if not any(isinstance(n, (ast.Name, ast.Attribute)) for n in walk(test)):
            return _NOT_CONST
        return bool(v)

    # -- transformations ------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> ast.AST:
        """A read of a Const parameter bound to a number becomes a literal."""
        if isinstance(node.ctx, ast.Load) and node.id in self.consts:
            v = self.consts[node.id]
            if isinstance(v, (bool, int, float)) and not isinstance(v, enum.Enum):
                c = ast.copy_location(ast.Constant(v), node)
                c.ps_const_param = True       # not a literal: may be math.inf
                return c
        return node

    def visit_If(self, node: ast.If) -> Any:
        """An ``if`` whose test is known at compile time becomes the taken branch."""
        v = self._fold(node.test)
        if v is _NOT_CONST:
            return self.generic_visit(node)
        body = node.body if v else node.orelse
        out: list[ast.stmt] = []
        for stmt in body:
            r = self.visit(stmt)
            if isinstance(r, list):
                out.extend(r)
            elif r is not None:
                out.append(r)
        return out

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        """``x if c else y`` with a test known at compile time becomes the taken side."""
        v = self._fold(node.test)
        if v is _NOT_CONST:
            return self.generic_visit(node)
        return self.visit(node.body if v else node.orelse)

    def visit_While(self, node: ast.While) -> Any:
        """A ``while`` whose test is false at compile time is removed."""
        if self._fold(node.test) is False:
            return []
        return self.generic_visit(node)
