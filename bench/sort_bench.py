"""Benchmark: the generated bitonic-sort kernel against a hand-written one.

Both run the same bitonic network through the same pyshade runtime (one
``dev.batch()`` submission per sort, timed to ``dev.synchronize()``), side by
side in one run, on data already on the device; numpy.sort on the host is
listed for scale. Prints a short table last and writes JSON (with the command
that produced it) to ``--json``.

    python bench/sort_bench.py --device wgpu --sizes 65536 1048576 --json bench/results/x.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time

import numpy as np

import pyshade as ps
from pyshade.algorithms.sort import BitonicParams, SortOrder, bitonic_step, sort_steps
from pyshade.kernel import Spec
from pyshade.runtime.base import Compiled

HANDWRITTEN_WGSL = """
struct Params { n: u32, stage: u32, pass_of_stage: u32, order: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let partner = i ^ (1u << (p.stage - p.pass_of_stage));
    if (partner > i && partner < p.n) {
        var up = ((i >> (p.stage + 1u)) & 1u) == 0u;
        if (p.order == 1u) { up = !up; }
        let a = data[i];
        let b = data[partner];
        if ((b < a) == up) { data[i] = b; data[partner] = a; }
    }
}
"""


def run_network(dev, compiled: Compiled, buf, n: int) -> None:
    groups = ((n + 255) // 256, 1, 1)
    with dev.batch():
        for stage, pas in sort_steps(n):
            params = BitonicParams(n=n, stage=stage, pass_of_stage=pas,
                                   order=SortOrder.ASCENDING).to_numpy().tobytes()
            dev.launch_compiled(compiled, [buf], params, groups)
    dev.synchronize()


def time_it(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="wgpu")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1 << 16, 1 << 20])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    dev = ps.device(args.device)
    spec = Spec(((bitonic_step.typevars()[0], ps.u32),),
                (("cmp", bitonic_step.params[2][2]),), False)
    generated = bitonic_step.compile_spec(dev.target, spec, validate=False)
    hand = Compiled("wgsl", HANDWRITTEN_WGSL, HANDWRITTEN_WGSL, "main", generated.layout,
                    key=("handwritten-bitonic",))
    rng = np.random.default_rng()
    rows = []
    for n in args.sizes:
        x = rng.integers(0, 2**32, n, dtype=np.uint32)
        ref = np.sort(x)
        result = {"n": n}
        for name, comp in (("generated", generated), ("handwritten", hand)):
            buf = dev.array(x)
            run_network(dev, comp, buf, n)          # warm-up: pipeline creation
            assert np.array_equal(buf.numpy(), ref), f"{name} kernel sorted wrongly"
            times = []
            for _ in range(args.reps):
                buf.write(x)
                dev.synchronize()
                times += time_it(lambda: run_network(dev, comp, buf, n), 1)
            assert np.array_equal(buf.numpy(), ref)
            result[name] = statistics.median(times)
            result[name + "_all"] = times
        result["numpy"] = statistics.median(time_it(lambda: np.sort(x), args.reps))
        result["ratio"] = result["generated"] / result["handwritten"]
        rows.append(result)
    out = {"command": " ".join([sys.executable.split("/")[-1]] + sys.argv),
           "device": dev.name, "adapter": dev.adapter, "host": platform.node(),
           "python": platform.python_version(), "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    print(f"device {dev.name}: {dev.adapter}")
    print(f"{'n':>9} {'generated ms':>13} {'handwritten ms':>15} {'ratio':>6} {'numpy ms':>9}")
    for r in rows:
        print(f"{r['n']:>9} {r['generated'] * 1e3:>13.2f} {r['handwritten'] * 1e3:>15.2f} "
              f"{r['ratio']:>6.2f} {r['numpy'] * 1e3:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
