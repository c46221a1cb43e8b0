"""Where pyshade.algorithms' time goes per device (issue 17): the allocation of a
2^24-word array, a plain copy kernel over it (memory bandwidth and the launch path),
and each kernel of one radix pass alone (the tile histograms, the scan of the digit
counts, the tiles' local sort and scatter), each recorded in one dev.batch() and timed
to dev.synchronize(), median of --reps after a warm-up.

    python bench/probes/algos_profile.py --device cuda wgpu vulkan --n 16777216
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import pyshade as ps
from pyshade import u32
from pyshade.algorithms import radix
from pyshade.algorithms._arrays import groups_for
from pyshade.algorithms.scan import TILE, WG, scan_tiles


@ps.kernel(workgroup_size=256)
def copy(src: ps.Buffer[u32], dst: ps.Buffer[u32], n: u32) -> None:
    """dst[i] = src[i]."""
    i = ps.global_id().x
    if i < n:
        dst[i] = src[i]


def timed(dev: ps.Device, fn, reps: int) -> float:
    """Median ms of ``fn()`` in one batch, to synchronize, after a warm-up."""
    def once() -> None:
        with dev.batch():
            fn()
        dev.synchronize()
    once()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        once()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--device", nargs="+", default=["wgpu"])
    p.add_argument("--n", type=int, default=1 << 20)
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    n = a.n
    rng = np.random.default_rng(1)
    host = rng.integers(0, 2**32, n, dtype=np.uint32)
    rows = []
    for name in a.device:
        dev = ps.device(name)
        keys = dev.array(host)
        out = dev.empty(n, np.uint32)
        items, unroll, tkeys, rake, nib = radix.tuning(dev)
        tiles = groups_for(n, items * radix.WG)
        u = radix.KIND_U32
        counts = dev.empty(radix.BUCKETS * tiles, np.uint32)
        offsets = dev.empty(radix.BUCKETS * tiles, np.uint32)
        vals = dev.empty(1, np.int32)
        vals2 = dev.empty(1, np.int32)
        chunks = groups_for(radix.BUCKETS * tiles, TILE)
        fused = radix.fused_scan(dev)
        # radix_hist adds to ``junk`` (timed repeatedly); the scan reads ``sums`` of one
        # histogram, so the scatter's places stay within n; the scatter clears ``junk_b``
        junk, junk_b = dev.zeros(chunks, np.uint32), dev.zeros(chunks, np.uint32)
        sums = dev.zeros(chunks, np.uint32)
        radix.radix_hist.launch(keys, counts, sums, n, 0, 0, u, items,
                                radix.hist_shape(tiles, items, unroll)[1], fused,
                                threads=radix.hist_shape(tiles, items, unroll)[0], device=dev)
        cases = {
            "sync only": lambda: None,
            "empty(n) x1": lambda: dev.empty(n, np.uint32),
            "copy n": lambda: copy.launch(keys, out, n, threads=n, device=dev),
            "copy n x10": lambda: [copy.launch(keys, out, n, threads=n, device=dev)
                                   for _ in range(10)],
            "radix_hist": lambda: radix.radix_hist.launch(
                keys, counts, junk, n, 0, 0, u, items, radix.hist_shape(tiles, items, unroll)[1], fused,
                threads=radix.hist_shape(tiles, items, unroll)[0], device=dev),
            "scan counts": lambda: scan_tiles.launch(counts, offsets, sums, radix.BUCKETS * tiles,
                                                     ps.u32(0), False, False, ps.u32, True,
                                                     threads=chunks * WG, device=dev),
            "radix_scatter": lambda: radix.radix_scatter.launch(
                keys, vals, offsets, junk_b, out, vals2, n, 0, 0, u, u, False, True, radix.NO_VALS,
                items, unroll, tkeys, rake, nib, radix.selects(dev), fused, threads=tiles * radix.WG,
                device=dev),
            "radix sort": lambda: radix.record_radix(dev, out, n),
        }
        for case, fn in cases.items():
            ms = timed(dev, fn, a.reps)
            rows.append((dev.name, case, ms))
            print(f"{dev.name:8} {case:14} {ms:9.3f} ms", flush=True)
    print(f"\nn = {n}; {len(rows)} rows")


if __name__ == "__main__":
    main()
