"""Enums decay to their base integer type once, at the end of the frontend.

Type checking needs an enum's own type (exhaustive ``match``, no mixing of two enums,
member names in error messages); generated code only needs its base (u32, or i32 when a
member is negative). ``decay_enums`` rewrites what the emitters read, so that none of
them decays an enum itself:

- every typed node's ``ps_type`` (the enum stays in ``ps_enum_type``, for what is about
  the enum itself: ``.value``, the CPU device's member check of a conversion);
- the conversion and array calls (``ps_call``);
- the functions' parameter, local and return types;
- the element types of the buffers and shared arrays.

Host records keep the enum: struct field types (``Cls.dtype``, the member check when the
host reads data back) and the kernel's value parameters (checked at launch, laid out in
the parameter block). An emitter spells those through ``types.decayed``.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from .deep import child_nodes
from .program import Program


def decay_enums(prog: Program) -> None:
    """Give the emitters ``prog`` with enum types replaced by their base types."""
    memo: dict[int, tuple[Any, Any]] = {}       # id(type) -> (type, decayed type)

    def dec(t: Any) -> Any:
        hit = memo.get(id(t))
        if hit is None:             # one decayed object per type object: identity holds
            hit = memo[id(t)] = (t, T.decayed(t))
        return hit[1]

    k = prog.kernel
    for b in k.buffers:
        b.type = dec(b.type)
    for sh in k.shared.values():
        sh.type = dec(sh.type)
    for f in [k] + prog.funcs:
        f.locals = {n: dec(t) for n, t in f.locals.items()}
        if f.ret is not None:
            f.ret = dec(f.ret)
        if not f.is_kernel:         # the kernel's parameters are host records
            f.params = [(n, dec(t)) for n, t in f.params]
            f.all_params = [(n, dec(t)) for n, t in f.all_params]
        seen: set[int] = set()
        for node in _typed_nodes(f.tree, seen):
            t = getattr(node, "ps_type", None)
            if isinstance(t, T.EnumType):
                node.ps_enum_type = t
            if t is not None:
                node.ps_type = dec(t)
            call = getattr(node, "ps_call", None)
            if call and call[0] in ("cast", "array"):
                node.ps_call = (call[0], dec(call[1]))


def _typed_nodes(tree: ast.AST, seen: set[int]) -> Any:
    """Every node of ``tree`` and of the nodes the checker attached to it (``ps_binop``,
    ``ps_operands``...), once each."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(child_nodes(node))
        for name, v in vars(node).items():
            if name.startswith("ps_"):
                stack.extend(x for x in (v if isinstance(v, (list, tuple)) else [v])
                             if isinstance(x, ast.AST))
