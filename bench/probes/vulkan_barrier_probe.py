"""What the barrier between two dependent dispatches costs on a Vulkan device (issue 17).

bench/probes/memory_pattern_probe.py found a copy of 2^24 u32 1.7 times slower through
Vulkan than through CUDA on an H100 (0.107 against 0.064 ms a launch, 10 dependent
launches a batch) while an ALU-bound kernel ran at the same speed. This probe times
the same launches with the device's barrier between them changed:

- ``pyshade``: what the device records (compute and transfer stages, shader and
  transfer writes made visible to shader and transfer reads and writes);
- ``compute``: compute stage only, shader writes to shader reads and writes;
- ``execution``: compute stage, no memory barrier (not enough in general: timing only);
- ``none``: no barrier (the launches race: timing only);
- ``independent``: each launch writes its own output, so the device records no barrier.

Milliseconds per launch, median of 5 batches of 10.

    python bench/probes/vulkan_barrier_probe.py [--n 16777216]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from memory_pattern_probe import copy, hist, timed  # noqa: E402

import pyshade as ps  # noqa: E402
import pyshade.runtime.vulkan as rv  # noqa: E402

_COMPUTE, _TRANSFER = 0x800, 0x1000
_SHADER_READ, _SHADER_WRITE = 0x20, 0x40


def set_barrier(dev: ps.Device, mode: str) -> None:
    """Make ``dev``'s dispatch barrier ``mode`` (see the module docstring)."""
    dev.synchronize()
    slots = list(dev._free) + list(dev._in_flight) + ([dev._slot] if dev._slot else [])
    if not hasattr(rv, "_PROBE_STAGES"):
        rv._PROBE_STAGES = rv.BARRIER_STAGES
        rv._PROBE_MASKS = (slots[0].full.srcAccessMask, slots[0].full.dstAccessMask)
    src, dst = rv._PROBE_MASKS
    stages = rv._PROBE_STAGES
    if mode == "compute":
        stages, src, dst = _COMPUTE, _SHADER_WRITE, _SHADER_READ | _SHADER_WRITE
    elif mode in ("execution", "none"):
        stages, src, dst = _COMPUTE, 0, 0
    rv.BARRIER_STAGES = stages
    for s in slots:
        s.full.srcAccessMask = src
        s.full.dstAccessMask = dst
    dev._probe_none = mode == "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    n = ap.parse_args().n
    dev = ps.device("vulkan")
    keys = dev.array(np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32))
    outs = [dev.empty(n, np.uint32) for _ in range(10)]
    groups = -(-n // 1024)
    counts = [dev.empty(256 * groups, np.uint32) for _ in range(10)]
    copy.launch(keys, outs[0], n, threads=n, device=dev)
    dev.synchronize()
    original = rv.VulkanDevice.run_prepared

    def run_prepared(self, prep, buffers, params, groups_):
        if getattr(self, "_probe_none", False):
            self._writes.clear()
            self._reads.clear()
        return original(self, prep, buffers, params, groups_)
    rv.VulkanDevice.run_prepared = run_prepared
    rows = {}
    for mode in ("pyshade", "compute", "execution", "none", "pyshade again"):
        set_barrier(dev, mode.split()[0])
        rows[f"copy, {mode}"] = timed(dev, lambda: copy.launch(keys, outs[0], n, threads=n,
                                                               device=dev))
        rows[f"hist, {mode}"] = timed(dev, lambda: hist.launch(
            keys, counts[0], n, 8, 1, True, threads=groups * 256, device=dev))
    set_barrier(dev, "pyshade")
    it = iter(range(10**9))
    rows["copy, independent"] = timed(dev, lambda: copy.launch(
        keys, outs[next(it) % 10], n, threads=n, device=dev))
    rows["hist, independent"] = timed(dev, lambda: hist.launch(
        keys, counts[next(it) % 10], n, 8, 1, True, threads=groups * 256, device=dev))
    print(f"{dev.adapter}, n = {n}, ms per launch")
    print("| measurement | vulkan |\n|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {v:.4f} |")


if __name__ == "__main__":
    main()
