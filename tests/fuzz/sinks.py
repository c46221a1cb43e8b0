"""Tolerance sinks: calls of the functions that are not exact on every target
(transcendentals, dot products, matrix products, mix...), whose results are compared
within ``ulp.SPEC``'s bounds.

A sink is one statement group: its arguments, each kept in the function's domain by a
guard, are assigned to temporaries and stored in the ``ot`` buffer (compared bit for
bit, since they are exact), then the function's result is stored after them. The
harness reads the arguments back from the cpu device's ``ot`` to compute each result's
bound. A sink's result is never used again: a bound compounds through further
arithmetic in ways no table covers.
"""

from __future__ import annotations

import re

from .nodes import MATS, VECS, St, X, width

# Unary functions: the guard that keeps the argument where the function is defined and
# its specification bounds it (sin and cos: [-pi, pi], the Vulkan and WGSL bound's range).
UNARY = {
    "sin": "math.fmod({0}, 3.0)", "cos": "math.fmod({0}, 3.0)",
    "tan": "math.fmod({0}, 1.25)", "asin": "math.fmod({0}, 1.0)",
    "acos": "math.fmod({0}, 1.0)", "atan": "{0}",
    "exp": "math.fmod({0}, 60.0)", "exp2": "math.fmod({0}, 100.0)",
    "log": "(abs({0}) + 0.0625)", "log2": "(abs({0}) + 0.0625)",
    "log10": "(abs({0}) + 0.0625)", "log1p": "(abs({0}) - 0.75)",
    "sinh": "math.fmod({0}, 20.0)", "cosh": "math.fmod({0}, 20.0)", "tanh": "{0}",
    "asinh": "{0}", "acosh": "max(abs({0}), 1.0)", "atanh": "math.fmod({0}, 0.99)",
    "expm1": "math.fmod({0}, 40.0)", "erf": "math.fmod({0}, 8.0)",
    "erfc": "math.fmod({0}, 8.0)", "degrees": "{0}", "radians": "{0}",
}
BINARY = {
    # x's sign by a comparison, not copysign (a zero's sign may be ignored: exprs.py)
    "atan2": ("{0}", "((abs({0}) + 0.125) * ps.select(1.0, -1.0, {1} < 0.0))"),
    "pow": ("(abs(math.fmod({0}, 16.0)) + 0.0625)", "math.fmod({0}, 4.0)"),
    "hypot": ("{0}", "{0}"),
}
FORMULAS = ("dot", "length", "distance", "normalize", "cross", "mix", "smoothstep", "fma",
            "matvec", "vecmat", "matmat")
ARG_MAG = 2.0**18       # so that squares and sums of products stay far from overflow
SIGNS = ((1.0, -1.0, 1.0, -1.0), (-1.0, 1.0, 1.0, -1.0), (1.0, 1.0, -1.0, 1.0))


def components(name: str, ty: str) -> list[str]:
    """The scalar reads of a value, column by column for a matrix."""
    if ty in VECS:
        return [f"{name}.{c}" for c in "xyzw"[:VECS[ty][1]]]
    if ty in MATS:
        n = MATS[ty]
        return [f"{name}[{c}].{r}" for c in range(n) for r in "xyzw"[:n]]
    return [name]


