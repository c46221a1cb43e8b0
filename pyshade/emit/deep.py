"""Deep expressions in the output: long chains are written in pieces (a mixin of
``Emitter``).

A sum of 1000 terms nests 1000 levels deep, and the targets' compilers limit
nesting (Python's tokenizer allows 200 nested parentheses, Tint's parser 128
levels). ``split_deep`` stores pieces of such a chain in temporaries before the
statement; an expression still too deep after that is a TranslationError at
its line.
"""

from __future__ import annotations

import ast

from .. import types as T
from ..frontend.deep import child_nodes, depth_without, spine_cuts
from ..frontend.source import make_error

# Deep expressions: pieces of CHUNK levels go to temporaries (split_deep); after that no
# expression may be deeper than MAX_DEPTH (Python's tokenizer allows 200 nested
# parentheses, Tint's parser 128 nesting levels).
CHUNK = 32
MAX_DEPTH = 100


class DeepSplit:
    """``split_deep``; the class using it provides ``prog``, ``names``, ``declare_temp``,
    ``value`` and the ``emitted`` table that ``expr`` consults."""

    emitted: dict[int, str]

    def split_deep(self, stmt: ast.stmt) -> None:
        """Write long chains (``a + b + c + ...``, 1000 terms) in pieces of ``CHUNK`` levels,
        each into a temporary before ``stmt``: the targets' compilers limit nesting (Python
        200 parentheses, Tint 128). A piece is a first operand, which Python evaluates before
        the rest of the statement anyway; ``while`` tests are re-evaluated and keep theirs.
        What is still deeper than ``MAX_DEPTH`` is a TranslationError."""
        values: list[ast.expr] = []
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr, ast.If)) or (
                isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name)):
            v = stmt.test if isinstance(stmt, ast.If) else stmt.value
            values = [v] if v is not None else []
        for v in values:
            for node in spine_cuts(v, CHUNK, _storable):
                name = self.names.fresh("part")
                self.declare_temp(name, node.ps_type, self.value(node), stmt)
                self.emitted[id(node)] = name
        for c in child_nodes(stmt):
            if isinstance(c, ast.expr):
                d = depth_without(c, set(self.emitted))
                if d > MAX_DEPTH:
                    # not target-specific: every emitter stops at the same depth
                    raise make_error(self.prog.filename, c,
                                     f"this expression is nested {d} levels deep, more than "
                                     f"the {MAX_DEPTH} that every target accepts: split it "
                                     "with intermediate variables")


def _storable(node: ast.expr) -> bool:
    """True when ``node``'s value can live in a temporary (a scalar or vector)."""
    return isinstance(getattr(node, "ps_type", None), (T.ScalarType, T.VectorType))
