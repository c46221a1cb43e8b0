"""Probe: the largest error, in ulp, of each math function of tests/golden/math_more.py on
one device, over many more inputs than tests/test_exec_math.py draws (the same domains and
metric: |got - exact| / spacing(f32(exact)), exact in float64; subnormal results left out,
since a GPU may flush them). The bounds of that test and the table of docs/language.md
come from this.

    python bench/probes/math_ulp_probe.py cpu wgpu vulkan vulkan-hlsl cuda-host msl-host
    python bench/probes/math_ulp_probe.py cuda                # on the H200
"""

from __future__ import annotations

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

import test_exec_math as T  # noqa: E402

import pyshade as ps  # noqa: E402


def device(name: str) -> ps.Device:
    if name == "cuda-host":
        from cuda_host import CudaHostDevice
        return CudaHostDevice()
    if name == "msl-host":
        from msl_host import MslHostDevice
        return MslHostDevice()
    if name.startswith("vulkan-hlsl"):
        return ps.device("vulkan" + name[len("vulkan-hlsl"):], via="hlsl")
    return ps.device(name)


def worst(dev: ps.Device, n: int, rounds: int) -> dict:
    out: dict = {}
    rng = np.random.default_rng(18)
    for _ in range(rounds):
        x, y = T.domains(rng, n)
        xs, ys = T.table(x, y)
        got = T.run_scalars(dev, xs, ys)
        for k, name in enumerate(T.FUNCS):
            exact = T.exact_of(name, xs[:, k], ys[:, k])
            normal = ~((np.abs(exact) < 2.0 ** -126) & (exact != 0))
            e = T.ulp_errors(got[:, k], exact)[normal]
            i = int(np.argmax(e))
            if e[i] >= out.get(name, (-1.0,))[0]:
                out[name] = (float(e[i]), float(xs[normal, k][i]), float(ys[normal, k][i]))
    return out


def main() -> None:
    names = sys.argv[1:] or ["cpu"]
    n = int(os.environ.get("PROBE_N", "2000"))
    rounds = int(os.environ.get("PROBE_ROUNDS", "4"))
    for name in names:
        try:
            dev = device(name)
            found = worst(dev, n, rounds)
        except Exception as e:      # a device this machine lacks: say so, go on
            print(f"== {name}: unavailable ({type(e).__name__}: {e})", flush=True)
            continue
        print(f"== {name}: {dev}", flush=True)
        for fn, (e, x, y) in found.items():
            arg = f"{x!r}, {y!r}" if fn in T.TWO else f"{x!r}"
            print(f"   {fn:9s} {e:7.3f} ulp  at {fn}({arg})", flush=True)


if __name__ == "__main__":
    main()
