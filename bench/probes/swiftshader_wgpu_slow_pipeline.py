"""Probe (fuzz seed 20261204 kernel 33, a "kernel that never finished"): through wgpu,
SwiftShader takes more than 100 s to create the compute pipeline of this kernel (the
kernel itself, ``swiftshader_wgpu_k33_kernel.py``, kept as generated); the module is
created at once, and lavapipe through wgpu, and both drivers on the GLSL and HLSL
routes, create and run it in about a second each. Not a GPU hang and not pyshade's
fault: SwiftShader's compiler on naga's SPIR-V. Any one or two of the three nested
``math.fmod`` of its line 61 (the prelude's ``ps_fmod``, two loops) compile fast; all
three inside the kernel's two nested loops do not, so the fuzz run records a timeout.
Each pipeline is created in a child process with a time limit:

    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \\
        python bench/probes/swiftshader_wgpu_slow_pipeline.py
"""
import subprocess
import sys
import time
from pathlib import Path

LIMIT = 120.0


def child() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import wgpu
    from swiftshader_wgpu_k33_kernel import fz33
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    dev = adapter.request_device_sync(required_limits={})
    module = dev.create_shader_module(code=fz33.source("wgsl"))
    t = time.perf_counter()
    dev.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "fz33"})
    print(f"{adapter.info.get('device')}: pipeline in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    if sys.argv[1:] == ["child"]:
        child()
    else:
        try:
            r = subprocess.run([sys.executable, __file__, "child"], capture_output=True,
                               text=True, timeout=LIMIT)
            print(r.stdout.strip() or r.stderr.strip()[-500:])
        except subprocess.TimeoutExpired:
            print(f"no pipeline after {LIMIT:.0f} s")
