"""Expressions shared by the C++ emitters (CUDA and MSL), a mixin of ``CppEmitter``:
the scalar rules, conversions, vector components and the formula functions.

Component arithmetic goes through ``arith``, the one place that knows the scalar
rules (signed ``+ - * <<`` through the unsigned type, since signed overflow is
undefined in C++ and the kernel language wraps; f16 rounding where the target needs
intrinsics for it), so generated functions compute exactly what inline code does.
Vector and matrix operands are each target's own (``vector_binop``,
``vector_negate``): CUDA's vectors have no operators, MSL's do.

The spellings come from the emitter's ``tables`` module (``cuda_tables``,
``msl_tables``), which use the same names.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import types as T
from ..frontend.exprs import CT
from .clike import BINOPS, elem_type


def _p(x: str) -> str:
    return f"({x})"


class CppOps:
    """Scalar rules, conversions, components and formula functions of ``CppEmitter``."""

    # The spelling tables and the qualifiers of a generated support function.
    tables: Any = None
    FDI = "inline"

    def support(self, key: str, text: str) -> None:
        """Add the fixed text of a support function once (before every function)."""
        self.helper(key, lambda _name: text)

    def tn(self, t: T.Type) -> str:
        """The value type name of ``t``."""
        return self.type_name(t)

    def ctor(self, tn: str, x: str) -> str:
        """The functional cast ``tn(x)``, or ``static_cast<tn>(x)`` where ``x`` itself
        begins with a type's functional cast: C++ reads ``(uint(int(t0)))`` and even
        ``(uint((int(t0))))`` as casts to the function type ``uint(int t0)`` (a type-id
        wins every ambiguity with an expression)."""
        head = re.match(r"(\w+)\(", x)
        if head and self.is_type_word(head.group(1)):
            return f"static_cast<{tn}>({x})"
        return f"{tn}({x})"

    def is_type_word(self, word: str) -> bool:
        """Whether ``word`` names a scalar or vector type in the emitted text."""
        base = word.rstrip("234")
        return word in self.tables.SCALARS.values() or base.endswith("bool") or \
            (base != word and base in self.tables.VEC_BASE.values())

    def cast(self, text: str, t: T.Type) -> str:
        """``T(text)`` (``ctor``)."""
        return self.ctor(self.type_name(t), text)

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor; an argument that is a functional cast of a bare
        name is written ``static_cast``: C++ reads ``(uint3(uint2(uint(a), uint(a)),
        uint(a)))`` as a cast to a function type with parameters named ``a`` (g++:
        "redefinition of 'uint a'"; fuzz seed 20261204 kernel 120, MSL)."""
        args = []
        for a in node.args:
            x = self.value(a)
            m = re.fullmatch(r"(\w+)\((\w+)\)", x)
            if m and self.is_type_word(m.group(1)):
                x = f"static_cast<{m.group(1)}>({m.group(2)})"
            args.append(x)
        return f"{self.type_name(t, node)}({', '.join(args)})"

    def comps(self, t: T.Type, var: str, n: int) -> list[str]:
        """The components of ``var`` (a scalar is broadcast)."""
        if isinstance(t, T.VectorType):
            return [f"{var}.{c}" for c in self.tables.COMPONENTS[:t.n]]
        return [var] * n

    # -- scalar rules -------------------------------------------------------------------
    def arith(self, sym: str, a: str, b: str, t: T.Type) -> str:
        """``a sym b`` of scalar type ``t``: f16 through its rounding intrinsics, signed
        ``+ - * <<`` through the unsigned type (where C++ defines wrap-around)."""
        e = elem_type(t)
        if e == T.f16 and sym in self.tables.HALF_OPS:
            return self.tables.HALF_OPS[sym].format(a, b)
        if e.kind == "int" and sym in ("+", "-", "*", "<<"):
            s = self.tables.SCALARS[e.name]
            u = self.tables.UNSIGNED[s]
            return f"{s}({u}({a}) {sym} {b if sym == '<<' else f'{u}({b})'})"
        return f"{a} {sym} {b}"

    def neg_text(self, x: str, e: T.Type) -> str:
        """``-x`` of a scalar (signed integers wrap: ``-MIN`` is ``MIN``)."""
        if e.kind == "int":
            s = self.tables.SCALARS[e.name]
            u = self.tables.UNSIGNED[s]
            return f"{s}({u}(0) - {u}({x}))"
        return f"-{x}"

    def convert_text(self, x: str, src: T.Type, dst: T.Type) -> str:
        """A scalar value conversion (in range: the prelude guards float -> int)."""
        # the text stays one operand: u32(a >> b) - c, and bool(1 & n) as ((1 & n) != 0),
        # since C reads 1 & n != 0 as 1 & (n != 0) (fuzz seed 20262224 kernel 60)
        one = x if re.fullmatch(r"[\w.]+", x) else f"({x})"
        if src == dst:      # no conversion
            return one
        if dst == T.f16:
            return self.tables.TO_HALF[src.name].format(x)
        if src == T.f16:
            return self.tables.FROM_HALF[dst.name].format(x)
        if dst == T.bool_:
            return f"({one} != {self.literal(0, src)})"
        return self.ctor(self.type_name(dst), x)

    # -- operators ------------------------------------------------------------------------
    def ex_BinOp(self, node: ast.BinOp) -> str:
        """A binary operator; vector and matrix operands through ``vector_binop``, bool
        ``& | ^`` through ``bool_bitop``, signed wrap-around through the unsigned type."""
        op = type(node.op)
        if op not in BINOPS:
            raise self.error(node, "internal: //, % and ** reach the emitter as prelude calls")
        sym = BINOPS[op]
        if any(isinstance(t, (T.VectorType, T.MatrixType))
               for t in (node.left.ps_type, node.right.ps_type)):
            return self.vector_binop(node, sym)
        a, b = self.sub(node.left), self.sub(node.right)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor) and elem_type(node.ps_type) == T.bool_:
            return self.bool_bitop(node, op)
        if self.wrapping(node):     # a chain of them stays unsigned: int(uint(a) + ... + uint(c))
            return f"{self.tn(node.ps_type)}({self.unsigned_text(node)})"
        return self.arith(sym, a, b, node.ps_type)

    def vector_binop(self, node: ast.BinOp, sym: str) -> str:
        """``a sym b`` with a vector or matrix operand (the target's own rules)."""
        raise NotImplementedError

    def wrapping(self, node: ast.expr) -> bool:
        """True for a signed scalar ``+ - * <<`` or unary minus not already in a temporary."""
        t = getattr(node, "ps_type", None)
        if not isinstance(t, T.ScalarType) or t.kind != "int" or id(node) in self.emitted:
            return False
        if isinstance(node, ast.BinOp):
            return type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.LShift)
        return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)

    def unsigned_text(self, node: ast.expr) -> str:
        """The unsigned computation of a wrapping signed operation (see ``wrapping``)."""
        u = self.tables.UNSIGNED[self.tn(node.ps_type)]
        if isinstance(node, ast.UnaryOp):
            return f"{u}(0) - {self.unsigned_term(node.operand, u)}"
        a = self.unsigned_term(node.left, u)
        if isinstance(node.op, ast.LShift):
            return f"{a} << {self.sub(node.right)}"
        return f"{a} {BINOPS[type(node.op)]} {self.unsigned_term(node.right, u)}"

    def unsigned_term(self, node: ast.expr, u: str) -> str:
        """An operand of ``unsigned_text`` in the unsigned type ``u``."""
        if self.wrapping(node) and self.tables.UNSIGNED[self.tn(node.ps_type)] == u:
            return f"({self.unsigned_text(node)})"
        if isinstance(node, ast.Constant) and getattr(node, "ps_enum", None) is None and \
                int(node.value) >= 0:
            return self.literal(int(node.value), T.u32 if u == "uint" else T.u64)
        return f"{u}({self.expr(node)})"

    def negate(self, node: ast.UnaryOp) -> str:
        """Unary minus (signed integers wrap); of a vector or matrix, ``vector_negate``."""
        t = node.ps_type
        if isinstance(t, (T.VectorType, T.MatrixType)):
            return self.vector_negate(node)
        if self.wrapping(node):
            return f"{self.tn(t)}({self.unsigned_text(node)})"
        return self.neg_text(self.sub(node.operand), t)

    def vector_negate(self, node: ast.UnaryOp) -> str:
        """Unary minus of a vector or matrix (the target's own rules)."""
        raise NotImplementedError

    # -- components and conversions -----------------------------------------------------
    def vector_index(self, text: str, index: ast.expr, vt: T.VectorType) -> str:
        """Component ``index`` of a vector: ``.x`` for a constant, else ``v[i]``."""
        if isinstance(index, ast.Constant):
            return f"{text}.{self.tables.COMPONENTS[index.value]}"
        return self.dynamic_component(text, index, vt)

    def dynamic_component(self, text: str, index: ast.expr, vt: T.VectorType) -> str:
        """Component ``index`` (a run-time value) of a vector: ``v[i]``."""
        return f"{text}[{self.expr(index)}]"

    def call_cast(self, node: ast.Call, t: T.Type) -> str:
        """A scalar conversion (f16 through its rounding intrinsics)."""
        a = node.args[0]
        return self.convert_text(self.expr(a), a.ps_type, t)

    # -- builtins -------------------------------------------------------------------------
    def has_vector(self, node: ast.Call) -> bool:
        """True when the call has a vector argument (applied per component)."""
        return any(isinstance(getattr(x, "ps_type", None), T.VectorType) for x in node.args)

    def value_args(self, node: ast.Call) -> list[ast.expr]:
        """The arguments that are values (not a type, as ``convert``'s first)."""
        return [a for a in node.args if not isinstance(getattr(a, "ps_type", None), CT)]

    def elementwise(self, node: ast.Call, b: Any) -> str:
        """A builtin of vectors as a generated function applying it per component."""
        res = node.ps_type
        args = self.value_args(node)
        types = [a.ps_type for a in args]
        short = b.name.split(".")[-1]
        # C++ overloads on the arguments only: a conversion's name carries its result type.
        if short == "convert":
            short = f"convert_{self.tn(res)}"
        name = self.global_name(f"_ps_{short}")
        e = res.elem if isinstance(res, T.VectorType) else res
        n = next(x.n for x in [res, *types] if isinstance(x, T.VectorType))
        scalar = None
        if short in ("mix", "step", "smoothstep"):
            scalar = self.formula_scalar(short, e)
        columns = zip(*(self.comps(x, f"a{i}", n) for i, x in enumerate(types)))
        elems = [elem_type(x) for x in types]
        parts = [f"{scalar}({', '.join(cs)})" if scalar else self.component(b, list(cs), elems, e)
                 for cs in columns]
        params = ", ".join(f"{self.tn(x)} a{i}" for i, x in enumerate(types))
        self.support(f"{short}_{'_'.join(self.tn(x) for x in types)}",
                     f"{self.FDI} {self.tn(res)} {name}({params}) {{ return {{{', '.join(parts)}}}; }}")
        return f"{name}({', '.join(self.value(a) for a in args)})"

    def component(self, b: Any, xs: list[str], elems: list, e: T.Type) -> str:
        """One component of an element-wise builtin, from its scalar spelling."""
        return self.spelling(b).format(*xs, T=self.tn(e))

    def formula_call(self, node: ast.Call) -> str:
        """mix, step, smoothstep, dot, cross, length, normalize, distance: generated
        functions rounding each operation as the CPU device does."""
        b = node.ps_call[1]
        if b.name in ("mix", "step", "smoothstep"):
            if self.has_vector(node):
                return self.elementwise(node, b)
            fn = self.formula_scalar(b.name, node.ps_type)
            return f"{fn}({', '.join(self.value(a) for a in node.args)})"
        types = [a.ps_type for a in node.args]
        t = types[0]
        e = elem_type(t)
        one = self.tn(e)
        name = self.global_name(f"_ps_{b.name}")
        if isinstance(t, T.VectorType):
            cs = self.tables.COMPONENTS[:t.n]
            sq = lambda v: " + ".join(f"{v}.{c} * {v}.{c}" for c in cs)  # noqa: E731
            body = {
                "dot": "return " + " + ".join(f"a0.{c} * a1.{c}" for c in cs) + ";",
                "length": f"return sqrt({sq('a0')});",
                "distance": f"{self.tn(t)} d = {{{', '.join(f'a0.{c} - a1.{c}' for c in cs)}}};"
                            f" return sqrt({sq('d')});",
                "normalize": f"{one} l = sqrt({sq('a0')}); "
                             f"return {{{', '.join(f'a0.{c} / l' for c in cs)}}};",
                "cross": "return {a0.y * a1.z - a0.z * a1.y, a0.z * a1.x - a0.x * a1.z, "
                         "a0.x * a1.y - a0.y * a1.x};",
            }[b.name]
        else:
            fabs = self.tables.HALF_ABS if e == T.f16 else "fabs"
            body = {"dot": f"return {self.arith('*', 'a0', 'a1', e)};",
                    "length": f"return {fabs}(a0);",
                    "distance": f"return {fabs}({self.arith('-', 'a0', 'a1', e)});",
                    "normalize": f"return a0 / {fabs}(a0);"}[b.name]
        ret = self.tn(node.ps_type)
        params = ", ".join(f"{self.tn(x)} a{i}" for i, x in enumerate(types))
        self.support(f"{b.name}_{'_'.join(self.tn(x) for x in types)}",
                     f"{self.FDI} {ret} {name}({params}) {{ {body} }}")
        return f"{name}({', '.join(self.value(a) for a in node.args)})"

    def formula_scalar(self, which: str, e: T.Type) -> str:
        """The scalar function of mix, step or smoothstep for the float type ``e``."""
        name = self.global_name(f"_ps_{which}")
        te = self.tn(e)
        lit = lambda v: self.literal(v, e)  # noqa: E731
        ar = lambda s, a, b: _p(self.arith(s, a, b, e))  # noqa: E731
        if which == "mix":
            body = f"return {ar('+', ar('*', 'a0', ar('-', lit(1.0), 'a2')), ar('*', 'a1', 'a2'))};"
        elif which == "step":
            body = f"return a1 < a0 ? {lit(0.0)} : {lit(1.0)};"
        else:
            z, o = lit(0.0), lit(1.0)
            body = (f"{te} t = {ar('/', ar('-', 'a2', 'a0'), ar('-', 'a1', 'a0'))}; "
                    f"t = t < {z} ? {z} : (t > {o} ? {o} : t); "
                    f"return {ar('*', ar('*', 't', 't'), ar('-', lit(3.0), ar('*', lit(2.0), 't')))};")
        params = ", ".join(f"{te} a{i}" for i in range(2 if which == "step" else 3))
        self.support(f"{which}_{te}", f"{self.FDI} {te} {name}({params}) {{ {body} }}")
        return name
