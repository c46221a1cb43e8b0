"""Probe (fuzz comparison rule ``wgsl-inexact``, docs/devices/testing.md): f32 division
on each CI device. Through WGSL, SwiftShader computes ``a / 3.0`` 1 ulp off the
correctly rounded quotient for about a third of the inputs (1383 of 4096 on
2026-12-04: a product with the reciprocal, which WGSL's 2.5-ulp division allows) and
``a / b`` of two runtime values correctly; lavapipe through WGSL and both Vulkan routes
on both drivers divide correctly rounded. ``a * b + a`` was not contracted by any of
them in this small kernel (contraction shows in larger fuzz kernels on wgpu).

    CI=true PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader \\
        python bench/probes/wgsl_division_probe.py
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402
from probe_kernels import suite_devices  # noqa: E402

import pyshade as ps  # noqa: E402
from pyshade import f32  # noqa: E402


@ps.kernel(workgroup_size=64)
def div(a: ps.Buffer[f32], b: ps.Buffer[f32], o: ps.Buffer[f32], q: ps.Buffer[f32],
        r: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    o[i] = a[i] / b[i]
    q[i] = a[i] / 3.0
    r[i] = a[i] * b[i] + a[i]


def ulps(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.abs(g.view(np.int32).astype(np.int64) - w.view(np.int32).astype(np.int64))


def main() -> None:
    rng = np.random.default_rng(1)
    n = 4096
    a = rng.uniform(-100, 100, n).astype(np.float32)
    b = (rng.uniform(0.5, 50, n) * rng.choice([-1, 1], n)).astype(np.float32)
    quot, third = (a / b).astype(np.float32), (a / np.float32(3)).astype(np.float32)
    unfused = (a * b + a).astype(np.float32)
    devs = suite_devices(cuda=False)
    for label, dev in devs:
        zeros = [np.zeros(n, np.float32) for _ in range(3)]
        arrs = [dev.array(x) for x in (a, b, *zeros)]
        div.launch(*arrs, threads=n, device=dev)
        o, q, r = (x.numpy() for x in arrs[2:])
        print(f"{label:26} a/b: {int((ulps(o, quot) > 0).sum()):5} off (max "
              f"{ulps(o, quot).max()} ulp)  a/3: {int((ulps(q, third) > 0).sum()):5} off "
              f"(max {ulps(q, third).max()} ulp)  a*b+a not as unfused: "
              f"{int((r != unfused).sum())}")


if __name__ == "__main__":
    main()
