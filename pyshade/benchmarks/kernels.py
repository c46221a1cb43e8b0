"""Family ``kernels``: the generated section-7 bitonic step (``pyshade.algorithms.sort``'s
``bitonic_step``, every step a ``launch`` in ``dev.batch()``) against the same network
hand-written for the binding: WGSL through wgpu-py (``wgpu_direct``), GLSL through the
``vulkan`` binding (``vulkan_direct``), CUDA C through CuPy's RawKernel
(``cuda_direct``).

Each size is sorted on keys already on the device, timed to completion (wall time from
the first launch to the end of the work), the median of interleaved repetitions on fresh
keys; both results are checked against ``numpy.sort`` first.
"""

from __future__ import annotations

import statistics
import struct
import time
from typing import Any, Callable

import numpy as np

from pyshade.algorithms.sort import BitonicParams, SortOrder, bitonic_step, sort_steps

from .common import Results, Settings, per_device

FAMILY = "kernels"
NAME = "bitonic sort network, ms"


def _pyshade_sort(dev: Any, buf: Any, n: int) -> Callable[[], None]:
    steps = sort_steps(n)

    def go() -> None:
        with dev.batch():
            for s, p in steps:
                bitonic_step.launch(buf, BitonicParams(n=n, stage=s, pass_of_stage=p,
                                                       order=SortOrder.ASCENDING),
                                    threads=n, device=dev)
        dev.synchronize()
    return go


def _interleaved(reps: int, fresh: Callable[[], None], fns: dict[str, Callable[[], Any]]
                 ) -> dict[str, float]:
    """Median ms of each function, run in turn after ``fresh()`` (untimed) each round."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            fresh()
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def _wgpu(s: Settings, out: Results, n: int) -> None:
    from .wgpu_direct import BITONIC_WGSL, Direct
    dev = s.device("wgpu")
    rng = np.random.default_rng(n)
    host = rng.integers(0, 2**32, n, dtype=np.uint32)
    buf = dev.array(host)
    steps = sort_steps(n)
    d = Direct(BITONIC_WGSL, n, 16, slots=len(steps))
    fmt = struct.Struct("<4I")
    ps_sort = _pyshade_sort(dev, buf, n)

    def hand_sort() -> None:
        d.many(fmt, [(n, st, p, 0) for st, p in steps], -(-n // 256))
        d.sync()

    ps_sort()
    d.upload(host)
    hand_sort()
    want = np.sort(host)
    assert (buf.numpy() == want).all(), "pyshade's wgpu sort is wrong"
    assert (d.download(n) == want).all(), "the hand-written WGSL sort is wrong"

    def fresh() -> None:
        h = rng.integers(0, 2**32, n, dtype=np.uint32)
        buf.write(h)
        dev.synchronize()
        d.upload(h)

    ms = _interleaved(s.reps, fresh, {"ps": ps_sort, "hand": hand_sort})
    out.add(FAMILY, "wgpu", NAME, ms["ps"], "ms", n=n, baseline=ms["hand"],
            baseline_name="hand WGSL, wgpu-py", launches=len(steps))


def _vulkan(s: Settings, out: Results, n: int) -> None:
    from .vulkan_direct import HandVulkan
    dev = s.device("vulkan")
    rng = np.random.default_rng(n)
    host = rng.integers(0, 2**32, n, dtype=np.uint32)
    buf = dev.array(host)
    hand = HandVulkan(n, dev.adapter.split(" / ")[0])
    ps_sort = _pyshade_sort(dev, buf, n)
    gpu: list[float] = []

    def hand_sort() -> None:
        _, g = hand.sort(n)
        if g is not None:
            gpu.append(g)

    ps_sort()
    hand.upload(host)
    hand_sort()
    want = np.sort(host)
    assert (buf.numpy() == want).all(), "pyshade's vulkan sort is wrong"
    assert (hand.download(n) == want).all(), "the hand-written GLSL sort is wrong"

    def fresh() -> None:
        h = rng.integers(0, 2**32, n, dtype=np.uint32)
        buf.write(h)
        dev.synchronize()
        hand.upload(h)

    gpu.clear()
    ms = _interleaved(s.reps, fresh, {"ps": ps_sort, "hand": hand_sort})
    out.add(FAMILY, "vulkan", NAME, ms["ps"], "ms", n=n, baseline=ms["hand"],
            baseline_name="hand GLSL, vulkan binding", launches=len(sort_steps(n)),
            hand_gpu_ms=statistics.median(gpu) * 1e3 if gpu else None)


def _cuda(s: Settings, out: Results, n: int) -> None:
    import cupy as cp

    from .cuda_direct import hand_kernels
    dev = s.device("cuda")
    rng = np.random.default_rng(n)
    host = rng.integers(0, 2**32, n, dtype=np.uint32)
    a, x = dev.array(host), cp.asarray(host)
    h_bitonic, _ = hand_kernels()
    steps = sort_steps(n)
    hand_args = [(np.uint32(n), np.uint32(st), np.uint32(p), np.uint32(0)) for st, p in steps]
    groups = (n + 255) // 256
    ps_sort = _pyshade_sort(dev, a, n)

    def hand_sort() -> None:
        for ha in hand_args:
            h_bitonic((groups,), (256,), (x, *ha))
        cp.cuda.Stream.null.synchronize()

    ps_sort()
    hand_sort()
    want = np.sort(host)
    assert (a.numpy() == want).all(), "pyshade's cuda sort is wrong"
    assert (cp.asnumpy(x) == want).all(), "the hand-written CUDA sort is wrong"

    def fresh() -> None:
        h = rng.integers(0, 2**32, n, dtype=np.uint32)
        a.write(h)
        x.set(h)
        cp.cuda.Stream.null.synchronize()

    ms = _interleaved(s.reps, fresh, {"ps": ps_sort, "hand": hand_sort})
    out.add(FAMILY, "cuda", NAME, ms["ps"], "ms", n=n, baseline=ms["hand"],
            baseline_name="hand CUDA, CuPy RawKernel", launches=len(steps))


RUNNERS = {"wgpu": _wgpu, "vulkan": _vulkan, "cuda": _cuda}


def run(s: Settings, out: Results) -> None:
    """Run the family on every device of ``s`` that has a hand-written baseline."""
    per_device(s, out, FAMILY, RUNNERS, "no hand-written kernel for {device}", sized=True)
