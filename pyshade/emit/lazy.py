"""Short-circuit evaluation as statements, for targets whose compiler evaluates both
sides of ``&&``, ``||`` and ``?:`` (a mixin of a C-like emitter).

Python evaluates ``b`` in ``a and b`` only when ``a`` is true. Most compilers keep
that, but DXC 1.7's SPIR-V back end (the one compushady ships) evaluates both
operands of ``&&``, ``||`` and ``?:`` even in HLSL 2021, whose rules say they
short-circuit (its DXIL branches correctly). Where the later operand matters
(it writes memory, or indexes a buffer or array, which the first operand is
often there to guard: ``i < len(a) and a[i] > 0``) the node is written as
statements before the statement that contains it:

    bool t = a;            // a and b          T t = zero;      // x if c else y
    if (t) { t = b; }                          if (c) { t = x; } else { t = y; }

and the node's text becomes ``t``. Python evaluates what stands before the node in
its statement first: where the node has side effects, those earlier operands go
to temporaries before it, so that they still see memory as it was. A ``while``
whose test needs this becomes ``while (true) { ...; if (!test) { break; } ... }``
(``continue`` then re-evaluates the test, as it should); an ``elif`` becomes an
``else`` holding an ``if``.

The class using it provides the C-like hooks (``begin_if``, ``begin_else``,
``end_block``, ``declare_temp``, ``line``, ``value``, ``has_side_effects``) and
``emitted`` (expression id -> the temporary holding it), and sets
``eager_logic``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .. import types as T
from ..frontend.deep import child_nodes, walk


class LazyLogic:
    """``before_statement``, ``keeps_elif`` and ``visit_While`` for ``eager_logic`` targets."""

    eager_logic = False
    emitted: dict[int, str]

    # -- what needs it -------------------------------------------------------------------
    def risky(self, node: ast.expr) -> bool:
        """True when evaluating ``node`` where Python would not may change the result: it
        writes memory, indexes a buffer or array at a variable place, or calls a helper
        that reads buffers."""
        if self.has_side_effects(node):
            return True
        for n in walk(node):
            if isinstance(n, ast.Subscript) and not isinstance(n.slice, ast.Constant) and \
                    isinstance(getattr(n.value, "ps_type", None), (T.BufferType, T.ArrayType)):
                return True
            call = getattr(n, "ps_call", None)
            if call and call[0] == "func" and call[1].buffer_params:
                return True
        return False

    def is_lazy(self, node: ast.AST) -> bool:
        """True for an ``and``/``or`` or ``if else`` whose conditional part is risky."""
        if isinstance(node, ast.BoolOp):
            return any(self.risky(v) for v in node.values[1:])
        if isinstance(node, ast.IfExp):
            return self.risky(node.body) or self.risky(node.orelse)
        return False

    def lazy_nodes(self, root: ast.expr) -> Iterator[ast.expr]:
        """The outermost lazy nodes under ``root``, in Python's evaluation order."""
        if id(root) in self.emitted:
            return
        if self.is_lazy(root):
            yield root
            return
        for c in _operands(root):
            yield from self.lazy_nodes(c)

    def needs_lowering(self, node: ast.expr | None) -> bool:
        """True when ``node`` holds a lazy node not written yet."""
        return self.eager_logic and node is not None and next(self.lazy_nodes(node), None) \
            is not None

    # -- hooks of the base emitter -------------------------------------------------------
    def before_statement(self, stmt: ast.stmt) -> None:
        """Write the lazy nodes of ``stmt``'s expressions as statements before it."""
        if not self.eager_logic:
            return
        for root in _roots(stmt):
            self.lower(root, stmt)

    def keeps_elif(self, test: ast.expr) -> bool:
        """An ``elif`` stays one unless its test has lazy nodes."""
        return not self.needs_lowering(test)

    def visit_While(self, node: ast.While) -> None:
        """A ``while`` whose test has lazy nodes tests inside the loop, after them."""
        if not self.needs_lowering(node.test):
            return super().visit_While(node)     # type: ignore[misc]
        self.begin_while(self.literal(True, T.bool_), node)
        self.depth += 1
        saved = dict(self.emitted)
        self.lower(node.test, node)
        self.begin_if(f"!({self.cond(node.test)})", node)
        self.depth += 1
        self.line(self.stmt_end("break"), node)
        self.depth -= 1
        self.end_block()
        self.emitted = saved
        self.block(node.body)
        self.depth -= 1
        self.end_block()

    # -- writing -------------------------------------------------------------------------
    def lower(self, root: ast.expr, stmt: ast.AST) -> None:
        """Write every lazy node under ``root`` as statements, in evaluation order."""
        for node in list(self.lazy_nodes(root)):
            if id(node) in self.emitted:
                continue
            if self.has_side_effects(node):
                self.hoist_earlier(root, node, stmt)
            self.write_lazy(node, stmt)

    def hoist_earlier(self, root: ast.expr, node: ast.expr, stmt: ast.AST) -> None:
        """Store in temporaries the operands Python evaluates before ``node`` in ``root``
        (constants and names cannot change: they stay)."""
        path = _path(root, node)
        for parent, child in zip(path, path[1:]):
            for before in _operands(parent):
                if before is child:
                    break
                t = getattr(before, "ps_type", None)
                if id(before) in self.emitted or isinstance(before, (ast.Constant, ast.Name)) \
                        or not isinstance(t, (T.ScalarType, T.VectorType, T.MatrixType,
                                              T.StructType)):
                    continue
                name = self.names.fresh("before")
                self.declare_temp(name, t, self.value(before), stmt)
                self.emitted[id(before)] = name

    def write_lazy(self, node: ast.expr, stmt: ast.AST) -> None:
        """``node`` (an and/or/if-else) as a temporary and the statements computing it."""
        name = self.names.fresh("and" if isinstance(node, ast.BoolOp) and
                                isinstance(node.op, ast.And) else
                                "or" if isinstance(node, ast.BoolOp) else "pick")
        if isinstance(node, ast.IfExp):
            self.lower(node.test, stmt)
            self.declare_temp(name, node.ps_type, self.temp_zero(node.ps_type), stmt)
            self.begin_if(self.cond(node.test), stmt)
            self._assign_lowered(name, node.body, stmt)
            self.begin_else()
            self._assign_lowered(name, node.orelse, stmt)
            self.end_block()
        else:
            first, rest = node.values[0], node.values[1:]
            self.lower(first, stmt)
            self.declare_temp(name, T.bool_, self.value(first), stmt)
            test = name if isinstance(node.op, ast.And) else f"!{name}"
            for v in rest:
                self.begin_if(test, stmt)
                self._assign_lowered(name, v, stmt)
                self.end_block()
        self.emitted[id(node)] = name

    def _assign_lowered(self, name: str, value: ast.expr, stmt: ast.AST) -> None:
        """``name = value;`` one level deeper, after ``value``'s own lazy nodes (the
        temporaries made for them stay in that block)."""
        self.depth += 1
        saved = dict(self.emitted)
        self.lower(value, stmt)
        self.line(self.stmt_end(f"{name} = {self.value(value)}"), stmt)
        self.emitted = saved
        self.depth -= 1

    def temp_zero(self, t: T.Type) -> str:
        """The initial value of an if-else's temporary (overwritten on both branches)."""
        return self.zero_value(t)


