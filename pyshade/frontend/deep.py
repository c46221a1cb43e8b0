"""Deep expressions: copying an AST without recursion, recursion headroom for the
passes, and the located error when an expression is still too deep.

A sum of 1000 terms is an AST 1000 levels deep. ``copy.deepcopy`` spends
several interpreter frames per level and overflows at about 250; the passes
(``ast.NodeTransformer``s, the type checker, the emitters) spend two or three
frames per level. ``copy_tree`` copies with an explicit stack, and
``recursion_headroom`` lets the passes recurse deep enough for any
expression the emitters can write out (``emit.deep`` splits long chains).
"""

from __future__ import annotations

import ast
import contextlib
import sys
import threading
from collections import deque
from collections.abc import Iterator
from typing import Any

from ..errors import TranslationError
from .source import make_error

# Frames allowed while translating: a 1000-level expression needs under 3000. Twice
# that stays well inside a thread's C stack also on Python 3.10, where every
# Python call also takes a C frame.
RECURSION_LIMIT = 6000
_lock = threading.Lock()
_users = 0
_saved = 0


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` as a list: the same nodes in the same order (the
    AST values of ``node``'s fields, list fields element by element), made without its
    two generators per node."""
    out = []
    for name in node._fields:
        v = getattr(node, name, None)
        if isinstance(v, ast.AST):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, ast.AST):
                    out.append(x)
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)``: every node of the tree, breadth first in the same order (a
    node's children are taken before it is yielded, as there), about twice as fast. The
    passes and emitters walk the trees many times; this is what they use."""
    todo = deque([node])
    pop, add = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in node._fields:
            v = getattr(node, name, None)
            if isinstance(v, ast.AST):
                add(v)
            elif isinstance(v, list):
                for x in v:
                    if isinstance(x, ast.AST):
                        add(x)
        yield node


def copy_tree(node: Any) -> Any:
    """A copy of the AST ``node`` in which every AST node is new (a node reached twice is
    copied once, as ``copy.deepcopy`` does); other attribute values are shared. Iterative:
    the depth of the tree does not matter."""
    memo: dict[int, ast.AST] = {}

    def copy1(n: ast.AST) -> ast.AST:
        c = memo.get(id(n))
        if c is None:
            c = n.__class__.__new__(n.__class__)
            c.__dict__.update(n.__dict__)
            memo[id(n)] = c
            stack.append(c)
        return c

    stack: list[ast.AST] = []
    root = copy1(node)
    while stack:
        d = stack.pop().__dict__
        for name, value in d.items():     # values replaced in place: the keys stay
            if isinstance(value, ast.AST):
                d[name] = copy1(value)
            elif isinstance(value, list):
                for v in value:
                    if isinstance(v, ast.AST):
                        d[name] = [copy1(x) if isinstance(x, ast.AST) else x for x in value]
                        break
    return root


@contextlib.contextmanager
def recursion_headroom() -> Iterator[None]:
    """Raise the interpreter's recursion limit to ``RECURSION_LIMIT`` while translating
    (restored when the last user leaves; never lowered below what the program set)."""
    global _users, _saved
    with _lock:
        if _users == 0:
            _saved = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved, RECURSION_LIMIT))
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                sys.setrecursionlimit(_saved)


def depth(node: ast.AST) -> int:
    """Nesting depth of the expression ``node`` (a name or constant is 1). Iterative."""
    best = 0
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in child_nodes(n)
                     if isinstance(c, ast.expr))
    return best


def deepest_expression(tree: ast.AST) -> tuple[ast.AST, int]:
    """The outermost expression of ``tree`` with the largest depth, and that depth."""
    best: tuple[ast.AST, int] = (tree, 0)
    for n in walk(tree):
        if isinstance(n, ast.stmt):
            for c in child_nodes(n):
                if isinstance(c, ast.expr):
                    d = depth(c)
                    if d > best[1]:
                        best = (c, d)
    return best


def too_deep(filename: str, tree: ast.AST, target: str | None = None) -> TranslationError:
    """The error for a function whose translation ran out of recursion: at its deepest
    expression (the function itself when nothing is deep)."""
    node, d = deepest_expression(tree)
    return make_error(filename, node, f"this expression is nested {d} levels deep, more "
                                      "than pyshade can translate: split it with "
                                      "intermediate variables", target)


def first_operand(node: ast.expr) -> ast.expr | None:
    """The operand that Python evaluates first in ``node`` (None for a leaf)."""
    if isinstance(node, (ast.BinOp, ast.Compare)):
        return node.left
    if isinstance(node, ast.BoolOp):
        return node.values[0]
    if isinstance(node, ast.UnaryOp):
        return node.operand
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return node.value
    if isinstance(node, ast.IfExp):
        return node.test
    if isinstance(node, ast.Call) and node.args and not node.keywords:
        return node.args[0]
    return None


def spine_cuts(node: ast.expr, chunk: int, storable: Any) -> list[ast.expr]:
    """Where to cut the chain of first operands of ``node`` (``a + b + c + ...``) into
    pieces of at most ``chunk`` levels, deepest first: each piece is evaluated before the
    rest of the expression, so computing it first into a temporary keeps Python's order.
    Only nodes for which ``storable(node)`` holds are cut."""
    spine = []
    n: ast.expr | None = node
    while n is not None:
        spine.append(n)
        n = first_operand(n)
    cuts = []
    since = 0
    for n in reversed(spine[1:]):
        since += 1
        if since >= chunk and storable(n):
            cuts.append(n)
            since = 0
    return cuts


def depth_without(node: ast.AST, leaves: set[int]) -> int:
    """``depth`` of ``node`` where the nodes whose ids are in ``leaves`` count as names."""
    best = 0
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        best = max(best, d)
        if id(n) not in leaves:
            stack.extend((c, d + 1) for c in child_nodes(n)
                         if isinstance(c, ast.expr))
    return best
