"""Differential test: random integer expression kernels run on "cpu", on
"wgpu", on every "vulkan" adapter (GLSL) and on every CUDA GPU must agree bit
for bit with each other and with a plain-Python evaluation of the same
expressions with explicit wrapping (DESIGN.md 1.1).

Each run draws fresh kernels. A failure prints the seed and the kernel source;
rerun with PYSHADE_DIFF_SEED=<seed> (and PYSHADE_DIFF_KERNELS=<count>).
PYSHADE_DIFF_DEVICES=cpu,cuda limits the run to those backends (the Python
reference is always evaluated); its names: cpu, wgpu, vulkan, vulkan-hlsl, cuda,
cuda-host and msl-host (the CUDA and MSL emissions run on the CPU by tests/cuda_host.py
and tests/msl_host.py)."""

from __future__ import annotations

import importlib.util
import os
import traceback
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    CUDA_PARAMS,
    HLSL_PARAMS,
    VULKAN_PARAMS,
    cuda_host_device,
    get_device,
    gpu_device,
    msl_host_device,
    vulkan_device,
)

import pyshade as ps

N = 256
KERNELS = int(os.environ.get("PYSHADE_DIFF_KERNELS", "40"))
TYPES = ("i32", "u32")
DTYPE = {"i32": np.int32, "u32": np.uint32}
LITS = {"i32": [0, 1, 2, 3, 5, 7, 31, 32, 100, -1, -7, 2**31 - 1, -2**31],
        "u32": [0, 1, 2, 3, 5, 7, 31, 32, 100, 2**31 - 1, 2**31, 2**32 - 1]}
EXTREMES = {"i32": [0, 1, -1, 2, -2, -2**31, 2**31 - 1, -2**31 + 1, 31, 32],
            "u32": [0, 1, 2, 2**31 - 1, 2**31, 2**32 - 1, 2**32 - 2, 31, 32]}
CMPS = ("<", "<=", ">", ">=", "==", "!=")
AUG = ("+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%")
# Reference helpers: wrapping to each type, and the bit builtins.
REF_NS = {
    "W_i32": lambda v: ((v + 2**31) & 0xFFFFFFFF) - 2**31,
    "W_u32": lambda v: v & 0xFFFFFFFF,
    "R_popcount": lambda v: (v & 0xFFFFFFFF).bit_count(),
    "R_clz": lambda v: 32 - (v & 0xFFFFFFFF).bit_length(),
    "R_rev": lambda v: int(f"{v & 0xFFFFFFFF:032b}"[::-1], 2),
}


class E:
    """A generated expression: kernel source, reference source, type, and
    whether it is a bare literal (whose type the translator infers)."""

    def __init__(self, src: str, ref: str, ty: str, bare: bool = False) -> None:
        self.src, self.ref, self.ty, self.bare = src, ref, ty, bare


def typed(e: E) -> E:
    """Give a bare literal its type with an explicit cast."""
    return E(f"{e.ty}({e.src})", e.ref, e.ty) if e.bare else e


def untangle(*es: E) -> list[E]:
    """Operands of one operation: not all bare literals (that would be i32)."""
    return [typed(es[0]), *es[1:]] if all(e.bare for e in es) else list(es)


def W(ty: str, ref: str) -> str:
    return f"W_{ty}({ref})"


