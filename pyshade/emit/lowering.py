"""The shared lowering of ``match`` and ``for`` loops, a mixin of ``Emitter``.

``match`` becomes an if/elif/else chain on every target (a C ``switch`` would
capture ``break``); ``for i in range(...)`` becomes the target's counted loop, or
a loop over the count of values when the step is not 1 or -1, so that ``i +=
step`` never wraps past the type's limit. The syntax comes from ``Emitter``'s
hooks (``begin_if``, ``begin_for``, ``declare_temp`` ...).
"""

from __future__ import annotations

import ast

from .. import types as T


def _case_value_name(v: ast.expr) -> str:
    """``Enum.MEMBER`` for a typed case value that is an enum member, else its literal."""
    m = getattr(v, "ps_enum", None)
    return f"{type(m).__name__}.{m.name}" if m is not None else ast.unparse(v)


class ControlFlow:
    """``match`` and ``range`` loops, written through the emitter's statement hooks."""

    def visit_Match(self, node: ast.Match) -> None:
        """``match`` as an if/elif/else chain comparing the subject (evaluated once) with each
        case's values."""
        # Every target gets an if-chain: a C `switch` would turn a `break` inside a case
        # into a break out of the switch, not out of the enclosing loop as in Python.
        subj = node.subject
        if isinstance(subj, (ast.Name, ast.Constant)) or (
                isinstance(subj, ast.Attribute) and isinstance(subj.value, ast.Name)):
            s = self.expr(subj)
        else:
            s = self.names.fresh("subject")
            self.declare_temp(s, subj.ps_type, self.expr(subj), node)
        # The last case of an exhaustive match over an IntEnum (no `case _:`) becomes the
        # `else`: it is the only value left, and a function whose every arm returns then ends
        # in an if/else that returns on both sides, which naga and Tint accept as its end.
        exhaustive = getattr(node, "ps_exhaustive", False)
        first = True
        for n, case in enumerate(node.cases):
            values = getattr(case, "ps_values", None)
            rest = exhaustive and n == len(node.cases) - 1
            if values is None or rest:
                if first:   # only `case _:`, or a one-member enum: no test at all
                    self.begin_block(case.pattern)
                else:
                    self.begin_else(case.pattern)
                if rest:
                    names = " | ".join(_case_value_name(v) for v in values)
                    self.depth += 1
                    self.line(f"{self.comment} case {names}: the members left")
                    self.depth -= 1
            else:
                test = f" {self.bool_ops[ast.Or]} ".join(
                    self.compare_eq(s, self.expr(v)) for v in values) \
                    if len(values) > 1 else self.compare_eq(s, self.expr(values[0]))
                (self.begin_if if first else self.begin_elif)(test, case.pattern)
            self.nested(case.body)
            first = False
        if not first:
            self.end_block()

    def compare_eq(self, a: str, b: str) -> str:
        """The test ``a == b`` of a match case (texts in, text out)."""
        return f"{a} == {b}"

    def visit_Assert(self, node: ast.Assert) -> None:
        """An assert becomes a comment: only the CPU device checks it."""
        self.line(f"{self.comment} assert {ast.unparse(node.test)}  (checked on the CPU device)",
                  node)

    def visit_For(self, node: ast.For) -> None:
        """``for i in range(...)`` as a counting loop with hoisted bounds; a step other than a
        literal +-1 goes through ``counted_for``."""
        args = node.iter.args
        t = node.iter.ps_type
        start_node = args[0] if len(args) > 1 else None
        stop = args[0] if len(args) == 1 else args[1]
        step = args[2] if len(args) == 3 else None
        name = node.target.id
        if step is not None and not (isinstance(step, ast.Constant) and abs(step.value) == 1):
            return self.counted_for(node, t, start_node, stop, step)
        direct = name in self.func.direct_loop_vars
        start = self.value(start_node) if start_node is not None else self.literal(0, t)
        # range() is evaluated once in Python: hoist bounds that could change.
        stop_s = self.hoist(stop, "end", node)
        step_s = self.literal(1, t) if step is None else self.expr(step)
        var = self.local(name) if direct else self.names.fresh(name)
        # With a step of +-1, `i < stop` (`i > stop`) keeps i + step inside the type.
        up = step is None or step.value > 0
        cond = f"{var} < {stop_s}" if up else f"{var} > {stop_s}"
        self.begin_for(var, t, start, cond, step_s, node)
        self.depth += 1
        if not direct:
            self.line(self.stmt_end(f"{self.local(name)} = {var}"), node)
        self.block(node.body)
        self.depth -= 1
        self.end_block()

    def counted_for(self, node: ast.For, t: T.Type, start_node: ast.expr | None,
                    stop: ast.expr, step: ast.expr) -> None:
        """range() with |step| > 1 or a runtime step: iterate over the count of values,
        as Python's range does, since ``i += step`` could wrap past the type's limit."""
        name = node.target.id
        ut = T.u32 if t.bits == 32 else T.u64
        u = (lambda s: s) if t == ut else (lambda s: self.cast(s, ut))
        zero, one = self.literal(0, ut), self.literal(1, ut)
        start = self.hoist(start_node, "start", node) if start_node is not None \
            else self.literal(0, t)
        stop_s = self.hoist(stop, "end", node)
        step_s = self.hoist(step, "step", node)
        up = self.select(zero, f"{u(stop_s)} - {u(start)}", f"{stop_s} > {start}")
        down = self.select(zero, f"{u(start)} - {u(stop_s)}", f"{start} > {stop_s}")
        if isinstance(step, ast.Constant):
            diff = up if step.value > 0 else down
            mag = self.literal(abs(step.value), ut)
        else:
            neg = f"{step_s} < {self.literal(0, t)}"
            diff = self.select(up, down, neg)
            mag = self.names.fresh("stride")
            self.declare_temp(mag, ut, self.select(u(step_s), f"{zero} - {u(step_s)}", neg), node)
        span = self.names.fresh("span")
        self.declare_temp(span, ut, diff, node)
        count = self.names.fresh("count")
        self.declare_temp(count, ut, f"{span} / {mag} + "
                          f"{self.select(zero, one, f'{span} % {mag} != {zero}')}", node)
        if name in self.func.direct_loop_vars:
            self.declare_default(name, node)
        c = self.names.fresh(name)
        self.begin_for(c, ut, zero, f"{c} < {count}", one, node)
        self.depth += 1
        cv = c if t == ut else self.cast(c, t)
        self.line(self.stmt_end(f"{self.local(name)} = {start} + {cv} * {step_s}"), node)
        self.block(node.body)
        self.depth -= 1
        self.end_block()

    def hoist(self, node: ast.expr, hint: str, stmt: ast.stmt) -> str:
        """Operand text of ``node``; stored in a fresh temporary first unless it is a constant or
        a name never reassigned."""
        if isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and
                                              node.id not in self.func.mutated):
            return self.sub(node)
        name = self.names.fresh(hint)
        self.declare_temp(name, node.ps_type, self.value(node), stmt)
        return name
