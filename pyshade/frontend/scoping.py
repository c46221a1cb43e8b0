"""Where each local variable is declared in the C-like targets.

Python variables live for the whole function; a brace language needs a
declaration in a block that encloses every use. For each local the type
checker records the block path of every occurrence; the variable is declared
in the innermost block containing them all: at its first assignment when that
assignment sits directly in that block, else at the block's start. A loop
variable used only inside its ``for`` loops is declared by the loop itself.
"""

from __future__ import annotations

import ast

from .. import types as T
from .deep import walk
from .program import FuncInfo


def place_declarations(func: FuncInfo, occ: dict, params: dict) -> None:
    """Fill ``func.inline_decl``, ``func.block_decl`` and ``func.direct_loop_vars``.

    ``occ`` maps a name to its occurrences ``(block path, statement, enclosing
    for-loop whose target is that name or None)`` in source order.
    """
    f = func
    for name, occs in occ.items():
        if name in params or name not in f.locals:
            continue
        if isinstance(f.locals[name], T.ArrayType) and f.locals[name].shared:
            continue
        fors = {id(o[2]) if o[2] is not None else None for o in occs}
        loops = [o[2] for o in occs]
        if None not in fors and not any(_assigns_in_body(fl, name) for fl in loops):
            f.direct_loop_vars.add(name)
            continue
        paths = [o[0] for o in occs]
        common = paths[0]
        for p in paths[1:]:
            n = 0
            while n < min(len(common), len(p)) and common[n] == p[n]:
                n += 1
            common = common[:n]
        first_path, first_stmt, _ = occs[0]
        if first_path == common and isinstance(first_stmt, (ast.Assign, ast.AnnAssign)) \
                and _assigns_name(first_stmt, name):
            f.inline_decl.setdefault(id(first_stmt), []).append(name)
        else:
            f.block_decl.setdefault(common[-1], []).append(name)


def _assigns_in_body(loop: ast.For, name: str) -> bool:
    for s in loop.body:
        for n in walk(s):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                return True
    return False


def _assigns_name(stmt: ast.stmt, name: str) -> bool:
    t = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
    return isinstance(t, ast.Name) and t.id == name


def join_assigned(a: set | None, b: set | None) -> set | None:
    """Definitely-assigned names where two paths meet (None: unreachable path)."""
    if a is None:
        return None if b is None else set(b)
    if b is None:
        return set(a)
    return a & b
