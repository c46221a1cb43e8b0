"""Routing of Python-semantics operations to ``pyshade.prelude`` (a mixin of the
type checker).

On every GPU target, a typed ``a // b``, ``a % b``, ``x ** n``, a signed or
float ``min``/``max``/``clamp``/``abs``, an f32 -> i32/u32 conversion,
``math.isnan``/``math.isinf`` of floats and the f32 atomics a target has no
instruction for are replaced by a call of the prelude function that computes
Python's result. The call is typed through the same
monomorphiser as a user's helper (``callgraph._Helpers.helper``), so the
emitters see an ordinary helper call. The ``python`` target keeps the
operators: its runtime computes Python's semantics itself (with Python's
errors), and it is the reference the prelude is tested against.
"""

from __future__ import annotations

import ast
import sys
from typing import Any

from .. import prelude_math
from .. import types as T
from .source import get_source
from .typeutil import call_at

_DIV = {ast.FloorDiv: "floordiv", ast.Mod: "mod"}


def _elem(t: Any) -> Any:
    if isinstance(t, (T.VectorType, T.MatrixType)):
        return t.elem
    return t.base if isinstance(t, T.EnumType) else t


def _kind(e: T.ScalarType) -> str:
    """The prelude's family for a scalar: signed, unsigned, float (f32) or plain (a float
    without an integer type of its width)."""
    if e.kind == "int":
        return "signed"
    if e.kind == "uint":
        return "unsigned"
    return "float" if e == T.f32 else "plain"


def in_prelude(src: Any) -> bool:
    """True for a function of ``pyshade.prelude`` (imported when a kernel first needs one
    of its functions: before that, no function is)."""
    prelude = sys.modules.get("pyshade.prelude")
    return prelude is not None and src.globals is vars(prelude)


