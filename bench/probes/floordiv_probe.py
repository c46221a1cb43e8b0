"""Probe: i32 floor division written several ways in WGSL, checked against numpy.

Found on NVIDIA H200 (Vulkan, via wgpu-py 0.32): the select-based helper gave
wrong quotients for some inputs; this script compares variants on one device.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from wgsl_run import open_device, run_i32_fn  # noqa: E402

VARIANTS = {
    "select_and": "let q = a / b; return select(q, q - 1i, (a % b != 0i) & ((a < 0i) != (b < 0i)));",
    "select_andand": "let q = a / b; return select(q, q - 1i, (a % b != 0i) && ((a < 0i) != (b < 0i)));",
    "manual_rem": "let q = a / b; let r = a - q * b; return select(q, q - 1i, (r != 0i) && ((r ^ b) < 0i));",
    "if_stmt": "var q = a / b; let r = a - q * b; "
               "if (r != 0i && (r < 0i) != (b < 0i)) { q = q - 1i; } return q;",
    "xor_sign": "let q = a / b; let r = a % b; return q - i32((r != 0i) && ((r ^ b) < 0i));",
}


def main():
    dev = open_device()
    rng = np.random.default_rng()
    n = 4096
    a = rng.integers(-2**31 + 1, 2**31, n, dtype=np.int32)
    b = rng.integers(-50, 51, n, dtype=np.int32)
    b[b == 0] = 1
    a[:4], b[:4] = [-1, -7, 7, -1], [3, 2, -2, -3]
    want = np.floor_divide(a, b)
    for name, body in VARIANTS.items():
        got = run_i32_fn(dev, body, a, b)
        bad = np.flatnonzero(got != want)
        print(f"{name:14} mismatches {bad.size:5}", [(int(a[i]), int(b[i]), int(got[i])) for i in bad[:3]])


main()
