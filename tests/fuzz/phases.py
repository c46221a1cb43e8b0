"""The kernel around the random statements: parameters, input loads, the shared-memory
phase (reductions and exchanges through ``ps.shared_array`` with ``ps.barrier()`` in
uniform control flow, shared atomics), global atomics, and the final stores.

Every atomic result compared is independent of the order in which invocations ran: each
shared counter takes one commutative operation (integer add and sub, min, max, xor, or;
float add of small integers, whose partial sums are exact, and float min/max of values
with ``+ 0.0`` added, which makes ``-0.0`` a ``0.0``: Python's min keeps the first of two
zeros). The value an atomic returns is used only from a counter that one invocation
owns (``COUNTERS + i``). The shared phase comes first: a barrier may not follow a
return or a branch on an invocation id.
"""

from __future__ import annotations

from .exprs import INPUT_MAG
from .nodes import Clause, Kernel, St, X

COUNTERS = 4
INT_OPS = {"ai": ("add", "min", "max", "xor"), "au": ("add", "min", "max", "or")}
OWN_OPS = ("add", "sub", "min", "max", "and", "or", "xor", "exchange", "compare_exchange")
FLOAT_OWN_OPS = ("add", "sub", "min", "max", "exchange", "compare_exchange")
OWN_MAG = 2.0**20


