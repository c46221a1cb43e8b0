"""Barriers in uniform control flow only: a ``ps.barrier()`` that not every invocation
of a workgroup reaches hangs or misbehaves on a GPU (and only the cpu device noticed,
at run time, when it happened). This pass finds them at translation.

A value is *varying* (may differ between the invocations of one workgroup) when it
comes from ``global_id()``, ``local_id()`` or ``local_index()``, from a buffer or
shared-array element, from an atomic, or from a helper that reads any of those; and
when it is computed from a varying value or assigned under a varying condition.
Parameters, constants, ``len()``, ``group_id()`` and ``num_groups()`` are uniform. A
barrier is refused under an ``if``, ``while``, ``for`` or ``match`` whose condition is
varying, inside a loop that a varying ``break`` or ``continue`` leaves, and after a
``return`` under a varying condition.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T

_VARYING_IDS = {"global_id", "local_id", "local_index"}


class _Flow:
    """One pass over the kernel body; ``varying`` grows until a pass adds nothing."""

    def __init__(self, kernel: Any, varying: set[str]):
        self.k = kernel
        self.varying = varying
        self.changed = False
        self.bad: list[tuple[ast.AST, ast.AST]] = []     # (barrier, what makes it varying)

    # -- expressions ---------------------------------------------------------------------
    def why(self, e: Any) -> ast.AST | None:
        """The node that makes expression ``e`` varying, or None when it is uniform."""
        if e is None or not isinstance(e, ast.AST):
            return None
        if isinstance(e, ast.Name):
            return e if e.id in self.varying else None
        if isinstance(e, ast.Call):
            call = getattr(e, "ps_call", None)
            if call and call[0] == "builtin":
                b = call[1]
                if b.name in _VARYING_IDS or "atomic" in b.kinds:
                    return e
                if b.name == "len":          # of a buffer or array: one length for all
                    return None
            elif call and call[0] == "func":
                info = call[1]
                if info.ids_used & _VARYING_IDS or info.buffer_params or not info.pure:
                    return e
            for a in e.args:
                w = self.why(a)
                if w is not None:
                    return w
            return None
        if isinstance(e, ast.Subscript):
            if self.shared_memory(e.value):
                return e                 # buffer contents, shared memory
            return self.why(e.value) or self.why(e.slice)
        for child in ast.iter_child_nodes(e):
            w = self.why(child)
            if w is not None:
                return w
        return None

    @staticmethod
    def shared_memory(e: ast.AST) -> bool:
        """A buffer or shared array (memory every invocation may write), not a local."""
        base = getattr(e, "ps_type", None)
        ref = getattr(e, "ps_ref", None)
        return isinstance(base, T.BufferType) or bool(ref and ref[0] == "global"
                                                      and isinstance(base, T.ArrayType))

    def mark(self, target: ast.AST) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name) and n.id not in self.varying:
                self.varying.add(n.id)
                self.changed = True

    # -- statements ----------------------------------------------------------------------
    def block(self, body: list, cause: ast.AST | None) -> ast.AST | None:
        """Walk ``body`` under ``cause`` (the varying condition around it, or None).
        Returns what made some invocations return inside it (a ``return`` under a varying
        condition: the statements after it run only in the others), or None."""
        gone = None
        for stmt in body:
            g = self.stmt(stmt, cause or gone)
            gone = gone or g
        return gone

    def stmt(self, s: ast.AST, cause: ast.AST | None) -> ast.AST | None:
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            value = getattr(s, "value", None)
            w = cause or self.why(value)
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                if isinstance(t, ast.Subscript):
                    if self.shared_memory(t.value):
                        continue             # its elements are varying already
                    w = w or self.why(t.slice)
                    t = t.value
                if w is not None:
                    self.mark(t)
            return None
        if isinstance(s, ast.Expr):
            call = s.value
            ps_call = getattr(call, "ps_call", None) if isinstance(call, ast.Call) else None
            if ps_call and ps_call[0] == "builtin" and ps_call[1].name == "barrier" \
                    and cause is not None:
                self.bad.append((call, cause))
            return None
        if isinstance(s, ast.If):
            inner = cause or self.why(s.test)
            return self.block(s.body, inner) or self.block(s.orelse, inner)
        if isinstance(s, (ast.While, ast.For)):
            test = s.test if isinstance(s, ast.While) else s.iter
            inner = cause or self.why(test)
            if isinstance(s, ast.For) and inner is not None:
                self.mark(s.target)
            inner = inner or self.leaves(s.body, None)
            return self.block(s.body, inner) or self.block(s.orelse, inner)
        if isinstance(s, ast.Match):
            inner = cause or self.why(s.subject)
            outs = [self.block(c.body, inner) for c in s.cases]
            return next((o for o in outs if o is not None), None)
        if isinstance(s, ast.Return):
            return cause            # the invocations that return never reach later barriers
        return None

    def leaves(self, body: list, cause: ast.AST | None) -> ast.AST | None:
        """The varying condition under which a ``break``/``continue`` of this loop (not of a
        nested one) runs, else None."""
        def walk(stmts: list, under: ast.AST | None) -> ast.AST | None:
            for s in stmts:
                if isinstance(s, (ast.Break, ast.Continue)) and under is not None:
                    return under
                if isinstance(s, ast.If):
                    u = under or self.why(s.test)
                    w = walk(s.body, u) or walk(s.orelse, u)
                    if w is not None:
                        return w
                elif isinstance(s, ast.Match):
                    u = under or self.why(s.subject)
                    for c in s.cases:
                        w = walk(c.body, u)
                        if w is not None:
                            return w
            return None
        return walk(body, cause)


def check_barriers(kernel: Any) -> None:
    """Raise a TranslationError at the first barrier of ``kernel`` (a typed KernelInfo)
    that runs in control flow that may differ between the invocations of a workgroup."""
    varying: set[str] = set()
    for _ in range(64):          # each pass only adds names: a fixpoint comes soon
        flow = _Flow(kernel, varying)
        flow.block(kernel.tree.body, None)
        if not flow.changed:
            break
    if flow.bad:
        barrier, cause = flow.bad[0]
        line = getattr(cause, "lineno", "?")
        what = ast.unparse(cause) if isinstance(cause, ast.expr) else type(cause).__name__
        raise kernel.src.error(
            barrier, f"barrier() in non-uniform control flow: the condition on line {line} "
                     f"reads {what}, which can differ between the invocations of a workgroup, "
                     "so some of them would not reach this barrier. Every invocation must reach "
                     "the same barriers: move it out of the branch or loop (or before the "
                     "return), or make the condition uniform (parameters, constants, len(), "
                     "group_id())")
