"""Random well-typed scalar expressions (floats, integers, bools) for the fuzzer.

Every float expression carries a bound on its magnitude (``X.mag``), kept below the
type's ceiling (``CEIL``) by wrapping an operand in ``ps.clamp`` or ``math.fmod`` with a
constant (both exact) before an operation could pass it: so no value overflows to an
infinity and no NaN appears, and every exact operation gives the same bits on every
device. Divisors are kept away from zero (``abs(b) + 0.5``, ``b | 1``), indices in range
(``k % n``), shift counts below 32: the cpu device raises where a GPU's result is
undefined, and neither may happen in a generated kernel. Vectors and matrices are in
``vexprs``; ``Gen`` in ``stmts`` combines both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .nodes import FLOATS, INTS, MATS, VECS, X, scalar_of

# Magnitude ceilings: a product of two values at the square root of the ceiling, or a
# sum of two at the ceiling, is still finite (f16's largest value is 65504).
CEIL = {"f32": 2.0**40, "f16": 2.0**9, "f64": 2.0**200}
# Float literals (either sign), chosen so that some round (0.1, 0.3) and most do not.
FLITS = (0.0, 1.0, 2.0, 0.5, 0.25, 3.0, 1.5, 0.1, 10.0, 0.75, 7.0, 0.001, 0.3, 2.5, 100.0,
         6.5, 0.2, 1024.0, 1e6)
ILITS = {"i32": (0, 1, 2, 3, 5, 7, 31, 32, 100, -1, -7, 2**31 - 1, -2**31),
         "u32": (0, 1, 2, 3, 5, 7, 31, 32, 100, 2**31 - 1, 2**31, 2**32 - 1)}
CMPS = ("<", "<=", ">", ">=", "==", "!=")
INPUT_MAG = 4096.0          # the largest |value| of a generated float input (harness)
INT_MAG = {"i32": 2.0**31, "u32": 2.0**32}
# An integer converted to f32 is first reduced below 2**24, where every integer is an
# f32: Vulkan and WGSL let a conversion round an integer that is not to either
# neighbour (Vulkan "fundamentals-fp-conversion"), and SwiftShader's u32 -> f32 rounds
# twice (``float(x & 0x7fffffff) + 2**31``: 4009827986 gave 4009827840, not
# 4009828096; bench/probes/swiftshader_u32_to_f32_probe.py). The conformance table
# covers the conversion of large integers. An integer next to a float ("promote" in
# ``fexpr``) is converted whole: on SwiftShader the harness's ``swiftshader-u32-to-f32``
# rule compares it with a second reference (harness.U32_TO_F32).
EXACT_INT = 2**24


@dataclass
class Var:
    """A name in scope: its type (``[f32]4`` for a local array of 4), the bound on its
    magnitude, whether it may be assigned."""

    name: str
    ty: str
    mag: float = 0.0
    mutable: bool = True
    step: float | None = None       # inside loops: the most one update may add (stmts.py)


def flit_src(ty: str, v: float) -> str:
    """A float literal of type ``ty``: bare for f32, cast otherwise."""
    s = repr(float(v))
    if ty != "f32":
        return f"{ty}({s})"
    return f"({s})" if s.startswith("-") else s


class ScalarExprs:
    """The scalar half of the generator; ``Gen`` provides ``rng``, ``ft``, ``scopes``,
    the vector methods and ``callable_helpers``."""

    def pick(self, seq):  # noqa: ANN001, ANN201
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def visible(self, ty: str) -> list[Var]:
        return [v for s in self.scopes for v in s.values() if v.ty == ty]

    def float_types(self) -> tuple[str, ...]:
        return ("f32",) if self.ft == "f32" else ("f32", self.ft)

    # -- leaves -------------------------------------------------------------------------
    def fval(self, ty: str) -> float:
        """A random float literal value that fits ``ty``'s ceiling, either sign."""
        v = self.pick([x for x in FLITS if x <= CEIL[ty]])
        v = -v if self.chance(0.35) else v
        return -0.0 if v == 0.0 and self.chance(0.3) else v

    def flit(self, ty: str, v: float | None = None) -> X:
        v = self.fval(ty) if v is None else v
        return X(flit_src(ty, v), ty, mag=abs(v))

    def ilit(self, ty: str, v: int | None = None) -> X:
        v = self.pick(ILITS[ty]) if v is None else v
        src = f"({v})" if v < 0 else str(v)
        return X(src, ty, bare=True)

    def lit(self, ty: str) -> X:
        """A small constant of any type (what the shrinker puts in place of a subtree)."""
        if ty in FLOATS:
            return self.flit(ty, 1.0)
        if ty in INTS:
            return X(f"{ty}(1)", ty)
        if ty == "bool":
            return X("True", ty)
        if ty in VECS:
            e = VECS[ty][0]
            inner = {"f32": "1.0", "i32": "1", "u32": "u32(1)", "bool": "True"}[e]
            return X(f"{ty}({inner})", ty, mag=1.0)
        return X(f"{ty}()", ty)

    def leaf(self, ty: str) -> X:
        if ty not in FLOATS and ty not in INTS and ty != "bool":
            return self.vleaf(ty)
        vs = self.visible(ty)
        r = self.rng.random()
        if vs and r < 0.6:
            v = self.pick(vs)
            return X(v.name, ty, mag=v.mag)
        if ty == "bool":
            return X(self.pick(("True", "False")), ty) if r < 0.7 else self.compare(1)
        if r < 0.8:
            read = self.buffer_read(ty)
            if read is not None:
                return read
        if ty in INTS:
            other = "u32" if ty == "i32" else "i32"
            ovs = self.visible(other)
            if ovs and r < 0.9:
                return X(f"{ty}({self.pick(ovs).name})", ty)
            return self.ilit(ty)
        return self.flit(ty)

    def buffer_read(self, ty: str) -> X | None:
        """A read of an input buffer of element type ``ty`` at a random index in range."""
        names = [n for n, (t, _) in self.readable.items() if t == ty]
        if not names:
            return None
        name = self.pick(names)
        return X(name + "[{0}]", ty, [self.index(f"len({name})", 1)],
                 mag=self.readable[name][1])

    def index(self, n: str | int, d: int) -> X:
        """A u32 or i32 index in ``[0, n)`` (``n`` a constant or ``len(buf)``)."""
        ty = "u32" if isinstance(n, str) or self.chance(0.6) else "i32"
        k = self.iexpr(ty, d) if d > 0 else self.leaf(ty)
        bound = n if isinstance(n, str) else (f"{ty}({n})" if self.chance(0.5) else str(n))
        if ty == "i32" and isinstance(n, str):
            bound = f"i32({n})"
        return X("({0} % " + bound + ")", ty, [k], keep=True)

    # -- magnitude ----------------------------------------------------------------------
    def lim(self, e: X, m: float) -> X:
        """``e``, or ``e`` clamped/reduced to a magnitude at most ``m`` where it may exceed it."""
        st = e.ty if e.ty in FLOATS else "f32"
        if e.mag <= m or scalar_of(e.ty) not in FLOATS:
            return e
        m = max(min(m, CEIL[st] * 64), 0.5)     # the constant must fit the type (f16: 65504)
        if e.ty in MATS:                # a power of two: exact
            k = math.ceil(math.log2(e.mag / m))
            return X("({0} * " + repr(2.0**-k) + ")", e.ty, [e], mag=e.mag * 2.0**-k, keep=True)
        c = max(x for x in (0.5, 1.0, 4.0, 64.0, 1000.0, 65536.0, 2.0**20, 2.0**40, 2.0**100)
                if x <= m) if m >= 0.5 else 0.5
        lo, hi = self.flit(st, -c), self.flit(st, c)
        if e.ty in VECS:
            lo, hi = (X(f"{e.ty}({{0}})", e.ty, [b]) for b in (lo, hi))
        if self.chance(0.5):
            return X("ps.clamp({0}, {1}, {2})", e.ty, [e, lo, hi], mag=c, keep=True)
        return X("math.fmod({0}, {1})", e.ty, [e, hi], mag=c, keep=True)

    # -- dispatch -----------------------------------------------------------------------
    def expr(self, ty: str, d: int) -> X:
        if d <= 0 or self.chance(0.15):
            return self.leaf(ty)
        if ty in FLOATS:
            return self.fexpr(ty, d)
        if ty in INTS:
            return self.iexpr(ty, d)
        if ty == "bool":
            return self.bexpr(d)
        if ty in MATS:
            return self.mexpr(ty, d)
        return self.vexpr(ty, d)

    def typed(self, e: X) -> X:
        """A bare integer literal given its type by a cast."""
        return X(f"{e.ty}({{0}})", e.ty, [e]) if e.bare else e

    def untangle(self, *es: X) -> list[X]:
        return [self.typed(es[0]), *es[1:]] if all(e.bare for e in es) else list(es)

    # -- floats -------------------------------------------------------------------------
    def fexpr(self, ty: str, d: int) -> X:  # noqa: C901, PLR0911, PLR0912
        sub = lambda: self.expr(ty, d - 1)  # noqa: E731
        top = CEIL[ty]
        kinds = ["arith"] * 4 + ["div"] * 2 + ["neg", "abs", "minmax", "minmax", "clamp",
                                               "round", "round", "sqrt", "fmod", "copysign",
                                               "select", "cast", "cast", "pow", "helper"]
        if ty == "f32":
            kinds += ["comp", "comp", "step", "promote"]
        if ty != "f64":
            kinds += ["floormod"]
        k = self.pick(kinds)
        if k == "arith":
            op = self.pick(("+", "-", "*"))
            a, b = sub(), sub()
            if op == "*":
                a, b = self.lim(a, math.sqrt(top)), self.lim(b, math.sqrt(top))
                return X("({0} * {1})", ty, [a, b], mag=a.mag * b.mag)
            a, b = self.lim(a, top / 2), self.lim(b, top / 2)
            return X("({0} " + op + " {1})", ty, [a, b], mag=a.mag + b.mag)
        if k == "div":
            a, (den, low) = self.lim(sub(), top / 16), self.divisor(ty, d - 1)
            return X("({0} / {1})", ty, [a, den], mag=a.mag / low)
        if k == "floormod":
            a, (den, low) = self.lim(sub(), top / 16), self.divisor(ty, d - 1)
            if self.chance(0.5):
                return X("({0} % {1})", ty, [a, den], mag=max(den.mag, 1.0))
            return X("({0} // {1})", ty, [a, den], mag=a.mag / low + 1)
        if k == "neg":
            a = sub()
            return X("(-{0})", ty, [a], mag=a.mag)
        if k == "abs":
            a = sub()
            return X(self.pick(("abs({0})", "math.fabs({0})")), ty, [a], mag=a.mag)
        if k == "minmax":
            a, b = sub(), sub()
            return X(self.pick(("min", "max")) + "({0}, {1})", ty, [a, b], mag=max(a.mag, b.mag))
        if k == "clamp":
            lo, hi = sorted((self.fval(ty), self.fval(ty)))
            return X("ps.clamp({0}, {1}, {2})", ty, [sub(), self.flit(ty, lo), self.flit(ty, hi)],
                     mag=max(abs(lo), abs(hi)))
        if k == "round":
            a = self.lim(sub(), top / 2)
            fn = self.pick(("math.floor({0})", "math.ceil({0})", "math.trunc({0})", "round({0})"))
            return X(fn, ty, [a], mag=a.mag + 1)
        if k == "sqrt":
            a = sub()
            return X("math.sqrt(abs({0}))", ty, [a], mag=math.sqrt(a.mag) + 1)
        if k == "fmod":
            a, (den, _) = sub(), self.divisor(ty, d - 1)
            return X("math.fmod({0}, {1})", ty, [a, den], mag=a.mag)
        if k == "copysign":
            a, b = sub(), sub()
            return X("math.copysign({0}, {1})", ty, [a, b], mag=a.mag)
        if k == "select":
            a, b, c = sub(), sub(), self.bexpr(d - 1)
            fmt = "ps.select({1}, {0}, {2})" if self.chance(0.3) else "({0} if {2} else {1})"
            return X(fmt, ty, [a, b, c], mag=max(a.mag, b.mag))
        if k == "pow":
            n = int(self.rng.integers(0, 5))
            a = self.lim(sub(), top ** (1 / max(n, 1)))
            return X("({0} ** " + str(n) + ")", ty, [a], mag=max(a.mag ** n, 1.0))
        if k == "comp":
            vt = self.pick(("vec2", "vec3", "vec4"))
            v = self.vexpr(vt, d - 1)
            n = VECS[vt][1]
            if self.chance(0.3):
                return X("{0}[{1}]", ty, [v, self.index(n, d - 2)], mag=v.mag)
            return X("{0}." + self.pick("xyzw"[:n]), ty, [v], mag=v.mag)
        if k == "step":
            return X("ps.step({0}, {1})", ty, [sub(), sub()], mag=1.0)
        if k == "promote":          # an integer next to a float becomes that float
            a = self.lim(sub(), 2.0**8)
            n = self.typed(self.expr(self.pick(INTS), d - 1))
            return X("({0} * {1})", ty, [a, n], mag=a.mag * 2.0**32)
        if k == "helper":
            call = self.helper_call(ty, d)
            if call is not None:
                return call
        return self.fcast(ty, d)

    def divisor(self, ty: str, d: int) -> tuple[X, float]:
        """A float divisor and a lower bound on its magnitude."""
        r = self.rng.random()
        if r < 0.35:
            v = self.pick((2.0, 4.0, 0.5, 3.0, 7.0, 10.0, 0.1, 1.5))
            v = -v if self.chance(0.3) else v
            return self.flit(ty, v), v if v > 0 else -v
        a = self.lim(self.expr(ty, d), CEIL[ty] / 4)
        if r < 0.75:
            half = self.flit(ty, 0.5)
            return X("(abs({0}) + {1})", ty, [a, half], mag=a.mag + 0.5, keep=True), 0.5
        b = self.expr(ty, d)
        one, neg, zero = self.flit(ty, 1.0), self.flit(ty, -1.0), self.flit(ty, 0.0)
        # The sign by a comparison, not copysign: Vulkan (without SignedZeroInfNanPreserve)
        # and WGSL may ignore a zero's sign, so copysign(x, -0.0) may be +x there, a
        # difference the specifications allow and which a divisor would magnify.
        return X("((abs({0}) + {1}) * ps.select({1}, {2}, {3} < {4}))", ty,
                 [a, one, neg, b, zero], mag=a.mag + 1, keep=True), 1.0

    def fcast(self, ty: str, d: int) -> X:
        """A conversion to ``ty`` from an integer or from the other float type."""
        others = [t for t in self.float_types() if t != ty]
        if others and self.chance(0.4):
            src = others[0]
            a = self.lim(self.expr(src, d - 1), CEIL[ty])
            return X(f"{ty}({{0}})", ty, [a], mag=a.mag)
        it = self.pick(INTS)
        a = self.typed(self.expr(it, d - 1))
        if ty == "f16":                 # an int past 65504 would be an infinity in f16
            a = X("({0} % " + f"{it}(1000))", it, [a])
            return X("f16({0})", ty, [a], mag=1000.0)
        fmt = self.pick((f"{ty}({{0}})", "float({0})")) if ty == "f32" else f"{ty}({{0}})"
        if ty == "f32":     # exactly representable: see EXACT_INT
            a = X("({0} % " + f"{it}({EXACT_INT}))", it, [a])
        return X(fmt, ty, [a], mag=INT_MAG[it])

    # -- integers -----------------------------------------------------------------------
    def idivisor(self, b: X) -> X:
        """Never zero: ``b | 1`` or ``max(b, 1)``."""
        one = self.ilit(b.ty, 1)
        if self.chance(0.7):
            return X("({0} | {1})", b.ty, self.untangle(b, one), keep=True)
        return X("max({0}, {1})", b.ty, self.untangle(b, one), keep=True)

    def iexpr(self, ty: str, d: int) -> X:  # noqa: C901, PLR0911
        sub = lambda: self.expr(ty, d - 1)  # noqa: E731
        k = self.pick(("arith", "arith", "div", "shift", "bit", "bit", "unary", "minmax",
                       "abs", "select", "cast", "bits", "clamp", "pow", "fconv", "fconv",
                       "comp", "helper", "len"))
        if k in ("arith", "bit"):
            op = self.pick(("+", "-", "*") if k == "arith" else ("&", "|", "^"))
            return X("({0} " + op + " {1})", ty, self.untangle(sub(), sub()))
        if k == "div":
            a, b = self.untangle(sub(), self.idivisor(self.typed(self.expr(ty, d - 2))))
            return X("({0} " + self.pick(("//", "%")) + " {1})", ty, [a, b])
        if k == "shift":
            ct = self.pick(INTS)
            c = X("({0} & {1})", ct, self.untangle(self.expr(ct, d - 2), self.ilit(ct, 31)),
                  keep=True)
            return X("({0} " + self.pick(("<<", ">>")) + " {1})", ty, [self.typed(sub()), c])
        if k == "unary":
            return X(self.pick(("(-{0})", "(~{0})")), ty, [self.typed(sub())])
        if k == "abs":
            return X("abs({0})", ty, [self.typed(sub())])
        if k == "minmax":
            return X(self.pick(("min", "max")) + "({0}, {1})", ty, self.untangle(sub(), sub()))
        if k == "clamp":                   # lo <= hi: lo > hi is not portable (README)
            v, p, q = self.typed(sub()), self.typed(sub()), self.typed(sub())
            return X("ps.clamp({0}, min({1}, {2}), max({1}, {2}))", ty, [v, p, q])
        if k == "select":
            a, b = self.untangle(sub(), sub())
            c = self.bexpr(d - 1)
            fmt = "ps.select({1}, {0}, {2})" if self.chance(0.3) else "({0} if {2} else {1})"
            return X(fmt, ty, [a, b, c])
        if k == "bits":
            fn = self.pick(("ps.popcount", "ps.count_leading_zeros", "ps.reverse_bits"))
            return X(fn + "({0})", ty, [self.typed(sub())])
        if k == "pow":
            return X("({0} ** " + str(int(self.rng.integers(0, 5))) + ")", ty,
                     [self.typed(sub())])
        if k == "fconv":
            ft = self.pick(self.float_types())
            a = self.expr(ft, d - 1)
            if ft == "f32" and self.chance(0.2):
                # Without the sign bit: a zero's sign is a documented target limitation
                # (lavapipe's ``0.0 - x`` is ``-x``; WGSL may ignore it), which an integer
                # sink cannot be judged by (seed 108304552020987 kernel 113:
                # ``bitcast(u32, 0.0 % d)`` 0x80000000 on lavapipe, 0 on the cpu).
                return X(f"(ps.bitcast({ty}, {{0}}) & {ty}(0x7FFFFFFF))", ty, [a])
            fmt = self.pick(("int({0})", "i32({0})")) if ty == "i32" else "u32({0})"
            return X(fmt, ty, [a])
        if k == "comp":
            vt = self.pick([f"{'i' if ty == 'i32' else 'u'}vec{n}" for n in (2, 3, 4)])
            v = self.vexpr(vt, d - 1)
            return X("{0}." + self.pick("xyzw"[:VECS[vt][1]]), ty, [v])
        if k == "helper":
            call = self.helper_call(ty, d)
            if call is not None:
                return call
        if k == "len" and self.readable:
            return X(f"{ty}(len({self.pick(sorted(self.readable))}))", ty)
        other = self.pick(INTS)                 # cast (sometimes to its own type)
        a = self.typed(self.expr(other, d - 1))
        if other != ty and self.chance(0.3):
            return X(f"ps.bitcast({ty}, {{0}})", ty, [a])
        return X(f"{ty}({{0}})", ty, [a])

    # -- bools --------------------------------------------------------------------------
    def compare(self, d: int) -> X:
        ty = self.pick((*self.float_types(), *INTS))
        terms = self.untangle(self.expr(ty, d - 1), self.expr(ty, d - 1))
        vs = [v for v in self.visible(ty) if v.name.isidentifier()]
        if vs and self.chance(0.15):    # a chain: its middle must be a name (read twice)
            v = self.pick(vs)
            terms.insert(1, X(v.name, ty, mag=v.mag))
        fmt = "{0}"
        for j in range(1, len(terms)):
            fmt += f" {self.pick(CMPS)} {{{j}}}"
        return X(f"({fmt})", "bool", terms)

    def bexpr(self, d: int) -> X:
        r = self.rng.random()
        if d <= 0:
            return self.leaf("bool")
        if r < 0.2:
            op = self.pick(("and", "or"))
            return X("({0} " + op + " {1})", "bool", [self.bexpr(d - 1), self.bexpr(d - 1)])
        if r < 0.28:
            return X("(not {0})", "bool", [self.bexpr(d - 1)])
        if r < 0.36 and self.ft == "f32":
            bt = self.pick(("bvec2", "bvec3", "bvec4"))
            return X(self.pick(("all({0})", "any({0})")), "bool", [self.vexpr(bt, d - 1)])
        if r < 0.4:
            return X(self.pick(("math.isnan({0})", "math.isinf({0})")), "bool",
                     [self.expr(self.pick(self.float_types()), d - 1)])
        if r < 0.44:
            it = self.pick(INTS)
            return X("bool({0})", "bool", [self.typed(self.expr(it, d - 1))])
        return self.compare(d)
