"""Benchmark: ``pyshade.algorithms`` (sort by each engine, argsort, scan, reduce) on
data already on the device, against numpy on the host and, on the cuda device, CuPy
(``cupy.sort`` and ``cupy.argsort`` are CUB's radix sort).

Each measurement is one call after a warm-up call (which translates and compiles),
timed to ``dev.synchronize()``; the median of ``--reps`` is reported. Prints a table
and writes JSON (with the command, date, machine and devices) to ``--json``.

    python bench/algorithms_bench.py --device wgpu vulkan --sizes 65536 1048576 \\
        --json bench/results/algorithms_lavapipe.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

import pyshade as ps
from pyshade.algorithms import argsort, reduce, scan, sort
from pyshade.algorithms.reduce import sum_tolerance
from pyshade.algorithms.scan import scan_tolerance

# (name, pyshade call on a device array, numpy call, cupy call)
OPS: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any], Callable[[Any, Any], Any]]] = [
    ("sort radix", lambda x: sort(x, method="radix"), np.sort, lambda cp, x: cp.sort(x)),
    ("sort bitonic", lambda x: sort(x, method="bitonic"), np.sort, lambda cp, x: cp.sort(x)),
    ("argsort", argsort, lambda x: np.argsort(x, kind="stable"), lambda cp, x: cp.argsort(x)),
    ("scan", scan, np.cumsum, lambda cp, x: cp.cumsum(x)),
    ("reduce sum", reduce, np.sum, lambda cp, x: cp.sum(x)),
    ("reduce max", lambda x: reduce(x, "max"), np.max, lambda cp, x: cp.max(x)),
]


def median_ms(fn: Callable[[], Any], sync: Callable[[], None], reps: int) -> float:
    """Median wall time of ``fn(); sync()`` in milliseconds, after one warm-up call."""
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def data(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """Random keys of ``dtype`` (float32: normal, scaled)."""
    if dtype == "float32":
        return (rng.standard_normal(n) * 1e3).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns 1 when a result differs from numpy's."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", nargs="+", default=["wgpu"])
    p.add_argument("--sizes", nargs="+", type=int, default=[1 << 12, 1 << 16, 1 << 20])
    p.add_argument("--dtypes", nargs="+", default=["uint32", "float32"])
    p.add_argument("--ops", nargs="+", default=[o[0] for o in OPS])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--json", default="")
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    devices: dict[str, str] = {}
    failed = False
    for name in args.device:
        dev = ps.device(name)
        devices[dev.name] = dev.adapter
        cp = None
        if dev.backend == "cuda":
            try:
                import cupy as cp
            except ImportError:
                cp = None
        for dtype in args.dtypes:
            for n in args.sizes:
                host = data(rng, dtype, n)
                x = dev.array(host)
                for op, fn, np_fn, cp_fn in OPS:
                    if op not in args.ops:
                        continue
                    ok = _same(fn(x), host, np_fn(host), op)
                    failed |= not ok
                    row = {"device": dev.name, "op": op, "dtype": dtype, "n": n,
                           "pyshade_ms": median_ms(lambda: fn(x), dev.synchronize, args.reps),
                           "numpy_ms": median_ms(lambda: np_fn(host), lambda: None, args.reps),
                           "ok": ok}
                    if cp is not None:
                        cx = cp.asarray(host)
                        sync = cp.cuda.Stream.null.synchronize
                        row["cupy_ms"] = median_ms(lambda: cp_fn(cp, cx), sync, args.reps)
                    rows.append(row)
                    print(_line(row), flush=True)
    report = {"command": " ".join([sys.executable, *sys.argv]),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.node()} {platform.machine()} {platform.system()}, "
                         f"CPython {platform.python_version()}, numpy {np.__version__}",
              "devices": devices, "reps": args.reps, "results": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 1 if failed else 0


def _same(got: Any, host: np.ndarray, want: Any, op: str) -> bool:
    """The result against numpy's; float sums against the float64 sums of ``host``
    within the documented bounds."""
    g = np.asarray(got).reshape(-1)
    w = np.asarray(want).reshape(-1)
    if op in ("scan", "reduce sum"):
        if g.dtype.kind != "f":
            return bool(np.array_equal(g, w.astype(g.dtype)))       # wraps as pyshade's
        x = host.astype(np.float64)
        exact = np.cumsum(x) if op == "scan" else np.sum(x, keepdims=True)
        mag = np.cumsum(np.abs(x)) if op == "scan" else np.sum(np.abs(x), keepdims=True)
        tol = scan_tolerance(x.size) if op == "scan" else sum_tolerance(x.size)
        return bool(np.all(np.abs(g - exact) <= tol * mag))
    return bool(np.array_equal(g, w))


def _line(row: dict[str, Any]) -> str:
    keys = row["n"] / (row["pyshade_ms"] * 1e-3) / 1e6
    cupy = f"  cupy {row['cupy_ms']:9.3f} ms" if "cupy_ms" in row else ""
    return (f"{row['device']:8} {row['op']:13} {row['dtype']:8} n={row['n']:<9} "
            f"pyshade {row['pyshade_ms']:9.3f} ms ({keys:8.1f} M/s)  numpy "
            f"{row['numpy_ms']:9.3f} ms{cupy}  {'ok' if row['ok'] else 'WRONG'}")


if __name__ == "__main__":
    sys.exit(main())
