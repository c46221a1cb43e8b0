"""Probe: `min(a, b) - a` on i32 with wrapping, written several ways in WGSL.

On the H200 (NVIDIA Vulkan via wgpu-py 0.32), a differential-test kernel
ending in `min(t3, c) - t3` disagreed with the CPU while every input agreed:
the driver seems to simplify as if signed overflow could not happen.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from wgsl_run import open_device, run_i32_fn  # noqa: E402

VARIANTS = {
    "min_sub": "return min(a, b) - a;",
    "max_sub": "return max(a, b) - a;",
    "sub_only": "return b - a;",
    "u32_sub": "return bitcast<i32>(bitcast<u32>(min(a, b)) - bitcast<u32>(a));",
    "select_sub": "return select(a, b, b < a) - a;",
    "add_cmp": "return select(0i, 1i, a + 1i > a);",
}


def main():
    dev = open_device()
    rng = np.random.default_rng()
    n = 4096
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    wrap = lambda v: ((v + 2**31) % 2**32 - 2**31).astype(np.int32)  # noqa: E731
    want = {"min_sub": wrap(np.minimum(a64, b64) - a64), "max_sub": wrap(np.maximum(a64, b64) - a64),
            "sub_only": wrap(b64 - a64), "u32_sub": wrap(np.minimum(a64, b64) - a64),
            "select_sub": wrap(np.minimum(a64, b64) - a64),
            "add_cmp": (wrap(a64 + 1) > a).astype(np.int32)}
    for name, body in VARIANTS.items():
        got = run_i32_fn(dev, body, a, b)
        bad = np.flatnonzero(got != want[name])
        print(f"{name:11} mismatches {bad.size:5}",
              [(int(a[i]), int(b[i]), int(got[i]), int(want[name][i])) for i in bad[:2]])


main()
