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
import time

import numpy as np

import pyshade as ps
import pyshade.algorithms.radix as radix
from pyshade.algorithms import argsort, sort
from pyshade.algorithms._arrays import groups_for
from pyshade.algorithms.scan import TILE, WG, record_scan, scan_scratch, scan_tiles
from pyshade.benchmarks.common import median_ms

REPS = 10


@ps.kernel(workgroup_size=64)
def touch(a: ps.Buffer[ps.u32]) -> None:
    """One workgroup's worth of work: what a dispatch costs beyond its kernel."""
    a[ps.global_id().x] += 1


def host_ms(dev: ps.Device, body) -> float:
    """Milliseconds the host spends recording ``body()`` in one batch and submitting it
    (median of 5, each then waited for); on cuda, launching it."""
    body()
    dev.synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        with dev.batch():
            body()
        times.append(time.perf_counter() - t0)
        dev.synchronize()
    return float(np.median(times)) * 1e3


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
    items, unroll, tkeys, rake, nib = radix.tuning(dev)
    tiles = groups_for(n, items * radix.WG)
    counts = dev.empty(radix.BUCKETS * tiles, np.uint32)
    offsets = dev.empty(radix.BUCKETS * tiles, np.uint32)
    chunks = groups_for(radix.BUCKETS * tiles, TILE)
    fused = radix.fused_scan(dev)
    levels = scan_scratch(dev, radix.BUCKETS * tiles, np.uint32)
    # the hist stage adds to ``junk`` (timed 10 times: totals 10 times too large); the
    # scan reads ``sums`` from one histogram, so the scatter's places stay within n; the
    # scatter clears ``junk_b``
    junk, junk_b = dev.zeros(chunks, np.uint32), dev.zeros(chunks, np.uint32)
    sums = dev.zeros(chunks, np.uint32)
    radix.radix_hist.launch(keys, counts, sums, n, 8, 0, radix.KIND_U32, items,
                            radix.hist_shape(tiles, items, unroll)[1], fused,
                            threads=radix.hist_shape(tiles, items, unroll)[0], device=dev)
    k_b, v_b = dev.empty(n, np.uint32), dev.empty(n, np.int32)
    one = dev.empty(1, np.int32)
    one_b = dev.empty(1, np.int32)
    u = radix.KIND_U32
    h_threads, h_unroll = radix.hist_shape(tiles, items, unroll)

    def scatter(v: ps.DeviceArray, v_out: ps.DeviceArray, vmode: int) -> None:
        radix.radix_scatter.launch(keys, v, offsets, junk_b, k_b, v_out, n, 8, 0, u, u, False, True, vmode,
                                   items, unroll, tkeys, rake, nib, radix.selects(dev), fused,
                                   threads=tiles * radix.WG,
                                   device=dev)
    res = {
        "hist": timed(dev, lambda: radix.radix_hist.launch(
            keys, counts, junk, n, 8, 0, u, items, h_unroll, fused, threads=h_threads, device=dev)),
        # the device's scan of the counts: one launch (fused), else record_scan's three
        "scan": timed(dev, (lambda: scan_tiles.launch(counts, offsets, sums, radix.BUCKETS * tiles,
                                                      ps.u32(0), False, False, ps.u32, True,
                                                      threads=chunks * WG, device=dev))
                      if fused else (lambda: record_scan(dev, counts, offsets,
                                                         radix.BUCKETS * tiles, False, levels))),
        "scatter": timed(dev, lambda: scatter(one, one_b, radix.NO_VALS)),
        "scatter_kv": timed(dev, lambda: scatter(vals, v_b, radix.CARRY_VALS)),
        "record_radix": timed(dev, lambda: radix.record_radix(dev, keys, n), reps=3),
        "record_radix, 1 a batch": timed(dev, lambda: radix.record_radix(dev, keys, n), reps=1),
        "record_radix, host": host_ms(dev, lambda: radix.record_radix(dev, keys, n)),
    }
    small = dev.empty(64, np.uint32)
    res["dispatch (100 a batch)"] = timed(dev, lambda: touch.launch(small, threads=64, device=dev),
                                          reps=100)
    res["dispatch, host"] = host_ms(dev, lambda: [touch.launch(small, threads=64, device=dev)
                                                  for _ in range(100)]) / 100
    for label, fn in (("sort", lambda: sort(keys, method="radix")), ("argsort", lambda: argsort(keys)),
                      ("empty(n)", lambda: dev.empty(n, np.uint32))):
        res[label] = median_ms(fn, dev.synchronize, 5)
    if name == "cuda":
        import cupy as cp
        cx = cp.asarray(host)
        for label, fn in (("cupy.sort", lambda: cp.sort(cx)), ("cupy.argsort", lambda: cp.argsort(cx))):
            res[label] = median_ms(fn, cp.cuda.Stream.null.synchronize, 5)
    return res


# (items, unroll, tkeys, rake, nib) of radix.tuning, timed side by side (``--variants``):
# keys per invocation (tiles of items * 128 keys), how many of the tile's loads and
# stores are issued together, the tile's keys kept in shared memory, the split's scan
# by raking, 4-bit counters; a per-GPU trade (registers against occupancy) that only a measurement
# settles. ``--before FILE``: a radix.py of an earlier commit, timed first.
VARIANTS = {
    "cuda": [],
    "other": [],
}


