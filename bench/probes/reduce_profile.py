"""Where ``pyshade.algorithms.reduce``'s time goes on each GPU device (issue 17), and
variants of reduce.py side by side.

Per device: ``reduce`` end to end (sum of f32, max of u32 and f32; CuPy's on cuda),
the first level's ``sum_tiles`` alone (20 launches in one ``dev.batch()``, per launch:
its GPU time where the GPU is the bottleneck) and a launch of a kernel that does
nothing (the launch path). Then ``reduce`` of each variant in ``VARIANTS`` (text edits of
reduce.py, loaded as modules of their own). Milliseconds, median of --reps calls, each
timed to ``dev.synchronize()`` as ``pyshade bench`` does.

    python bench/probes/reduce_profile.py [--n 16777216] [--devices cuda,vulkan,wgpu]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import tempfile
from pathlib import Path

import numpy as np

import pyshade as ps
from pyshade import u32
from pyshade.algorithms._arrays import groups_for
from pyshade.algorithms.scan import element_type, identity
from pyshade.benchmarks.common import median_ms

red = importlib.import_module("pyshade.algorithms.reduce")   # the module, not the function


@ps.kernel(workgroup_size=64)
def nothing(a: ps.Buffer[u32]) -> None:
    """Writes nothing (a launch's cost)."""
    if ps.global_id().x > 1 << 30:
        a[0] = 1


ROLLED_TREE = '''    half = u32(items // 2)
    while half > 0:
        for k in range(half):
            vals[k] = vals[k] + vals[k + half]
        half >>= 1
    part[lx] = vals[0]
'''

VARIANTS = {
    "items8": [("ITEMS = 16 ", "ITEMS = 8 ")],
    "items32": [("ITEMS = 16 ", "ITEMS = 32 ")],
    "wg512": [("WG = 256\n", "WG = 512\n")],
    "wg512-items8": [("WG = 256\n", "WG = 512\n"), ("ITEMS = 16 ", "ITEMS = 8 ")],
    "wg1024-items8": [("WG = 256\n", "WG = 1024\n"), ("ITEMS = 16 ", "ITEMS = 8 ")],
    "wg512-items32": [("WG = 256\n", "WG = 512\n"), ("ITEMS = 16 ", "ITEMS = 32 ")],
    "wg128-items32": [("WG = 256\n", "WG = 128\n"), ("ITEMS = 16 ", "ITEMS = 32 ")],
}


def variant(name: str):
    """reduce.py with ``VARIANTS[name]``'s edits, loaded as a module of its own."""
    src = Path(red.__file__).read_text()
    for rel in ("_arrays", "keys", "scan"):
        src = src.replace(f"from .{rel} import", f"from pyshade.algorithms.{rel} import")
    for old, new in VARIANTS[name]:
        assert old in src, (name, old)
        src = src.replace(old, new)
    path = Path(tempfile.mkdtemp()) / f"reduce_{name.replace('-', '_')}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def profile(name: str, n: int, reps: int) -> dict[str, float]:
    dev = ps.device(name)
    rng = np.random.default_rng(1)
    hf = (rng.standard_normal(n) * 1e3).astype(np.float32)
    hu = rng.integers(0, 2**32, n, dtype=np.uint32)
    xf, xu = dev.array(hf), dev.array(hu)
    sync = dev.synchronize
    res: dict[str, float] = {}
    cases = {"sum f32": lambda m: m.reduce(xf), "max u32": lambda m: m.reduce(xu, "max"),
             "max f32": lambda m: m.reduce(xf, "max")}
    for label, fn in cases.items():
        res[label] = median_ms(lambda fn=fn: fn(red), sync, reps)
    tiles = groups_for(n, red.TILE)
    part = dev.empty(tiles, np.float32)
    dt = np.dtype(np.float32)

    def l1() -> None:
        with dev.batch():
            for _ in range(20):
                red.sum_tiles.launch(xf, part, n, identity(dt), red.ITEMS, element_type(dt),
                                     threads=tiles * red.WG, device=dev)
    res["sum_tiles L1 (x20)/20"] = median_ms(l1, sync, reps) / 20
    one = dev.empty(1, np.uint32)
    res["nothing launch"] = median_ms(lambda: nothing.launch(one, threads=64, device=dev), sync,
                                      reps)
    res["sync only"] = median_ms(lambda: None, sync, reps)
    if name == "cuda":
        import cupy as cp
        cf, cu = cp.asarray(hf), cp.asarray(hu)
        csync = cp.cuda.Stream.null.synchronize
        res["cupy sum f32"] = median_ms(lambda: cp.sum(cf), csync, reps)
        res["cupy max u32"] = median_ms(lambda: cp.max(cu), csync, reps)
        res["cupy max f32"] = median_ms(lambda: cp.max(cf), csync, reps)
    want = {"sum f32": hf.astype(np.float64).sum(), "max u32": hu.max(), "max f32": hf.max()}
    for v in VARIANTS:
        try:
            mod = variant(v)
            for label, fn in cases.items():
                got = np.asarray(fn(mod).numpy())[0]
                if not np.isclose(got, want[label], rtol=1e-5, atol=1e-2 * n ** 0.5):
                    print(f"{name} {v} {label}: WRONG {got} vs {want[label]}")
                res[f"{v} {label}"] = median_ms(lambda fn=fn, mod=mod: fn(mod), sync, reps)
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name} {v}: {type(e).__name__}: {str(e)[:300]}")
    for label, fn in cases.items():
        res[f"again {label}"] = median_ms(lambda fn=fn: fn(red), sync, reps)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--devices", default="cuda,vulkan,wgpu")
    a = ap.parse_args()
    print(f"n = {a.n}, ms per call, median of {a.reps}")
    for name in a.devices.split(","):
        try:
            res = profile(name, a.n, a.reps)
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"{name}: {type(e).__name__}: {e}")
            continue
        print(f"| {name} | ms |\n|---|---|")
        for k, v in res.items():
            print(f"| {k} | {v:.4f} |")


if __name__ == "__main__":
    main()
