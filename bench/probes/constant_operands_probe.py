"""Probe: the conformance table's cases (tools/conformance_cases.py) with literal operands
instead of loaded ones, on every device here, judged as tools/conformance.py judges the
loaded ones. A literal operand reaches the compilers' constant folders (the frontend's,
glslang's, DXC's, naga's, spirv-opt's, the driver's), which the table never exercises:
glslang folds ``roundEven(0.1)`` to -0.0 (fuzz seed 8985045185412620368 kernel 22), and
lavapipe short-cuts an operation with a constant +0.0. One kernel per case, one
statement per operand pair; prints each case and device whose verdicts differ from the
loaded run's and every element that no documented limitation explains.

    python bench/probes/constant_operands_probe.py [--devices cpu,vulkan] [--only TEXT]
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import conformance as cf  # noqa: E402
import conformance_cases as cc  # noqa: E402


def literal(v: float | int, ty: str) -> str:
    """``v`` as a kernel-language literal of type ``ty``."""
    if ty != "f32":
        return f"{ty}({int(v)})"
    if math.isnan(v):
        return "f32(math.nan)"
    if math.isinf(v):
        return "f32(math.inf)" if v > 0 else "f32(-math.inf)"
    return f"f32({float(v)!r})"


class _Sub(ast.NodeTransformer):
    def __init__(self, x: str, y: str) -> None:
        self.v = {"x": x, "y": y}

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.v:
            return ast.parse(self.v[node.id], mode="eval").body
        return node


def substituted(expr: str, x: str, y: str) -> str:
    """``expr`` with ``x`` and ``y`` replaced by the literal texts."""
    return ast.unparse(_Sub(x, y).visit(ast.parse(expr, mode="eval")))


KERNEL = '''
@ps.kernel(workgroup_size=1)
def {name}(out: ps.Buffer[{out}]) -> None:
    if ps.global_id().x == 0:
{body}
'''


def raises(case: cc.Case, x: float | int, y: float | int) -> bool:
    """Whether the reference raises for the pair (the cpu device raises as Python does)."""
    try:
        case.ref(x, y) if case.arity == 2 else case.ref(x)
    except cc.Raises:
        return True
    return False


def build(cases: list[cc.Case], folder: Path, cpu: bool) -> object:
    """A module with kernel ``k<n>`` per case; for the cpu device (``cpu``) a pair whose
    reference raises stores 0 instead (the launch would raise there)."""
    head = ["import math", "import pyshade as ps",
            "from pyshade import bvec2, f32, i32, u32, vec2, vec3"]
    parts = []
    for n, case in enumerate(cases):
        xs, ys = cf.inputs(case)
        out = "u32" if case.out == "bool" else case.out
        lines = []
        for k, (x, y) in enumerate(zip(xs, ys)):
            e = substituted(case.expr, literal(x, case.ty), literal(y, case.ty))
            v = f"u32(1) if {e} else u32(0)" if case.out == "bool" else e
            if cpu and raises(case, x, y):
                v = f"{out}(0)"
            lines.append(f"        out[{k}] = {v}")
        parts.append(KERNEL.format(name=f"k{n}", out=out, body="\n".join(lines)))
    stem = "constant_operand_kernels" + ("_cpu" if cpu else "")
    path = folder / f"{stem}.py"
    path.write_text("\n".join(head + parts))
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default=None)
    ap.add_argument("--only", default=None, help="cases whose key contains this text")
    args = ap.parse_args()
    devices = cf.available(args.devices.split(",") if args.devices else None)
    cases = [c for c in cc.cases() if args.only is None or args.only in c.key]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        mods = {False: build(cases, Path(tmp), False), True: build(cases, Path(tmp), True)}
        for n, case in enumerate(cases):
            xs, ys = cf.inputs(case)
            for name, dev in devices.items():
                kernel = getattr(mods[name == "cpu"], f"k{n}")
                label = f"{name} {dev}" if name != "cpu" else "cpu"
                try:
                    o = dev.zeros(len(xs), cf.DTYPE[case.out])
                    kernel.launch(o, threads=1, device=dev)
                    got = [float(v) if case.out == "f32" else int(v) for v in o.numpy()]
                except Exception as exc:  # noqa: BLE001 (a probe reports them all)
                    print(f"{case.key:32} {name:22} {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0][:150]}")
                    continue
                fails = []
                for x, y, g in zip(xs, ys, got):
                    if name == "cpu" and raises(case, x, y):
                        continue
                    v, err = cf.judge(case, label, x, y, g)
                    if v == "fail":
                        a = f"{x!r}, {y!r}" if case.arity == 2 else repr(x)
                        try:
                            want = case.ref(x, y) if case.arity == 2 else case.ref(x)
                        except cc.Raises as r:
                            want = f"raises/{r.gpu!r}"
                        fails.append(f"{case.label}({a}) gave {g!r} want {want!r}")
                if fails:
                    bad += 1
                    print(f"{case.key:32} {name:22} {len(fails)} fail: " + "; ".join(fails[:3]))
    print(f"{len(cases)} cases x {len(devices)} devices: {bad} cells with failures")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
