"""The conformance table: every operator, builtin and conversion of the kernel language
on scalars (``tools/conformance_cases.py``), on the edge values of each type, on every
device here, against a Python reference; written to ``docs/conformance.md``.

    python tools/conformance.py                  # run on every device here, print a summary
    python tools/conformance.py --write          # ... and rewrite docs/conformance.md
    python tools/conformance.py --devices cpu,vulkan

Each cell says how a device's results compare with the reference: ``exact`` (every bit,
all NaNs alike, -0.0 apart from 0.0), ``<= N ulp`` (the largest error measured, within
the function's bound in ``ULP``), ``raises`` where Python raises and the cpu device must
too, and letters for the documented target limitations (``LIMITS``) that explain a
difference. Anything else is ``FAIL``: ``tests/test_conformance.py`` runs this on the
devices of the test machine and fails on it.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import math
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "conformance.md"
sys.path.insert(0, str(Path(__file__).resolve().parent))
import conformance_cases as cc  # noqa: E402

import pyshade as ps  # noqa: E402

DTYPE = {"i32": np.int32, "u32": np.uint32, "f32": np.float32, "bool": np.uint32}
RAISED = object()       # the cpu device raised for this element

# The ulp bound of each math function on a GPU: the loosest of the targets' specs where a
# spec gives one in ulp (Vulkan's "Precision and Operation of SPIR-V Instructions", WGSL
# section 15.4 "Floating Point Evaluation", CUDA's "Mathematical Functions" appendix),
# otherwise the largest error measured on the devices in docs/conformance.md, rounded up.
# The cpu device computes in binary64 and rounds once: 0.5 ulp plus libm's error.
ULP: dict[str, float] = {
    "divide": 2.5, "sqrt": 3.0, "step": 0.0,
    # Vulkan and WGSL: atan and atan2 4096 ulp, asin and acos inherited from atan2.
    "sin": 4.0, "cos": 4.0, "tan": 8.0, "asin": 4096.0, "acos": 4096.0, "atan": 4096.0,
    "atan2": 4096.0, "sinh": 4.0, "cosh": 4.0, "tanh": 4.0, "asinh": 4.0, "acosh": 4.0,
    "atanh": 4.0, "exp": 4.0, "exp2": 4.0, "expm1": 4.0, "log": 4.0, "log2": 4.0,
    "log10": 4.0, "log1p": 4.0, "degrees": 1.5, "radians": 1.5, "erf": 4.0, "erfc": 8.0,
    "pow": 16.0, "hypot": 3.0, "fmod": 0.0,
}
CPU_ULP = 0.5 + 1e-6


@dataclass
class Limit:
    """A documented target limitation: ``applies`` says whether it explains a result."""

    letter: str
    text: str
    applies: Callable[..., bool]


def _sub(v: Any) -> bool:
    return isinstance(v, float) and v != 0 and math.isfinite(v) and abs(v) < cc.F32_TINY


def _flush(v: Any) -> Any:
    return math.copysign(0.0, v) if _sub(v) else v


def _same(exp: Any, got: Any) -> bool:
    if isinstance(exp, bool) or isinstance(got, bool):
        return int(exp) == int(got)
    if isinstance(exp, float) or isinstance(got, float):
        exp, got = float(exp), float(got)
        if math.isnan(exp) or math.isnan(got):
            return math.isnan(exp) and math.isnan(got)
        return exp == got and math.copysign(1, exp) == math.copysign(1, got)
    return exp == got


def spacing(exact: float) -> float:
    """The binary32 spacing at ``exact`` (an ulp; the smallest subnormal at zero)."""
    return float(np.spacing(np.float32(abs(cc.f32(exact)) or cc.F32_SUB)))


def ulps(exact: float, got: float) -> float:
    """``|got - exact|`` in units of the binary32 spacing at ``exact`` (inf if a special
    value differs)."""
    if _same(cc.f32(exact), got):
        return 0.0
    if not (math.isfinite(exact) and math.isfinite(got)):
        return math.inf
    return abs(got - exact) / spacing(exact)


def _tiny(v: Any) -> bool:
    return isinstance(v, float) and v != 0 and math.isfinite(v) and abs(v) < 16 * cc.F32_TINY


def _ftz(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    if dev == "cpu" or case.ty != "f32":
        return False
    if _sub(exp) and isinstance(got, float) and (got == 0 or _sub(got)):
        return True
    if case.kind != "exact" and any(_tiny(v) for v in (a, b, exp)[:case.arity] + (exp,)):
        return True     # a math function's intermediate near the smallest normal, flushed
    if case.label in ("x // y", "x % y") and _sub(cc.f32(cc.ieee(np.divide, a, b))):
        return True     # the quotient a / b is subnormal and may be flushed
    if not (_sub(a) or _sub(b)):
        return False
    try:
        flushed = case.ref(_flush(a), _flush(b)) if case.arity == 2 else case.ref(_flush(a))
    except cc.Raises as r:
        flushed = r.gpu
    # a driver may flush an operand in one operation and not in another: SwiftShader's
    # select(x, y, x < y) compares a flushed -1.1e-38 but passes its bits through
    return _same(_flush(flushed), got) or _same(flushed, got) or \
        _same(_flush(flushed), _flush(got))


def _undefined(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    if dev == "cpu" or case.kind == "exact":
        return False
    nan = any(isinstance(v, float) and math.isnan(v) for v in (a, b)[:case.arity])
    k = case.kind
    domain = (k in ("log", "log2") and a <= 0 or k == "sqrt" and a < 0
              or k in ("asin", "acos") and abs(a) > 1 or k == "atan2" and a == 0 and b == 0)
    return nan or domain or _sub(a) or _sub(b)


def _division_range(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    if dev == "cpu" or case.label not in ("x / y", "x // y", "x % y") or \
            not isinstance(b, float) or not math.isfinite(b) or b == 0:
        return False
    big_q = case.label != "x / y" and abs(cc.ieee(np.divide, a, b)) > 2.0 ** 24
    return big_q or not 2.0 ** -126 <= abs(b) <= 2.0 ** 126


def _contracted(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    return dev.startswith("wgpu") and case.label in ("x // y", "x % y")


def _swiftshader_atan2(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    return "swiftshader" in dev.lower() and case.kind == "atan2" and a == 0 and \
        math.copysign(1, a) < 0


def _overflow(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    return dev != "cpu" and case.kind != "exact" and isinstance(got, float) and \
        math.isinf(got) and math.isfinite(exp) and abs(exp) > cc.F32_MAX / 2 and \
        math.copysign(1, got) == math.copysign(1, exp)


def _trig(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    if dev == "cpu" or case.kind not in ("sin", "cos", "tan"):
        return False
    if not abs(a) <= math.pi:
        return True
    # inside [-pi, pi]: an absolute error of 2^-11 (tan: inherited from sin / cos)
    scale = 1 + exp * exp if case.kind == "tan" else 1.0
    return math.isfinite(got) and abs(got - exp) <= 2.0 ** -11 * scale


def _formula(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    if dev == "cpu" or case.kind not in cc.INHERITED:
        return False
    ops = (a, b)[:case.arity]
    if any(math.isinf(v) for v in ops):
        return True
    # another order of the formula's steps may overflow where the reference does not,
    # or the reverse: an operand whose square or sum passes the largest f32
    return any(abs(v) > math.sqrt(cc.F32_MAX) for v in ops) or math.isinf(exp)


def _fma_twice(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    if dev == "cpu" or not case.label.startswith("ps.fma("):
        return False
    twice = cc.f32(cc.f32(cc.ieee(np.multiply, a, b)) + cc.FMA_C)
    return _same(twice, got)


def _wgsl_nan_zero(case: cc.Case, dev: str, a: Any, b: Any, exp: Any, got: Any) -> bool:
    ops = (a, b)[:case.arity]
    nan = any(isinstance(v, float) and math.isnan(v) for v in ops)
    zeros = isinstance(exp, float) and isinstance(got, float) and exp == 0 and got == 0
    return dev.startswith("wgpu") and case.kind == "exact" and (nan or zeros)


LIMITS = [
    Limit("F", "A GPU may flush a subnormal f32 operand or result to zero (Vulkan, WGSL "
          "and Metal allow it; SPIR-V's DenormPreserve is not asked for).", _ftz),
    Limit("N", "A math builtin on a GPU given a NaN or a subnormal operand, or outside "
          "the domain where GLSL.std.450 and WGSL define it (log and log2 of x <= 0, sqrt "
          "of x < 0, asin and acos of |x| > 1, atan2(0, 0)), may give another value: Vulkan "
          "does not require NaN to propagate through builtins; SwiftShader's log(0) is "
          "-88.03 and log(-1) 0.0, and lavapipe's log reads a subnormal as 2^-127.",
          _undefined),
    Limit("D", "Division by |y| above 2^126 (or below 2^-126): Vulkan and WGSL bound x / y "
          "(2.5 ulp) only for 2^-126 <= |y| <= 2^126; NVIDIA's 1e10 / 3.4e38 is 0.0. "
          "Float // and %, which divide, follow; so do they for a quotient above 2^24, "
          "where a division off by an ulp (Vulkan allows 2.5) cannot be corrected by "
          "+-1 (NVIDIA's 1e10 // 3.0 is 3333333504.0, the f32 quotient 3333333248.0).",
          _division_range),
    Limit("C", "WGSL cannot forbid contraction: float // and % compute a - q * b, which "
          "the driver may fuse (NVIDIA: 1e10 % 3.0 is -512.0, not 0.0).", _contracted),
    Limit("S", "SwiftShader's atan2 of y = -0.0 gives the result for the other sign of x "
          "(atan2(-0.0, 1.0) is pi); a driver fault, lavapipe and the cpu give -0.0.",
          _swiftshader_atan2),
    Limit("O", "A math builtin on a GPU may overflow to infinity where the exact result is "
          "within its ulp bound of the largest f32 (pow(3.4028235e38, 1.0)).", _overflow),
    Limit("T", "sin, cos and tan: the Vulkan and WGSL specs bound their error only inside "
          "[-pi, pi], as an absolute error of 2^-11 (tan's inherited from sin / cos), "
          "not in ulp; SwiftShader's sin(1.0) is 0.84149003 (the f32 result is "
          "0.84147096), and outside that range a GPU gives other values.", _trig),
    Limit("I", "mix, smoothstep, dot, cross, length, distance and normalize: Vulkan and "
          "WGSL give them the precision inherited from their formulas (the ulp column "
          "shows the largest error measured, within the formula's absolute bound below); "
          "with an infinite operand, or one above sqrt(f32 max) = 1.8e19 whose square or "
          "sum a GPU's order of the steps may overflow, the result may differ "
          "(SwiftShader's mix is a + (b - a) * t: mix(f32 max, -f32 max, 0.25) is -inf, "
          "the formula's 1.7e38).", _formula),
    Limit("R", "fma may round the product and the sum apart: Vulkan and WGSL give fma the "
          "precision of a multiply followed by an add; lavapipe and SwiftShader do so on "
          "every route (the cpu device and CUDA round once).", _fma_twice),
    Limit("W", "WGSL lets an implementation ignore the sign of a zero and assume that no "
          "NaN is present, and has no counterpart of the SignedZeroInfNanPreserve that "
          "the vulkan device declares: through wgpu, NVIDIA computes ps.select(x, y, x < y) "
          "as max(x, y), so a NaN x gives y and x = -0.0, y = 0.0 gives 0.0 "
          "(bench/results/nvidia_issue16_20261205_h100.txt).", _wgsl_nan_zero),
]


def _bound(case: cc.Case, dev: str, a: Any, b: Any, exp: Any = 0.0) -> float:
    if case.kind in cc.INHERITED:
        if dev == "cpu" or _sub(float(exp)):   # the cpu device computes the reference's
            return 0.0      # formula; a subnormal result is held to `F`, not the bound
        # the formula's absolute bound, in ulp of the reference
        tol = cc.INHERITED[case.kind][1](a, b if case.arity == 2 else 0.0, float(exp))
        return tol / spacing(exp)
    if dev == "cpu":
        return CPU_ULP if case.kind != "exact" else 0.0
    if case.kind in ("exp", "exp2") and math.isfinite(a):
        return max(ULP[case.kind], 3 + 2 * abs(a))      # Vulkan, WGSL: 3 + 2|x| ulp
    if case.kind == "pow" and math.isfinite(a) and math.isfinite(b) and a != 0:
        # inherited from exp2(y * log2(x)) (Vulkan, WGSL), with log2's error scaled by y
        return max(ULP["pow"], 16 + 4 * abs(b * math.log2(abs(a))))
    return ULP.get(case.kind, 0.0)


def judge(case: cc.Case, dev: str, a: Any, b: Any, got: Any) -> tuple[str, float]:
    """The verdict for one element: ("exact" | "ulp" | "raises" | a limit's letter |
    "fail", the ulp error)."""
    try:
        exp = case.ref(a, b) if case.arity == 2 else case.ref(a)
        raised = None
    except cc.Raises as r:
        raised, exp = r, r.gpu
    if got is RAISED:
        return ("raises", 0.0) if raised is not None and dev == "cpu" else ("fail", math.inf)
    if raised is not None:
        if dev == "cpu":
            return "fail", math.inf
        if exp is None:
            return "exact", 0.0
    if case.out == "f32":
        err = ulps(float(exp), float(got)) if case.kind != "exact" else \
            (0.0 if _same(cc.f32(float(exp)), float(got)) else math.inf)
    else:
        err = 0.0 if _same(exp, got) else math.inf
    if err == 0.0:
        return "exact", 0.0
    if err <= _bound(case, dev, a, b, exp):
        return "ulp", err
    for lim in LIMITS:
        if lim.applies(case, dev, a, b, exp, got):
            return lim.letter, err
    return "fail", err


KERNEL = '''
@ps.kernel(workgroup_size=64)
def {name}(out: ps.Buffer[{out}], a: ps.Buffer[{ty}], b: ps.Buffer[{ty}]) -> None:
    i = ps.global_id().x
    if i < len(out):
        x = a[i]
        y = b[i]
        out[i] = {value}
'''


def build(cases: list[cc.Case], folder: Path) -> Any:
    """One module holding a kernel per case (pyshade reads kernels from source files)."""
    parts = ["import math", "import pyshade as ps",
             "from pyshade import bvec2, f32, i32, u32, vec2, vec3"]
    for n, case in enumerate(cases):
        value = f"u32(1) if {case.expr} else u32(0)" if case.out == "bool" else case.expr
        out = "u32" if case.out == "bool" else case.out
        parts.append(KERNEL.format(name=f"k{n}", out=out, ty=case.ty, value=value))
    path = folder / "conformance_kernels.py"
    path.write_text("\n".join(parts))
    spec = importlib.util.spec_from_file_location("conformance_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inputs(case: cc.Case) -> tuple[list, list]:
    """The operand pairs of a case: each edge value with each second operand."""
    edges = cc.EDGES[case.ty]
    if case.arity == 1:
        return list(edges), [edges[0]] * len(edges)
    ys = case.ys if case.ys is not None else edges
    return [x for x in edges for _ in ys], [y for _ in edges for y in ys]


def _launch(kernel: Any, dev: ps.Device, case: cc.Case, xs: list, ys: list) -> list:
    dt = DTYPE[case.ty]
    a, b = np.array(xs, dt), np.array(ys, dt)
    out = np.zeros(len(xs), DTYPE[case.out])
    kernel.launch(out, a, b, threads=len(xs), device=dev)
    if case.out == "f32":
        return [float(v) for v in out]
    return [int(v) for v in out]


def run_case(kernel: Any, dev: ps.Device, name: str, case: cc.Case) -> list:
    """The device's result for every operand pair; on the cpu device an element whose
    launch raises (as Python does) is ``RAISED``."""
    xs, ys = inputs(case)
    try:
        return _launch(kernel, dev, case, xs, ys)
    except Exception:
        if name != "cpu":
            raise
    got = []
    for x, y in zip(xs, ys):
        try:
            got.extend(_launch(kernel, dev, case, [x], [y]))
        except Exception:
            got.append(RAISED)
    return got


@dataclass
class Cell:
    """The verdicts of one case on one device."""

    counts: dict[str, int]
    worst: float
    failures: list[str]

    def text(self) -> str:
        """The table cell."""
        if self.counts.get("error"):
            return "FAIL (error)"
        if self.failures:
            return f"FAIL {len(self.failures)}"
        head = f"<= {self.worst:.2g} ulp" if self.counts.get("ulp") else "exact"
        marks = [k for k in self.counts if k not in ("exact", "ulp")]
        return " ".join([head, *sorted(marks)])


def run(devices: dict[str, ps.Device], cases: list[cc.Case] | None = None
        ) -> dict[str, dict[str, Cell]]:
    """Every case on every device: ``{case.key: {device name: Cell}}``."""
    cases = cases if cases is not None else cc.cases()
    table: dict[str, dict[str, Cell]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        mod = build(cases, Path(tmp))
        for n, case in enumerate(cases):
            row = table.setdefault(case.key, {})
            kernel = getattr(mod, f"k{n}")
            xs, ys = inputs(case)
            for name, dev in devices.items():
                label = f"{name} {dev}"     # the adapter too, for a driver's limitation
                try:
                    got = run_case(kernel, dev, name, case)
                except Exception as exc:   # a device error is a failure of its own
                    row[name] = Cell({"error": 1}, 0.0, [f"{type(exc).__name__}: {exc}"])
                    continue
                counts: dict[str, int] = {}
                worst, fails = 0.0, []
                for x, y, g in zip(xs, ys, got):
                    v, err = judge(case, label if name != "cpu" else "cpu", x, y, g)
                    counts[v] = counts.get(v, 0) + 1
                    if v == "ulp":
                        worst = max(worst, err)
                    if v == "fail":
                        args = f"{x!r}, {y!r}" if case.arity == 2 else repr(x)
                        fails.append(f"{case.label}({args}) gave {g!r}")
                row[name] = Cell(counts, worst, fails)
    return table


def available(names: list[str] | None = None) -> dict[str, ps.Device]:
    """The devices here, each adapter apart: ``cpu``, ``wgpu <driver>``, ``vulkan <driver>``,
    ``vulkan-hlsl <driver>`` and ``cuda``; ``names`` keeps those whose kind (the first word)
    it lists. With ``VK_DRIVER_FILES`` naming two ICD files both drivers are here."""
    found: dict[str, ps.Device] = {}

    def add(name: str, make: Callable[[], ps.Device]) -> None:
        if names is None or name.split()[0] in names:
            try:
                found[name] = make()
            except Exception as exc:    # a missing backend: the page lists what ran
                print(f"{name}: unavailable ({type(exc).__name__}: {exc})", file=sys.stderr)

    add("cpu", lambda: ps.device("cpu"))
    try:
        from pyshade.runtime.wgpu import adapter_label, list_adapters
        for i, a in enumerate(list_adapters()):
            if a.info.get("backend_type") == "Vulkan":
                add(f"wgpu {adapter_label(a).split()[0].lower()}",
                    lambda i=i: ps.device(f"wgpu:{i}"))
    except Exception as exc:
        print(f"wgpu: unavailable ({exc})", file=sys.stderr)
    try:
        from pyshade.runtime.vulkan_support import list_adapters as vk_adapters
        for i, a in enumerate(vk_adapters()):
            short = a.name.split()[0].lower()
            add(f"vulkan {short}", lambda i=i: ps.device(f"vulkan:{i}"))
            add(f"vulkan-hlsl {short}", lambda i=i: ps.device(f"vulkan:{i}", via="hlsl"))
    except Exception as exc:
        print(f"vulkan: unavailable ({exc})", file=sys.stderr)
    add("cuda", lambda: ps.device("cuda"))
    return found


def render(table: dict[str, dict[str, Cell]], adapters: dict[str, str], command: str) -> str:
    """The markdown page."""
    devs = list(next(iter(table.values())).keys())
    lines = [
        "<!-- Generated by tools/conformance.py --write: do not edit by hand. -->",
        "# Conformance table", "",
        "Every operator, builtin and conversion of the kernel language on `i32`, `u32` and "
        "`f32` scalars, on each type's edge values (0, 1, -1, min, max, NaN, +-inf, "
        "subnormals, -0.0; shift counts 0, 1 and 31; every pair of them for two operands), "
        "on each device, against a reference computed in Python with the rules of "
        "[the kernel language](language.md#typing-rules). Vectors apply the same scalar rule "
        "per component; the builtins of vectors (`dot`, `cross`, `length`, `distance`, "
        "`normalize`, `any`, `all`) take vectors made of the operands.", "",
        "- `exact`: every result has the reference's bits (all NaNs alike, -0.0 apart from "
        "0.0).",
        "- `<= N ulp`: the largest error measured, within the function's bound (below).",
        "- `raises`: Python raises there (`7 // 0`, `math.log10(-1.0)`), and so does the cpu "
        "device; a GPU gives the value the docs promise.",
    ]
    lines += [f"- `{lim.letter}`: {lim.text}" for lim in LIMITS]
    lines += ["", f"Made by `{command}` on {datetime.date.today()} "
              f"({platform.machine()}, Python {platform.python_version()}); the devices:", ""]
    lines += [f"- `{d}`: {adapters.get(d, d)}" for d in devs]
    lines += ["", "| case | " + " | ".join(devs) + " |", "|---|" + "---|" * len(devs)]
    for key, row in table.items():
        lines.append(f"| `{key}` | " + " | ".join(row[d].text() for d in devs) + " |")
    lines += ["", "## Ulp bounds on a GPU", "",
              "The largest error in ulp a GPU device may give, per function: the loosest "
              "of the targets' specs where a spec states one in ulp, else the largest error "
              "measured on the devices above, rounded up. The cpu device computes in "
              "binary64 and rounds once (0.5 ulp).", "",
              "| function | ulp |", "|---|---|"]
    lines += [f"| `{k}` | {v:g} |" for k, v in ULP.items()]
    lines += ["", "The builtins defined by a formula (`I` above) are held to an absolute "
              "bound made from the formula's operations: a sum of n rounded products "
              "within 2 (n + 1) u sum |a_i b_i| (u = 2^-24), a square root or division a "
              "few u relative, plus the result's ulp (`tools/conformance_cases.INHERITED`). "
              "The reference is the formula with every operation rounded to f32, which "
              "the cpu device, CUDA and MSL compute.", "",
              "| function | formula |", "|---|---|"]
    lines += [f"| `{k}` | `{f}` |" for k, (f, _) in cc.INHERITED.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line: run, print failures, optionally rewrite the page."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", help="comma-separated: cpu,wgpu,vulkan,vulkan-hlsl,cuda")
    ap.add_argument("--write", action="store_true", help="rewrite docs/conformance.md")
    args = ap.parse_args(argv)
    devices = available(args.devices.split(",") if args.devices else None)
    t0 = time.perf_counter()
    table = run(devices)
    fails = [(k, d, c) for k, row in table.items() for d, c in row.items()
             if c.failures or c.counts.get("error")]
    for key, dev, cell in fails:
        print(f"FAIL {key} on {dev}: " + "; ".join(cell.failures[:4]))
    print(f"{len(table)} cases x {len(devices)} devices in {time.perf_counter() - t0:.1f} s; "
          f"{len(fails)} failing cells")
    if args.write:
        adapters = {n: str(d) for n, d in devices.items()}
        cmd = "python tools/conformance.py --write" + \
            (f" --devices {args.devices}" if args.devices else "")
        PAGE.write_text(render(table, adapters, cmd))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