class Phases:
    """Mixed into ``stmts.Gen``."""

    def atomic(self, d: int) -> St | None:
        r = self.rng.random()
        if r < 0.4:                                 # a shared integer counter
            buf = self.pick(("ai", "au"))
            ty = "i32" if buf == "ai" else "u32"
            k = int(self.rng.integers(COUNTERS))
            op = INT_OPS[buf][k]
            if op == "add" and self.chance(0.3):
                op = "sub"
            self.used.add(buf)
            return St(f"ps.atomic_{op}({buf}, {k}, {{0}})", [self.typed(self.expr(ty, d))])
        if r < 0.6:                                 # a shared float counter
            k = int(self.rng.integers(COUNTERS))
            self.used.add("af")
            e = self.expr("f32", d)
            if k in (0, 3):                         # small integers: exact partial sums
                v = X("math.floor(ps.clamp({0}, -64.0, 64.0))", "f32", [e], keep=True)
                return St(f"ps.atomic_{'add' if k == 0 else 'sub'}(af, {k}, {{0}})", [v])
            v = X("({0} + 0.0)", "f32", [e], keep=True)
            return St(f"ps.atomic_{'min' if k == 1 else 'max'}(af, {k}, {{0}})", [v])
        buf = self.pick(("ai", "au", "af"))         # this invocation's own counter
        ty = {"ai": "i32", "au": "u32", "af": "f32"}[buf]
        op = self.pick(FLOAT_OWN_OPS if buf == "af" else OWN_OPS)
        val = self.typed(self.expr(ty, d))
        if buf == "af":
            val = self.lim(val, OWN_MAG)
        args = [val]
        if op == "compare_exchange":
            exp = X(f"{buf}[{COUNTERS} + i]", ty, mag=OWN_MAG * 80) if self.chance(0.5) \
                else self.typed(self.expr(ty, d))
            args = [self.lim(exp, OWN_MAG) if buf == "af" else exp, val]
        self.used.add(buf)
        name = self.fresh("old")
        call = f"ps.atomic_{op}({buf}, {COUNTERS} + i, " + ", ".join(
            f"{{{k}}}" for k in range(len(args))) + ")"
        if self.chance(0.3):
            return St(call, args)
        self.define(name, ty, OWN_MAG * 80 if buf == "af" else 0.0)
        return St(f"{name} = " + call, args, droppable=False)

    # -- the shared-memory phase --------------------------------------------------------
    def shared_phase(self) -> list[St]:
        """One to three uses of workgroup-shared memory, each ending at a barrier."""
        out = [St("li = ps.local_index()", droppable=False, pinned=True)]
        self.define("li", "u32", mutable=False)
        for _ in range(int(self.rng.integers(1, 4))):
            out += self.pick((self.tree_reduce, self.exchange, self.shared_counters,
                              self.serial_sum))()
        return out

    def shared_init(self, sh: str, ty: str, n: int) -> list[St]:
        """Every element of a new shared array written (a zero), then a barrier: no
        later read, whatever the shrinker drops, reads an element nobody wrote. Pinned:
        the shrinker keeps both."""
        zero = {"i32": "i32(0)", "u32": "u32(0)", "f32": "0.0", "vec2": "vec2(0.0)"}.get(
            ty, f"{ty}(0.0)")
        put = St(f"{sh}[li] = {zero}", droppable=False, pinned=True)
        if n < self.wg:
            put = St("", clauses=[Clause(f"if li < u32({n}):", [], [put])], droppable=False,
                     pinned=True)
        return [put, St("ps.barrier()", droppable=False, pinned=True)]

    def shared_value(self, ty: str, m: float) -> X:
        e = self.typed(self.expr(ty, 2))
        return self.lim(e, m) if ty not in ("i32", "u32") else e

    def tree_reduce(self) -> list[St]:
        """A sum over the workgroup by halving strides, a barrier after each step."""
        ty = self.pick((self.ft, "i32", "u32"))
        sh, s = self.fresh("sh"), self.fresh("s")
        m = INPUT_MAG * 8
        seed = self.shared_value(ty, m)
        out = [St(f"{sh} = ps.shared_array({ty}, {self.wg})", droppable=False, pinned=True),
               *self.shared_init(sh, ty, self.wg),
               St(f"{sh}[li] = {{0}}", [seed], droppable=False),
               St("ps.barrier()", droppable=False),
               St(f"{s} = u32({self.wg // 2})", droppable=False),
               St("", clauses=[Clause(f"while {s} > u32(0):", [], [
                   St("", clauses=[Clause(f"if li < {s}:", [], [
                       St(f"{sh}[li] += {sh}[li + {s}]", droppable=False)])], droppable=False),
                   St("ps.barrier()", droppable=False),
                   St(f"{s} = {s} // u32(2)", droppable=False)])], droppable=False)]
        red = self.fresh("red")
        out.append(St(f"{red} = {sh}[0]", droppable=False))
        self.define(red, ty, m * self.wg if ty not in ("i32", "u32") else 0.0)
        self.readable[sh] = (ty, m * self.wg)
        return out

    def exchange(self) -> list[St]:
        """Each invocation writes its element, then reads a neighbour's, for a few rounds;
        a barrier between the reads and the next round's writes."""
        ty = self.pick((self.ft, "f32", "i32", "vec2", "u32"))
        sh = self.fresh("sh")
        m = INPUT_MAG * 64
        nb = self.fresh("nb")
        rounds = int(self.rng.integers(1, 3))
        body = [St(f"{sh}[li] = {{0}}", [self.shared_value(ty, m)], droppable=False),
                St("ps.barrier()", droppable=False),
                St(f"{nb} = {sh}[(li + u32({{0}} % {self.wg})) % u32({self.wg})]",
                   [self.typed(self.expr("u32", 1))], droppable=False),
                St("ps.barrier()", droppable=False)]
        out = [St(f"{sh} = ps.shared_array({ty}, {self.wg})", droppable=False, pinned=True),
               *self.shared_init(sh, ty, self.wg),
               St(f"{nb} = {self.lit(ty).src()}", droppable=False)]
        self.define(nb, ty, m if ty not in ("i32", "u32") else 0.0)
        if rounds == 1:
            return out + body
        r = self.fresh("r")
        return out + [St("", clauses=[Clause(f"for {r} in range({rounds}):", [], body)],
                         droppable=False)]

    def shared_counters(self) -> list[St]:
        """Shared atomics, one commutative operation per counter, read after a barrier."""
        sa = self.fresh("sa")
        ty = self.pick(("i32", "u32", "f32"))
        ops = {"i32": ("add", "max", "min", "xor"), "u32": ("add", "or", "max", "min"),
               "f32": ("add", "min", "max", "sub")}[ty]
        out = [St(f"{sa} = ps.shared_array({ty}, 4)", droppable=False, pinned=True),
               St("", clauses=[Clause("if li < u32(4):", [], [
                   St(f"{sa}[li] = {self.lit(ty).src()}", droppable=False, pinned=True)])],
                  droppable=False, pinned=True),
               St("ps.barrier()", droppable=False, pinned=True)]
        for _ in range(int(self.rng.integers(1, 4))):
            k = int(self.rng.integers(4))
            e = self.typed(self.expr(ty, 2))
            if ty == "f32":
                e = X("math.floor(ps.clamp({0}, -64.0, 64.0))" if ops[k] in ("add", "sub")
                      else "({0} + 0.0)", ty, [self.lim(e, OWN_MAG)], keep=True)
            st = St(f"ps.atomic_{ops[k]}({sa}, {k}, {{0}})", [e])
            if self.chance(0.4):
                st = St("", clauses=[Clause("if {0}:", [self.bexpr(2)], [st])])
            out.append(st)
        out.append(St("ps.barrier()", droppable=False))
        c = self.fresh("c")
        out.append(St(f"{c} = {sa}[{int(self.rng.integers(4))}]", droppable=False))
        self.define(c, ty, OWN_MAG if ty == "f32" else 0.0)
        return out

    def serial_sum(self) -> list[St]:
        """Invocation 0 sums the workgroup's elements in order and shares the total."""
        ty = self.pick((self.ft, "i32"))
        sh, tot, acc, j = self.fresh("sh"), self.fresh("sh"), self.fresh("acc"), self.fresh("j")
        m = INPUT_MAG * 8
        zero = "0" if ty == "i32" else self.flit(ty, 0.0).src()
        out = [St(f"{sh} = ps.shared_array({ty}, {self.wg})", droppable=False, pinned=True),
               St(f"{tot} = ps.shared_array({ty}, 1)", droppable=False, pinned=True),
               *self.shared_init(sh, ty, self.wg)[:1], *self.shared_init(tot, ty, 1),
               St(f"{sh}[li] = {{0}}", [self.shared_value(ty, m)], droppable=False),
               St("ps.barrier()", droppable=False),
               St("", clauses=[Clause("if li == u32(0):", [], [
                   St(f"{acc} = {zero}", droppable=False),
                   St("", clauses=[Clause(f"for {j} in range({self.wg}):", [], [
                       St(f"{acc} += {sh}[{j}]", droppable=False)])], droppable=False),
                   St(f"{tot}[0] = {acc}", droppable=False)])], droppable=False),
               St("ps.barrier()", droppable=False)]
        red = self.fresh("red")
        out.append(St(f"{red} = {tot}[0]", droppable=False))
        self.define(red, ty, m * self.wg if ty != "i32" else 0.0)
        return out

    # -- the kernel ---------------------------------------------------------------------
    def kernel(self, wg: int, groups: int = 2) -> Kernel:
        self.wg = wg
        ft = self.ft
        self.readable = {"xf": (ft, INPUT_MAG), "xi": ("i32", 0.0), "xu": ("u32", 0.0)}
        if self.chance(0.5):
            self.readable["xv"] = ("vec4", INPUT_MAG)
        if self.chance(0.3):
            self.readable["x3"] = ("vec3", INPUT_MAG)
        for k in range(int(self.rng.integers(0, 3))):
            self.helper(k)
        body = [St("i = ps.global_id().x", droppable=False)]
        self.define("i", "u32", mutable=False)
        if self.chance(0.45):
            body += self.shared_phase()
        loads = [("x0", "xf[2 * i]", ft, INPUT_MAG), ("x1", "xf[2 * i + 1]", ft, INPUT_MAG),
                 ("n0", "xi[i]", "i32", 0.0), ("u0", "xu[i]", "u32", 0.0)]
        loads += [(n, f"{b}[i]", t, INPUT_MAG) for n, b, t in (("v0", "xv", "vec4"),
                                                               ("w0", "x3", "vec3"))
                  if b in self.readable]
        for name, src, ty, mag in loads:
            body.append(St(f"{name} = {src}", droppable=False))
            self.define(name, ty, mag)
        for name, ty in (("s0", "f32"), ("s1", "i32"), ("s2", "u32")):
            self.define(name, ty, INPUT_MAG, mutable=False)
        main = self.block(int(self.rng.integers(3, 9)), 3, push=False)
        for v in list(self.scopes[0].values())[-4:]:
            if not v.ty.startswith("["):
                st = self.store(X(v.name, v.ty, mag=v.mag))
                if st is not None:
                    main.append(st)
        if self.chance(0.2):            # a bound check that always holds
            main = [St("", clauses=[Clause("if i < len(xu):", [], main)], droppable=False)]
        body += main
        n = wg * groups
        params = [("xf", f"ps.Buffer[{ft}]"), ("xi", "ps.Buffer[i32]"), ("xu", "ps.Buffer[u32]"),
                  ("xv", "ps.Buffer[vec4]"), ("x3", "ps.Buffer[vec3]"),
                  ("of", f"ps.Buffer[{ft}]"), ("oi", "ps.Buffer[i32]"),
                  ("ou", "ps.Buffer[u32]"), ("ot", "ps.Buffer[f32]"),
                  ("ov", "ps.Buffer[vec4]"), ("o3", "ps.Buffer[vec3]"),
                  ("ai", "ps.Buffer[i32]"), ("au", "ps.Buffer[u32]"), ("af", "ps.Buffer[f32]"),
                  ("s0", "f32"), ("s1", "i32"), ("s2", "u32"), ("mode", self.enum)]
        meta = {"ft": ft, "wg": wg, "groups": groups, "n": n, "slots": dict(self.slots),
                "counters": COUNTERS, "sinks": self.sinks, "table": list(self.table)}
        return Kernel(self.name, wg, params, body, list(self.helpers), meta)