class Sinks:
    """Sink statements (mixed into ``stmts.Gen``, which provides the expression methods,
    ``fresh`` and the ``ot`` slot counter)."""

    def sink(self, d: int) -> St | None:
        r = self.rng.random()
        if r < 0.55:
            fn = self.pick(sorted(UNARY))
            ty = "f32" if self.chance(0.75) else self.pick(("vec2", "vec3", "vec4"))
            arg = self.lim(self.expr(ty, d), ARG_MAG)
            guard = UNARY[fn]
            if ty != "f32":         # math.fmod and max take no scalar next to a vector
                guard = re.sub(r"(fmod|max)\((.+), ([0-9.]+)\)", rf"\1(\2, {ty}(\3))", guard)
            args = [(X(guard, ty, [arg], keep=True), ty)]
            call, res = f"math.{fn}({{a0}})", ty
        elif r < 0.7:
            fn = self.pick(sorted(BINARY))
            g0, g1 = BINARY[fn]
            a = self.lim(self.expr("f32", d), ARG_MAG)
            b = [self.lim(self.expr("f32", d), ARG_MAG) for _ in range(g1.count("{"))]
            args = [(X(g0, "f32", [a], keep=True), "f32"), (X(g1, "f32", b, keep=True), "f32")]
            call, res = f"math.{fn}({{a0}}, {{a1}})", "f32"
        else:
            fn = self.pick(FORMULAS)
            args, call, res = self.formula(fn, d)
        return self.sink_statement(fn, args, call, res)

    def formula(self, fn: str, d: int) -> tuple[list[tuple[X, str]], str, str]:
        """Arguments, call and result type of a formula sink."""
        vt = self.pick(("vec2", "vec3", "vec4"))
        arg = lambda ty: (self.lim(self.expr(ty, d), ARG_MAG), ty)  # noqa: E731
        if fn in ("dot", "distance"):
            return [arg(vt), arg(vt)], f"ps.{fn}({{a0}}, {{a1}})", "f32"
        if fn == "length":
            return [arg(vt)], "ps.length({a0})", "f32"
        if fn == "normalize":
            n = VECS[vt][1]
            sign = ", ".join(repr(s) for s in self.pick(SIGNS)[:n])
            v = X(f"((abs({{0}}) + 0.25) * {vt}({sign}))", vt, [arg(vt)[0]], keep=True)
            return [(v, vt)], "ps.normalize({a0})", vt
        if fn == "cross":
            return [arg("vec3"), arg("vec3")], "ps.cross({a0}, {a1})", "vec3"
        if fn == "mix":
            ty = self.pick(("f32", vt))
            return [arg(ty), arg(ty), arg("f32")], "ps.mix({a0}, {a1}, {a2})", ty
        if fn == "smoothstep":
            e0 = self.pick((-2.0, -1.0, 0.0, 0.5))
            e1 = e0 + self.pick((0.5, 1.0, 3.0))
            return ([arg("f32")], f"ps.smoothstep({e0!r}, {e1!r}, {{a0}})", "f32")
        if fn == "fma":
            return [arg("f32"), arg("f32"), arg("f32")], "ps.fma({a0}, {a1}, {a2})", "f32"
        n = int(self.rng.integers(2, 4))
        mt, vt = f"mat{n}", f"vec{n}"
        if fn == "matvec":
            return [arg(mt), arg(vt)], "({a0} @ {a1})", vt
        if fn == "vecmat":
            return [arg(vt), arg(mt)], "({a0} @ {a1})", vt
        return [arg("mat2"), arg("mat2")], "({a0} @ {a1})", "mat2"

    def sink_statement(self, fn: str, args: list[tuple[X, str]], call: str, res: str) -> St:
        """The statement group: temporaries, their components stored, the result stored."""
        base = self.slots["ot"]
        total = sum(width(t) for _, t in args) + width(res)
        self.slots["ot"] += total
        self.used.add("ot")
        names = [self.fresh("a") for _ in args]
        lines = [f"{n} = {{{k}}}" for k, n in enumerate(names)]
        reads = [c for n, (_, t) in zip(names, args) for c in components(n, t)]
        out = self.fresh("r")
        lines.append(f"{out} = " + call.format(**{f"a{k}": n for k, n in enumerate(names)}))
        reads += components(out, res)
        lines += [f"ot[i * @ot@ + {base + k}] = {c}" for k, c in enumerate(reads)]
        self.sinks.append({"fn": fn, "base": base, "args": [[t, width(t)] for _, t in args],
                           "res": [res, width(res)]})
        return St("\n".join(lines), [a for a, _ in args])
