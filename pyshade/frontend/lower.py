"""Desugaring passes: the type checker and emitters see a smaller Python.

Each pass is an ``ast.NodeTransformer``:
- chained comparisons ``a < b < c`` become ``a < b and b < c``;
- tuple assignments and swaps become assignments through temporaries (only
  where an element needs one), multiple targets ``a = b = v`` become two;
- ``for i in ps.unroll(range(N))`` is unrolled (unless it breaks/continues);
- ``for x in TABLE:`` and ``for x in (a, b, c):`` are unrolled (``unroll_seq.py``);
- an index holding a call in the target of an augmented assignment
  (``hist[bin_of(x)] += 1``) is computed once into a temporary, as Python
  evaluates it once (the emitters write the target twice: ``a[i] = a[i] + 1``).

Temporaries are named ``_ps_tN``: the ``_ps`` prefix is reserved, so the
namer gives them readable target names that never clash with user names.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import lang
from .deep import child_nodes, copy_tree, walk
from .source import FunctionSource
from .specialize import local_names
from .unroll_seq import sequence_of, unroll_sequence

TEMP_PREFIX = "_ps_t"


def _simple(node: ast.AST) -> bool:
    """Expressions that may be evaluated twice without a visible difference."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    if isinstance(node, ast.UnaryOp):
        return _simple(node.operand)
    if isinstance(node, ast.BinOp):
        return _simple(node.left) and _simple(node.right)
    return False


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _base_name(target: ast.AST) -> str | None:
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


