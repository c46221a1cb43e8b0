"""Probe: nested signed min/max on i32, written several ways in WGSL.

The differential test found kernels ending in `min(a, min(b, c))` (i32) that
disagreed on the H200 (NVIDIA Vulkan via wgpu-py) while every operand agreed.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from wgsl_run import open_device, run_i32_fn  # noqa: E402

VARIANTS = {
    "min_min": "return min(a, min(b, c));",
    "max_max": "return max(a, max(b, c));",
    "min_max": "return min(a, max(b, c));",
    "min_min_plus": "return min(a, min(b, c)) + 1i;",
    "select_min": "let m = select(c, b, b < c); return select(m, a, a < m);",
    "select_min_plus": "let m = select(c, b, b < c); return select(m, a, a < m) + 1i;",
    # does the driver assume that signed arithmetic never wraps?
    "sq_neg": "let s = a * a; return select(0i, 1i, s < 0i);",
    "sq_neg_u32": "let s = i32(u32(a) * u32(a)); return select(0i, 1i, s < 0i);",
    "sq_min": "return min(b, a * a);",
    "sq_min_u32": "return min(b, i32(u32(a) * u32(a)));",
    "add_gt": "return select(0i, 1i, a + b > a);",
    "add_gt_u32": "return select(0i, 1i, i32(u32(a) + u32(b)) > a);",
}


def main():
    dev = open_device()
    rng = np.random.default_rng()
    n = 4096
    a, b, c = (rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32) for _ in range(3))
    mn, mx = np.minimum, np.maximum
    want = {"min_min": mn(a, mn(b, c)), "max_max": mx(a, mx(b, c)), "min_max": mn(a, mx(b, c)),
            "min_min_plus": mn(a, mn(b, c)) + np.int32(1), "select_min": mn(a, mn(b, c)),
            "select_min_plus": mn(a, mn(b, c)) + np.int32(1)}
    with np.errstate(over="ignore"):
        sq = a * a
        want.update(sq_neg=(sq < 0).astype(np.int32), sq_neg_u32=(sq < 0).astype(np.int32),
                    sq_min=mn(b, sq), sq_min_u32=mn(b, sq),
                    add_gt=((a + b) > a).astype(np.int32),
                    add_gt_u32=((a + b) > a).astype(np.int32))
    for name, body in VARIANTS.items():
        got = run_i32_fn(dev, body, a, b, c)
        bad = np.flatnonzero(got != want[name])
        print(f"{name:16} mismatches {bad.size:5}",
              [(int(a[i]), int(b[i]), int(c[i]), int(got[i])) for i in bad[:2]])


main()