def load_before(path: str):
    """The radix module of ``path`` (an earlier radix.py), loaded beside the current one."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("pyshade.algorithms._radix_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def variants(name: str, n: int, before: str | None, extra_opt: bool) -> dict[str, float]:
    """record_radix's, sort's and argsort's time per tuning (and the current one's) on
    device ``name``; each result checked against numpy."""
    dev = ps.device(name)
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    keys = dev.array(host)
    chosen = radix.tuning
    res = {}
    want = np.sort(host)
    want_arg = np.argsort(host, kind="stable")
    if before:
        old = load_before(before)
        res["before"] = timed(dev, lambda: old.record_radix(dev, keys, n), reps=3)
        if not np.array_equal(old.record_radix(dev, keys, n).numpy(), want):
            print(f"{name} before: WRONG RESULT")
    res["current"] = timed(dev, lambda: radix.record_radix(dev, keys, n), reps=3)
    if not np.array_equal(radix.record_radix(dev, keys, n).numpy(), want) or \
            not np.array_equal(argsort(keys).numpy(), want_arg):
        print(f"{name} current: WRONG RESULT")
    else:
        print(f"{name} current: sort and argsort equal numpy's")
    if name == "vulkan" and extra_opt:
        # the radix kernels' SPIR-V through more spirv-opt passes (a fresh copy of
        # radix.py; run with PYSHADE_CACHE=0, or the disk cache gives back the current one)
        from vulkan_pipeline_stats import EXTRA_PASSES

        from pyshade.toolchains import glslang
        passes = glslang.SPIRV_OPT_PASSES
        glslang.SPIRV_OPT_PASSES = EXTRA_PASSES
        try:
            more = load_before(radix.__file__)
            res["extra spirv-opt passes"] = timed(dev, lambda: more.record_radix(dev, keys, n),
                                                  reps=3)
            if not np.array_equal(more.record_radix(dev, keys, n).numpy(), want):
                print(f"{name} extra spirv-opt passes: WRONG RESULT")
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name} extra spirv-opt passes: {type(e).__name__}: {str(e)[:300]}")
        finally:
            glslang.SPIRV_OPT_PASSES = passes
    for t in VARIANTS["cuda" if name == "cuda" else "other"]:
        v = "/".join(str(int(x)) for x in t)
        if v in res:                    # a variant listed twice: its second timing
            v += " (2)"
        radix.tuning = lambda dev, t=t: t
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


def ab(name: str, n: int, before: str, rounds: int = 7) -> dict[str, float]:
    """``before`` against the current radix.py, interleaved round by round (drift of the
    machine falls on both): record_radix one call a batch (a sort's end to end, less its
    output) and three a batch (the GPU's time), median of 5 per round; the median and
    the range of the rounds' medians. Each result checked against numpy."""
    dev = ps.device(name)
    host = np.random.default_rng(2).integers(0, 2**32, n, dtype=np.uint32)
    keys = dev.array(host)
    old = load_before(before)
    want = np.sort(host)
    for label, mod in (("before", old), ("current", radix)):
        if not np.array_equal(mod.record_radix(dev, keys, n).numpy(), want):
            print(f"{name} {label}: WRONG RESULT")
    runs: dict[str, list[float]] = {}
    for _ in range(rounds):
        for label, mod in (("before", old), ("current", radix)):
            for reps in (1, 3):
                t = timed(dev, lambda mod=mod: mod.record_radix(dev, keys, n), reps=reps)
                runs.setdefault(f"ab {label}, {reps} a batch", []).append(t)
    res = {}
    for k, ts in runs.items():
        res[k] = float(np.median(ts))
        res[k + " (min)"] = min(ts)
        res[k + " (max)"] = max(ts)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--devices", default="cuda,vulkan,wgpu")
    ap.add_argument("--variants", action="store_true", help="record_radix of VARIANTS too")
    ap.add_argument("--before", help="an earlier radix.py, timed beside the current one")
    ap.add_argument("--ab", action="store_true",
                    help="only --before against the current radix.py, interleaved (ab())")
    ap.add_argument("--robust", action="store_true",
                    help="vulkan: create the device with robustBufferAccess, as wgpu does")
    ap.add_argument("--stages", action="store_true", help="with --ab: profile() too")
    ap.add_argument("--spirv-opt", action="store_true",
                    help="vulkan: the radix kernels through more spirv-opt passes too")
    a = ap.parse_args()
    if a.robust:
        from pyshade.runtime import vulkan_support
        vulkan_support.ENABLED_FEATURES += ("robustBufferAccess",)
    rows = {}
    for name in a.devices.split(","):
        try:
            if a.ab:
                rows[name] = profile(name, a.n) if a.stages else {}
                rows[name].update(ab(name, a.n, a.before))
                continue
            if a.robust and name == "vulkan":
                rows["vulkan robust"] = profile(name, a.n)
                continue
            rows[name] = profile(name, a.n)
            if a.variants:
                more = variants(name, a.n, a.before, a.spirv_opt)
                rows[name].update({f"radix {k}": v for k, v in more.items()})
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name}: {type(e).__name__}: {e}")
    cols = list(rows)
    keys = list(dict.fromkeys(k for r in rows.values() for k in r))
    print(f"n = {a.n}, ms per call (stages: one pass; "
          "radix I/U/K/R/N: tuning (items, unroll, tkeys, rake, nib))")
    print("| measurement | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{rows[c][k]:.3f}" if k in rows[c] else ""
                                       for c in cols) + " |")

if __name__ == "__main__":
    main()