class Gen:
    def __init__(self, rng: np.random.Generator, ta: str, tb: str) -> None:
        self.rng = rng
        self.vars: dict[str, list[str]] = {"i32": [], "u32": []}
        self.vars[ta].append("x")
        self.vars[tb].append("y")

    def pick(self, seq):  # noqa: ANN001, ANN201
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def lit(self, ty: str, v: int | None = None) -> E:
        v = self.pick(LITS[ty]) if v is None else v
        src = f"({v})" if v < 0 else str(v)
        return E(src, src, ty, bare=True)

    def binop(self, op: str, a: E, b: E) -> E:
        a, b = untangle(a, b)
        return E(f"({a.src} {op} {b.src})", W(a.ty, f"{a.ref} {op} {b.ref}"), a.ty)

    def call(self, fn: str, ref_fn: str, *args: E) -> E:
        args = untangle(*args)
        return E(f"{fn}({', '.join(a.src for a in args)})",
                 f"{ref_fn}({', '.join(a.ref for a in args)})", args[0].ty)

    def divisor(self, b: E) -> E:
        """Never zero: ``b | 1`` or ``max(b, 1)``."""
        if self.chance(0.7):
            return self.binop("|", b, self.lit(b.ty, 1))
        return self.call("max", "max", b, self.lit(b.ty, 1))

    def count(self, d: int) -> E:
        """A shift count in 0..31, of either type."""
        ty = self.pick(TYPES)
        return self.binop("&", self.expr(ty, d), self.lit(ty, 31))

    def leaf(self, ty: str) -> E:
        other = "u32" if ty == "i32" else "i32"
        r = self.rng.random()
        if self.vars[ty] and r < 0.6:
            v = self.pick(self.vars[ty])
            return E(v, v, ty)
        if self.vars[other] and r < 0.75:
            v = self.pick(self.vars[other])
            return E(f"{ty}({v})", W(ty, v), ty)
        return self.lit(ty)

    def expr(self, ty: str, d: int) -> E:  # noqa: C901, PLR0911
        if d <= 0 or self.chance(0.15):
            return self.leaf(ty)
        k = self.pick(("arith", "arith", "div", "shift", "bit", "bit", "unary", "minmax",
                       "abs", "select", "cast", "bits", "clamp", "pow"))
        sub = lambda: self.expr(ty, d - 1)  # noqa: E731
        if k == "arith":
            return self.binop(self.pick(("+", "-", "*")), sub(), sub())
        if k == "bit":
            return self.binop(self.pick(("&", "|", "^")), sub(), sub())
        if k == "div":
            return self.binop(self.pick(("//", "%")), sub(), self.divisor(self.expr(ty, d - 2)))
        if k == "shift":
            a, op, c = typed(sub()), self.pick(("<<", ">>")), self.count(d - 2)
            ref = f"({a.ref} >> {c.ref})" if op == ">>" else W(ty, f"{a.ref} << {c.ref}")
            return E(f"({a.src} {op} {c.src})", ref, ty)
        if k in ("unary", "abs"):
            a, op = typed(sub()), self.pick(("-", "~"))
            if k == "abs":
                return E(f"abs({a.src})", W(ty, f"abs({a.ref})"), ty)
            return E(f"({op}{a.src})", W(ty, f"{op}({a.ref})"), ty)
        if k == "minmax":
            f = self.pick(("min", "max"))
            return self.call(f, f, sub(), sub())
        if k == "clamp":                     # lo <= hi: lo > hi is not portable (README)
            v, p, q = untangle(sub(), sub(), sub())
            ps_, qs = f"{ty}({p.src})", f"{ty}({q.src})"          # typed even when literals
            pr, qr = W(ty, p.ref), W(ty, q.ref)
            return E(f"ps.clamp({v.src}, min({ps_}, {qs}), max({ps_}, {qs}))",
                     f"min(max({v.ref}, min({pr}, {qr})), max({pr}, {qr}))", ty)
        if k == "select":
            a, b = untangle(sub(), sub())
            c = self.cond(d - 1)
            if self.chance(0.3):
                return E(f"ps.select({b.src}, {a.src}, {c.src})",
                         f"({a.ref} if {c.ref} else {b.ref})", ty)
            return E(f"({a.src} if {c.src} else {b.src})", f"({a.ref} if {c.ref} else {b.ref})", ty)
        if k == "bits":
            fn, ref = self.pick((("popcount", "R_popcount"), ("count_leading_zeros", "R_clz"),
                                 ("reverse_bits", "R_rev")))
            a = typed(sub())
            return E(f"ps.{fn}({a.src})", W(ty, f"{ref}({a.ref})"), ty)
        if k == "pow":
            a, n = typed(sub()), int(self.rng.integers(0, 5))
            return E(f"({a.src} ** {n})", W(ty, f"{a.ref} ** {n}"), ty)
        a = typed(self.expr(self.pick(TYPES), d - 1))       # cast (sometimes to its own type)
        if a.ty != ty and self.chance(0.3):
            return E(f"ps.bitcast({ty}, {a.src})", W(ty, a.ref), ty)
        return E(f"{ty}({a.src})", W(ty, a.ref), ty)

    def cond(self, d: int) -> E:
        r = self.rng.random()
        if d >= 2 and r < 0.25:
            op = self.pick(("and", "or"))
            a, b = self.cond(d - 1), self.cond(d - 1)
            return E(f"({a.src} {op} {b.src})", f"({a.ref} {op} {b.ref})", "bool")
        if d >= 2 and r < 0.35:
            a = self.cond(d - 1)
            return E(f"(not {a.src})", f"(not {a.ref})", "bool")
        ty = self.pick(TYPES)
        terms = [self.expr(ty, d - 1), self.expr(ty, d - 1)]
        if r > 0.85 and self.vars[ty]:                # chained: the middle must be simple
            v = self.pick(self.vars[ty])
            terms.insert(1, E(v, v, ty))
        terms = untangle(*terms)
        src, ref = terms[0].src, terms[0].ref
        for t in terms[1:]:
            op = self.pick(CMPS)
            src, ref = f"{src} {op} {t.src}", f"{ref} {op} {t.ref}"
        return E(f"({src})", f"({ref})", "bool")

    def statements(self, out_ty: str) -> tuple[list[str], list[str]]:
        """Kernel and reference lines: 3-5 temporaries (some declared in both branches
        of an if, some updated in place), then the output."""
        ks: list[str] = []
        rs: list[str] = []
        for j in range(int(self.rng.integers(3, 6))):
            name, ty = f"t{j}", self.pick(TYPES)
            r = self.rng.random()
            if r < 0.2:
                c, a, b = self.cond(2), typed(self.expr(ty, 3)), typed(self.expr(ty, 3))
                ks += [f"if {c.src}:", f"    {name} = {a.src}", "else:", f"    {name} = {b.src}"]
                rs += [f"if {c.ref}:", f"    {name} = {a.ref}", "else:", f"    {name} = {b.ref}"]
            else:
                e = typed(self.expr(ty, 4))
                ks.append(f"{name} = {e.src}")
                rs.append(f"{name} = {e.ref}")
            self.vars[ty].append(name)
            if r > 0.7:
                op = self.pick(AUG)
                e = self.expr(ty, 2)
                if op in ("//", "%"):
                    e = self.divisor(e)
                elif op in ("<<", ">>"):
                    e = self.count(1)
                ref = f"{name} {op} {e.ref}"
                ks.append(f"{name} {op}= {e.src}")
                rs.append(f"{name} = {ref if op == '>>' else W(ty, ref)}")
        last = E(self.vars[ty][-1], self.vars[ty][-1], ty)
        if ty != out_ty:
            last = E(f"{out_ty}({last.src})", W(out_ty, last.ref), out_ty)
        e = self.binop(self.pick(("+", "^", "-")), typed(self.expr(out_ty, 3)), last)
        return ks + [f"out[i] = {e.src}"], rs + [f"return {e.ref}"]


