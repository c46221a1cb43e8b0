"""The cpu device's race detector: the time of a launch with it (``ps.device("cpu")``)
and without it (``ps.device("cpu", races=False)``), best of 5, the two interleaved so
that the machine's load hits both.

    python bench/cpu_races.py

Kernels: the section-7 sort of 4096 u32 keys (``pyshade.algorithms.sort``: 78 launches
of the bitonic step plus its copies), a saxpy of 2**16 elements (one read-only and one
written buffer, no workgroup structure) and a shared-memory block sum of 2**16 elements
in 256 workgroups with 9 barriers each.
"""

from __future__ import annotations

import time

import numpy as np

import pyshade as ps
from pyshade import f32, u32
from pyshade.algorithms.sort import sort


@ps.kernel(workgroup_size=64)
def saxpy(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32) -> None:
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


@ps.kernel(workgroup_size=256)
def block_sum(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    s = ps.shared_array(f32, 256)
    t = ps.local_id().x
    s[t] = x[ps.global_id().x]
    ps.barrier()
    stride = u32(128)
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        ps.barrier()
        stride //= 2
    if t == 0:
        out[ps.group_id().x] = s[0]


def main() -> None:
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 2**31, 4096, dtype=np.uint32)
    x = rng.random(1 << 16, dtype=np.float32)
    devs = {False: ps.device("cpu", races=False), True: ps.device("cpu")}
    arrs = {r: (d.array(x), d.array(x), d.zeros(256, np.float32)) for r, d in devs.items()}
    cases = {
        "sort 4096 u32": lambda d, a: sort(keys, device=d),
        "saxpy 2^16": lambda d, a: saxpy.launch(a[0], a[1], np.float32(2), threads=1 << 16,
                                                device=d),
        "block_sum 2^16 (shared, barriers)": lambda d, a: block_sum.launch(
            a[0], a[2], groups=(256, 1, 1), device=d),
    }
    for name, f in cases.items():
        for r, d in devs.items():
            f(d, arrs[r])                   # translate and compile outside the timing
        best = {False: 1e9, True: 1e9}
        for _ in range(5):
            for r, d in devs.items():
                t = time.perf_counter()
                f(d, arrs[r])
                best[r] = min(best[r], time.perf_counter() - t)
        print(f"{name}: races off {best[False] * 1e3:.0f} ms, on {best[True] * 1e3:.0f} ms, "
              f"{best[True] / best[False]:.2f}x")


if __name__ == "__main__":
    main()
