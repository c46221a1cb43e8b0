"""Does submitting a batch's first launches early let the GPU start while Python records
the rest? (issue 17) ``sort`` of 2^24 u32 keys end to end (one call, then
``dev.synchronize()``) and ``record_radix`` in a batch of its own, on the recording
devices, with the first chunk of a batch (``recording.BATCH_FIRST_CHUNK``; 32 was
``FIRST_CHUNK``'s, so that a sort's 20 launches went in one submission at the batch's
end) at each size; ``each`` submits after every launch. cuda (no recording) is the
reference. Milliseconds: the median over 7 rounds (variants interleaved) of each
round's median of 5, with the rounds' range.

    python bench/probes/submit_chunk_probe.py [--n 16777216] [--devices cuda,vulkan,wgpu]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyshade as ps
import pyshade.runtime.recording as recording
from pyshade.algorithms import sort
from pyshade.algorithms.radix import record_radix
from pyshade.benchmarks.common import median_ms

CHUNKS = {"32 (before)": (32, 4096), "1": (1, 4096), "2 (pyshade)": (2, 4096), "4": (4, 4096),
          "8": (8, 4096), "each": (1, 1)}
ROUNDS = 7


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--devices", default="cuda,vulkan,wgpu")
    a = ap.parse_args()
    n = a.n
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    want = np.sort(host)
    cols: dict[str, dict[str, float | str]] = {}
    batch_first, most_recorded = recording.BATCH_FIRST_CHUNK, recording.MAX_RECORDED
    for name in a.devices.split(","):
        dev = ps.device(name)
        keys = dev.array(host)

        def radix_batch() -> None:
            with dev.batch():
                record_radix(dev, keys, n)
        col = cols[name] = {"sync only": median_ms(lambda: None, dev.synchronize, 15)}
        times: dict[str, list[float]] = {}
        # the variants interleaved, round by round: a drift of the machine reaches all
        for _ in range(ROUNDS):
            for label, (first, most) in CHUNKS.items():
                if name == "cuda" and label != "2 (pyshade)":
                    continue
                recording.BATCH_FIRST_CHUNK, recording.MAX_RECORDED = first, most
                dev.synchronize()
                assert np.array_equal(sort(keys, method="radix").numpy(), want), (name, label)
                times.setdefault(f"sort, first chunk {label}", []).append(median_ms(
                    lambda: sort(keys, method="radix"), dev.synchronize, 5))
                times.setdefault(f"record_radix, first chunk {label}", []).append(
                    median_ms(radix_batch, dev.synchronize, 5))
        recording.BATCH_FIRST_CHUNK, recording.MAX_RECORDED = batch_first, most_recorded
        for k, v in times.items():
            col[k] = float(np.median(v))
            col[k + " (min-max)"] = f"{min(v):.3f}-{max(v):.3f}"
    rows = list(dict.fromkeys(k for c in cols.values() for k in c))
    print(f"n = {n}, ms (median of {ROUNDS} rounds of median of 5)")
    print("| measurement | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for r in rows:
        print(f"| {r} | " + " | ".join(
            (f"{c[r]:.3f}" if isinstance(c[r], float) else c[r]) if r in c else "" for c in cols.values())
              + " |")


if __name__ == "__main__":
    main()
