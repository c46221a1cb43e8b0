"""Probe (fuzz seed 20261204 kernels 23, 79, 84, 145): SwiftShader converts a u32 of 2**31
or more to f32 by rounding twice, ``float(x & 0x7fffffff) + 2**31`` as it seems: 4009827986
gives 4009827840 where round-to-nearest gives 4009828096 (the low part rounds to a tie,
which the addition breaks to even). Lavapipe rounds to nearest. Vulkan allows either
neighbour ("fundamentals-fp-conversion": "finite values falling between two
representable finite values are rounded to one or the other. The rounding mode is not
defined"), and so does WGSL: a difference the specifications allow, so the fuzzer reduces
an integer below 2**24 before converting it to f32 (``tests/fuzz/exprs.EXACT_INT``).
Prints, per driver, the difference from numpy's f32 for u32 -> f32, i32 -> f32, a vector
conversion, and ``x >> 1`` -> f32 (below 2**31: right everywhere).

    python bench/probes/swiftshader_u32_to_f32_probe.py
    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \\
        python bench/probes/swiftshader_u32_to_f32_probe.py
"""

import numpy as np
from probe_kernels import devices, load

SRC = '''import pyshade as ps
from pyshade import f32, i32, u32, uvec4, vec4


@ps.kernel(workgroup_size=8)
def conv(a: ps.Buffer[u32], b: ps.Buffer[i32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(a):
        out[i * 4] = f32(a[i])
        out[i * 4 + 1] = f32(b[i])
        out[i * 4 + 2] = vec4(uvec4(a[i], 0, 0, 0)).x
        out[i * 4 + 3] = f32(a[i] >> 1)
'''

if __name__ == "__main__":
    mod = load(SRC, "u32_to_f32_kernels")
    a = np.array([4009827986, 4009827968 + 128, 4009827968 + 127, 2**31 + 129, 2**31 + 384,
                  2**32 - 1, 2**24 + 1, 3000000001], np.uint32)
    b = a.view(np.int32)
    want = np.stack([a.astype(np.float32), b.astype(np.float32), a.astype(np.float32),
                     (a >> 1).astype(np.float32)], 1)
    for name, _, dev in devices((("cpu", None), ("vulkan", None), ("wgpu", None))):
        out = dev.zeros(32, np.float32)
        mod.conv.launch(dev.array(a), dev.array(b), out, threads=8, device=dev)
        diff = (out.numpy().reshape(8, 4).astype(np.float64) - want).astype(np.int64)
        print(f"{name} ({getattr(dev, 'adapter', '')}): got - numpy per input "
              "(u32, i32, uvec4, u32 >> 1)")
        for x, row in zip(a, diff):
            print(f"  {int(x):>10}  {row.tolist()}")
