"""Family ``coldstart``: the first launch in a new process, cold (an empty disk cache)
against warm (the cache an earlier process filled): the time from ``kernel.launch`` to
the result, interpreter start and ``import pyshade`` excluded.

Each measurement is its own process running the section-7 bitonic step once over 1024
keys on one device. One unmeasured process first fills Python's bytecode cache; then
pairs (cold, then warm on the cache the cold one filled), the median of each.
"""

from __future__ import annotations

import json
import statistics
import tempfile

from .common import Results, Settings, attempt, child_env, run_child

FAMILY = "coldstart"

CHILD = r'''
import json, sys, time
import numpy as np
import pyshade as ps
from pyshade.algorithms.sort import BitonicParams, SortOrder, bitonic_step
dev = ps.device(sys.argv[1])
keys = dev.array(np.arange(1024, dtype=np.uint32)[::-1].copy())
p = BitonicParams(n=1024, stage=0, pass_of_stage=0, order=SortOrder.ASCENDING)
t0 = time.perf_counter()
bitonic_step.launch(keys, p, threads=1024, device=dev)
keys.numpy()
print(json.dumps({"ms": (time.perf_counter() - t0) * 1e3, "adapter": dev.adapter}))
'''


def _one(device: str, cache: str) -> float:
    env = child_env(PYSHADE_CACHE="1", PYSHADE_CACHE_DIR=cache)
    return float(json.loads(run_child(CHILD, [device], env))["ms"])


def _device(s: Settings, out: Results, name: str) -> None:
    s.device(name)                          # unavailable: skipped with the reason
    with tempfile.TemporaryDirectory() as cache:
        _one(name, cache)                   # bytecode of every module a launch imports
    cold, warm = [], []
    for _ in range(1 if s.quick else s.reps):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(_one(name, cache))
            warm.append(_one(name, cache))
    out.add(FAMILY, name, "first launch in a fresh process, cold / warm cache, ms",
            statistics.median(cold), "ms", baseline=statistics.median(warm),
            baseline_name="warm disk cache", pairs=len(cold))


def run(s: Settings, out: Results) -> None:
    """Run the family on every device of ``s``."""
    for name in s.devices:
        attempt(out, FAMILY, name, lambda name=name: _device(s, out, name))
