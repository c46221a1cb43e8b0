"""Probe (fuzz seed 20263213 kernel 16): lavapipe's atan2 of a constant y = -0.0 and a
negative x is NaN, on the GLSL and the HLSL route and through wgpu (the atan2 sink got
``atan2((vec3(0.75, 0.3, s0) * -0.0).x, x)`` with x < 0: the cpu -pi, lavapipe NaN).
The same -0.0 read from a buffer gives -pi, and a constant +0.0 is right: the driver
folds the constant and its atan2 lowering goes wrong there. Not an allowance: without
SignedZeroInfNanPreserve a zero's sign may be ignored (result +-pi), but GLSL.std.450
Atan2 is undefined only for x = y = 0, never NaN for x != 0. A lavapipe fault (Mesa
22.3.6), a target limitation; SwiftShader's own atan2 fault with y = -0.0 is
swiftshader_atan2_probe.py. Rows: y = constant -0.0, y = -0.0 from a buffer, y = a
product with a constant -0.0, y = constant +0.0; columns x = -1, -0.5, 1, 2.

    python bench/probes/lavapipe_atan2_probe.py
"""

import numpy as np
from probe_kernels import devices, load

SRC = '''import math
import pyshade as ps
from pyshade import f32, vec3


@ps.kernel(workgroup_size=4)
def at(x: ps.Buffer[f32], z: ps.Buffer[f32], o: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    o[i * 4 + 0] = math.atan2(-0.0, x[i])
    o[i * 4 + 1] = math.atan2(z[i], x[i])
    o[i * 4 + 2] = math.atan2((vec3(0.75, 0.3, x[i]) * (-0.0)).xy.x, x[i])
    o[i * 4 + 3] = math.atan2(0.0, x[i])
'''

if __name__ == "__main__":
    mod = load(SRC, "lavapipe_atan2_kernels")
    x = np.array([-1.0, -0.5, 1.0, 2.0], np.float32)
    z = np.full(4, -0.0, np.float32)
    for name, via, dev in devices():
        o = dev.zeros(16, np.float32)
        mod.at.launch(dev.array(x), dev.array(z), o, threads=4, device=dev)
        rows = o.numpy().reshape(4, 4).T
        print(f"{name} {via or ''}".ljust(12), " | ".join(" ".join(f"{v:+.4f}" for v in r)
                                                     for r in rows), getattr(dev, "adapter", ""))
