"""Probe: i32 floor division written several ways in WGSL, checked against numpy.

Found on NVIDIA H200 (Vulkan, via wgpu-py 0.32): the select-based helper gave
wrong quotients for some inputs; this script compares variants on one device.
"""

import numpy as np
import wgpu

VARIANTS = {
    "select_and": "let q = a / b; return select(q, q - 1i, (a % b != 0i) & ((a < 0i) != (b < 0i)));",
    "select_andand": "let q = a / b; return select(q, q - 1i, (a % b != 0i) && ((a < 0i) != (b < 0i)));",
    "manual_rem": "let q = a / b; let r = a - q * b; return select(q, q - 1i, (r != 0i) && ((r ^ b) < 0i));",
    "if_stmt": "var q = a / b; let r = a - q * b; "
               "if (r != 0i && (r < 0i) != (b < 0i)) { q = q - 1i; } return q;",
    "xor_sign": "let q = a / b; let r = a % b; return q - i32((r != 0i) && ((r ^ b) < 0i));",
}


def run(dev, body, a, b):
    src = f"""
@group(0) @binding(0) var<storage, read> A: array<i32>;
@group(0) @binding(1) var<storage, read> B: array<i32>;
@group(0) @binding(2) var<storage, read_write> O: array<i32>;
fn fdiv(a: i32, b: i32) -> i32 {{ {body} }}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x < arrayLength(&A)) {{ O[g.x] = fdiv(A[g.x], B[g.x]); }}
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
    a = rng.integers(-2**31 + 1, 2**31, n, dtype=np.int32)
    b = rng.integers(-50, 51, n, dtype=np.int32)
    b[b == 0] = 1
    a[:4], b[:4] = [-1, -7, 7, -1], [3, 2, -2, -3]
    want = np.floor_divide(a, b)
    for name, body in VARIANTS.items():
        got = run(dev, body, a, b)
        bad = np.flatnonzero(got != want)
        print(f"{name:14} mismatches {bad.size:5}", [(int(a[i]), int(b[i]), int(got[i])) for i in bad[:3]])


main()
