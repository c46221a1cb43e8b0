"""Probe: variants of the last line of ``nvidia_kernel_444.txt`` on cpu vs a GPU.

Its temporaries all agree on the H200 but the final
``min(reverse_bits(max(1, t1)), min(t0 // (i32(y) | 1), 0 - t2)) + t4`` does
not; each variant below changes one thing.
"""

import os
import re
import sys

import numpy as np

import pyshade as ps

sys.path.insert(0, os.path.dirname(__file__))
from diff_bisect import compare, load  # noqa: E402

A = "ps.reverse_bits(max(1, t1))"
B = "(t0 // (i32(y) | 1))"
C = "(0 - t2)"
VARIANTS = {
    "original": f"(min({A}, min({B}, {C})) + t4)",
    "no_t4": f"min({A}, min({B}, {C}))",
    "A": A, "B": B, "C": C,
    "min_BC": f"min({B}, {C})",
    "min_AB": f"min({A}, {B})",
    "min_AC": f"min({A}, {C})",
    "select_min": f"ps.select(min({B}, {C}), {A}, {A} < min({B}, {C}))",
    "select_both": f"ps.select(ps.select({C}, {B}, {B} < {C}), {A}, "
                   f"{A} < ps.select({C}, {B}, {B} < {C}))",
}


def main() -> int:
    src = open(os.path.join(os.path.dirname(__file__), "nvidia_kernel_444.txt")).read()
    gpu = ps.device(sys.argv[1] if len(sys.argv) > 1 else "wgpu")
    cpu = ps.device("cpu")
    print(gpu.adapter)
    rng = np.random.default_rng()
    n = 1024
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = (rng.integers(0, 2**32, n, dtype=np.int64)).astype(np.uint32)
    for name, expr in VARIANTS.items():
        body = re.sub(r"out\[i\] = .*", f"out[i] = {expr}", src)
        k = load(body, f"last_{name}")
        compare(name, k, a, b, np.int32, cpu, gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
