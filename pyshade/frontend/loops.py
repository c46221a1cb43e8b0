"""Loops (a mixin of the type checker): ``for i in range(...)`` and ``while``, and
definite assignment through them.

A name first assigned in a loop body is definitely assigned after the loop only
where the body surely ran once: a ``for`` over a range whose bounds are constants
by now (literals, module constants, ``Const`` parameters and arithmetic of them,
all folded by the expression rules) that holds at least one value, as Python's
``for i in range(4): last = i`` leaves ``last`` (and ``i``) assigned; or a
``while True`` left through its breaks. A loop that may run zero times (run-time
bounds, an empty range, a ``while`` with a condition) is joined with the state
before it, and a later read of a name it assigned is an error naming the loop
(``loop_only``).
"""

from __future__ import annotations

import ast

from .. import types as T
from .exprs import decay, is_int
from .scoping import join_assigned

_UNREACHABLE = None   # the "assigned" state after return/break/continue


class LoopMixin:
    """Loop rules; the class using it provides ``tx``, ``body``, ``assigned``, ``loops``
    (per loop: the states at its breaks and at its continues) and ``loop_only``."""

    def st_While(self, node: ast.While) -> None:
        """``while``: a bool test and no ``else`` (see ``loop``)."""
        node.test = self.tx(node.test)
        if node.test.ps_type != T.bool_:
            self.error(node.test, f"a condition must be bool, got {node.test.ps_type}")
        if node.orelse:
            self.error(node.orelse[0], "while/else is not supported")
        self.loop(node, node.body, infinite=isinstance(node.test, ast.Constant) and node.test.value)

    def loop(self, node: ast.AST, body: list, infinite: bool = False) -> None:
        """Check a loop body; after it, the names assigned before it joined with each break's
        (a ``while True`` loop exits only through its breaks)."""
        before = self.copy_state()
        self.loops.append(([], []))
        self.body(body)
        breaks, continues = self.loops.pop()
        if infinite:
            state = None
            for b in breaks:
                state = b if state is None else join_assigned(state, b)
            self.assigned = state if breaks else None
        else:
            self.after_loop(node, before, breaks, [self.assigned, *continues], "while",
                            "may run zero times")

    def st_For(self, node: ast.For) -> None:
        """``for x in range(...)``: integer bounds of one type (the variable's if it exists)."""
        if node.orelse:
            self.error(node.orelse[0], "for/else is not supported")
        if not isinstance(node.target, ast.Name):
            self.error(node.target, "the loop variable must be a plain name")
        it = node.iter
        if not (isinstance(it, ast.Call) and self.static_callee(it) is range):
            self.error(it, "kernels can only loop over range(...), ps.unroll(range(N)), a "
                           "constant table or a tuple literal (for d in (a, b, c))")
        if not 1 <= len(it.args) <= 3 or it.keywords:
            self.error(it, "range() takes 1 to 3 arguments")
        args = [self.tx(a) for a in it.args]
        name = node.target.id
        known = self.func.locals.get(name) or self.params.get(name)
        if known is not None:
            want = known
        else:
            concrete = [a.ps_type for a in args if not isinstance(a.ps_type, T.AbstractType)]
            want = decay(concrete[0]) if concrete else T.i32
        for a in args:
            if not (is_int(a.ps_type) or isinstance(a.ps_type, T.AbstractType)):
                self.error(a, f"range() needs integers, got {a.ps_type}")
            self.coerce(a, want, "range()")
        if len(args) == 3 and isinstance(args[2], ast.Constant) and args[2].value == 0:
            self.error(args[2], "range() step must not be zero")
        it.args = args
        it.ps_type = want
        if known is None:
            self.declare(node.target, want)
        node.target.ps_type = want
        node.target.ps_ref = ("local", name)
        self.note(name)
        before = self.copy_state()
        if self.assigned is not None:
            self.assigned.add(name)
        self.for_targets.append(node)
        self.loops.append(([], []))
        self.body(node.body)
        breaks, continues = self.loops.pop()
        self.for_targets.pop()
        ends = [self.assigned, *continues]      # where an iteration ends
        if all(isinstance(a, ast.Constant) for a in args):
            values = range(*(int(a.value) for a in args))
            if len(values) > 0:     # the body runs: the loop ends after an iteration, or breaks
                state = ends[0]
                for s in ends[1:] + breaks:
                    state = join_assigned(state, s)
                # every exit unreachable (a body that always returns): the code after the
                # loop is kept reachable, since the targets' compilers see a loop that may
                # end (a helper still needs its return after it)
                self.assigned = state if state is not None else before
                return
            bounds = ", ".join(str(a.value) for a in args)
            return self.after_loop(node, before, breaks, ends, "for",
                                   f"runs zero times (range({bounds}) is empty)")
        self.after_loop(node, before, breaks, ends, "for", "may run zero times (the bounds "
                        "of its range are not compile-time constants)")

    def after_loop(self, node: ast.AST, before: set | None, breaks: list, ends: list,
                   kind: str, why: str) -> None:
        """The state after a loop that may not run: the state before it joined with its
        breaks (which only add to it). The names assigned where an iteration ``ends`` or
        breaks that this drops are noted in ``loop_only``, for the error of a later read."""
        state = before
        for b in breaks:
            state = join_assigned(state, b)
        self.assigned = state
        for name in set().union(*(e for e in ends + breaks if e is not None)) - (state or set()):
            self.loop_only[name] = (node, kind, why)

    def st_Break(self, node: ast.Break) -> None:
        """``break``: its state joins the loop's exit; the rest of the block is unreachable."""
        if not self.loops:
            self.error(node, "'break' outside a loop")
        self.loops[-1][0].append(self.copy_state())
        self.assigned = _UNREACHABLE

    def st_Continue(self, node: ast.Continue) -> None:
        """``continue``: its state ends an iteration; the rest of the block is unreachable."""
        if not self.loops:
            self.error(node, "'continue' outside a loop")
        self.loops[-1][1].append(self.copy_state())
        self.assigned = _UNREACHABLE
