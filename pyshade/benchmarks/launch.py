"""Family ``launch``: the host cost of one launch of a trivial kernel, pyshade against the
raw binding driven by hand (``wgpu_direct``, ``vulkan_direct``, ``cuda_direct``).

Host times cover recording and submitting, not the wait for the GPU, which comes after,
untimed. Per device:

* wgpu: ``trivial launch`` outside any batch (the hand version submits each launch, as
  wgpu-py code does; pyshade records launches and submits them in chunks) and ``launch
  in a batch`` (``dev.batch()`` against one hand-recorded pass with the parameter blocks
  at dynamic offsets).
* vulkan: ``launch in a batch`` against push constants + dispatch + barrier recorded
  into one command buffer through the ``vulkan`` binding.
* cuda: ``trivial launch`` against ``RawKernel.__call__``.
"""

from __future__ import annotations

import contextlib
import statistics
import struct
import time
from typing import Any, Callable

import numpy as np

import pyshade as ps
from pyshade import u32

from .common import Results, Settings, per_device

FAMILY = "launch"


@ps.kernel(workgroup_size=64)
def fill(x: ps.Buffer[u32], v: u32) -> None:
    """The trivial kernel: every invocation stores v."""
    i = ps.global_id().x
    if i < len(x):
        x[i] = v


def _pyshade_fill(dev: Any, x: Any, m: int, batch: bool) -> Callable[[], float]:
    """``m`` launches of ``fill`` (in one ``dev.batch()`` if ``batch``): a function that
    returns their host seconds, the wait for the GPU after, untimed."""
    def go() -> float:
        t0 = time.perf_counter()
        with dev.batch() if batch else contextlib.nullcontext():
            for i in range(m):
                fill.launch(x, i, threads=len(x), device=dev)
        t = time.perf_counter() - t0
        dev.synchronize()
        return t
    return go


def _per_launch_us(fns: dict[str, Callable[[], float]], reps: int, launches: int
                   ) -> dict[str, float]:
    """Each function returns the host seconds of its ``launches`` launches; one warm-up
    each, then ``reps`` rounds interleaved: the median in us per launch."""
    for f in fns.values():
        f()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            times[k].append(f())
    return {k: statistics.median(v) / launches * 1e6 for k, v in times.items()}


def _wgpu(s: Settings, out: Results) -> None:
    from .wgpu_direct import FILL_WGSL, Direct
    dev, n, m = s.device("wgpu"), 64, s.launches
    x = dev.zeros(n, np.uint32)
    d = Direct(FILL_WGSL, n, 8)
    fmt = struct.Struct("<II")
    vals = [(i, n) for i in range(m)]

    ps_single = _pyshade_fill(dev, x, m, batch=False)

    def direct_single() -> float:
        t0 = time.perf_counter()
        for v in vals:
            d.launch(fmt, v, 1)
        t = time.perf_counter() - t0
        d.sync()
        return t

    ps_batch = _pyshade_fill(dev, x, m, batch=True)

    def direct_batch() -> float:
        t0 = time.perf_counter()
        d.many(fmt, vals, 1)
        t = time.perf_counter() - t0
        d.sync()
        return t

    us = _per_launch_us({"ps1": ps_single, "d1": direct_single, "psb": ps_batch,
                         "db": direct_batch}, s.reps, m)
    assert (x.numpy() == m - 1).all(), "pyshade's fill stored the wrong value"
    base = "wgpu-py by hand"
    out.add(FAMILY, "wgpu", "trivial launch, host us", us["ps1"], "us", baseline=us["d1"],
            baseline_name=base + " (a submit each)", launches=m)
    out.add(FAMILY, "wgpu", "launch in a batch, host us", us["psb"], "us", baseline=us["db"],
            baseline_name=base + " (one pass)", launches=m)


def _vulkan(s: Settings, out: Results) -> None:
    from .vulkan_direct import FILL_GLSL, HandVulkan
    dev, n, m = s.device("vulkan"), 64, s.launches
    x = dev.zeros(n, np.uint32)
    hand = HandVulkan(n, dev.adapter.split(" / ")[0], glsl=FILL_GLSL)
    blocks = [struct.pack("<4I", i, n, 0, 0) for i in range(m)]

    ps_batch = _pyshade_fill(dev, x, m, batch=True)
    us = _per_launch_us({"psb": ps_batch, "hb": lambda: hand.launches(blocks, 1)}, s.reps, m)
    assert (x.numpy() == m - 1).all() and (hand.download(n) == m - 1).all()
    out.add(FAMILY, "vulkan", "launch in a batch, host us", us["psb"], "us", baseline=us["hb"],
            baseline_name="vulkan binding by hand (one command buffer)", launches=m)


def _cuda(s: Settings, out: Results) -> None:
    import cupy as cp

    from .cuda_direct import hand_kernels
    dev, n, m = s.device("cuda"), 64, s.launches
    x = dev.zeros(n, np.uint32)
    xb = cp.zeros(n, cp.uint32)
    _, h_fill = hand_kernels()

    def ps_trivial() -> float:
        t0 = time.perf_counter()
        for _ in range(m):
            fill.launch(x, 7, threads=n, device=dev)
        t = time.perf_counter() - t0
        dev.synchronize()
        return t

    def raw_trivial() -> float:
        v, k = np.uint32(7), np.uint32(n)
        t0 = time.perf_counter()
        for _ in range(m):
            h_fill((1,), (n,), (xb, v, k))
        t = time.perf_counter() - t0
        cp.cuda.Stream.null.synchronize()
        return t

    us = _per_launch_us({"ps": ps_trivial, "raw": raw_trivial}, s.reps, m)
    assert (x.numpy() == 7).all() and (cp.asnumpy(xb) == 7).all()
    out.add(FAMILY, "cuda", "trivial launch, host us", us["ps"], "us", baseline=us["raw"],
            baseline_name="CuPy RawKernel", launches=m)


RUNNERS = {"wgpu": _wgpu, "vulkan": _vulkan, "cuda": _cuda}


def run(s: Settings, out: Results) -> None:
    """Run the family on every device of ``s`` that has a raw binding to compare with."""
    per_device(s, out, FAMILY, RUNNERS, "no raw binding to compare with on {device}")
