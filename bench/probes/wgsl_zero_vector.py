"""Probe (issue 16, item 2: found by the fuzzer): naga's SPIR-V for a zero-value vector
inside a constant vector constructor, ``vec4<f32>(1.0f, 1.0f, vec2<f32>())`` in a
function, loses the device on lavapipe at pipeline creation ("Parent device is lost").
Written ``vec2<f32>(0.0f)`` (what pyshade emits since), or with a run-time component,
it compiles. One line per WGSL body: ``ok`` or the error's last line.

    python bench/probes/wgsl_zero_vector.py

Uses wgpu-py directly (the default adapter; VK_DRIVER_FILES picks the driver), so it
runs where pyshade's output changed. Seen with wgpu-py 0.32 (wgpu-native 29.0.1.1) and Mesa 22.3.6's
lavapipe.
"""

from __future__ import annotations

import wgpu

BODIES = (
    "let v = vec4<f32>(1.0f, 1.0f, vec2<f32>()); return v.x;",         # lost
    "let v = vec3<f32>(vec2<f32>(), 1.0f); return v.x;",               # lost
    "let v = vec4<i32>(1i, 1i, vec2<i32>()); return f32(v.x);",        # lost
    "let v = vec4<f32>(1.0f, 1.0f, mat2x2<f32>()[0u]); return v.x;",   # lost
    "let v = vec4<f32>(1.0f, 1.0f, vec2<f32>(0.0f)); return v.x;",     # ok
    "var x = 1.0f; let v = vec4<f32>(x, 1.0f, vec2<f32>()); return v.x;",  # ok
)


def run(body: str) -> str:
    """Create a fresh device and a pipeline whose helper has ``body``."""
    src = ("@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n"
           f"fn h(p: u32) -> f32 {{\n    {body}\n}}\n"
           "@compute @workgroup_size(1)\nfn main() { o[0] = h(1u); }\n")
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    dev = adapter.request_device_sync()
    module = dev.create_shader_module(code=src)
    try:
        dev.create_compute_pipeline(layout="auto", compute={"module": module,
                                                           "entry_point": "main"})
    except Exception as e:  # noqa: BLE001 - the point of the probe
        return str(e).strip().splitlines()[-1].strip()
    return "ok"


if __name__ == "__main__":
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    print(adapter.info.get("device", ""), adapter.info.get("description", ""))
    for b in BODIES:
        print(f"{run(b):30} {b}")
