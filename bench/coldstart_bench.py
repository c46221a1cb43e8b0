"""The first launch in a new process, cold (empty persistent cache) against warm (the
cache filled by an earlier process): the time from ``kernel.launch`` to the result, with
the interpreter start and ``import pyshade`` excluded.

Before the pairs, one unmeasured process fills Python's bytecode cache. Each
measurement is its own ``python`` process running the section-7 bitonic step (the
demo's kernel, ``examples/bitonic_sort.py``) once on one device. A cold run starts
from an empty ``PYSHADE_CACHE_DIR``; a warm run reuses the one the cold run filled. The
median of ``--reps`` pairs is reported per device, with the ratio cold / warm.

Usage: ``python bench/coldstart_bench.py --devices cpu wgpu vulkan --reps 5
[--out bench/results/coldstart.txt]``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import pyshade as ps
from bitonic_sort import BitonicParams, SortOrder, bitonic_step
dev = ps.device(sys.argv[2])
keys = dev.array(np.arange(1024, dtype=np.uint32)[::-1].copy())
p = BitonicParams(n=1024, stage=0, pass_of_stage=0, order=SortOrder.ASCENDING)
t0 = time.perf_counter()
bitonic_step.launch(keys, p, threads=1024, device=dev)
keys.numpy()
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "adapter": dev.adapter}))
'''


def one(device: str, cache: str) -> dict:
    """One fresh process: the first launch on ``device`` with the cache in ``cache``."""
    env = dict(os.environ, PYSHADE_CACHE="1", PYSHADE_CACHE_DIR=cache)
    # Python's own bytecode cache on, as for users (this workplace turns it off): the
    # modules a launch imports then load as a user's would.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    p = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples"), device],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", nargs="+", default=["cpu", "wgpu", "vulkan"])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", help="write the table (with command, date, adapters) here")
    args = ap.parse_args()
    lines = [f"command: python {' '.join(sys.argv)}",
             f"date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
             f"python: {sys.version.split()[0]}", "",
             f"{'device':8} {'cold ms':>9} {'warm ms':>9} {'cold/warm':>10}  adapter"]
    for dev in args.devices:
        with tempfile.TemporaryDirectory() as cache:
            one(dev, cache)                 # bytecode of every module the launch imports
        cold, warm = [], []
        adapter = "?"
        for _ in range(args.reps):
            with tempfile.TemporaryDirectory() as cache:
                c = one(dev, cache)
                w = one(dev, cache)
            cold.append(c["seconds"])
            warm.append(w["seconds"])
            adapter = c["adapter"]
        mc, mw = statistics.median(cold), statistics.median(warm)
        lines.append(f"{dev:8} {mc * 1e3:9.1f} {mw * 1e3:9.1f} {mc / mw:10.1f}  {adapter}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
