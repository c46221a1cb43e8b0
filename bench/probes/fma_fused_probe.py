"""Does ``ps.fma`` round once on each device? 65,536 random f32 triples chosen so that a
fused and an unfused ``a * b + c`` differ (``c`` near ``-a * b``), against the exact
single rounding (fractions), on every device given.

    CI=true python bench/probes/fma_fused_probe.py --devices wgpu,vulkan,vulkan-hlsl
"""
import argparse
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools")]

from conformance_cases import f32_exact  # noqa: E402
from fuzz import driver  # noqa: E402

import pyshade as ps  # noqa: E402
from pyshade import f32  # noqa: E402


@ps.kernel(workgroup_size=64)
def fma_k(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], r: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(a):
        r[i] = ps.fma(a[i], b[i], c[i])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="wgpu,vulkan,vulkan-hlsl")
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    n = 1 << 16
    a = rng.uniform(1, 2, n).astype(np.float32)
    b = rng.uniform(1, 2, n).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.uniform(-1e-6, 1e-6, n))).astype(np.float32)
    # the exact value rounded once (numpy's float32 of a Fraction goes through a double)
    want = np.array([f32_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a, b, c)], np.float32)
    unfused = (a * b) + c
    print(f"triples where fused and unfused differ: {int((want != unfused).sum())} of {n}")
    for label, dev in driver.devices(set(args.devices.split(",")) | {"cpu"}):
        r = np.zeros(n, np.float32)
        fma_k.launch(a, b, c, r, threads=n, device=dev)
        print(f"{label}: not the single rounding {int((r != want).sum())}, "
              f"equal to the unfused {int((r == unfused).sum())}")


if __name__ == "__main__":
    main()
