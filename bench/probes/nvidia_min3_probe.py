"""Probe: nested signed min/max on i32, written several ways in WGSL.

The differential test found kernels ending in `min(a, min(b, c))` (i32) that
disagreed on the H200 (NVIDIA Vulkan via wgpu-py) while every operand agreed.
"""

import numpy as np
import wgpu

VARIANTS = {
    "min_min": "return min(a, min(b, c));",
    "max_max": "return max(a, max(b, c));",
    "min_max": "return min(a, max(b, c));",
    "min_min_plus": "return min(a, min(b, c)) + 1i;",
    "select_min": "let m = select(c, b, b < c); return select(m, a, a < m);",
    "select_min_plus": "let m = select(c, b, b < c); return select(m, a, a < m) + 1i;",
    # does the driver assume that signed arithmetic never wraps?
    "sq_neg": "let s = a * a; return select(0i, 1i, s < 0i);",
    "sq_neg_u32": "let s = i32(u32(a) * u32(a)); return select(0i, 1i, s < 0i);",
    "sq_min": "return min(b, a * a);",
    "sq_min_u32": "return min(b, i32(u32(a) * u32(a)));",
    "add_gt": "return select(0i, 1i, a + b > a);",
    "add_gt_u32": "return select(0i, 1i, i32(u32(a) + u32(b)) > a);",
}


def run(dev, body, a, b, c):
    src = f"""
@group(0) @binding(0) var<storage, read> A: array<i32>;
@group(0) @binding(1) var<storage, read> B: array<i32>;
@group(0) @binding(2) var<storage, read> C: array<i32>;
@group(0) @binding(3) var<storage, read_write> O: array<i32>;
fn f(a: i32, b: i32, c: i32) -> i32 {{ {body} }}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x < arrayLength(&A)) {{ O[g.x] = f(A[g.x], B[g.x], C[g.x]); }}
}}"""
    U = wgpu.BufferUsage
    bufs = [dev.create_buffer_with_data(data=x, usage=U.STORAGE | U.COPY_SRC) for x in (a, b, c)]
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
    a, b, c = (rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32) for _ in range(3))
    mn, mx = np.minimum, np.maximum
    want = {"min_min": mn(a, mn(b, c)), "max_max": mx(a, mx(b, c)), "min_max": mn(a, mx(b, c)),
            "min_min_plus": mn(a, mn(b, c)) + np.int32(1), "select_min": mn(a, mn(b, c)),
            "select_min_plus": mn(a, mn(b, c)) + np.int32(1)}
    with np.errstate(over="ignore"):
        sq = a * a
        want.update(sq_neg=(sq < 0).astype(np.int32), sq_neg_u32=(sq < 0).astype(np.int32),
                    sq_min=mn(b, sq), sq_min_u32=mn(b, sq),
                    add_gt=((a + b) > a).astype(np.int32),
                    add_gt_u32=((a + b) > a).astype(np.int32))
    for name, body in VARIANTS.items():
        got = run(dev, body, a, b, c)
        bad = np.flatnonzero(got != want[name])
        print(f"{name:16} mismatches {bad.size:5}",
              [(int(a[i]), int(b[i]), int(c[i]), int(got[i])) for i in bad[:2]])


main()