def _operands(node: ast.AST) -> list[ast.expr]:
    """The sub-expressions of ``node`` in Python's evaluation order (a call's function and
    a statement's parts excluded)."""
    if isinstance(node, ast.Call):
        return list(node.args) + [k.value for k in node.keywords]
    return [c for c in child_nodes(node) if isinstance(c, ast.expr)]


def _path(root: ast.expr, node: ast.expr) -> list[ast.expr]:
    """The chain of expressions from ``root`` down to ``node`` (both included)."""
    if root is node:
        return [root]
    for c in _operands(root):
        p = _path(c, node)
        if p:
            return [root] + p
    return []


def _roots(stmt: ast.stmt) -> list[ast.expr]:
    """The expressions ``stmt`` itself evaluates, in order (a ``while`` test is its own:
    re-evaluated, see ``visit_While``; bodies are statements of their own)."""
    if isinstance(stmt, ast.Assign):
        return [stmt.value, stmt.targets[0]]
    if isinstance(stmt, ast.AugAssign):
        return [getattr(stmt, "ps_binop", stmt.value)]
    if isinstance(stmt, (ast.AnnAssign, ast.Return, ast.Expr)):
        return [stmt.value] if stmt.value is not None else []
    if isinstance(stmt, ast.If):
        return [stmt.test]
    if isinstance(stmt, ast.For):
        return [stmt.iter]
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    return []
