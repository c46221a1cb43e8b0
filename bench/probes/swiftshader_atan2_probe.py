"""Probe (fuzz seed 20261204 kernels 78 and 120): SwiftShader's atan2 with y = -0.0 gives
atan2(+0.0, -x): +pi for x > 0 (IEEE and the cpu: -0.0) and +0.0 for x < 0 (-pi), on the
GLSL route, the HLSL route and through wgpu alike, so it is the driver's atan2. Lavapipe
returns +0.0 for atan2(-0.0, 1.0) (a zero's sign: ``lavapipe-zero-sign``) and is right
otherwise. Not an allowance: GLSL.std.450 Atan2 and WGSL's atan2 are undefined only for
x = y = 0. The fuzzer accepts exactly this result on SwiftShader's atan2 sinks
(``tests/fuzz/harness.ATAN2_NEGZERO``); it is a finding anywhere else.
Columns: (y, x) = (0, 1) (-0, 1) (0, -1) (-0, -1) (1, -0) (-1, -0) (0, 3.5) (-0, -2.5)
(1e-30, -1) (-1e-30, -1).

    python bench/probes/swiftshader_atan2_probe.py
    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \
        python bench/probes/swiftshader_atan2_probe.py
"""

import numpy as np
from probe_kernels import devices, load

SRC = '''import math
import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=16)
def at(y: ps.Buffer[f32], x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(y):
        out[i] = math.atan2(y[i], x[i])
'''
if __name__ == "__main__":
    mod = load(SRC, "atan2_kernels")
    ys = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0, -0.0, 1e-30, -1e-30], np.float32)
    xs = np.array([1.0, 1.0, -1.0, -1.0, -0.0, -0.0, 3.5, -2.5, -1.0, -1.0], np.float32)
    for name, via, dev in devices():
        o = dev.zeros(len(ys), np.float32)
        mod.at.launch(dev.array(ys), dev.array(xs), o, threads=len(ys), device=dev)
        print(f"{name} {via or ''}".ljust(12), " ".join(f"{v:+.4f}" for v in o.numpy()),
              getattr(dev, "adapter", ""))
