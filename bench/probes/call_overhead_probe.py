"""Where a small call of ``pyshade.algorithms`` spends its time (issue 17's small sizes).

For ``reduce`` (sum, f32), ``scan`` (f32) and ``sort`` (u32) at ``--n`` keys on each
``--devices`` device: the median time of one call timed to ``dev.synchronize()``, the
host's time of the call alone (returning before the GPU is done), CuPy's equivalent on
the cuda device (timed to the stream's synchronize), then cProfile's top functions by
own time over ``--calls`` calls. Usage:

    python bench/probes/call_overhead_probe.py --devices cuda --n 65536
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time

import numpy as np

import pyshade as ps
from pyshade.algorithms import reduce, scan, sort
from pyshade.benchmarks.common import median_ms


def _host_ms(fn, sync, reps: int) -> float:
    """Median of ``reps`` calls of ``fn``, each after the device is idle, timed to
    ``fn``'s return: the host's part alone."""
    ts = []
    for _ in range(reps):
        sync()
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    sync()
    return statistics.median(ts) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="cuda")
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--top", type=int, default=18)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    f = rng.standard_normal(args.n).astype(np.float32)
    u = rng.integers(0, 2**32, args.n, dtype=np.uint32)
    rows = []
    for name in args.devices.split(","):
        dev = ps.device(name)
        xf, xu = dev.array(f), dev.array(u)
        calls = {"reduce sum f32": lambda: reduce(xf), "scan f32": lambda: scan(xf),
                 "sort u32": lambda: sort(xu)}
        assert np.array_equal(sort(xu).numpy(), np.sort(u))
        for label, fn in calls.items():
            for _ in range(20):
                fn()
            full = median_ms(fn, dev.synchronize, args.reps)
            host = _host_ms(fn, dev.synchronize, args.reps)
            rows.append((name, label, full, host))
            prof = cProfile.Profile()
            dev.synchronize()
            prof.enable()
            for _ in range(args.calls):
                fn()
            dev.synchronize()
            prof.disable()
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(args.top)
            print(f"=== {name} {label}: cProfile over {args.calls} calls")
            print("\n".join(s.getvalue().splitlines()[4:]))
        if name.startswith("cuda"):
            import cupy as cp
            cf, cu = cp.asarray(f), cp.asarray(u)
            sync = cp.cuda.get_current_stream().synchronize
            for label, fn in {"reduce sum f32": lambda: cp.sum(cf), "scan f32": lambda: cp.cumsum(cf),
                              "sort u32": lambda: cp.sort(cu)}.items():
                for _ in range(20):
                    fn()
                rows.append(("cupy", label, median_ms(fn, sync, args.reps),
                             _host_ms(fn, sync, args.reps)))
    print(f"n = {args.n}, median of {args.reps}, ms")
    print(f"{'device':8s} {'call':16s} {'to sync':>9s} {'host only':>10s}")
    for name, label, full, host in rows:
        print(f"{name:8s} {label:16s} {full:9.4f} {host:10.4f}")


if __name__ == "__main__":
    main()