class Lowering(ast.NodeTransformer):
    """All desugaring in one transformer (each visit method is one rule)."""

    def __init__(self, src: FunctionSource):
        self.src = src
        self.counter = 0

    def temp(self, node: ast.AST) -> str:
        """A new temporary name ``_ps_tN``."""
        self.counter += 1
        return f"{TEMP_PREFIX}{self.counter}"

    # -- a < b < c -------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        """``a < b < c`` becomes ``a < b and b < c`` (a repeated operand must be simple)."""
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        parts = []
        left = node.left
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            if 0 < i < len(node.ops) and not _simple(left):
                raise self.src.error(left, "a chained comparison evaluates this operand twice "
                                           "here: assign it to a variable first")
            parts.append(ast.copy_location(ast.Compare(left, [op], [right]), node))
            left = right
        return ast.copy_location(ast.BoolOp(ast.And(), parts), node)

    # -- a, b = b, a ; a = b = v ----------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> Any:
        """``a = b = v`` and ``a, b = x, y`` become single assignments, with temporaries where
        Python's evaluation order needs them."""
        self.generic_visit(node)
        if len(node.targets) > 1:
            first = ast.copy_location(ast.Assign([node.targets[0]], node.value), node)
            out = self.visit_Assign(first)
            out = out if isinstance(out, list) else [out]
            src_expr = copy_tree(node.targets[0])
            for t in node.targets[1:]:
                _to_load(src_expr)
                rest = ast.copy_location(ast.Assign([t], copy_tree(src_expr)), node)
                r = self.visit_Assign(rest)
                out.extend(r if isinstance(r, list) else [r])
            return out
        target = node.targets[0]
        if not isinstance(target, (ast.Tuple, ast.List)):
            return node
        if any(isinstance(t, (ast.Tuple, ast.List, ast.Starred)) for t in target.elts):
            raise self.src.error(target, "nested or starred unpacking is not supported")
        if not isinstance(node.value, (ast.Tuple, ast.List)):
            return self.unpack(node, target.elts)
        if len(target.elts) != len(node.value.elts):
            raise self.src.error(node, f"cannot unpack {len(node.value.elts)} values into "
                                       f"{len(target.elts)} targets")
        pre: list[ast.stmt] = []
        values: list[ast.expr] = []
        written: set[str] = set()
        # Python evaluates every right-hand value before assigning: a value needs a
        # temporary when an earlier target writes something it reads.
        vals = node.value.elts
        hoist = [i > 0 and bool(_names_read(v) & {_base_name(t) for t in target.elts[:i]}
                                or not _simple(v)) for i, v in enumerate(vals)]
        # Values are evaluated left to right: every value before a hoisted call is hoisted
        # too, so that side effects (atomics, helpers) and reads keep Python's order.
        last_call = max((i for i, v in enumerate(vals) if hoist[i] and not _simple(v)),
                        default=0)
        hoist[:last_call] = [True] * last_call
        for i, value in enumerate(vals):
            earlier = {_base_name(t) for t in target.elts[:i]}
            if hoist[i]:
                name = self.temp(node)
                pre.append(ast.copy_location(
                    ast.Assign([ast.Name(name, ast.Store())], value), node))
                values.append(ast.Name(name, ast.Load()))
            else:
                values.append(value)
            written |= earlier
        assigns = [ast.copy_location(ast.Assign([t], v), node)
                   for t, v in zip(target.elts, values)]
        for a in pre + assigns:
            ast.fix_missing_locations(a)
            for n in walk(a):
                if not hasattr(n, "lineno"):
                    ast.copy_location(n, node)
        return pre + assigns

    def unpack(self, node: ast.Assign, targets: list[ast.expr]) -> list[ast.stmt]:
        """``a, b = value`` (a helper's tuple, a vector): ``tmp = value`` (checked by
        ``tuples.check_unpack``), then ``a = tmp[0]``, ``b = tmp[1]`` (``tuples.unpack_part``)."""
        name = self.temp(node)
        tmp = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], node.value), node)
        tmp.ps_unpack = len(targets)
        out: list[ast.stmt] = [tmp]
        for i, t in enumerate(targets):
            part = ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(i), ast.Load())
            part.ps_unpack = True
            out.append(ast.copy_location(ast.Assign([t], part), node))
        for a in out:
            for n in walk(a):
                if not hasattr(n, "lineno"):
                    ast.copy_location(n, node)
        return out

    # -- a[f(x)] += v ---------------------------------------------------------------
    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        """Each index of the target that holds a call goes to a temporary first, outermost
        first (Python's order: ``a[f(x)][g(y)] += v`` calls f, then g, then reads v)."""
        self.generic_visit(node)
        pre: list[ast.stmt] = []
        self._hoist_indices(node.target, pre, node)
        for a in pre:
            ast.fix_missing_locations(a)
        return pre + [node] if pre else node

    def _hoist_indices(self, target: ast.expr, pre: list, stmt: ast.stmt) -> None:
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            self._hoist_indices(target.value, pre, stmt)
        if isinstance(target, ast.Subscript) and \
                any(isinstance(n, ast.Call) for n in walk(target.slice)):
            name = self.temp(stmt)
            pre.append(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())],
                                                    target.slice), target.slice))
            target.slice = ast.copy_location(ast.Name(name, ast.Load()), target.slice)

    # -- for i in ps.unroll(range(N)) ---------------------------------------------
    def visit_For(self, node: ast.For) -> Any:
        """Unroll ``for i in ps.unroll(range(...))`` with constant bounds, unless it breaks or
        continues."""
        self.generic_visit(node)
        it = node.iter
        if isinstance(node.target, ast.Name) and not node.orelse:
            elts = sequence_of(node, self.src.lookup, local_names(self.src.tree))
            if elts is not None:
                jumps = {type(n) for s in node.body for n in _walk_loop(s)
                         if isinstance(n, (ast.Break, ast.Continue))}
                return unroll_sequence(node, elts, lambda: self.temp(node),
                                       lambda n, v, s: _Substitute(n, v).visit(s), jumps)
        if not (isinstance(it, ast.Call) and self._is_unroll(it.func)):
            return node
        if len(it.args) != 1 or not isinstance(it.args[0], ast.Call):
            raise self.src.error(it, "ps.unroll() takes one range(...) argument")
        rng = it.args[0]
        bounds = []
        for a in rng.args:
            v = self._const_int(a)
            if v is None:
                raise self.src.error(a, "ps.unroll(range(...)) needs constant bounds "
                                        "(literals, Const parameters or module constants)")
            bounds.append(v)
        node.iter = rng
        if any(isinstance(n, (ast.Break, ast.Continue)) for s in node.body for n in _walk_loop(s)):
            return node  # a loop with break/continue is kept as a loop
        if node.orelse or not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        values = list(range(*bounds))
        if not values:      # kept as a loop that never runs: its names stay known, and
            return node     # a read after it is reported as such (typecheck's loop rules)
        assigned = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                       for s in node.body for n in walk(s))
        out: list[ast.stmt] = []
        for k in values:
            if assigned:    # the body changes it: keep a variable
                out.append(ast.copy_location(ast.Assign(
                    [ast.Name(name, ast.Store())], ast.Constant(k)), node))
                out.extend(copy_tree(node.body))
            else:           # a true constant in each copy: literals adapt to their context
                out.extend(_Substitute(name, k).visit(copy_tree(s)) for s in node.body)
        used_outside = sum(isinstance(n, ast.Name) and n.id == name for n in walk(self.root)) \
            > sum(isinstance(n, ast.Name) and n.id == name for n in walk(node))
        if values and not assigned and used_outside:
            # Python leaves the loop variable at its last value
            out.append(ast.copy_location(ast.Assign(
                [ast.Name(name, ast.Store())], ast.Constant(values[-1])), node))
        for s in out:
            ast.fix_missing_locations(ast.copy_location(s, s))
            for n in walk(s):
                if not hasattr(n, "lineno"):
                    ast.copy_location(n, node)
        return out

    def _const_int(self, node: ast.AST) -> int | None:
        """Value of a constant integer expression: literals (Const parameters are
        literals by now), module or closure constants, unary minus, + - * //."""
        if isinstance(node, ast.Constant):
            return node.value if type(node.value) is int else None
        if isinstance(node, ast.Name):
            if node.id in local_names(self.src.tree):
                return None
            found, obj = self.src.lookup(node.id)
            return obj if found and type(obj) is int else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self._const_int(node.operand)
            return None if v is None else -v
        ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
               ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b if b else None}
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            a, b = self._const_int(node.left), self._const_int(node.right)
            return None if a is None or b is None else ops[type(node.op)](a, b)
        return None

    def _is_unroll(self, func: ast.AST) -> bool:
        if isinstance(func, ast.Attribute):
            base = func.value
            if isinstance(base, ast.Name):
                found, obj = self.src.lookup(base.id)
                return found and getattr(obj, func.attr, None) is lang.unroll
        if isinstance(func, ast.Name):
            found, obj = self.src.lookup(func.id)
            return found and obj is lang.unroll
        return False


class _Substitute(ast.NodeTransformer):
    """Replace reads of one name by a constant (an unrolled loop's index)."""

    def __init__(self, name: str, value: int):
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        """A read of the name becomes the constant."""
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(self.value), node)
        return node


def _walk_loop(node: ast.AST):
    """ast.walk that does not enter nested loops (their break is their own)."""
    yield node
    for child in child_nodes(node):
        if isinstance(child, (ast.For, ast.While)):
            continue
        yield from _walk_loop(child)


def _to_load(node: ast.AST) -> None:
    for n in walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()


def lower(src: FunctionSource, tree: ast.FunctionDef) -> ast.FunctionDef:
    """Run every desugaring pass over ``tree`` (modified in place and returned)."""
    low = Lowering(src)
    low.root = tree
    tree = low.visit(tree)
    ast.fix_missing_locations(tree)
    return tree
