"""Probe (fuzz seeds 20263115 kernel 42, 20263107 kernel 48, 20263119 kernel 0, 20263123
kernel 52): SwiftShader's u32 -> f32 conversion (``swiftshader_u32_to_f32_probe.py``)
also where pyshade converts implicitly, ``1.5 * a[i]`` for a u32 ``a[i]`` (the fuzzer's
"promote", which EXACT_INT did not reduce), and it is exactly
``f32(f32(x & 0x7fffffff) + 2**31)`` for every x >= 2**31: the cpu device's outputs with
that conversion (``tests/fuzz/harness.swiftshader_u32_variant``) equal the driver's, bit
for bit, on 4096 random u32 of each half. Below 2**31, and for i32, it rounds to
nearest. Vulkan allows either neighbour ("fundamentals-fp-conversion"), and so does
WGSL; the fuzzer's rule ``swiftshader-u32-to-f32`` compares with that second reference.
Prints, per device: how many of the 8192 results differ from numpy's round-to-nearest,
and how many differ from the emulation (0 on SwiftShader, all of the first count
elsewhere), for f32(x), 1.5 * x and vec3(uvec3(x)).y.

    python bench/probes/swiftshader_u32_promote_probe.py
    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \\
        python bench/probes/swiftshader_u32_promote_probe.py
"""
import sys
from pathlib import Path

import numpy as np
from probe_kernels import devices, load

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from fuzz.harness import swiftshader_u32_variant  # noqa: E402

SRC = '''import pyshade as ps
from pyshade import f32, u32, uvec3, vec3


@ps.kernel(workgroup_size=64)
def conv(a: ps.Buffer[u32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(a):
        out[i * 3] = f32(a[i])
        out[i * 3 + 1] = 1.5 * a[i]
        out[i * 3 + 2] = vec3(uvec3(a[i])).y
'''

if __name__ == "__main__":
    mod = load(SRC, "u32_promote_kernels")
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.integers(0, 2**31, 4096), rng.integers(2**31, 2**32, 4096)])
    a = a.astype(np.uint32)
    f = a.astype(np.float32)
    nearest = np.stack([f, np.float32(1.5) * f, f], 1).reshape(-1)
    emu = swiftshader_u32_variant()
    want = emu.zeros(3 * len(a), np.float32)
    mod.conv.launch(emu.array(a), want, threads=len(a), device=emu)
    emulated = want.numpy()
    for name, via, dev in devices((("cpu", None), ("vulkan", None), ("vulkan", "hlsl"),
                                   ("wgpu", None))):
        out = dev.zeros(3 * len(a), np.float32)
        mod.conv.launch(dev.array(a), out, threads=len(a), device=dev)
        got = out.numpy()
        cols = []
        for c, what in enumerate(("f32(x)", "1.5 * x", "vec3(uvec3(x)).y")):
            g, n, e = got[c::3], nearest[c::3], emulated[c::3]
            cols.append(f"{what}: {int((g != n).sum())} off nearest "
                        f"({int((g[:4096] != n[:4096]).sum())} below 2**31), "
                        f"{int((g != e).sum())} off the emulation")
        print(f"{name} {via or ''}".ljust(12), "; ".join(cols), getattr(dev, "adapter", ""))
