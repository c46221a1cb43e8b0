"""Where the radix sort's time goes, stage by stage, on each GPU device (issue 17).

Each stage of one pass (``radix_hist``, the scan of the counts, ``radix_scatter``
without and with values) is recorded REPS times in one ``dev.batch()`` and timed to
``dev.synchronize()``; then ``record_radix`` (4 passes, its allocations included) and
``sort``/``argsort`` end to end, and one allocation of n u32 (``dev.empty``).
Milliseconds per call, median of 5 batches.

    python bench/probes/radix_stage_profile.py [--n 16777216] [--devices cuda,vulkan,wgpu] [--variants]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyshade as ps
import pyshade.algorithms.radix as radix
from pyshade.algorithms import argsort, sort
from pyshade.algorithms._arrays import groups_for
from pyshade.algorithms.scan import record_scan, scan_scratch
from pyshade.benchmarks.common import median_ms

REPS = 10


def timed(dev: ps.Device, body, reps: int = REPS) -> float:
    """Milliseconds per ``body()``: median of 5 batches of ``reps`` recorded calls."""
    def batch() -> None:
        with dev.batch():
            for _ in range(reps):
                body()
    return median_ms(batch, dev.synchronize, 5) / reps


def profile(name: str, n: int) -> dict[str, float]:
    dev = ps.device(name)
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    keys = dev.array(host)
    vals = dev.array(np.arange(n, dtype=np.int32))
    items, unroll = radix.tuning(dev)
    tiles = groups_for(n, items * radix.WG)
    counts = dev.empty(radix.BUCKETS * tiles, np.uint32)
    offsets = dev.empty(radix.BUCKETS * tiles, np.uint32)
    scratch = scan_scratch(dev, radix.BUCKETS * tiles, np.uint32)
    k_b, v_b = dev.empty(n, np.uint32), dev.empty(n, np.int32)
    one = dev.empty(1, np.int32)
    one_b = dev.empty(1, np.int32)
    u = radix.KIND_U32
    h_unroll = min(unroll, items * radix.WG // radix.HIST_WG)

    def scatter(v: ps.DeviceArray, v_out: ps.DeviceArray, vmode: int) -> None:
        radix.radix_scatter.launch(keys, v, offsets, k_b, v_out, n, 8, 0, u, u, False, True, vmode,
                                   items, unroll, threads=tiles * radix.WG, device=dev)
    res = {
        "hist": timed(dev, lambda: radix.radix_hist.launch(
            keys, counts, n, 8, 0, u, items, h_unroll, threads=tiles * radix.HIST_WG,
            device=dev)),
        "scan": timed(dev, lambda: record_scan(dev, counts, offsets, radix.BUCKETS * tiles, False,
                                               scratch)),
        "scatter": timed(dev, lambda: scatter(one, one_b, radix.NO_VALS)),
        "scatter_kv": timed(dev, lambda: scatter(vals, v_b, radix.CARRY_VALS)),
        "record_radix": timed(dev, lambda: radix.record_radix(dev, keys, n), reps=3),
    }
    for label, fn in (("sort", lambda: sort(keys, method="radix")), ("argsort", lambda: argsort(keys)),
                      ("empty(n)", lambda: dev.empty(n, np.uint32))):
        res[label] = median_ms(fn, dev.synchronize, 5)
    if name == "cuda":
        import cupy as cp
        cx = cp.asarray(host)
        for label, fn in (("cupy.sort", lambda: cp.sort(cx)), ("cupy.argsort", lambda: cp.argsort(cx))):
            res[label] = median_ms(fn, cp.cuda.Stream.null.synchronize, 5)
    return res


# (items, unroll) of radix.tuning, timed side by side (``--variants``): keys per
# invocation (tiles of items * 128 keys) and how many iterations of the tile's loads
# and stores are unrolled; a per-GPU trade (registers against occupancy) that only a
# measurement settles.
VARIANTS = [(8, 8), (8, 1), (16, 1), (16, 4), (16, 16)]


def variants(name: str, n: int) -> dict[str, float]:
    """record_radix's, sort's and argsort's time per tuning (and the current one's) on
    device ``name``; each result checked against numpy."""
    dev = ps.device(name)
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    keys = dev.array(host)
    chosen = radix.tuning
    res = {"current": timed(dev, lambda: radix.record_radix(dev, keys, n), reps=3)}
    want = np.sort(host)
    want_arg = np.argsort(host, kind="stable")
    for items, unroll in VARIANTS:
        v = f"{items}/{unroll}"
        radix.tuning = lambda dev, items=items, unroll=unroll: (items, unroll)
        try:
            res[v] = timed(dev, lambda: radix.record_radix(dev, keys, n), reps=3)
            res[f"{v} sort"] = median_ms(lambda: sort(keys, method="radix"), dev.synchronize, 5)
            res[f"{v} argsort"] = median_ms(lambda: argsort(keys), dev.synchronize, 5)
            if not np.array_equal(sort(keys, method="radix").numpy(), want) or \
                    not np.array_equal(argsort(keys).numpy(), want_arg):
                print(f"{name} {v}: WRONG RESULT")
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name} {v}: {type(e).__name__}: {str(e)[:300]}")
        finally:
            radix.tuning = chosen
    res["current again"] = timed(dev, lambda: radix.record_radix(dev, keys, n), reps=3)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--devices", default="cuda,vulkan,wgpu")
    ap.add_argument("--variants", action="store_true", help="record_radix of VARIANTS too")
    a = ap.parse_args()
    rows = {}
    for name in a.devices.split(","):
        try:
            rows[name] = profile(name, a.n)
            if a.variants:
                rows[name].update({f"radix {k}": v for k, v in variants(name, a.n).items()})
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name}: {type(e).__name__}: {e}")
    cols = list(rows)
    keys = list(dict.fromkeys(k for r in rows.values() for k in r))
    print(f"n = {a.n}, ms per call (stages: one pass; radix I/U: tuning (items, unroll))")
    print("| measurement | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{rows[c][k]:.3f}" if k in rows[c] else ""
                                       for c in cols) + " |")

if __name__ == "__main__":
    main()
