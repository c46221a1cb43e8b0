"""Probe (fuzz seed 20263124 kernel 10, shrunk to ``round(math.sqrt(abs(0.1)))``):
SwiftShader's GLSL.std.450 RoundEven and a zero's sign. The cpu device (Python's round,
IEEE roundToIntegralTiesToEven) gives +0.0 for a positive x below 0.5 and -0.0 for a
negative one; the fuzz run saw -0.0 for the constant sqrt(0.1) on SwiftShader's GLSL
route (RoundEven) only, not on its HLSL route (DXC's Round). Prints each route's results
(sign shown) for loaded values and for the constant expression of the kernel.

Result (2026-12, SwiftShader of Debian's chromium, lavapipe of Mesa 22.3.6): every loaded
value is right on every route; ``round(math.sqrt(abs(0.1)))`` is -0.0 on the GLSL route
of BOTH drivers, +0.0 on the HLSL route and wgpu. Not SwiftShader: glslang folds
sqrt(abs(0.1)) and then roundEven with the zero's sign flipped
(``glslang_round_even_probe.py``, its last two cases); lavapipe's ``lavapipe-zero-sign``
rule hid it there.

    python bench/probes/swiftshader_round_even_probe.py
    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \\
        python bench/probes/swiftshader_round_even_probe.py
"""
import numpy as np
from probe_kernels import devices, load

SRC = '''import math
import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=16)
def r(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        out[i] = round(x[i])
    if i == 0:
        out[len(x)] = round(math.sqrt(abs(0.1)))
        out[len(x) + 1] = round(0.3)
        out[len(x) + 2] = round(-0.3)
'''
if __name__ == "__main__":
    mod = load(SRC, "round_even_kernels")
    xs = np.array([0.3, 0.1, 0.49, 0.5, 0.316227766, -0.3, -0.5, 1.5, 2.5, 0.0, -0.0,
                   1e-30], np.float32)
    print("x:", " ".join(f"{v:+g}" for v in xs), "| round(sqrt(abs(0.1))) round(0.3) "
          "round(-0.3)")
    for name, via, dev in devices():
        o = dev.zeros(len(xs) + 3, np.float32)
        mod.r.launch(dev.array(xs), o, threads=len(xs), device=dev)
        v = o.numpy()
        print(f"{name} {via or ''}".ljust(12), " ".join(f"{x:+g}" for x in v[:len(xs)]),
              "|", " ".join(f"{x:+g}" for x in v[len(xs):]), getattr(dev, "adapter", ""))
