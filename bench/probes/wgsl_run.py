"""Shared by the probes: run an i32 WGSL function element-wise on a wgpu device.

``run_i32_fn(dev, body, *inputs)`` builds ``fn f(a: i32, b: i32, ...) -> i32 { body }``
over one read-only buffer per input and returns ``f`` applied to every element.
"""

import numpy as np
import wgpu


def open_device():
    """The high-performance adapter's device; prints what it is."""
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    print(adapter.info["device"], adapter.info["backend_type"])
    return adapter.request_device_sync()


def run_i32_fn(dev, body: str, *inputs: np.ndarray) -> np.ndarray:
    """``f(inputs[0][i], inputs[1][i], ...)`` for every i, with ``f``'s body ``body``."""
    names = "abcdefgh"[:len(inputs)]
    decls = "\n".join(f"@group(0) @binding({k}) var<storage, read> I{k}: array<i32>;"
                      for k in range(len(inputs)))
    params = ", ".join(f"{n}: i32" for n in names)
    args = ", ".join(f"I{k}[g.x]" for k in range(len(inputs)))
    src = f"""{decls}
@group(0) @binding({len(inputs)}) var<storage, read_write> O: array<i32>;
fn f({params}) -> i32 {{ {body} }}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    if (g.x < arrayLength(&I0)) {{ O[g.x] = f({args}); }}
}}"""
    return run_source(dev, src, inputs, np.int32, (inputs[0].size + 63) // 64)


def run_source(dev, src: str, inputs, dtype, groups: int) -> np.ndarray:
    """Run WGSL ``src`` (inputs at bindings 0.., the output ``O`` after them, of
    ``inputs[0]``'s size in bytes) as ``groups`` workgroups; ``O`` as ``dtype``."""
    U = wgpu.BufferUsage
    bufs = [dev.create_buffer_with_data(data=x, usage=U.STORAGE | U.COPY_SRC) for x in inputs]
    out = dev.create_buffer(size=inputs[0].nbytes, usage=U.STORAGE | U.COPY_SRC)
    p = dev.create_compute_pipeline(layout="auto", compute={
        "module": dev.create_shader_module(code=src), "entry_point": "main"})
    bg = dev.create_bind_group(layout=p.get_bind_group_layout(0), entries=[
        {"binding": i, "resource": {"buffer": x}} for i, x in enumerate(bufs + [out])])
    enc = dev.create_command_encoder()
    cp = enc.begin_compute_pass()
    cp.set_pipeline(p)
    cp.set_bind_group(0, bg)
    cp.dispatch_workgroups(groups)
    cp.end()
    dev.queue.submit([enc.finish()])
    return np.frombuffer(dev.queue.read_buffer(out), dtype)