def make_kernel(rng: np.random.Generator, ta: str, tb: str) -> tuple[str, str]:
    ks, rs = Gen(rng, ta, tb).statements(ta)
    body = "\n".join("        " + s for s in ks)
    kernel = ("import pyshade as ps\nfrom pyshade import i32, u32\n\n\n"
              "@ps.kernel(workgroup_size=64)\n"
              f"def k(a: ps.Buffer[{ta}], b: ps.Buffer[{tb}], out: ps.Buffer[{ta}]):\n"
              "    i = ps.global_id().x\n    if i < len(a):\n        x = a[i]\n        y = b[i]\n"
              f"{body}\n")
    return kernel, "def ref(x, y):\n" + "\n".join("    " + s for s in rs) + "\n"


def make_inputs(rng: np.random.Generator, ty: str) -> np.ndarray:
    """A mix of full-range values, small values and extremes."""
    info = np.iinfo(DTYPE[ty])
    full = rng.integers(info.min, int(info.max) + 1, N, dtype=np.int64)
    small = rng.integers(-40 if ty == "i32" else 0, 41, N)
    ext = rng.choice(EXTREMES[ty], N)
    kind = rng.integers(0, 3, N)
    return np.where(kind == 0, full, np.where(kind == 1, small, ext)).astype(DTYPE[ty])


