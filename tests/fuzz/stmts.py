"""Random kernels: statements (assignments, if/elif/else, for and while loops with break
and continue, match on an IntEnum or an integer, early returns, local arrays, atomics,
stores), helpers, and the kernel around them (``Gen.kernel``); the shared-memory phase
is in ``phases``.

Loops run at most ``MAX_TRIPS`` times each and nest two deep, so that a float variable
updated in a loop can be bounded: on entering a loop every float variable visible there
gets ``LOOP_GROWTH`` times its bound, and an update inside adds at most its bound from
before the outermost loop (``Var.step``), so 8 * 8 + 8 + 1 updates stay below 81 times.
A name is visible in the block that defines it (and in the blocks nested there) after its
definition; one assigned at the end of every branch of an ``if``/``else`` or of a match
with a default is visible after it, as Python's definite assignment rules allow.
"""

from __future__ import annotations

from .exprs import CEIL, ScalarExprs, Var
from .nodes import FLOATS, INTS, MATS, VECS, Clause, Func, St, X, scalar_of
from .phases import Phases
from .sinks import Sinks, components
from .vexprs import VectorExprs

MAX_TRIPS = 8
LOOP_GROWTH = 9.0
HELPER_MAG = 2.0**16        # arguments of helpers are clamped to this, returns to its square
# How many slots each thread has in the exact output buffers, at most.
MAX_SLOTS = {"of": 40, "oi": 16, "ou": 16}
COUNTERS = 4                # shared atomic counters before the per-invocation slots


def growable(v: Var) -> bool:
    return v.mutable and (v.ty in FLOATS or v.ty in MATS or VECS.get(v.ty, ("",))[0] == "f32")


