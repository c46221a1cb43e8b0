"""Probe: `min(a, b) - a` on i32 with wrapping, written several ways in WGSL.

On the H200 (NVIDIA Vulkan via wgpu-py 0.32), a differential-test kernel
ending in `min(t3, c) - t3` disagreed with the CPU while every input agreed:
the driver seems to simplify as if signed overflow could not happen.
"""

import numpy as np
import wgpu

VARIANTS = {
    "min_sub": "return min(a, b) - a;",
    "max_sub": "return max(a, b) - a;",
    "sub_only": "return b - a;",
    "u32_sub": "return bitcast<i32>(bitcast<u32>(min(a, b)) - bitcast<u32>(a));",
    "select_sub": "return select(a, b, b < a) - a;",
    "add_cmp": "return select(0i, 1i, a + 1i > a);",
}


def run(dev, body, a, b):
    src = f"""
@group(0) @binding(0) var<storage, read> A: array<i32>;
@group(0) @binding(1) var<storage, read> B: array<i32>;
@group(0) @binding(2) var<storage, read_write> O: array<i32>;
fn f(a: i32, b: i32) -> i32 {{ {body} }}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x < arrayLength(&A)) {{ O[g.x] = f(A[g.x], B[g.x]); }}
}}"""
    U = wgpu.BufferUsage
    bufs = [dev.create_buffer_with_data(data=x, usage=U.STORAGE | U.COPY_SRC) for x in (a, b)]
    out = dev.create_buffer(size=a.nbytes, usage=U.STORAGE | U.COPY_SRC)
    p = dev.create_compute_pipeline(layout="auto", compute={
        "module": dev.create_shader_module(code=src), "entry_point": "main"})
    bg = dev.create_bind_group(layout=p.get_bind_group_layout(0), entries=[
        {"binding": i, "resource": {"buffer": x}} for i, x in enumerate(bufs + [out])])
    enc = dev.create_command_encoder()
    cp = enc.begin_compute_pass()
    cp.set_pipeline(p)
    cp.set_bind_group(0, bg)
    cp.dispatch_workgroups((a.size + 63) // 64)
    cp.end()
    dev.queue.submit([enc.finish()])
    return np.frombuffer(dev.queue.read_buffer(out), np.int32)


def main():
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    dev = adapter.request_device_sync()
    print(adapter.info["device"], adapter.info["backend_type"])
    rng = np.random.default_rng()
    n = 4096
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    wrap = lambda v: ((v + 2**31) % 2**32 - 2**31).astype(np.int32)  # noqa: E731
    want = {"min_sub": wrap(np.minimum(a64, b64) - a64), "max_sub": wrap(np.maximum(a64, b64) - a64),
            "sub_only": wrap(b64 - a64), "u32_sub": wrap(np.minimum(a64, b64) - a64),
            "select_sub": wrap(np.minimum(a64, b64) - a64),
            "add_cmp": (wrap(a64 + 1) > a).astype(np.int32)}
    for name, body in VARIANTS.items():
        got = run(dev, body, a, b)
        bad = np.flatnonzero(got != want[name])
        print(f"{name:11} mismatches {bad.size:5}",
              [(int(a[i]), int(b[i]), int(got[i]), int(want[name][i])) for i in bad[:2]])


main()
