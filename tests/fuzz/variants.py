"""Second references: a fuzz kernel's module rewritten as a driver is allowed to compute
it, run on the cpu device, so that a difference the rewrite explains is explained exactly
however later operations magnify it (``harness.RECIPROCAL``, ``harness.REGROUP``).

* ``recip``: every ``x / c``, ``c`` a float literal, as ``x * (1.0 / c)`` (SwiftShader's
  WGSL); ``recip_all``: every ``x / y`` so (NVIDIA's Vulkan driver).
* ``regroup``: a chain of two float constants folded into one, as lavapipe and SwiftShader
  fold SPIR-V without ``NoContraction`` (naga's, from WGSL, which cannot ask for it):
  ``(x + c1) + c2`` as ``x + (c1 + c2)`` (and the forms with ``-``), ``(x * c1) * c2`` as
  ``x * (c1 * c2)``; ``regroup_recip``: SwiftShader's, with ``recip`` first, so
  ``(c1 * x) / c2`` is ``x * (c1 * (1.0 / c2))`` and ``c1 / (x * c2)`` is
  ``(c1 / c2) / x``; both with lavapipe's ``(-a) + (a + b)`` as ``b``
  (bench/probes/swiftshader_wgsl_fold_probe.py shows each form equal to the driver's on
  every input).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

KINDS = ("recip", "recip_all", "regroup", "regroup_recip")


# Calls of these names with constant arguments are constants too: naga evaluates them
# (the fuzzer writes divisors such as ``abs(-0.1) + 0.5`` and ``abs(vec3(1.0)) + 0.5``,
# which pyshade's frontend leaves to the target; seed 237249843448868 kernels 27 and 57).
CONST_CALLS = frozenset({"abs", "min", "max", "f32", "vec2", "vec3", "vec4"})


def is_constant(node: ast.AST) -> bool:
    """A float literal, a call of ``CONST_CALLS`` on constants, or a sum, difference,
    product or quotient of constants (what an earlier fold left), possibly negated."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return is_constant(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                            ast.Div)):
        return is_constant(node.left) and is_constant(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in CONST_CALLS and node.args and not node.keywords:
        return all(is_constant(a) for a in node.args)
    return isinstance(node, ast.Constant) and isinstance(node.value, float)


def _f32(node: ast.AST) -> ast.AST:
    """A constant as an f32 operand: the drivers fold constants in the operation's type
    (f32 in the fuzzer's float kernels), where two literals alone would be folded by
    pyshade's frontend at full precision. Only a bare literal needs it (anything else is
    typed, or folded by the frontend into the one literal the driver sees). A variant of
    an f16 or f64 expression then fails to type-check, and a variant the cpu refuses
    explains nothing."""
    lit = node.operand if isinstance(node, ast.UnaryOp) else node
    if isinstance(lit, ast.Constant):
        return ast.Call(ast.Name("f32", ast.Load()), [node], [])
    return node


def _bin(left: ast.AST, op: ast.operator, right: ast.AST) -> ast.BinOp:
    return ast.BinOp(left, op, right)


def _fold(left: ast.AST, op: ast.operator, right: ast.AST) -> ast.BinOp:
    """Two constants combined as the driver folds them: in f32."""
    return ast.BinOp(_f32(left), op, _f32(right))


class Rewrite(ast.NodeTransformer):
    """One of ``KINDS``, applied bottom up (an inner fold's constant folds again)."""

    def __init__(self, kind: str) -> None:
        assert kind in KINDS, kind
        self.recip = kind in ("recip", "recip_all", "regroup_recip")
        self.every = kind == "recip_all"
        self.regroup = kind.startswith("regroup")

    def reciprocal(self, y: ast.AST) -> ast.AST | None:
        """``1 / y`` where a division by ``y`` is rewritten, else None: NVIDIA's for any
        ``y`` (the abstract 1.0 takes ``y``'s type), SwiftShader's for a constant, folded
        in f32 as spirv-opt folds it."""
        if not self.recip:
            return None
        if self.every:
            return _bin(ast.Constant(1.0), ast.Div(), y)
        return _fold(ast.Constant(1.0), ast.Div(), y) if is_constant(y) else None

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            r = self.reciprocal(node.right)
            if r is not None:
                node = _bin(node.left, ast.Mult(), r)
            elif self.regroup and self.recip and is_constant(node.left) and \
                    _product(node.right):
                x, c2 = _product(node.right)     # c1 / (x * c2): (c1 / c2) / x
                return _bin(_fold(node.left, ast.Div(), c2), ast.Div(), x)
        return self._regroup(_cancel(node)) if self.regroup else node

    def _regroup(self, node: ast.AST) -> ast.AST:
        """``node`` with its constant folded into an inner operation's constant."""
        split = _split(node)
        if split is None:
            return node
        inner, c2, c2_left = split
        if isinstance(node.op, ast.Mult):
            p = _product(inner)
            return _bin(p[0], ast.Mult(), _fold(p[1], ast.Mult(), c2)) if p else node
        s = _sum(inner)
        if s is None:
            return node
        x, plus, c1 = s                          # inner is x + c1 (plus) or x - c1
        add, sub = ast.Add(), ast.Sub()
        if c2_left and isinstance(node.op, ast.Add):   # c2 + inner
            return _bin(x, add, _fold(c1, add, c2) if plus else _fold(c2, sub, c1))
        if c2_left:                                    # c2 - inner
            return _bin(_fold(c2, sub, c1) if plus else _fold(c2, add, c1), sub, x)
        if isinstance(node.op, ast.Add):               # inner + c2
            return _bin(x, add, _fold(c1, add, c2) if plus else _fold(c2, sub, c1))
        return _bin(x, add, _fold(c1, sub, c2)) if plus else \
            _bin(x, sub, _fold(c1, add, c2))           # inner - c2

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        r = self.reciprocal(node.value) if isinstance(node.op, ast.Div) else None
        return node if r is None else ast.AugAssign(node.target, ast.Mult(), r)


def _cancel(node: ast.BinOp) -> ast.AST:
    """``(-a) + (a + b)`` as ``b``, as lavapipe's NIR rewrites it without ``NoContraction``
    (``~fadd(fneg(a), fadd(a, b))``; seed 232741618614045 kernel 19: ``(-s) + (s + 0.1)``
    is 0.1; bench/probes/swiftshader_wgsl_fold_probe.py). ``a ** 1`` is ``a`` first, as
    the frontend writes it."""
    if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and \
            node.right.value == 1:
        return node.left
    if not isinstance(node.op, ast.Add):
        return node
    neg, s = node.left, node.right
    if isinstance(neg, ast.UnaryOp) and isinstance(neg.op, ast.USub) and \
            isinstance(s, ast.BinOp) and isinstance(s.op, ast.Add) and \
            ast.dump(neg.operand) == ast.dump(s.left):
        return s.right
    return node


def _split(node: ast.AST) -> tuple[ast.AST, ast.AST, bool] | None:
    """``(x, c, c_left)`` for a ``+``, ``-`` or ``*`` of a constant ``c`` and an ``x`` that
    is not one (``c_left``: ``c`` is the left operand), else None."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, (ast.Add, ast.Sub,
                                                                    ast.Mult)):
        return None
    left, right = is_constant(node.left), is_constant(node.right)
    if right and not left:
        return node.left, node.right, False
    if left and not right:
        return node.right, node.left, True
    return None


def _product(node: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    """``(x, c)`` for ``x * c`` or ``c * x``, ``c`` constant and ``x`` not."""
    split = _split(node)
    if split is None or not isinstance(node.op, ast.Mult):
        return None
    return split[0], split[1]


def _sum(node: ast.AST) -> tuple[ast.AST, bool, ast.AST] | None:
    """``(x, True, c)`` for ``x + c`` or ``c + x``, ``(x, False, c)`` for ``x - c``; ``c``
    constant and ``x`` not (``c - x`` is not a sum of ``x``: left alone)."""
    split = _split(node)
    if split is None or isinstance(node.op, ast.Mult):
        return None
    x, c, c_left = split
    plus = isinstance(node.op, ast.Add)
    return None if c_left and not plus else (x, plus, c)


_variants: dict[str, Any] = {}


def variant(mod: Any, kind: str, load: Callable[[str, Path, str], Any]) -> Any:
    """The module of ``mod`` rewritten as ``kind`` (loaded once per module with
    ``load``), or None if the rewrite changes nothing."""
    path = Path(mod.__file__)
    key = f"{path}:{kind}"
    if key not in _variants:
        src = ast.unparse(ast.parse(path.read_text()))
        var = ast.unparse(Rewrite(kind).visit(ast.parse(src)))
        _variants[key] = None if var == src else load("# ruff: noqa\n" + var, path.parent,
                                                      f"{path.stem}_{kind}")
    return _variants[key]
