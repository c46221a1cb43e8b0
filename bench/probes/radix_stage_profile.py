"""Where the radix sort's time goes, stage by stage, on each GPU device (issue 17).

Each stage of one pass (``radix_hist``, the scan of the counts, ``radix_scatter``
without and with values) is recorded REPS times in one ``dev.batch()`` and timed to
``dev.synchronize()``; then ``record_radix`` (4 passes, its allocations included) and
``sort``/``argsort`` end to end, and one allocation of n u32 (``dev.empty``).
Milliseconds per call, median of 5 batches.

    python bench/probes/radix_stage_profile.py [--n 16777216] [--devices cuda,vulkan,wgpu]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import pyshade as ps
from pyshade.algorithms import argsort, sort
from pyshade.algorithms._arrays import groups_for
from pyshade.algorithms.radix import BUCKETS, HIST_WG, TILE, WG, radix_hist, radix_scatter, record_radix
from pyshade.algorithms.scan import record_scan, scan_scratch

REPS = 10


def timed(dev: ps.Device, body, reps: int = REPS) -> float:
    with dev.batch():
        body()
    dev.synchronize()
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        with dev.batch():
            for _ in range(reps):
                body()
        dev.synchronize()
        runs.append((time.perf_counter() - t0) / reps * 1e3)
    return statistics.median(runs)


def profile(name: str, n: int) -> dict[str, float]:
    dev = ps.device(name)
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    keys = dev.array(host)
    vals = dev.array(np.arange(n, dtype=np.int32))
    tiles = groups_for(n, TILE)
    counts = dev.empty(BUCKETS * tiles, np.uint32)
    offsets = dev.empty(BUCKETS * tiles, np.uint32)
    scratch = scan_scratch(dev, BUCKETS * tiles, np.uint32)
    k_b, v_b = dev.empty(n, np.uint32), dev.empty(n, np.int32)
    one = dev.empty(1, np.int32)
    one_b = dev.empty(1, np.int32)
    res = {
        "hist": timed(dev, lambda: radix_hist.launch(keys, counts, n, 8, threads=tiles * HIST_WG,
                                                     device=dev)),
        "scan": timed(dev, lambda: record_scan(dev, counts, offsets, BUCKETS * tiles, False,
                                               scratch)),
        "scatter": timed(dev, lambda: radix_scatter.launch(keys, one, offsets, k_b, one_b, n, 8,
                                                           False, threads=tiles * WG, device=dev)),
        "scatter_kv": timed(dev, lambda: radix_scatter.launch(keys, vals, offsets, k_b, v_b, n, 8,
                                                              True, threads=tiles * WG,
                                                              device=dev)),
        "record_radix": timed(dev, lambda: record_radix(dev, keys, None, n), reps=3),
    }
    for label, fn in (("sort", lambda: sort(keys, method="radix")), ("argsort", lambda: argsort(keys)),
                      ("empty(n)", lambda: dev.empty(n, np.uint32))):
        fn()
        dev.synchronize()
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            dev.synchronize()
            runs.append((time.perf_counter() - t0) * 1e3)
        res[label] = statistics.median(runs)
    if name == "cuda":
        import cupy as cp
        cx = cp.asarray(host)
        for label, fn in (("cupy.sort", lambda: cp.sort(cx)), ("cupy.argsort", lambda: cp.argsort(cx))):
            fn()
            cp.cuda.Stream.null.synchronize()
            runs = []
            for _ in range(5):
                t0 = time.perf_counter()
                fn()
                cp.cuda.Stream.null.synchronize()
                runs.append((time.perf_counter() - t0) * 1e3)
            res[label] = statistics.median(runs)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--devices", default="cuda,vulkan,wgpu")
    a = ap.parse_args()
    rows = {}
    for name in a.devices.split(","):
        try:
            rows[name] = profile(name, a.n)
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name}: {type(e).__name__}: {e}")
    cols = sorted({k for r in rows.values() for k in r}, key=lambda k: list(
        next(iter(rows.values())).keys()).index(k) if k in next(iter(rows.values())) else 99)
    print(f"n = {a.n}, ms per call (stages: one pass)")
    print("| device | " + " | ".join(cols) + " |")
    for name, r in rows.items():
        print(f"| {name} | " + " | ".join(f"{r[c]:.3f}" if c in r else "" for c in cols) + " |")


if __name__ == "__main__":
    main()