def load(path: Path, name: str) -> ps.Kernel:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.k


def check_one(j: int, rng: np.random.Generator, tmp_path: Path, devs: list) -> str | None:
    """Run kernel ``j`` on every device; a report of what went wrong, or None."""
    ta, tb = TYPES[int(rng.integers(2))], TYPES[int(rng.integers(2))]
    src, ref_src = make_kernel(rng, ta, tb)
    path = tmp_path / f"diffk_{j}.py"
    path.write_text(src)
    a, b = make_inputs(rng, ta), make_inputs(rng, tb)
    ns = dict(REF_NS)
    exec(ref_src, ns)  # noqa: S102
    want = np.array([ns["ref"](int(x), int(y)) for x, y in zip(a, b)], dtype=DTYPE[ta])
    kern = load(path, f"pyshade_diffk_{j}")
    problems = []
    for dev in devs:
        try:
            out = dev.zeros(N, DTYPE[ta])
            kern.launch(dev.array(a), dev.array(b), out, threads=N, device=dev)
            got = out.numpy()
        except Exception as e:  # noqa: BLE001
            problems.append(f"{_label(dev)}: {type(e).__name__}: {e}")
            continue
        bad = np.flatnonzero(got != want)
        problems += [f"{_label(dev)}: x={a[i]} y={b[i]} got {got[i]} want {want[i]}"
                     for i in bad[:4]]
        if len(bad):
            problems.append(f"{_label(dev)}: {len(bad)}/{N} mismatches")
    if not problems:
        return None
    msg = "\n".join(problems) + f"\n--- kernel {path.name}\n{src}--- reference\n{ref_src}"
    for target in ("python", "wgsl", "glsl", "hlsl"):
        try:
            msg += f"--- {target}\n" + ps.translate(kern, target)
        except ps.PyshadeError as e:
            msg += f"--- {target}: {e}\n"
    return msg


def _label(dev: ps.Device) -> str:
    """The device's name, with the language a vulkan device compiles from."""
    via = getattr(dev, "via", None)
    label = f"{dev.name} via {via}" if via else dev.name
    adapter = str(getattr(dev, "adapter", "") or "").split(" / ")[0]
    return f"{label} ({adapter})" if adapter and dev.name != "cpu" else label


# About 75 s with CI's devices: every random kernel is compiled and run on each of them.
@pytest.mark.slow
def test_random_integer_kernels(tmp_path: Path) -> None:
    only = os.environ.get("PYSHADE_DIFF_DEVICES")   # e.g. "cpu,cuda": those backends only
    want = set(only.split(",")) if only else {"cpu", "wgpu", "vulkan", "vulkan-hlsl", "cuda",
                                             "cuda-host", "msl-host"}
    devs = [*([ps.device("cpu")] if "cpu" in want else []),
            *([get_device("wgpu")] if "wgpu" in want else []),
            *(map(vulkan_device, VULKAN_PARAMS) if "vulkan" in want else []),
            *(map(vulkan_device, HLSL_PARAMS) if "vulkan-hlsl" in want else []),
            *(map(gpu_device, CUDA_PARAMS) if "cuda" in want else []),
            *([cuda_host_device()] if "cuda-host" in want else []),
            *([msl_host_device()] if "msl-host" in want else [])]
    seed = int(os.environ.get("PYSHADE_DIFF_SEED") or np.random.SeedSequence().entropy % 2**63)
    rng = np.random.default_rng(seed)
    failures = []
    for j in range(KERNELS):
        try:
            msg = check_one(j, rng, tmp_path, devs)
        except Exception:  # noqa: BLE001
            msg = f"kernel {j}: " + traceback.format_exc()
        if msg:
            failures.append(msg)
            if len(failures) >= 3:
                break
    assert not failures, (f"PYSHADE_DIFF_SEED={seed} PYSHADE_DIFF_KERNELS={KERNELS}: "
                          f"{len(failures)} failing kernel(s)\n\n" + "\n\n".join(failures))
