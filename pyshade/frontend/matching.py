"""``match`` statements (a mixin of the type checker).

Patterns may be literals, enum members, ``|`` alternatives and ``_``. A match
over an IntEnum without ``case _`` must name every member; definite
assignment after an exhaustive match is the intersection over its cases.
"""

from __future__ import annotations

import ast

from .. import types as T
from .exprs import is_int
from .scoping import join_assigned


class MatchMixin:
    """Match rules; the class using it provides ``tx``, ``body``, ``assigned``..."""

    def st_Match(self, node: ast.Match) -> None:
        """A ``match`` on an integer or enum: constant cases, enum exhaustiveness, definite
        assignment over the cases."""
        node.subject = self.tx(node.subject)
        st = node.subject.ps_type
        if isinstance(st, T.AbstractType):
            self.default(node.subject)
            st = node.subject.ps_type
        if not is_int(st):
            self.error(node.subject, f"match needs an integer or IntEnum subject, got {st}")
        before = self.copy_state()
        states = []
        covered: set[int] = set()
        wildcard = False
        for case in node.cases:
            if case.guard is not None:
                self.error(case.guard, "match guards (case ... if ...) are not supported")
            if wildcard:
                self.error(case.pattern, "this case is unreachable: it follows 'case _'")
            values = self.case_values(case.pattern, st)
            if values is None:
                wildcard = True
            else:
                case.ps_values = values
                covered.update(v.value for v in values)
            self.assigned = set(before) if before is not None else None
            self.body(case.body)
            states.append(self.assigned)
        exhaustive = wildcard
        if isinstance(st, T.EnumType) and not wildcard:
            missing = [n for n, v in st.members.items() if v not in covered]
            if missing:
                self.error(node, f"match over {st.name} does not handle "
                                 f"{', '.join(st.name + '.' + m for m in missing)}: add the "
                                 "missing cases or 'case _:'")
            exhaustive = True
            node.ps_exhaustive = True     # the emitters make the last case the `else`
        state = before if not exhaustive else None
        first = True
        for s in states:
            if first and exhaustive:
                state, first = s, False
            else:
                state = join_assigned(state, s)
        self.assigned = state if (states or not exhaustive) else before

    def case_values(self, pat: ast.pattern, st: T.Type) -> list | None:
        """The typed constants a case pattern matches, or None for ``case _``."""
        if isinstance(pat, ast.MatchAs) and pat.pattern is None and pat.name is None:
            return None
        if isinstance(pat, ast.MatchOr):
            out = []
            for p in pat.patterns:
                v = self.case_values(p, st)
                if v is None:
                    self.error(p, "'_' inside '|' is not supported")
                out.extend(v)
            return out
        if isinstance(pat, ast.MatchValue):
            v = self.tx(pat.value)
            if not isinstance(v, ast.Constant):
                self.error(pat, "case patterns must be constants or enum members")
            if isinstance(v.ps_type, T.EnumType) and isinstance(st, T.EnumType) and v.ps_type != st:
                self.error(pat, f"{v.ps_type.name} member in a match over {st.name}")
            self.coerce(v, st if not isinstance(v.ps_type, T.EnumType) else v.ps_type)
            pat.value = v
            return [v]
        if isinstance(pat, ast.MatchAs):
            self.error(pat, "capture patterns (case x:) are not supported: use case _:")
        self.error(pat, f"{type(pat).__name__} patterns are not supported: use literals, enum "
                        "members, | and _")
