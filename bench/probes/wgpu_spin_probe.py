"""The wgpu device's wait for results: polling for the queue's work-done callback
(``wgpu_support.WorkDoneWaiter``, the default on GPU adapters) against wgpu-native's
blocking ``wgpuDevicePoll(wait=true)``, interleaved round by round on one device: a sort
of 2^24 keys end to end, ``record_radix`` one a batch, and one small launch and its
wait. The cuda device's sort in the same process for the ratio (issue 17).

    python bench/probes/wgpu_spin_probe.py [--n 16777216] [--rounds 7]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyshade as ps
from pyshade.algorithms import radix, sort
from pyshade.benchmarks.common import median_ms
from pyshade.runtime.recording import SPIN_WAIT_S
from pyshade.runtime.wgpu_support import WorkDoneWaiter


@ps.kernel(workgroup_size=64)
def touch(a: ps.Buffer[ps.u32]) -> None:
    """One workgroup's worth of work."""
    a[ps.global_id().x] += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    host = np.random.default_rng(3).integers(0, 2**32, a.n, dtype=np.uint32)
    want = np.sort(host)
    dev = ps.device("wgpu")
    print(f"wgpu: {dev.adapter}; waiter: {dev._waiter is not None}")
    keys = dev.array(host)
    small = dev.empty(64, np.uint32)
    # a CPU adapter has none by default: made here, so that the probe runs anywhere
    waiter = dev._waiter or WorkDoneWaiter.make(dev.wgpu_device, SPIN_WAIT_S)
    kept = dev._waiter
    modes = {"poll": waiter, "block": None}
    cases = {
        "sort": (lambda: sort(keys, method="radix"), 5),
        "record_radix, 1 a batch": (lambda: _batch(dev, lambda: radix.record_radix(dev, keys, a.n)), 5),
        "one launch + sync": (lambda: touch.launch(small, threads=64, device=dev), 21),
    }
    runs: dict[str, list[float]] = {}
    for mode, w in modes.items():
        dev._waiter = w
        if not np.array_equal(sort(keys, method="radix").numpy(), want):
            print(f"{mode}: WRONG RESULT")
    for _ in range(a.rounds):
        for mode, w in modes.items():
            dev._waiter = w
            for case, (fn, reps) in cases.items():
                runs.setdefault(f"wgpu {case} ({mode})", []).append(
                    median_ms(fn, dev.synchronize, reps))
    dev._waiter = kept
    try:
        cu = ps.device("cuda")
        ck = cu.array(host)
        runs["cuda sort"] = [median_ms(lambda: sort(ck, method="radix"), cu.synchronize, 5)
                             for _ in range(a.rounds)]
    except Exception as e:  # noqa: BLE001 - a probe: report and go on
        print(f"cuda: {type(e).__name__}: {e}")
    print(f"n = {a.n}; ms, median of {a.rounds} rounds (each a median) and range")
    print("| measurement | median | min | max |")
    print("|---|---|---|---|")
    for k, ts in runs.items():
        print(f"| {k} | {np.median(ts):.3f} | {min(ts):.3f} | {max(ts):.3f} |")


def _batch(dev: ps.Device, body) -> None:
    with dev.batch():
        body()


if __name__ == "__main__":
    main()
