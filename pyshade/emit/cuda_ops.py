"""Expressions of the CUDA C++ emitter: operators, conversions, constructors, swizzles
and builtins, a mixin of ``CudaEmitter``.

CUDA's vector types have no operators and there is no vector math library without
headers NVRTC lacks, so every vector or matrix operation a kernel uses becomes one
``__device__ __forceinline__`` function (an operator overload where C++ has the
operator), created once per operand types through ``Emitter.helper``. Component
arithmetic goes through ``arith``, the one place that knows the scalar rules
(signed wrap-around, f16 rounding), so helpers compute exactly what inline code does.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import types as T
from ..frontend.exprs import CT
from . import cuda_tables as C
from .base import CMP_SYMBOLS
from .clike import BINOPS, elem_type

OPNAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "&": "and", "|": "or", "^": "xor",
           "<<": "shl", ">>": "shr", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt",
           ">=": "ge", "neg": "neg", "~": "inv"}
# Bool components combine with the logical operators (``&`` of two bools is an int).
BOOL_OPS = {"&": "{} && {}", "|": "{} || {}", "^": "{} != {}"}
FORMULAS = ("mix", "step", "smoothstep", "dot", "cross", "length", "normalize", "distance")
FDI = "__device__ __forceinline__"


def _p(x: str) -> str:
    return f"({x})"


class CudaOps:
    """Operators, conversions, constructors and builtins of ``CudaEmitter``."""

    # The spelling tables (``cuda_tables``; the MSL emitter, which reuses this code for
    # its scalar rules and generated formulas, has its own) and the prefix of a
    # generated support function.
    tables: Any = C
    FDI = FDI

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
        if src == dst:      # no conversion, but the text stays one operand: u32(a >> b) - c
            return x if re.fullmatch(r"[\w.]+", x) else f"({x})"
        if dst == T.f16:
            return self.tables.TO_HALF[src.name].format(x)
        if src == T.f16:
            return self.tables.FROM_HALF[dst.name].format(x)
        if dst == T.bool_:
            return f"({x} != {self.literal(0, src)})"
        return self.ctor(self.type_name(dst), x)

    # -- operators ------------------------------------------------------------------------
    def ex_BinOp(self, node: ast.BinOp) -> str:
        """A binary operator; vector and matrix operands through a generated overload."""
        op = type(node.op)
        if op not in BINOPS:
            raise self.error(node, "internal: //, % and ** reach the emitter as prelude calls")
        sym = BINOPS[op]
        lt, rt = node.left.ps_type, node.right.ps_type
        a, b = self.sub(node.left), self.sub(node.right)
        if any(isinstance(t, (T.VectorType, T.MatrixType)) for t in (lt, rt)):
            self.operator(sym, lt, rt, node.ps_type)
            return f"{a} {sym} {b}"
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor) and elem_type(node.ps_type) == T.bool_:
            return self.bool_bitop(node, op)
        if self.wrapping(node):     # a chain of them stays unsigned: int(uint(a) + ... + uint(c))
            return f"{self.tn(node.ps_type)}({self.unsigned_text(node)})"
        return self.arith(sym, a, b, node.ps_type)

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
        """Unary minus (signed integers wrap; vectors and matrices overloaded)."""
        t = node.ps_type
        if isinstance(t, (T.VectorType, T.MatrixType)):
            self.unary_operator("-", t)
            return f"-{self.sub(node.operand)}"
        if self.wrapping(node):
            return f"{self.tn(t)}({self.unsigned_text(node)})"
        return self.neg_text(self.sub(node.operand), t)

    def ex_UnaryOp(self, node: ast.UnaryOp) -> str:
        """``~`` of an integer vector is a generated overload."""
        if isinstance(node.op, ast.Invert) and isinstance(node.ps_type, T.VectorType):
            self.unary_operator("~", node.ps_type)
        return super().ex_UnaryOp(node)

    def compare(self, op: type, a: ast.expr, b: ast.expr, node: ast.AST) -> str:
        """Vector comparisons are element-wise overloads returning a bool vector."""
        at, bt = a.ps_type, b.ps_type
        if isinstance(at, T.VectorType) or isinstance(bt, T.VectorType):
            self.operator(CMP_SYMBOLS[op], at, bt, node.ps_type)
        return super().compare(op, a, b, node)

    def operator(self, sym: str, lt: T.Type, rt: T.Type, res: T.Type) -> None:
        """Define ``operator sym (lt, rt) -> res`` once: element-wise on vectors (a scalar
        side broadcast), column-wise or the matrix products on matrices."""
        tl, tr, tres = self.tn(lt), self.tn(rt), self.tn(res)
        key = f"op_{OPNAMES[sym]}_{tl}_{tr}"
        if isinstance(lt, T.MatrixType) or isinstance(rt, T.MatrixType):
            body = self.matrix_body(sym, lt, rt, res)
        else:
            v = lt if isinstance(lt, T.VectorType) else rt
            e = v.elem
            parts = []
            for x, y in zip(self.comps(lt, "a", v.n), self.comps(rt, "b", v.n)):
                if sym in CMP_SYMBOLS.values():
                    parts.append(f"{x} {sym} {y}")
                elif e == T.bool_:
                    parts.append(BOOL_OPS[sym].format(x, y))
                else:
                    parts.append(self.arith(sym, x, y, e))
            body = f"return {{{', '.join(parts)}}};"
        self.support(key, f"{self.FDI} {tres} operator{sym}({tl} a, {tr} b) {{ {body} }}")

    def matrix_body(self, sym: str, lt: T.Type, rt: T.Type, res: T.Type) -> str:
        """The body of a matrix operator: ``@`` (spelled ``*``) between matrices and
        vectors, summing left to right as the CPU device does, else column-wise."""
        cs = self.tables.COMPONENTS
        if sym == "*" and isinstance(lt, T.MatrixType) and isinstance(rt, T.VectorType):
            n = lt.n
            rows = [" + ".join(f"a[{k}].{cs[r]} * b.{cs[k]}" for k in range(n)) for r in range(n)]
            return f"return {{{', '.join(rows)}}};"
        if sym == "*" and isinstance(lt, T.VectorType) and isinstance(rt, T.MatrixType):
            n = rt.n
            cols = [" + ".join(f"a.{cs[k]} * b[{j}].{cs[k]}" for k in range(n)) for j in range(n)]
            return f"return {{{', '.join(cols)}}};"
        m = lt if isinstance(lt, T.MatrixType) else rt
        n, tm = m.n, self.tn(m)
        if sym == "*" and isinstance(lt, T.MatrixType) and isinstance(rt, T.MatrixType):
            rows = [" + ".join(f"a[{k}].{cs[r]} * b[j].{cs[k]}" for k in range(n))
                    for r in range(n)]
            col = f"r[j] = {{{', '.join(rows)}}};"
            return f"{tm} r; for (uint j = 0u; j < {n}u; j++) {col} return r;"
        xs = [f"a[i].{c}" for c in cs[:n]] if isinstance(lt, T.MatrixType) else ["a"] * n
        ys = [f"b[i].{c}" for c in cs[:n]] if isinstance(rt, T.MatrixType) else ["b"] * n
        parts = ", ".join(f"{x} {sym} {y}" for x, y in zip(xs, ys))
        return f"{tm} r; for (uint i = 0u; i < {n}u; i++) r[i] = {{{parts}}}; return r;"

    def unary_operator(self, sym: str, t: T.Type) -> None:
        """Define ``operator-`` or ``operator~`` of a vector or matrix type once."""
        tt = self.tn(t)
        if isinstance(t, T.MatrixType):
            parts = ", ".join(f"-a[i].{c}" for c in self.tables.COMPONENTS[:t.n])
            body = f"{tt} r; for (uint i = 0u; i < {t.n}u; i++) r[i] = {{{parts}}}; return r;"
        else:
            f = (lambda x: self.neg_text(x, t.elem)) if sym == "-" else (lambda x: f"~{x}")
            body = f"return {{{', '.join(f(x) for x in self.comps(t, 'a', t.n))}}};"
        self.support(f"op_{OPNAMES['neg' if sym == '-' else sym]}_{tt}",
                     f"{self.FDI} {tt} operator{sym}({tt} a) {{ {body} }}")

    # -- components, swizzles, constructors ----------------------------------------------
    def vector_index(self, text: str, index: ast.expr, vt: T.VectorType) -> str:
        """Component ``index`` of a vector: ``.x`` for a constant, else ``ps_elem``."""
        if isinstance(index, ast.Constant):
            return f"{text}.{self.tables.COMPONENTS[index.value]}"
        name = self.global_name("_ps_elem")
        tv, e = self.tn(vt), self.tn(vt.elem)
        sel = " : ".join(f"i == {k}u ? v.{self.tables.COMPONENTS[k]}" for k in range(vt.n - 1))
        sel += f" : v.{self.tables.COMPONENTS[vt.n - 1]}"
        self.support(f"elem_{tv}", f"{self.FDI} {e}& {name}({tv}& v, uint i) {{ return {sel}; }}\n"
                                   f"{self.FDI} {e} {name}(const {tv}& v, uint i) {{ return {sel}; }}")
        return f"{name}({text}, {self.expr(index)})"

    def swizzle(self, comps: str, vt: T.VectorType) -> str:
        """The function returning the swizzle ``comps`` (x/y/z/w letters) of a ``vt``."""
        name = self.global_name(f"_ps_{comps}")
        res = T.vector_of(vt.elem, len(comps))
        parts = ", ".join(f"v.{c}" for c in comps)
        self.support(f"swizzle_{comps}_{self.tn(vt)}",
                     f"{self.FDI} {self.tn(res)} {name}({self.tn(vt)} v) {{ return {{{parts}}}; }}")
        return name

    def call_cast(self, node: ast.Call, t: T.Type) -> str:
        """A scalar conversion (f16 through its rounding intrinsics)."""
        a = node.args[0]
        return self.convert_text(self.expr(a), a.ps_type, t)

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor; components of the element type go to
        ``make_floatN``, any other form (splat, concatenation, conversion, bools,
        matrices) to a generated overload."""
        args = node.args
        if not args:
            return f"{self.tn(t)}()"
        types = [a.ps_type for a in args]
        vals = [self.value(a) for a in args]
        if isinstance(t, T.VectorType) and t.elem != T.bool_ and len(args) == t.n and \
                all(isinstance(x, T.ScalarType) for x in types):
            return f"{self.make_name(t)}({', '.join(vals)})"
        params = ", ".join(f"{self.tn(x)} a{i}" for i, x in enumerate(types))
        tt = self.tn(t)
        if isinstance(t, T.MatrixType):
            name = self.global_name(f"_ps_make_mat{t.n}")
            if len(args) == t.n:
                cols = "".join(f" m[{j}] = a{j};" for j in range(t.n))
            else:
                cols = "".join(f" m[{j}] = {{{', '.join(f'a{j * t.n + r}' for r in range(t.n))}}};"
                               for j in range(t.n))
            body = f"{tt} m;{cols} return m;"
        else:
            name = self.make_name(t)
            parts = []
            for i, x in enumerate(types):
                if isinstance(x, T.VectorType):
                    src = self.comps(x, f"a{i}", x.n)
                    parts += [self.convert_text(s, x.elem, t.elem) for s in src]
                else:
                    parts.append(f"a{i}")
            parts = parts * t.n if len(parts) == 1 else parts
            body = f"return {{{', '.join(parts)}}};"
        self.support(f"make_{tt}_{'_'.join(self.tn(x) for x in types)}",
                     f"{self.FDI} {tt} {name}({params}) {{ {body} }}")
        return f"{name}({', '.join(vals)})"

    # -- builtins -------------------------------------------------------------------------
    def call_builtin(self, node: ast.Call, b: Any) -> str:
        """Callable ``cuda`` rows first; element-wise builtins of vectors become generated
        functions; f16 math goes through f32 with one rounding."""
        spell = self.spelling(b)
        if callable(spell):
            return spell(self, node)
        if self.has_vector(node):
            return self.elementwise(node, b)
        if b.name == "fma" and node.ps_type == T.f16:     # one rounding, as in f32
            return f"__hfma({', '.join(self.value(a) for a in node.args)})"
        if spell is not None and self.half_math(node, b):
            vals = [self.value(a) for a in node.args]
            text = spell.format(*(self.tables.FROM_HALF["f32"].format(v) for v in vals))
            return self.tables.TO_HALF["f32"].format(text)
        return super().call_builtin(node, b)

    def has_vector(self, node: ast.Call) -> bool:
        """True when the call has a vector argument (applied per component)."""
        return any(isinstance(getattr(x, "ps_type", None), T.VectorType) for x in node.args)

    def half_math(self, node: ast.Call, b: Any) -> bool:
        """True for a float math builtin on f16 (computed in f32, rounded once)."""
        return node.ps_type == T.f16 and (b.name.startswith("math.") or b.name == "round")

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
        if b.name == "abs":
            return xs[0] if e.kind == "uint" else f"fabs({xs[0]})"
        if b.name == "select":
            return f"({xs[2]} ? {xs[1]} : {xs[0]})"
        if b.name == "prelude.convert":
            return self.convert_text(xs[0], elems[0], e)
        if b.name in ("prelude.smin", "prelude.smax"):
            return self.asm_minmax_text(b.name[-3:], e, xs[0], xs[1])
        return self.spelling(b).format(*xs, T=self.tn(e))

    def asm_minmax(self, node: ast.Call, op: str) -> str:
        """``prelude.smin``/``smax``: PTX ``min``/``max`` through inline asm, which the
        optimiser does not rewrite (see lang.py)."""
        if self.has_vector(node):
            return self.elementwise(node, node.ps_call[1])
        return self.asm_minmax_text(op, node.ps_type, *(self.value(a) for a in node.args))

    def asm_minmax_text(self, op: str, e: T.Type, a: str, b: str) -> str:
        """A call of the support function for PTX ``op.s32``/``op.s64``."""
        # A mask, not a select: ptxas turns a compare and select (and min/max.s32) into
        # VIMNMX, and the H200's ptxas (CUDA 13.0) computed a max of an abs-like max
        # unsigned that way (bench/README.md). Here r = a ^ ((a ^ b) & m), m all ones
        # where b wins; `nvdisasm` of the CUBIN shows no VIMNMX for it.
        s, c, w = ("s64", "l", "b64") if e.bits == 64 else ("s32", "r", "b32")
        ty = self.tn(e)
        cmp = "lt" if op == "max" else "gt"
        name = self.global_name(f"_ps_asm_{op}_{s}")
        self.support(f"asm_{op}_{s}", f'{self.FDI} {ty} {name}({ty} a, {ty} b) {{\n'
                                      f'#ifdef __CUDA_ARCH__\n'
                                      f'    {ty} r; asm("{{ .reg .pred p; .reg .{w} m, t; '
                                      f'setp.{cmp}.{s} p, %1, %2; selp.{w} m, -1, 0, p; '
                                      f'xor.{w} t, %1, %2; and.{w} t, t, m; xor.{w} %0, %1, t; }}" '
                                      f': "={c}"(r) : "{c}"(a), "{c}"(b)); return r;\n'
                                      f'#else\n'
                                      f'    return a {">" if op == "max" else "<"} b ? a : b;\n'
                                      f'#endif\n}}')
        return f"{name}({a}, {b})"

    def abs_call(self, node: ast.Call) -> str:
        """``abs``: unsigned values are their own, f16 ``__habs``, floats ``fabs``."""
        if self.has_vector(node):
            return self.elementwise(node, node.ps_call[1])
        t = node.ps_type
        if t.kind == "uint":
            return self.sub(node.args[0])
        return f"{'__habs' if t == T.f16 else 'fabs'}({self.value(node.args[0])})"

    def select_call(self, node: ast.Call) -> str:
        """``select(f, t, c)``: a ternary; per component for a bool-vector condition."""
        if isinstance(node.args[2].ps_type, T.VectorType):
            return self.elementwise(node, node.ps_call[1])
        f, t, c = (self.value(a) for a in node.args)
        return f"({c} ? {t} : {f})"

    def convert_call(self, node: ast.Call) -> str:
        """The prelude's raw in-range conversion."""
        if self.has_vector(node):
            return self.elementwise(node, node.ps_call[1])
        a = node.args[1]
        return self.convert_text(self.value(a), a.ps_type, node.ps_type)

    def bitcast_call(self, node: ast.Call) -> str:
        """``bitcast(T, x)`` through ``__float_as_uint`` and kin (``BITCASTS``)."""
        src, dst = node.args[1].ps_type, node.ps_type
        if src == dst:
            return self.sub(node.args[1])
        fmt = self.tables.BITCASTS.get((src.name, dst.name))
        x = self.value(node.args[1])
        return fmt.format(x) if fmt else self.ctor(self.tn(dst), x)

    def bit_call(self, node: ast.Call) -> str:
        """popcount, count_leading_zeros, reverse_bits by width (``BIT_INTRINSICS``)."""
        t = node.ps_type
        k = ("popcount", "count_leading_zeros", "reverse_bits").index(node.ps_call[1].name)
        return f"{self.tn(t)}({self.tables.BIT_INTRINSICS[t.bits][k].format(self.value(node.args[0]))})"

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

    def printf_call(self, node: ast.Call) -> str:
        """``print(...)`` as ``printf``: values separated by spaces, a newline at the end;
        bools as True/False, vectors as ``Vec(x, y)``."""
        fmt, args = [], []
        for a in node.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                fmt.append(_c_string(a.value))
                continue
            t = a.ps_type
            text = self.value(a)
            if isinstance(t, T.VectorType):
                conv, how = self.tables.PRINTF[t.elem.name]
                fmt.append("Vec(" + ", ".join([conv] * t.n) + ")")
                args += [how.format(c) for c in self.comps(t, text, t.n)]
            else:
                conv, how = self.tables.PRINTF[t.name]
                fmt.append(conv)
                args.append(how.format(text))
        return f'printf("{" ".join(fmt)}\\n"{"".join(", " + x for x in args)})'


def _c_string(s: str) -> str:
    """``s`` inside a C string literal and a printf format (``%`` doubled)."""
    out = []
    for ch in s.replace("%", "%%"):
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:                       # UTF-8 bytes as octal escapes: never run into a digit
            out += [f"\\{b:03o}" for b in ch.encode()]
    return "".join(out)