class PreludeMixin:
    """Prelude routing; the class using it provides ``prog_checker``, ``const``, ``error``..."""

    @property
    def python_semantics(self) -> bool:
        """The target's operators mean Python's (the target registry's flag)."""
        return self.view.python_semantics

    def routes(self) -> bool:
        """True where operations go to the prelude: a GPU target, outside the prelude itself
        (which is written over primitives and must not call itself)."""
        return not self.python_semantics and not in_prelude(self.src)

    def not_in_prelude(self, node: ast.AST, what: str) -> None:
        """An internal error for a routed operation used inside the prelude."""
        if not self.python_semantics and in_prelude(self.src):
            self.error(node, f"internal: the prelude cannot use {what} (it would call itself): "
                             "use its primitives")

    def prelude_call(self, like: ast.AST, name: str, args: list) -> ast.Call:
        """A typed call of prelude function ``name`` on typed ``args``, at ``like``'s place."""
        from .. import prelude
        fn = getattr(prelude, name, None) or getattr(prelude_math, name)
        call = ast.copy_location(ast.Call(ast.Name(name, ast.Load()), list(args), []), like)
        call.end_lineno = getattr(like, "end_lineno", None)
        call.end_col_offset = getattr(like, "end_col_offset", None)
        info = self.prog_checker.helper(self, call, fn, get_source(fn), list(args))
        call.ps_call = ("func", info)
        call.ps_args = list(args)
        call.ps_type = info.ret
        self.func.ids_used |= info.ids_used
        return call

    def splat(self, node: ast.expr, t: T.Type) -> ast.expr:
        """``node`` as a value of the vector type ``t`` when it is a scalar (broadcast)."""
        if not isinstance(t, T.VectorType) or isinstance(node.ps_type, T.VectorType):
            return node
        c = ast.copy_location(ast.Call(ast.Name(t.name, ast.Load()), [node], []), node)
        c.ps_call = ("construct", t)
        c.ps_type = t
        return c

    def route_binop(self, node: ast.BinOp) -> ast.expr:
        """``//``, ``%`` and ``**`` as prelude calls (``ps_operands`` keeps the sides)."""
        op = type(node.op)
        if op not in _DIV and op is not ast.Pow:
            return node
        if not self.routes():
            self.not_in_prelude(node, "//, % or **")
            return node
        t = node.ps_type
        if op is ast.Pow and _kind(_elem(t)) == "signed":
            ue = T.u64 if _elem(t).bits == 64 else T.u32
            zero = self.splat(self.const(node, 0, ue), t if not isinstance(t, T.VectorType)
                              else T.vector_of(ue, t.n))
            call = self.prelude_call(node, "ps_pow_signed", [node.left, node.right, zero])
        elif op is ast.Pow:
            fn = "ps_pow_unsigned" if _kind(_elem(t)) == "unsigned" else "ps_pow"
            call = self.prelude_call(node, fn, [node.left, node.right])
        else:
            args = [self.splat(node.left, t), self.splat(node.right, t)]
            # Float // and % of every width share ps_*_float: unlike min/max, its body
            # reads no bits, so f16 and f64 need no "plain" variant.
            kind = "float" if _elem(t).kind == "float" else _kind(_elem(t))
            call = self.prelude_call(node, f"ps_{_DIV[op]}_{kind}", args)
        call.ps_operands = (node.left, node.right)
        return call

    def route_builtin(self, node: ast.Call, name: str) -> ast.expr:
        """Signed and float ``abs``/``min``/``max``/``clamp``, float ``isnan``/``isinf``,
        f32 atomics (``route_atomic``); the ``math`` functions a target lacks
        (``route_math``)."""
        if name.startswith("atomic_"):
            return self.route_atomic(node, name[len("atomic_"):])
        if name.startswith("math.") and name not in ("math.isnan", "math.isinf"):
            return self.route_math(node, name)
        if name not in ("abs", "min", "max", "clamp", "math.isnan", "math.isinf"):
            return node
        if not self.routes():
            self.not_in_prelude(node, f"{name}()")
            return node
        e = _elem(node.args[0].ps_type)
        kind = _kind(e)
        if name == "abs":
            fn = "ps_abs_signed" if kind == "signed" else None
        elif name in ("min", "max", "clamp"):
            fn = f"ps_{name}_{kind}" if kind != "unsigned" else None
        elif name == "math.isnan":
            fn = "ps_isnan" if kind == "float" else "ps_isnan_plain"
        else:
            fn = "ps_isinf" if kind == "float" else {T.f16: "ps_isinf_f16",
                                                      T.f64: "ps_isinf_f64"}.get(e)
        if fn is None:      # the target's own builtin is right (unsigned, float abs)
            return node
        return self.prelude_call(node, fn, node.args)

    def route_atomic(self, node: ast.Call, op: str) -> ast.expr:
        """An f32 ``atomic_add``/``sub``/``min``/``max`` that the target has no instruction
        for (``Target.float_atomics``) as the prelude's compare-exchange loop
        (``ps_atomic_<op>_float``)."""
        if node.ps_type != T.f32 or op not in ("add", "sub", "min", "max") \
                or self.view.float_atomic(op):
            return node
        if not self.routes():
            self.not_in_prelude(node, f"atomic_{op}() of f32")
            return node
        return self.prelude_call(node, f"ps_atomic_{op}_float", node.args)

    def route_conversion(self, node: ast.Call, src: T.Type, dst: T.Type) -> ast.expr:
        """A float (vector) -> i32/u32 (vector) conversion as ``ps_float_to_int`` (f32, and
        f16 through f32) or ``ps_float_to_int_plain`` (f64)."""
        de = dst.elem if isinstance(dst, T.VectorType) else dst
        se = src.elem if isinstance(src, T.VectorType) else src
        if se not in (T.f32, T.f16, T.f64) or de not in (T.i32, T.u32) \
                or isinstance(dst, T.EnumType):
            return node
        if not self.routes():
            self.not_in_prelude(node, "float -> int conversions (use convert)")
            return node
        bottom = self.splat(self.const(node, de.min, de), dst)
        top = self.splat(self.const(node, de.max, de), dst)
        if se == T.f64:
            return self.prelude_call(node, "ps_float_to_int_plain", [node.args[0], bottom, top])
        # f16 through f32 (exact): f16 cannot hold the i32/u32 bounds (DXC's conversion of
        # them to half broke the comparisons).
        x = self.as_elem(node.args[0], T.f32) if se == T.f16 else node.args[0]
        return self.prelude_call(node, "ps_float_to_int", [x, bottom, top])

    def route_math(self, node: ast.Call, name: str) -> ast.expr:
        """A ``math`` function whose spelling on the target is ``PRELUDE`` as a call of
        ``prelude_math.ps_<name>`` (written for f32): f16 arguments go through f32 and the
        result back (one rounding), a vector of a ``SCALAR_ONLY`` function goes to
        ``ps_<name>_vecN``; f64 stays a builtin call, which the emitter refuses (no target
        that needs the prelude has f64 transcendentals). ``ANY_FLOAT`` functions take every
        float type as it is."""
        if self.python_semantics:
            return node
        if not self.view.prelude_math(name):
            return node
        short = name.split(".", 1)[1]
        if self.src.globals is vars(prelude_math) or in_prelude(self.src):
            self.error(node, f"internal: {name} is prelude_math.ps_{short} on {self.target}: "
                             "call that")
        t = node.ps_type
        e = _elem(t)
        if short in prelude_math.ANY_FLOAT:
            return self.prelude_call(node, f"ps_{short}", node.args)
        if e == T.f64:      # the emitter refuses it, after its own f64 rules
            return node
        fn = prelude_math.RENAMED.get(short, f"ps_{short}")
        if short in prelude_math.SCALAR_ONLY and isinstance(t, T.VectorType):
            fn += f"_vec{t.n}"
        args = [self.as_elem(a, T.f32) for a in node.args] if e == T.f16 else node.args
        call = self.prelude_call(node, fn, args)
        return self.as_elem(call, T.f16) if e == T.f16 else call

    def as_elem(self, node: ast.expr, e: T.ScalarType) -> ast.expr:
        """``node`` (a float scalar or vector) converted to element type ``e``."""
        t = node.ps_type
        vec = isinstance(t, T.VectorType)
        to = T.vector_of(e, t.n) if vec else e
        c = call_at(to.name, [node], node)
        c.ps_call = ("construct", to) if vec else ("cast", to)
        c.ps_type = to
        return c