class Gen(ScalarExprs, VectorExprs, Sinks, Phases):
    """One kernel's generator: ``Gen(rng, "fz3", "f32", "Op").kernel()``."""

    def __init__(self, rng, name: str, ft: str, enum: str, table: tuple) -> None:  # noqa: ANN001
        self.rng, self.name, self.ft, self.enum, self.table = rng, name, ft, enum, table
        self.scopes: list[dict[str, Var]] = [{}]
        self.readable: dict[str, tuple[str, float]] = {}
        self.helpers: list[Func] = []
        self.count = 0
        self.loops = 0                  # loop nesting at the current statement
        self.in_helper = False
        self.slots = {"of": 0, "oi": 0, "ou": 0, "ot": 0}
        self.sinks: list[dict] = []
        self.used: set[str] = set()
        self.returned = False           # a kernel-level early return has been generated
        # Inside a loop that pyshade unrolls (a table, a tuple, ps.unroll) no array is
        # declared: each copy would declare it again, which pyshade refuses.
        self.unrolled = 0

    # -- names and types ----------------------------------------------------------------
    def fresh(self, prefix: str = "v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def define(self, name: str, ty: str, mag: float = 0.0, mutable: bool = True) -> Var:
        v = Var(name, ty, max(mag, 1.0) if scalar_of(ty) in FLOATS else mag, mutable)
        self.scopes[-1][name] = v
        return v

    def new_type(self) -> str:
        base = [self.ft] * 4 + ["i32", "i32", "u32", "u32", "bool"]
        if self.ft != "f32":
            base += ["f32"]
        base += ["vec2", "vec3", "vec4", "vec3", "ivec2", "uvec3", "ivec4", "bvec2", "mat2", "mat3"]
        return self.pick(base)

    def mutables(self, pred=lambda v: True) -> list[Var]:  # noqa: ANN001
        return [v for s in self.scopes for v in s.values()
                if v.mutable and not v.ty.startswith("[") and pred(v)]

    # -- helpers ------------------------------------------------------------------------
    def helper_call(self, ty: str, d: int) -> X | None:
        fs = [f for f in self.helpers if f.ret == ty]
        if not fs or d < 1:
            return None
        f = self.pick(fs)
        args = [self.lim(self.typed(self.expr(t, d - 1)), HELPER_MAG) for _, t in f.params]
        fmt = f.name + "(" + ", ".join(f"{{{k}}}" for k in range(len(args))) + ")"
        return X(fmt, ty, args, mag=f.ret_mag)

    def helper(self, k: int) -> Func:
        """A helper taking 1 to 3 values and returning one, with early returns, loops and
        matches inside; it may call the helpers made before it."""
        saved = (self.scopes, self.readable, self.loops, self.in_helper)
        self.scopes, self.readable, self.loops, self.in_helper = [{}], {}, 0, True
        types = [self.ft, "f32", "i32", "u32", "bool", "vec2", "vec3", "ivec2", "uvec3"]
        params = []
        for _ in range(int(self.rng.integers(1, 4))):
            p, t = self.fresh("p"), self.pick(types)
            params.append((p, t))
            self.define(p, t, HELPER_MAG if t not in INTS and t != "bool" else 0.0)
        ret = self.pick([self.ft, self.ft, "f32", "i32", "u32", "vec3", "vec2", "bool"])
        self.ret = (ret, HELPER_MAG**2 if ret in FLOATS or ret in VECS else 0.0)
        body = self.block(int(self.rng.integers(1, 5)), 2, push=False)
        body.append(St("return {0}", [self.ret_value()], droppable=False))
        self.scopes, self.readable, self.loops, self.in_helper = saved
        f = Func(f"{self.name}_h{k}", params, ret, body, ret_mag=self.ret[1])
        self.helpers.append(f)
        return f

    def ret_value(self) -> X:
        ty, m = self.ret
        return self.lim(self.typed(self.expr(ty, 2)), min(m, CEIL.get(ty, CEIL["f32"])))

    # -- blocks and statements ----------------------------------------------------------
    def block(self, n: int, depth: int, push: bool = True) -> list[St]:
        if push:
            self.scopes.append({})
        out: list[St] = []
        for _ in range(n):
            s = self.statement(depth)
            if isinstance(s, list):
                out += s
            elif s is not None:
                out.append(s)
        if push:
            self.scopes.pop()
        return out

    def statement(self, depth: int) -> St | list[St] | None:  # noqa: C901, PLR0911
        kinds = ["define"] * 5 + ["update"] * 4 + ["if", "if", "array", "swap"]
        if not self.in_helper:
            kinds += ["store"] * 3 + ["sink"] * 3 + ["atomic"]
        if depth > 0:
            kinds += ["if", "match", "for", "for", "while"] if self.loops < 2 else ["if", "match"]
        if self.loops:
            kinds += ["jump", "jump"]
        if depth > 0 and (self.in_helper or self.chance(0.3)):
            kinds.append("return")
        k = self.pick(kinds)
        d = int(self.rng.integers(1, 4))
        if k == "define":
            return self.define_stmt(d)
        if k == "update":
            return self.update(d)
        if k == "store":
            return self.store(self.expr(self.new_type(), d))
        if k == "sink":
            return self.sink(d)
        if k == "atomic":
            return self.atomic(d)
        if k == "array":
            return self.array_stmt(d)
        if k == "swap":
            return self.swap()
        if k == "if":
            return self.if_stmt(depth)
        if k == "match":
            return self.match_stmt(depth)
        if k == "for":
            return self.for_stmt(depth)
        if k == "while":
            return self.while_stmt(depth)
        if k == "jump":
            return St("", clauses=[Clause("if {0}:", [self.bexpr(2)],
                                          [St(self.pick(("break", "continue")))])])
        return self.return_stmt()

    def define_stmt(self, d: int, ty: str | None = None) -> St:
        ty = ty or self.new_type()
        e = self.typed(self.expr(ty, d))
        name = self.fresh()
        fmt = f"{name}: {ty} = {{0}}" if self.chance(0.15) and ty in ("f32", "i32", "u32") \
            else f"{name} = {{0}}"
        self.define(name, ty, e.mag)
        return St(fmt, [e], droppable=False)

    def update(self, d: int) -> St | None:
        vs = self.mutables()
        if not vs:
            return self.define_stmt(d)
        v = self.pick(vs)
        ty = v.ty
        if ty in INTS:
            op = self.pick(("+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%", ""))
            e = self.typed(self.expr(ty, d)) if op not in ("<<", ">>") else X(
                "({0} & 31)", ty, [self.typed(self.expr(ty, d))], keep=True)
            if op in ("//", "%"):
                e = self.idivisor(e)
            return St(f"{v.name} {op}= {{0}}" if op else f"{v.name} = {{0}}", [e])
        if ty == "bool" or VECS.get(ty, ("",))[0] in ("bool", "i32", "u32"):
            if ty in VECS and self.chance(0.4):
                c = self.pick("xyzw"[:VECS[ty][1]])
                return St(f"{v.name}.{c} = {{0}}", [self.typed(self.expr(scalar_of(ty), d))])
            return St(f"{v.name} = {{0}}", [self.typed(self.expr(ty, d))])
        return self.float_update(v, d)

    def float_update(self, v: Var, d: int) -> St:
        """A float, vector or matrix update that keeps ``v.mag`` a bound (see the module)."""
        top = CEIL[v.ty] if v.ty in CEIL else CEIL["f32"]
        r = self.rng.random()
        if v.ty in VECS and r < 0.2:
            c = self.pick("xyzw"[:VECS[v.ty][1]])
            return St(f"{v.name}.{c} = {{0}}", [self.lim(self.expr("f32", d), v.mag)])
        if r < 0.35 or v.ty in MATS and r < 0.7:
            e = self.lim(self.expr(v.ty, d), v.mag if self.loops else top)
            v.mag = max(v.mag, e.mag)
            return St(f"{v.name} = {{0}}", [e])
        if r < 0.5:
            c = self.pick((0.5, -1.0, 0.25, -0.5))
            st = v.ty if v.ty in FLOATS else "f32"
            return St(f"{v.name} *= {{0}}", [self.flit(st, c)])
        op = self.pick(("+=", "-="))
        if self.loops and v.step is not None:
            e = self.lim(self.expr(v.ty, d), v.step)
        elif 2 * v.mag <= top:
            e = self.lim(self.expr(v.ty, d), max(v.mag, 1.0))
            v.mag += e.mag
        else:
            e = self.lim(self.expr(v.ty, d), v.mag)
            return St(f"{v.name} = {{0}}", [e])
        return St(f"{v.name} {op} {{0}}", [e])

    def swap(self) -> St | None:
        by: dict[str, list[Var]] = {}
        for v in self.mutables():
            by.setdefault(v.ty, []).append(v)
        pairs = [vs for vs in by.values() if len(vs) >= 2]
        if not pairs:
            return None
        a, b = self.rng.choice(len(pairs[0]), 2, replace=False)
        va, vb = pairs[0][a], pairs[0][b]
        va.mag = vb.mag = max(va.mag, vb.mag)
        return St(f"{va.name}, {vb.name} = {vb.name}, {va.name}")

    def if_stmt(self, depth: int) -> St:
        clauses = [Clause("if {0}:", [self.bexpr(2)])]
        for _ in range(int(self.rng.integers(0, 3))):
            clauses.append(Clause("elif {0}:", [self.bexpr(2)]))
        if self.chance(0.6):
            clauses.append(Clause("else:"))
        joint = clauses[-1].fmt == "else:" and self.chance(0.5)
        return self.branches(St("", clauses=clauses), depth, joint)

    def branches(self, st: St, depth: int, joint: bool) -> St:
        """Fill each clause's body; with ``joint``, each ends by assigning one new name,
        which is defined after the statement."""
        name, ty, mag = self.fresh(), self.new_type(), 0.0
        for c in st.clauses:
            self.scopes.append({})
            c.body = self.block(int(self.rng.integers(1, 4)), depth - 1, push=False)
            if joint:
                e = self.typed(self.expr(ty, 2))
                mag = max(mag, e.mag)
                c.body.append(St(f"{name} = {{0}}", [e], droppable=False))
            self.scopes.pop()
        if joint:
            self.define(name, ty, mag)
            st.droppable = False
        return st

    def match_stmt(self, depth: int) -> St:
        if self.chance(0.6):
            members = ["A", "B", "C", "D"]
            if self.in_helper or self.chance(0.3):
                subject = X(f"{self.enum}({{0}} % u32(4))", self.enum,
                            [self.typed(self.expr("u32", 2))], keep=True)
            else:
                subject = X("mode", self.enum)
                self.used.add("mode")
            order = list(self.rng.permutation(members))
            pats, cut = [], int(self.rng.integers(1, 5))
            while order:
                take = int(self.rng.integers(1, 3))
                pats.append(" | ".join(f"{self.enum}.{m}" for m in order[:take]))
                order = order[take:]
            if self.chance(0.4):
                pats = pats[:cut] + ["_"]
        else:
            subject = X("({0} % 5)", "i32", [self.typed(self.expr("i32", 2))], keep=True)
            vals = list(self.rng.permutation(5))[:int(self.rng.integers(1, 4))]
            pats = [" | ".join(str(v) for v in vals[:1]), *(str(v) for v in vals[1:]), "_"]
        clauses = [Clause(f"case {p}:") for p in dict.fromkeys(pats)]
        st = St("match {0}:", [subject], clauses=clauses, nested=True)
        return self.branches(st, depth, self.chance(0.4))

    def loop_enter(self) -> list[Var]:
        self.loops += 1
        fresh = []
        for v in self.mutables(growable):
            if v.step is None:
                v.step = v.mag
                fresh.append(v)
            v.mag *= LOOP_GROWTH
        return fresh

    def loop_exit(self, fresh: list[Var]) -> None:
        self.loops -= 1
        for v in fresh:
            v.step = None

    def for_stmt(self, depth: int) -> St:
        j = self.fresh("j")
        r = self.rng.random()
        ty, jmag = "i32", 0.0
        if r < 0.2:
            head, exprs = f"for {j} in range({int(self.rng.integers(1, MAX_TRIPS + 1))}):", []
        elif r < 0.35:
            head, exprs = f"for {j} in ps.unroll(range({int(self.rng.integers(1, 5))})):", []
        elif r < 0.5:
            ty = "u32"
            head = f"for {j} in range({{0}} % u32({MAX_TRIPS + 1})):"
            exprs = [self.typed(self.expr("u32", 2))]
        elif r < 0.65:                  # unrolled: a constant table or a tuple literal
            ty = "f32"
            vals = [self.fval("f32") for _ in range(int(self.rng.integers(2, 5)))]
            if self.chance(0.5):
                vals = list(self.table[1])
                head = f"for {j} in {self.table[0]}:"
            else:
                head = f"for {j} in (" + ", ".join(repr(v) for v in vals) + ",):"
            exprs = []
            jmag = max(abs(v) for v in vals)
        else:
            step = self.pick((1, 1, 2, 3, -1, -2))
            lo = X("({0} % 4)", "i32", [self.typed(self.expr("i32", 2))], keep=True)
            span = X("({0} % 7)", "i32", [self.typed(self.expr("i32", 2))], keep=True)
            if step > 0:
                head = f"for {j} in range({{0}}, {{0}} + {{1}}, {step}):"
            else:
                head = f"for {j} in range({{0}} + {{1}}, {{0}}, {step}):"
            exprs = [lo, span]
        unrolled = "unroll" in head or " in (" in head or self.table[0] in head
        fresh = self.loop_enter()
        self.unrolled += unrolled
        self.scopes.append({})
        # ps.unroll substitutes a bare literal for j in each copy, whose type then comes
        # from its context (ps.count_leading_zeros(0) is u32): read it through i32(j).
        ref = f"i32({j})" if "unroll" in head else j
        self.define(ref, ty, jmag if ty == "f32" else 0.0, mutable=False)
        body = self.block(int(self.rng.integers(1, 5)), depth - 1, push=False)
        self.scopes.pop()
        self.unrolled -= unrolled
        self.loop_exit(fresh)
        return St("", clauses=[Clause(head, exprs, body)])

    def while_stmt(self, depth: int) -> list[St]:
        """A counter and a loop that increments it first (so that ``continue`` cannot skip
        it), ended by its condition or by a ``break``."""
        w = self.fresh("w")
        self.define(w, "i32", mutable=False)
        limit = int(self.rng.integers(1, MAX_TRIPS + 1))
        fresh = self.loop_enter()
        self.scopes.append({})
        # The counter, its test and the break are pinned (``keep`` for the test): a
        # shrink step that dropped or simplified one made a loop that never ends, on the
        # cpu device first, and the shrinker hung (fuzz seed 4808303094374983443 kernel 89)
        body = [St(f"{w} += 1", droppable=False, pinned=True)]
        if self.chance(0.5):
            head, cond = "while {0}:", [X(f"{w} < {limit}", "bool", keep=True)]
        else:
            head, cond = "while True:", []
            body.append(St("", clauses=[Clause(f"if {w} > {limit}:", [],
                                               [St("break", pinned=True)])],
                           droppable=False, pinned=True))
        body += self.block(int(self.rng.integers(1, 5)), depth - 1, push=False)
        self.scopes.pop()
        self.loop_exit(fresh)
        return [St(f"{w} = 0", droppable=False), St("", clauses=[Clause(head, cond, body)])]

    def return_stmt(self) -> St:
        if self.in_helper:
            body = [St("return {0}", [self.ret_value()])]
        else:
            body = [s for s in [self.store(self.expr(self.new_type(), 2))] if s] + [St("return")]
            self.returned = True
        return St("", clauses=[Clause("if {0}:", [self.bexpr(2)], body)])

    # -- arrays -------------------------------------------------------------------------
    def array_stmt(self, d: int) -> St | None:
        arrays = [v for s in self.scopes for v in s.values() if v.ty.startswith("[")]
        if arrays and self.chance(0.6):
            a = self.pick(arrays)
            elem, n = a.ty[1:].split("]")
            k = self.index(int(n), 2)
            if elem in INTS and self.chance(0.5):
                return St(f"{a.name}[{{0}}] += {{1}}", [k, self.typed(self.expr(elem, d))])
            e = self.typed(self.expr(elem, d))
            if elem not in INTS:
                e = self.lim(e, a.mag)
            return St(f"{a.name}[{{0}}] = {{1}}", [k, e])
        if self.unrolled:
            return None
        elem = self.pick((self.ft, "i32", "u32", "f32", "vec3"))
        n = int(self.rng.integers(2, 7))
        name = self.fresh("arr")
        mag = CEIL["f32"] ** 0.5 if elem in FLOATS or elem in VECS else 0.0
        if arrays and self.chance(0.3):
            src = self.pick(arrays)
            self.define(name, src.ty, src.mag)
            return St(f"{name} = {src.name}", droppable=False)
        if self.chance(0.5) and elem in ("f32", "i32", "vec3"):
            items = [self.lim(self.typed(self.expr(elem, d - 1)), mag) if elem != "i32"
                     else self.typed(self.expr(elem, d - 1)) for _ in range(n)]
            self.define(name, f"[{elem}]{n}", mag)
            return St(f"{name} = [" + ", ".join(f"{{{k}}}" for k in range(n)) + "]", items,
                      droppable=False)
        self.define(name, f"[{elem}]{n}", mag)
        return St(f"{name} = ps.array({elem}, {n})", droppable=False)

    # -- outputs ------------------------------------------------------------------------
    def store(self, e: X) -> St | None:
        """Store a value's components in the exact output slots of its element type."""
        ty = e.ty
        if ty == "vec4" and self.chance(0.3):
            self.used.add("ov")
            return St("ov[i] = {0}", [e])
        if ty == "vec3" and self.chance(0.3):
            self.used.add("o3")
            return St("o3[i] = {0}", [e])
        elem = scalar_of(ty)
        buf = {"i32": "oi", "u32": "ou", "bool": "ou"}.get(elem, "of")
        n = len(components("t", ty))
        if self.slots[buf] + n > MAX_SLOTS[buf]:
            return None
        base = self.slots[buf]
        self.slots[buf] += n
        self.used.add(buf)
        if n == 1:
            return St(f"{buf}[i * @{buf}@ + {base}] = " + self.convert_out(elem, "{0}"),
                      [self.lim(e, CEIL[self.ft]) if elem in FLOATS else e])
        t = self.fresh("t")
        e = self.lim(e, CEIL[self.ft]) if elem == "f32" else e
        lines = [f"{t} = {{0}}"] + [f"{buf}[i * @{buf}@ + {base + k}] = "
                                    + self.convert_out(elem, c)
                                    for k, c in enumerate(components(t, ty))]
        return St("\n".join(lines), [e])

    def convert_out(self, elem: str, src: str) -> str:
        if elem == "bool":
            return f"u32({src})"
        if elem in FLOATS and elem != self.ft:
            return f"{self.ft}({src})"
        return src

