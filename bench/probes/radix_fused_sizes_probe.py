"""The radix sort's count scan in one launch a pass (``radix.fused_scan``) against
``record_scan``'s three, by size: whether small sorts, bound by their 20 launches,
gain from the fused form on the devices that keep three launches at 2^24.

For each ``--devices`` device and ``--sizes`` size, ``sort`` of u32 keys already on
the device, timed to ``dev.synchronize()`` (median of ``--reps``), with
``radix.fused_scan`` forced on and off, the two alternating round by round
(``--rounds``); each variant's result is checked against numpy first. On the cuda
device ``cupy.sort`` is timed in the same rounds. Prints one row per device and size:
each variant's median over rounds and its range.

    python bench/probes/radix_fused_sizes_probe.py --devices cuda,vulkan --sizes 65536,1048576
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import pyshade as ps
from pyshade.algorithms import radix, sort
from pyshade.benchmarks.common import median_ms


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="cuda,vulkan")
    ap.add_argument("--sizes", default="16384,65536,262144,1048576,4194304,16777216")
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    original = radix.fused_scan
    rng = np.random.default_rng(11)
    rows = []
    for name in args.devices.split(","):
        dev = ps.device(name)
        for n in (int(s) for s in args.sizes.split(",")):
            host = rng.integers(0, 2**32, n, dtype=np.uint32)
            x = dev.array(host)
            want = np.sort(host)
            times: dict[str, list[float]] = {"three": [], "fused": []}
            cupy_sort = None
            if name.startswith("cuda"):
                import cupy as cp
                cx = cp.asarray(host)
                sync_cp = cp.cuda.get_current_stream().synchronize
                cupy_sort = lambda: cp.sort(cx)  # noqa: E731
                times["cupy"] = []
            for label, flag in (("three", False), ("fused", True)):
                radix.fused_scan = lambda *_, _f=flag: _f
                got = sort(x, method="radix").numpy()
                assert np.array_equal(got, want), (name, n, label)
            for _ in range(args.rounds):
                for label, flag in (("three", False), ("fused", True)):
                    radix.fused_scan = lambda *_, _f=flag: _f
                    times[label].append(median_ms(lambda: sort(x, method="radix"),
                                                  dev.synchronize, args.reps))
                if cupy_sort is not None:
                    times["cupy"].append(median_ms(cupy_sort, sync_cp, args.reps))
            radix.fused_scan = original
            rows.append((name, n, {k: (statistics.median(v), min(v), max(v))
                                   for k, v in times.items()}))
            print(name, n, {k: [round(t, 4) for t in v] for k, v in times.items()}, flush=True)
    print(f"\nsort u32, ms: median over {args.rounds} rounds of the median of {args.reps} "
          f"(range over rounds); fused / three < 1: fused faster")
    print(f"{'device':8s} {'n':>9s} {'three':>22s} {'fused':>22s} {'fused/three':>11s} {'cupy':>8s}")
    for name, n, t in rows:
        three, fused = t["three"], t["fused"]
        cupy = f"{t['cupy'][0]:8.4f}" if "cupy" in t else ""
        print(f"{name:8s} {n:9d} {three[0]:8.4f} ({three[1]:.4f}-{three[2]:.4f}) "
              f"{fused[0]:8.4f} ({fused[1]:.4f}-{fused[2]:.4f}) {fused[0] / three[0]:11.3f} {cupy}")


if __name__ == "__main__":
    main()
