"""``for x in TABLE:`` and ``for x in (a, b, c):`` unroll into one copy of the body per
element (a lowering rule of ``lower.py``).

Each copy starts with ``x = <element>``: ``TABLE[k]`` for a constant table, the element
itself for a literal (constants are substituted where the body does not assign ``x``).
A literal's run-time elements are evaluated into temporaries before the first copy, as
Python evaluates the tuple once before the loop. A ``break`` or ``continue`` in the body
(not in a nested loop) is lowered with one-iteration loops and, for ``break``, a flag::

    _ps_t1 = False
    for _ps_t2 in range(1):       # copy 1: continue -> break, break -> flag and break
        x = a
        ...
    if not _ps_t1:
        for _ps_t2 in range(1):   # copy 2
            x = b
            ...
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from .deep import copy_tree, walk


def sequence_of(node: ast.For, lookup: Callable[[str], tuple[bool, Any]],
                local: set[str]) -> list[ast.expr] | None:
    """The element expressions ``node`` loops over: a tuple or list literal's elements,
    or ``TABLE[k]`` for each ``k`` of a module-level (or closure) tuple or list; None for
    any other iterable."""
    it = node.iter
    if isinstance(it, (ast.Tuple, ast.List)):
        return list(it.elts)
    parts, base = [], it
    while isinstance(base, ast.Attribute):
        parts.append(base.attr)
        base = base.value
    if not isinstance(base, ast.Name) or base.id in local:
        return None
    found, obj = lookup(base.id)
    for p in reversed(parts):
        obj = getattr(obj, p, None)
    if not found or not isinstance(obj, (tuple, list)):
        return None
    return [ast.copy_location(ast.Subscript(copy_tree(it), ast.Constant(k), ast.Load()), it)
            for k in range(len(obj))]


def unroll_sequence(node: ast.For, elts: list[ast.expr], temp: Callable[[], str],
                    substitute: Callable[[str, Any, ast.stmt], ast.stmt],
                    jumps: set[type]) -> list[ast.stmt]:
    """The statements replacing ``node`` (whose target is a plain name)."""
    name = node.target.id
    out: list[ast.stmt] = []

    def at(n: ast.AST) -> ast.AST:
        return ast.fix_missing_locations(ast.copy_location(n, node))

    assigned = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                   for s in node.body for n in walk(s))
    values: list[ast.expr] = []
    literal = isinstance(node.iter, (ast.Tuple, ast.List))
    for e in elts:
        if not literal or isinstance(e, ast.Constant):
            values.append(e)
            continue
        t = temp()                  # evaluated once, before the loop, as Python does
        out.append(at(ast.Assign([ast.Name(t, ast.Store())], e)))
        values.append(at(ast.Name(t, ast.Load())))
    has_jump = bool(jumps)
    flag = temp() if ast.Break in jumps else ""
    once = temp() if has_jump else ""
    if flag:
        out.append(at(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(False))))
    for k, v in enumerate(values):
        if isinstance(v, ast.Constant) and not assigned and not has_jump:
            out.extend(substitute(name, v.value, copy_tree(s)) for s in node.body)
            continue
        copy = [at(ast.Assign([ast.Name(name, ast.Store())], copy_tree(v)))]
        copy += [copy_tree(s) for s in node.body]
        if not has_jump:
            out.extend(copy)
            continue
        loop: ast.stmt = at(ast.For(ast.Name(once, ast.Store()),
                                    ast.Call(ast.Name("range", ast.Load()), [ast.Constant(1)], []),
                                    _redirect(copy, flag), []))
        if k and flag:
            loop = at(ast.If(ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load())), [loop], []))
        out.append(loop)
    for s in out:
        for n in walk(s):
            if not hasattr(n, "lineno"):
                ast.copy_location(n, node)
    return out


def _redirect(stmts: list[ast.stmt], flag: str) -> list[ast.stmt]:
    """The copy's own ``continue`` becomes ``break`` (out of its one-iteration loop), its
    ``break`` sets ``flag`` first; nested loops keep theirs."""
    out: list[ast.stmt] = []
    for s in stmts:
        if isinstance(s, ast.Break):
            out.append(ast.copy_location(
                ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True)), s))
            out.append(s)
        elif isinstance(s, ast.Continue):
            out.append(ast.copy_location(ast.Break(), s))
        else:
            if isinstance(s, ast.If):
                s.body, s.orelse = _redirect(s.body, flag), _redirect(s.orelse, flag)
            elif isinstance(s, ast.Match):
                for case in s.cases:
                    case.body = _redirect(case.body, flag)
            out.append(s)
    return out
