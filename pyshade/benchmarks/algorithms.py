"""Family ``algorithms``: ``pyshade.algorithms`` (sort by each engine, argsort, scan,
reduce) on data already on the device, against numpy on the host and, on the cuda
device, CuPy (``cupy.sort``/``argsort`` are CUB's radix sort) and torch.

Each measurement is one call after a warm-up call (which translates and compiles), timed
to ``dev.synchronize()``; the median of the run's repetitions. Every result is checked
against numpy's first (float sums within the documented bounds).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyshade.algorithms import argsort, reduce, scan, sort
from pyshade.algorithms.reduce import sum_tolerance
from pyshade.algorithms.scan import scan_tolerance

from .common import Results, Settings, attempt, median_ms

FAMILY = "algorithms"
DTYPES = ("uint32", "float32")
# What runs on float32 keys: the scan and the reductions (issue 17 compares float32 sums
# with CuPy's); the sorts run on uint32 keys.
FLOAT_OPS = ("scan", "reduce sum", "reduce max")

# (name, pyshade call on a device array, numpy call, cupy call)
OPS: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any], Callable[[Any, Any], Any]]] = [
    ("sort radix", lambda x: sort(x, method="radix"), np.sort, lambda cp, x: cp.sort(x)),
    ("sort bitonic", lambda x: sort(x, method="bitonic"), np.sort, lambda cp, x: cp.sort(x)),
    ("argsort", argsort, lambda x: np.argsort(x, kind="stable"), lambda cp, x: cp.argsort(x)),
    ("scan", scan, np.cumsum, lambda cp, x: cp.cumsum(x)),
    ("reduce sum", reduce, np.sum, lambda cp, x: cp.sum(x)),
    ("reduce max", lambda x: reduce(x, "max"), np.max, lambda cp, x: cp.max(x)),
]


def data(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """Random keys of ``dtype`` (float32: normal, scaled)."""
    if dtype == "float32":
        return (rng.standard_normal(n) * 1e3).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


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

# torch's spelling of each operation, on a CUDA tensor.
TORCH: dict[str, Callable[[Any, Any], Any]] = {
    "sort radix": lambda t, x: t.sort(x).values,
    "sort bitonic": lambda t, x: t.sort(x).values,
    "argsort": lambda t, x: t.argsort(x, stable=True),
    "scan": lambda t, x: t.cumsum(x, 0),
    "reduce sum": lambda t, x: t.sum(x),
    "reduce max": lambda t, x: t.max(x),
}


def _cuda_libraries() -> tuple[Any, Any]:
    """CuPy and torch with CUDA where importable (either may be None)."""
    try:
        import cupy as cp
    except ImportError:
        cp = None
    try:
        import torch
        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    return cp, torch


def _torch(torch: Any, op: str, host: np.ndarray, reps: int, extra: dict[str, Any]) -> None:
    """torch's time for ``op`` into ``extra``; torch implements few operations on unsigned
    tensors on CUDA, so one it refuses is noted (``torch_note``), not fatal."""
    try:
        tx = torch.as_tensor(host, device="cuda")
        extra["torch_ms"] = median_ms(lambda: TORCH[op](torch, tx), torch.cuda.synchronize,
                                      reps)
    except (RuntimeError, TypeError, NotImplementedError) as e:
        extra["torch_note"] = str(e).strip().splitlines()[0][:120] if str(e).strip() else \
            type(e).__name__


def _device(s: Settings, out: Results, name: str, dtypes: tuple[str, ...],
            ops: tuple[str, ...], host_ms: dict[tuple[str, str, int], float]) -> None:
    dev = s.device(name)
    cp, torch = _cuda_libraries() if dev.backend == "cuda" else (None, None)
    for dtype in dtypes:
        for n in s.sizes_for(name):
            # The same keys on every device, so numpy's time (host_ms) is measured once.
            host = data(np.random.default_rng(n), dtype, n)
            x = dev.array(host)
            for op, fn, np_fn, cp_fn in OPS:
                if op not in ops or dtype == "float32" and op not in FLOAT_OPS:
                    continue
                assert _same(fn(x), host, np_fn(host), op), f"{op} on {name} differs from numpy"
                key = (op, dtype, n)
                if key not in host_ms:
                    host_ms[key] = median_ms(lambda np_fn=np_fn: np_fn(host), lambda: None,
                                             s.reps)
                extra: dict[str, Any] = {"numpy_ms": host_ms[key]}
                if cp is not None:
                    cx = cp.asarray(host)
                    extra["cupy_ms"] = median_ms(lambda cp_fn=cp_fn, cx=cx: cp_fn(cp, cx),
                                                 cp.cuda.Stream.null.synchronize, s.reps)
                if torch is not None:
                    _torch(torch, op, host, s.reps, extra)
                lib = "cupy" if "cupy_ms" in extra else "numpy"
                out.add(FAMILY, name, f"{op} {dtype}, ms",
                        median_ms(lambda fn=fn, x=x: fn(x), dev.synchronize, s.reps), "ms",
                        n=n, baseline=extra[lib + "_ms"], baseline_name=lib, **extra)


def run(s: Settings, out: Results, dtypes: tuple[str, ...] = DTYPES,
        ops: tuple[str, ...] | None = None) -> None:
    """Run the family on every device of ``s`` (``ops``: names from ``OPS``, default all)."""
    chosen = tuple(o[0] for o in OPS) if ops is None else ops
    host_ms: dict[tuple[str, str, int], float] = {}
    for name in s.devices:
        attempt(out, FAMILY, name,
                lambda name=name: _device(s, out, name, dtypes, chosen, host_ms))
