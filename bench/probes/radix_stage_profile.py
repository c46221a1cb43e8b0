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

import numpy as np

import pyshade as ps
from pyshade.algorithms import argsort, sort
from pyshade.algorithms._arrays import groups_for
from pyshade.algorithms.radix import BUCKETS, HIST_WG, TILE, WG, radix_hist, radix_scatter, record_radix
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
        res[label] = median_ms(fn, dev.synchronize, 5)
    if name == "cuda":
        import cupy as cp
        cx = cp.asarray(host)
        for label, fn in (("cupy.sort", lambda: cp.sort(cx)), ("cupy.argsort", lambda: cp.argsort(cx))):
            res[label] = median_ms(fn, cp.cuda.Stream.null.synchronize, 5)
    return res


# Variants of radix.py's kernels, as text edits of its source, timed side by side with
# record_radix of each (``--variants``): which loops to unroll is a per-GPU trade
# (registers against occupancy) that only a measurement settles.
VARIANTS = {
    "rolled": [("ps.unroll(range(ITEMS))", "range(u32(ITEMS))"),
               ("ps.unroll(range(HIST_ITEMS))", "range(u32(HIST_ITEMS))")],
    "split-unrolled": [("    for k in ps.unroll(range(ITEMS)):\n        j",
                        "    for k in range(u32(ITEMS)):\n        j"),
                       ("ps.unroll(range(HIST_ITEMS))", "range(u32(HIST_ITEMS))")],
    # tiles of 2048 keys (16 per invocation) and of 512 (4)
    "tile2048": [("ITEMS = 8\n", "ITEMS = 16\n")],
    "tile512": [("ITEMS = 8\n", "ITEMS = 4\n")],
    "tile2048-split-unrolled": [("ITEMS = 8\n", "ITEMS = 16\n"),
                                ("    for k in ps.unroll(range(ITEMS)):\n        j",
                                 "    for k in range(u32(ITEMS)):\n        j"),
                                ("ps.unroll(range(HIST_ITEMS))", "range(u32(HIST_ITEMS))")],
}


def variant(name: str):
    """radix.py with ``VARIANTS[name]``'s edits, loaded as a module of its own."""
    import importlib.util
    import tempfile
    from pathlib import Path

    import pyshade.algorithms.radix as radix
    src = Path(radix.__file__).read_text()
    src = src.replace("from ._arrays import", "from pyshade.algorithms._arrays import")
    src = src.replace("from .scan import", "from pyshade.algorithms.scan import")
    for old, new in VARIANTS[name]:
        assert old in src, (name, old)
        src = src.replace(old, new)
    path = Path(tempfile.mkdtemp()) / f"radix_{name.replace('-', '_')}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def variants(name: str, n: int) -> dict[str, float]:
    """record_radix's time per variant (and the current source's) on device ``name``."""
    dev = ps.device(name)
    keys = dev.array(np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32))
    res = {"current": timed(dev, lambda: record_radix(dev, keys, None, n), reps=3)}
    want = np.sort(keys.numpy())
    for v in VARIANTS:
        try:
            mod = variant(v)
            res[v] = timed(dev, lambda mod=mod: mod.record_radix(dev, keys, None, n), reps=3)
            k = dev.array(np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32))
            with dev.batch():
                mod.record_radix(dev, k, None, n)
            if not np.array_equal(k.numpy(), want):
                print(f"{name} {v}: WRONG RESULT")
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name} {v}: {type(e).__name__}: {str(e)[:300]}")
    res["current again"] = timed(dev, lambda: record_radix(dev, keys, None, n), reps=3)
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
    cols = sorted({k for r in rows.values() for k in r}, key=lambda k: list(
        next(iter(rows.values())).keys()).index(k) if k in next(iter(rows.values())) else 99)
    print(f"n = {a.n}, ms per call (stages: one pass)")
    print("| device | " + " | ".join(cols) + " |")
    for name, r in rows.items():
        print(f"| {name} | " + " | ".join(f"{r[c]:.3f}" if c in r else "" for c in cols) + " |")


if __name__ == "__main__":
    main()
