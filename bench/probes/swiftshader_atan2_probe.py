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
import importlib.util
import tempfile
from pathlib import Path

import numpy as np

import pyshade as ps

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
    path = Path(tempfile.mkdtemp()) / "atan2_kernels.py"
    path.write_text(SRC)
    spec = importlib.util.spec_from_file_location("atan2_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ys = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0, -0.0, 1e-30, -1e-30], np.float32)
    xs = np.array([1.0, 1.0, -1.0, -1.0, -0.0, -0.0, 3.5, -2.5, -1.0, -1.0], np.float32)
    for name, via in (("cpu", None), ("vulkan", None), ("vulkan", "hlsl"), ("wgpu", None)):
        try:
            dev = ps.device(name, via=via) if via else ps.device(name)
        except ps.BackendUnavailable as e:
            print(f"{name} {via or ''}: unavailable ({e})")
            continue
        o = dev.zeros(len(ys), np.float32)
        mod.at.launch(dev.array(ys), dev.array(xs), o, threads=len(ys), device=dev)
        print(f"{name} {via or ''}".ljust(12), " ".join(f"{v:+.4f}" for v in o.numpy()),
              getattr(dev, "adapter", ""))
