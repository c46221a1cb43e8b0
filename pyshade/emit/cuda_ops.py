"""Expressions only the CUDA C++ emitter has, a mixin of ``CudaEmitter``: vector and
matrix operators, components, swizzles, constructors and builtins.

CUDA's vector types have no operators and there is no vector math library without
headers NVRTC lacks, so every vector or matrix operation a kernel uses becomes one
``__device__ __forceinline__`` function (an operator overload where C++ has the
operator), created once per operand types through ``Emitter.helper``, over the scalar
rules of ``cpp_ops.CppOps.arith``.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from .base import CMP_SYMBOLS

OPNAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "&": "and", "|": "or", "^": "xor",
           "<<": "shl", ">>": "shr", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt",
           ">=": "ge", "neg": "neg", "~": "inv"}
# Bool components combine with the logical operators (``&`` of two bools is an int).
BOOL_OPS = {"&": "{} && {}", "|": "{} || {}", "^": "{} != {}"}


class CudaOps:
    """Operators, components, constructors and builtins of ``CudaEmitter``."""

    # -- operators: generated overloads --------------------------------------------------
    def vector_binop(self, node: ast.BinOp, sym: str) -> str:
        """``a sym b`` through the generated overload of the operand types."""
        a, b = self.sub(node.left), self.sub(node.right)
        self.operator(sym, node.left.ps_type, node.right.ps_type, node.ps_type)
        return f"{a} {sym} {b}"

    def vector_negate(self, node: ast.UnaryOp) -> str:
        """``-v`` through the generated ``operator-``."""
        self.unary_operator("-", node.ps_type)
        return f"-{self.sub(node.operand)}"

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
    def dynamic_component(self, text: str, index: ast.expr, vt: T.VectorType) -> str:
        """Component ``index`` (a run-time value) of a vector: ``ps_elem(v, i)``, a
        generated function (CUDA vectors cannot be indexed)."""
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

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor; components of the element type go to
        ``make_floatN``, any other form (splat, concatenation, conversion, bools,
        matrices) to a generated overload."""
        args = node.args
        if not args:
            return super().call_construct(node, t)
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

    def half_math(self, node: ast.Call, b: Any) -> bool:
        """True for a float math builtin on f16 (computed in f32, rounded once)."""
        return node.ps_type == T.f16 and (b.name.startswith("math.") or b.name == "round")

    def component(self, b: Any, xs: list[str], elems: list, e: T.Type) -> str:
        """One component of an element-wise builtin: CUDA's own forms, else the scalar
        spelling."""
        if b.name == "abs":
            return xs[0] if e.kind == "uint" else f"fabs({xs[0]})"
        if b.name == "select":
            return f"({xs[2]} ? {xs[1]} : {xs[0]})"
        if b.name == "prelude.convert":
            return self.convert_text(xs[0], elems[0], e)
        if b.name in ("prelude.smin", "prelude.smax"):
            return self.asm_minmax_text(b.name[-3:], e, xs[0], xs[1])
        return super().component(b, xs, elems, e)

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

    def bool_reduce(self, node: ast.Call, op: str) -> str:
        """``all(v)`` (``op`` is ``&&``) or ``any(v)`` (``||``) of a bool vector: a generated
        function joining its components."""
        t = node.args[0].ps_type
        word = "all" if op == "&&" else "any"
        name = self.global_name(f"_ps_{word}")
        tt = self.tn(t)
        body = f" {op} ".join(self.comps(t, "a", t.n))
        self.support(f"{word}_{tt}", f"{self.FDI} bool {name}({tt} a) {{ return {body}; }}")
        return f"{name}({self.value(node.args[0])})"

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
