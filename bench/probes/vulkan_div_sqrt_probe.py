"""Probe (fuzz comparison rule for NVIDIA's Vulkan driver, docs/devices/testing.md):
is f32/f16 division and square root correctly rounded on each device? Vulkan allows
``OpFDiv`` 2.5 ulp and ``OpFSqrt`` the error of ``1 / inversesqrt(x)`` ("Precision and
Operation of SPIR-V Instructions"); WGSL the same. Prints, per device and operation, how
many of 2^20 random inputs differ from numpy's correctly rounded result, the largest
difference in ulp, and how many equal ``x * (1 / y)`` with the reciprocal correctly
rounded (a product with the reciprocal).

    python bench/probes/vulkan_div_sqrt_probe.py          # every adapter found, and cuda
    CI=true PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader python bench/probes/vulkan_div_sqrt_probe.py
"""
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402
from probe_kernels import suite_devices  # noqa: E402

import pyshade as ps  # noqa: E402
from pyshade import f16, f32  # noqa: E402


@ps.kernel(workgroup_size=64)
def ops32(a: ps.Buffer[f32], b: ps.Buffer[f32], q: ps.Buffer[f32], c: ps.Buffer[f32],
          s: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    q[i] = a[i] / b[i]
    c[i] = a[i] / 7.0
    s[i] = math.sqrt(abs(a[i]))


@ps.kernel(workgroup_size=64)
def ops16(a: ps.Buffer[f16], b: ps.Buffer[f16], q: ps.Buffer[f16], c: ps.Buffer[f16],
          s: ps.Buffer[f16]) -> None:
    i = ps.global_id().x
    q[i] = a[i] / b[i]
    c[i] = a[i] / f16(7.0)
    s[i] = math.sqrt(abs(a[i]))


def ulps(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    it = np.int32 if g.dtype == np.float32 else np.int16
    return np.abs(g.view(it).astype(np.int64) - w.view(it).astype(np.int64))


def main() -> None:
    rng = np.random.default_rng(1)
    n = 1 << 20
    devs = suite_devices(cuda=True)
    for dt, kern in ((np.float32, ops32), (np.float16, ops16)):
        top = 100 if dt == np.float32 else 30
        a = (np.exp2(rng.uniform(-6, math.log2(top), n)) * rng.choice([-1, 1], n)).astype(dt)
        b = (np.exp2(rng.uniform(-3, 5, n)) * rng.choice([-1, 1], n)).astype(dt)
        want = {"a/b": (a / b).astype(dt), "a/7": (a / dt(7)).astype(dt),
                "sqrt": np.sqrt(np.abs(a)).astype(dt)}
        recip = {"a/b": (a * (dt(1) / b).astype(dt)).astype(dt),
                 "a/7": (a * (dt(1) / dt(7))).astype(dt)}
        for label, dev in devs:
            if dt == np.float16 and "f16" not in getattr(dev, "features", ("f16",)):
                print(f"{label:28} f16: not supported")
                continue
            arrs = [dev.array(x) for x in (a, b, *[np.zeros(n, dt) for _ in range(3)])]
            try:
                kern.launch(*arrs, threads=n, device=dev)
            except ps.PyshadeError as e:
                print(f"{label:28} {dt.__name__}: {type(e).__name__}: {str(e)[:200]}")
                continue
            got = dict(zip(want, (x.numpy() for x in arrs[2:])))
            parts = []
            for op, w in want.items():
                u = ulps(got[op], w)
                part = f"{op}: {int((u > 0).sum()):7} off, max {int(u.max())} ulp"
                if op in recip:
                    part += f", = x*(1/y) {int((got[op] == recip[op]).sum()):7}"
                parts.append(part)
            print(f"{label:28} {np.dtype(dt).name}  " + " | ".join(parts))


if __name__ == "__main__":
    main()
