"""pyshade's cuda device against CuPy's ``RawKernel`` with hand-written CUDA (the
baseline, ``HAND_CU`` and ``hand_kernels``: CuPy only, no pyshade code), on the H200.

Measured side by side in one run, each the median of ``--reps``:

* ``trivial``: host time per launch of a 64-thread kernel that stores a value, over
  ``--launches`` launches (the GPU's work is waited for outside the timing):
  ``fill.launch`` against ``RawKernel.__call__``.
* ``sort``: the DESIGN.md section-7 bitonic network, every step a launch, on keys already
  on the GPU: GPU time between two CUDA events around the launches, and end to end (wall
  time from the first launch to the end of the work, host launch cost included). The
  hand version is the same algorithm in CUDA C (``HAND_CU``).
* ``cupy.sort`` on the same keys, for keys/s.

Usage: ``python bench/cuda_bench.py --sizes 65536 1048576 16777216 --json out.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time

import numpy as np

import pyshade as ps
from pyshade import u32


@ps.kernel(workgroup_size=64)
def fill(x: ps.Buffer[u32], v: u32):
    """The trivial kernel: every invocation stores v."""
    i = ps.global_id().x
    if i < len(x):
        x[i] = v


HAND_CU = r"""
extern "C" __global__ void bitonic(unsigned int* data, unsigned int n, unsigned int stage,
                                   unsigned int pass_of_stage, unsigned int order) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int partner = i ^ (1u << (stage - pass_of_stage));
    if (partner > i && partner < n) {
        bool up = ((i >> (stage + 1u)) & 1u) == 0u;
        if (order == 1u) up = !up;
        unsigned int a = data[i], b = data[partner];
        if ((b < a) == up) { data[i] = b; data[partner] = a; }
    }
}
extern "C" __global__ void fill(unsigned int* x, unsigned int v, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"""


def steps_of(n: int) -> list[tuple[int, int]]:
    k = n.bit_length() - 1
    return [(s, p) for s in range(k) for p in range(s + 1)]


def hand_kernels():
    """The baseline: CuPy RawKernels of HAND_CU (CuPy's NVRTC, default options)."""
    import cupy as cp
    mod = cp.RawModule(code=HAND_CU)
    return mod.get_function("bitonic"), mod.get_function("fill")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1 << 16, 1 << 20, 1 << 24])
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json")
    args = ap.parse_args()
    import cupy as cp

    from pyshade.algorithms.sort import BitonicParams, SortOrder, bitonic_step

    dev = ps.device("cuda")
    h_bitonic, h_fill = hand_kernels()
    med = statistics.median
    out: dict = {"command": " ".join(sys.argv), "date": datetime.datetime.now().isoformat(),
                 "adapter": dev.adapter, "cupy": cp.__version__}

    # ---- trivial launches -------------------------------------------------------------
    buf = dev.zeros(64, np.uint32)
    xb = cp.zeros(64, cp.uint32)
    n = args.launches

    def ps_trivial() -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            fill.launch(buf, 7, threads=64, device=dev)
        t = time.perf_counter() - t0
        dev.synchronize()
        return t / n

    def raw_trivial() -> float:
        v, m = np.uint32(7), np.uint32(64)
        t0 = time.perf_counter()
        for _ in range(n):
            h_fill((1,), (64,), (xb, v, m))
        t = time.perf_counter() - t0
        cp.cuda.Stream.null.synchronize()
        return t / n

    ps_trivial()
    raw_trivial()
    tp, tr = [], []
    for _ in range(args.reps):
        tp.append(ps_trivial())
        tr.append(raw_trivial())
    assert (buf.numpy() == 7).all() and (cp.asnumpy(xb) == 7).all()
    out["trivial"] = {"pyshade_us": med(tp) * 1e6, "rawkernel_us": med(tr) * 1e6,
                      "ratio": med(tp) / med(tr)}

    # ---- sort ---------------------------------------------------------------------------
    rows = []
    rng = np.random.default_rng(7)
    for size in args.sizes:
        steps = steps_of(size)
        host = rng.integers(0, 2**32, size, dtype=np.uint32)
        want = np.sort(host)
        a = dev.array(host)
        x = cp.asarray(host)
        groups = (size + 255) // 256
        params = [BitonicParams(n=size, stage=s, pass_of_stage=p, order=SortOrder.ASCENDING)
                  for s, p in steps]
        hand_args = [(np.uint32(size), np.uint32(s), np.uint32(p), np.uint32(0))
                     for s, p in steps]

        def ps_sort() -> tuple[float, float]:
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            t0 = time.perf_counter()
            e0.record()
            with dev.batch():
                for p in params:
                    bitonic_step.launch(a, p, threads=size, device=dev)
            e1.record()
            e1.synchronize()
            return time.perf_counter() - t0, cp.cuda.get_elapsed_time(e0, e1) / 1e3

        def hand_sort() -> tuple[float, float]:
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            t0 = time.perf_counter()
            e0.record()
            for ha in hand_args:
                h_bitonic((groups,), (256,), (x, *ha))
            e1.record()
            e1.synchronize()
            return time.perf_counter() - t0, cp.cuda.get_elapsed_time(e0, e1) / 1e3

        def cupy_sort() -> float:
            y = cp.asarray(host)
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            y.sort()
            e1.record()
            e1.synchronize()
            return cp.cuda.get_elapsed_time(e0, e1) / 1e3

        ps_sort()
        hand_sort()
        assert (a.numpy() == want).all(), "pyshade's cuda sort is wrong"
        assert (cp.asnumpy(x) == want).all(), "the hand sort is wrong"
        pw, pg, hw, hg, cs = [], [], [], [], []
        for _ in range(args.reps):
            fresh = rng.integers(0, 2**32, size, dtype=np.uint32)
            a.write(fresh)
            x.set(fresh)
            cp.cuda.Stream.null.synchronize()
            w, g = ps_sort()
            pw.append(w)
            pg.append(g)
            w, g = hand_sort()
            hw.append(w)
            hg.append(g)
            cs.append(cupy_sort())
        row = {"n": size, "launches": len(steps),
               "pyshade_gpu_ms": med(pg) * 1e3, "hand_gpu_ms": med(hg) * 1e3,
               "pyshade_wall_ms": med(pw) * 1e3, "hand_wall_ms": med(hw) * 1e3,
               "cupy_sort_ms": med(cs) * 1e3}
        row["gpu_ratio"] = row["pyshade_gpu_ms"] / row["hand_gpu_ms"]
        row["wall_ratio"] = row["pyshade_wall_ms"] / row["hand_wall_ms"]
        row["pyshade_keys_per_s"] = size / med(pw)
        row["cupy_keys_per_s"] = size / med(cs)
        rows.append(row)
    out["sort"] = rows
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    t = out["trivial"]
    print(f"{dev.adapter}, CuPy {cp.__version__}, median of {args.reps}")
    print(f"trivial launch host cost: pyshade {t['pyshade_us']:.2f} us, RawKernel "
          f"{t['rawkernel_us']:.2f} us, ratio {t['ratio']:.2f}")
    print(f"{'keys':>6} {'steps':>5} {'ps gpu ms':>10} {'hand gpu':>9} {'ratio':>6} "
          f"{'ps wall':>8} {'hand wall':>9} {'ratio':>6} {'ps Mkeys/s':>10} {'cupy.sort':>10}")
    for r in rows:
        print(f"{'2^%d' % (r['n'].bit_length() - 1):>6} {r['launches']:>5} "
              f"{r['pyshade_gpu_ms']:10.3f} {r['hand_gpu_ms']:9.3f} {r['gpu_ratio']:6.3f} "
              f"{r['pyshade_wall_ms']:8.3f} {r['hand_wall_ms']:9.3f} {r['wall_ratio']:6.3f} "
              f"{r['pyshade_keys_per_s'] / 1e6:10.1f} {r['cupy_keys_per_s'] / 1e6:10.1f}")


if __name__ == "__main__":
    main()
