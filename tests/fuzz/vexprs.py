"""Random vector and matrix expressions for the fuzzer (the scalar ones are in ``exprs``).

Only operations that every target computes with the cpu device's bits: per-component
arithmetic and math, constructors, swizzles, conversions, ``ps.select``, matrix sums and
matrix-scalar products. Dot products and matrix products may be contracted or reordered
by a target, so they are tolerance sinks (``sinks``), never inside an exact expression.
"""

from __future__ import annotations

import math

from .exprs import CEIL, EXACT_INT
from .nodes import MATS, VECS, X, vec_of

SWIZ = ("xyzw", "rgba")


class VectorExprs:
    """The vector and matrix half of the generator (mixed into ``stmts.Gen``)."""

    def vleaf(self, ty: str) -> X:
        vs = self.visible(ty)
        if vs and self.chance(0.7):
            v = self.pick(vs)
            return X(v.name, ty, mag=v.mag)
        if ty in MATS:
            return X(f"{ty}()", ty) if self.chance(0.3) else self.mconstruct(ty, 0)
        elem, n = VECS[ty]
        read = self.vbuffer_read(ty)
        if read is not None and self.chance(0.5):
            return read
        if elem == "f32" and self.chance(0.4):
            c = self.flit("f32")
            return X(f"{ty}({{0}})", ty, [c], mag=c.mag)
        return self.vconstruct(ty, 0)

    def vbuffer_read(self, ty: str) -> X | None:
        names = [n for n, (t, _) in self.readable.items() if t == ty]
        if not names:
            return None
        name = self.pick(names)
        return X(name + "[{0}]", ty, [self.index(f"len({name})", 1)],
                 mag=self.readable[name][1])

    def vconstruct(self, ty: str, d: int) -> X:
        elem, n = VECS[ty]
        parts: list[X] = []
        left = n
        while left > 0:
            if left >= 2 and self.chance(0.25):
                k = int(self.rng.integers(2, left + 1)) if left > 2 else 2
                parts.append(self.vexpr(vec_of(elem, k), d - 1) if d > 0
                             else self.vleaf(vec_of(elem, k)))
                left -= k
            else:
                parts.append(self.typed(self.expr(elem, d - 1)))
                left -= 1
        if elem == "f32" and len(parts) == n and self.chance(0.2):
            parts = parts[:1]                    # one scalar, broadcast
        fmt = ty + "(" + ", ".join(f"{{{j}}}" for j in range(len(parts))) + ")"
        return X(fmt, ty, parts, mag=max(p.mag for p in parts))

    def swizzle(self, ty: str, d: int) -> X:
        elem, n = VECS[ty]
        src_n = int(self.rng.integers(2, 5))
        v = self.vexpr(vec_of(elem, src_n), d - 1)
        letters = self.pick(SWIZ)[:src_n]
        pat = "".join(self.pick(letters) for _ in range(n))
        return X("{0}." + pat, ty, [v], mag=v.mag)

    def vexpr(self, ty: str, d: int) -> X:
        if d <= 0 or self.chance(0.15):
            return self.vleaf(ty)
        elem, n = VECS[ty]
        if elem == "bool":
            return self.bvexpr(ty, n, d)
        if elem == "f32":
            return self.fvexpr(ty, n, d)
        return self.ivexpr(ty, elem, n, d)

    def fvexpr(self, ty: str, n: int, d: int) -> X:  # noqa: C901, PLR0911
        sub = lambda: self.vexpr(ty, d - 1)  # noqa: E731
        top = CEIL["f32"]
        k = self.pick(("construct", "construct", "swizzle", "arith", "arith", "scalar", "div",
                       "neg", "math", "math", "minmax", "fmod", "clamp", "select", "convert",
                       "column", "helper"))
        if k == "construct":
            return self.vconstruct(ty, d)
        if k == "swizzle":
            return self.swizzle(ty, d)
        if k == "arith":
            op = self.pick(("+", "-", "*"))
            a, b = sub(), sub()
            if op == "*":
                a, b = self.lim(a, math.sqrt(top)), self.lim(b, math.sqrt(top))
                return X("({0} * {1})", ty, [a, b], mag=a.mag * b.mag)
            a, b = self.lim(a, top / 2), self.lim(b, top / 2)
            return X("({0} " + op + " {1})", ty, [a, b], mag=a.mag + b.mag)
        if k == "scalar":
            a = self.lim(sub(), math.sqrt(top))
            s = self.lim(self.expr("f32", d - 1), math.sqrt(top))
            fmt = self.pick(("({0} * {1})", "({1} * {0})", "({0} + {1})", "({0} - {1})"))
            return X(fmt, ty, [a, s], mag=a.mag * max(s.mag, 1.0) + s.mag)
        if k == "div":
            a = self.lim(sub(), top / 16)
            if self.chance(0.5):
                den, low = self.divisor("f32", d - 1)
                return X("({0} / {1})", ty, [a, den], mag=a.mag / low)
            w = self.lim(sub(), top / 4)
            return X("({0} / (abs({1}) + 0.5))", ty, [a, w], mag=a.mag * 2)
        if k == "neg":
            a = sub()
            return X("(-{0})", ty, [a], mag=a.mag)
        if k == "math":
            a = self.lim(sub(), top / 2)
            fn = self.pick(("abs({0})", "math.floor({0})", "math.ceil({0})", "math.trunc({0})",
                            "round({0})", "math.sqrt(abs({0}))", "math.fabs({0})"))
            return X(fn, ty, [a], mag=a.mag + 1)
        if k == "minmax":
            a, b = sub(), sub()
            fn = self.pick(("min({0}, {1})", "max({0}, {1})", "math.copysign({0}, {1})"))
            return X(fn, ty, [a, b], mag=max(a.mag, b.mag))
        if k == "fmod":
            a, w = sub(), self.lim(sub(), top / 4)
            return X("math.fmod({0}, abs({1}) + 0.25)", ty, [a, w], mag=a.mag)
        if k == "clamp":
            lo, hi = sorted((self.fval("f32"), self.fval("f32")))
            return X(f"ps.clamp({{0}}, {ty}({{1}}), {ty}({{2}}))", ty,
                     [sub(), self.flit("f32", lo), self.flit("f32", hi)],
                     mag=max(abs(lo), abs(hi)))
        if k == "select":
            a, b = sub(), sub()
            if self.chance(0.5):
                c = self.vexpr(vec_of("bool", n), d - 1)
                return X("ps.select({1}, {0}, {2})", ty, [a, b, c], mag=max(a.mag, b.mag))
            return X("({0} if {2} else {1})", ty, [a, b, self.bexpr(d - 1)],
                     mag=max(a.mag, b.mag))
        if k == "convert":
            e = self.pick(("i32", "u32"))
            v = X("({0} % " + f"{e}({EXACT_INT}))", vec_of(e, n), [self.vexpr(vec_of(e, n), d - 1)])
            return X(f"{ty}({{0}})", ty, [v], mag=float(EXACT_INT))
        if k == "column":
            m = self.mexpr(f"mat{n}", d - 1)
            return X("{0}[" + str(int(self.rng.integers(n))) + "]", ty, [m], mag=m.mag)
        call = self.helper_call(ty, d)
        return call if call is not None else self.vconstruct(ty, d)

    def ivexpr(self, ty: str, elem: str, n: int, d: int) -> X:
        sub = lambda: self.vexpr(ty, d - 1)  # noqa: E731
        k = self.pick(("construct", "construct", "swizzle", "arith", "bit", "scalar", "neg",
                       "minmax", "select", "convert", "convert"))
        if k == "construct":
            return self.vconstruct(ty, d)
        if k == "swizzle":
            return self.swizzle(ty, d)
        if k in ("arith", "bit"):
            op = self.pick(("+", "-", "*") if k == "arith" else ("&", "|", "^"))
            return X("({0} " + op + " {1})", ty, [sub(), sub()])
        if k == "scalar":
            s = self.typed(self.expr(elem, d - 1))
            return X(self.pick(("({0} * {1})", "({0} + {1})", "({0} ^ {1})")), ty, [sub(), s])
        if k == "neg":
            return X("(-{0})", ty, [sub()])
        if k == "minmax":
            fn = self.pick(("min({0}, {1})", "max({0}, {1})", "abs({0})"))
            return X(fn, ty, [sub(), sub()])
        if k == "select":
            c = self.vexpr(vec_of("bool", n), d - 1)
            return X("ps.select({1}, {0}, {2})", ty, [sub(), sub(), c])
        src = self.pick(("f32", "i32" if elem == "u32" else "u32"))
        return X(f"{ty}({{0}})", ty, [self.vexpr(vec_of(src, n), d - 1)])

    def bvexpr(self, ty: str, n: int, d: int) -> X:
        r = self.rng.random()
        if r < 0.2:
            return self.vconstruct(ty, d)
        if r < 0.3:
            return self.swizzle(ty, d)
        vt = vec_of(self.pick(("f32", "f32", "i32", "u32")), n)
        op = self.pick(("<", "<=", ">", ">=", "==", "!="))
        return X("({0} " + op + " {1})", ty, [self.vexpr(vt, d - 1), self.vexpr(vt, d - 1)])

    def mconstruct(self, ty: str, d: int) -> X:
        n = MATS[ty]
        if self.chance(0.5):
            cols = [self.vexpr(f"vec{n}", d - 1) if d > 0 else self.vleaf(f"vec{n}")
                    for _ in range(n)]
        else:
            cols = [self.expr("f32", d - 1) if d > 0 else self.leaf("f32")
                    for _ in range(n * n)]
        fmt = ty + "(" + ", ".join(f"{{{j}}}" for j in range(len(cols))) + ")"
        return X(fmt, ty, cols, mag=max(c.mag for c in cols))

    def mexpr(self, ty: str, d: int) -> X:
        if d <= 0 or self.chance(0.2):
            return self.vleaf(ty)
        sub = lambda: self.mexpr(ty, d - 1)  # noqa: E731
        top = CEIL["f32"]
        k = self.pick(("construct", "construct", "sum", "scale", "div", "select"))
        if k == "construct":
            return self.mconstruct(ty, d)
        if k == "sum":
            a, b = self.lim(sub(), top / 2), self.lim(sub(), top / 2)
            return X("({0} " + self.pick(("+", "-")) + " {1})", ty, [a, b], mag=a.mag + b.mag)
        if k == "scale":
            a = self.lim(sub(), math.sqrt(top))
            s = self.lim(self.expr("f32", d - 1), math.sqrt(top))
            return X(self.pick(("({0} * {1})", "({1} * {0})")), ty, [a, s], mag=a.mag * s.mag)
        if k == "div":
            a = self.lim(sub(), top / 16)
            den, low = self.divisor("f32", d - 1)
            return X("({0} / {1})", ty, [a, den], mag=a.mag / low)
        a, b = sub(), sub()
        return X("({0} if {2} else {1})", ty, [a, b, self.bexpr(d - 1)], mag=max(a.mag, b.mag))
