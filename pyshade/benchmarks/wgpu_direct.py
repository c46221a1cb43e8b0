"""Baseline: kernels driven through wgpu-py by hand (no pyshade code, no pyshade import).

What a careful wgpu-py user writes: for one launch, write the parameters with
``queue.write_buffer`` and submit one encoder with one compute pass; for many launches,
one encoder and one compute pass with the parameter blocks packed into one buffer bound
at dynamic offsets. ``tests/test_bench_cli.py`` checks that this module imports nothing
from pyshade.
"""

from __future__ import annotations

import struct

import numpy as np

FILL_WGSL = """
struct P { v: u32, n: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < p.n) { x[g.x] = p.v; }
}
"""

BITONIC_WGSL = """
struct P { n: u32, stage: u32, pass_of_stage: u32, order: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = g.x + g.y * nwg.x * 256u;     // groups past 65535 are folded into y
    let partner = i ^ (1u << (p.stage - p.pass_of_stage));
    if (partner > i && partner < p.n) {
        var up = ((i >> (p.stage + 1u)) & 1u) == 0u;
        if (p.order == 1u) { up = !up; }
        let a = data[i];
        let b = data[partner];
        if ((b < a) == up) { data[i] = b; data[partner] = a; }
    }
}
"""


class Direct:
    """wgpu-py by hand: one pipeline, a storage buffer and a uniform parameter buffer."""

    def __init__(self, wgsl: str, n: int, param_size: int, slots: int = 1024):
        import wgpu
        self.wgpu = wgpu
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        lim = adapter.limits
        self.dev = adapter.request_device_sync(required_limits={
            k: lim[k] for k in ("max-storage-buffer-binding-size", "max-buffer-size")})
        self.adapter = adapter.info.get("device", "?")
        U = wgpu.BufferUsage
        self.align = int(self.dev.limits["min-uniform-buffer-offset-alignment"])
        self.param_size = param_size
        self.slots = slots
        self.data = self.dev.create_buffer(size=max(16, n * 4),
                                           usage=U.STORAGE | U.COPY_SRC | U.COPY_DST)
        self.ubuf = self.dev.create_buffer(size=max(16, param_size), usage=U.UNIFORM | U.COPY_DST)
        self.arena = self.dev.create_buffer(size=self.align * slots, usage=U.UNIFORM | U.COPY_DST)
        self.host_arena = bytearray(self.align * slots)
        module = self.dev.create_shader_module(code=wgsl)
        S = wgpu.ShaderStage.COMPUTE
        bgl = self.dev.create_bind_group_layout(entries=[
            {"binding": 0, "visibility": S, "buffer": {"type": "storage"}},
            {"binding": 1, "visibility": S, "buffer": {"type": "uniform"}}])
        bgl_dyn = self.dev.create_bind_group_layout(entries=[
            {"binding": 0, "visibility": S, "buffer": {"type": "storage"}},
            {"binding": 1, "visibility": S, "buffer": {"type": "uniform",
                                                        "has_dynamic_offset": True}}])
        mk = self.dev.create_compute_pipeline
        self.pipe = mk(layout=self.dev.create_pipeline_layout(bind_group_layouts=[bgl]),
                       compute={"module": module, "entry_point": "main"})
        self.pipe_dyn = mk(layout=self.dev.create_pipeline_layout(bind_group_layouts=[bgl_dyn]),
                           compute={"module": module, "entry_point": "main"})
        res = {"buffer": self.data, "offset": 0, "size": self.data.size}
        self.bg = self.dev.create_bind_group(layout=bgl, entries=[
            {"binding": 0, "resource": res},
            {"binding": 1, "resource": {"buffer": self.ubuf, "offset": 0,
                                        "size": self.ubuf.size}}])
        self.bg_dyn = self.dev.create_bind_group(layout=bgl_dyn, entries=[
            {"binding": 0, "resource": res},
            {"binding": 1, "resource": {"buffer": self.arena, "offset": 0,
                                        "size": max(16, param_size)}}])
        self.sync_buf = self.dev.create_buffer(size=4, usage=U.COPY_SRC | U.COPY_DST)

    def upload(self, host: np.ndarray) -> None:
        """Overwrite the storage buffer (not timed)."""
        self.dev.queue.write_buffer(self.data, 0, host)
        self.sync()

    def download(self, n: int) -> np.ndarray:
        """The first n u32 of the storage buffer."""
        return np.frombuffer(self.dev.queue.read_buffer(self.data, 0, n * 4), np.uint32)

    def sync(self) -> None:
        """Wait for the queue (a 4-byte read-back, as pyshade's synchronize does)."""
        self.dev.queue.read_buffer(self.sync_buf, 0, 4)

    def launch(self, fmt: struct.Struct, values: tuple, groups: int) -> None:
        """One launch on its own: pack and write the parameters, record, submit."""
        q = self.dev.queue
        q.write_buffer(self.ubuf, 0, fmt.pack(*values))
        enc = self.dev.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(self.pipe)
        cp.set_bind_group(0, self.bg)
        cp.dispatch_workgroups(groups, 1, 1)
        cp.end()
        q.submit([enc.finish()])

    def many(self, fmt: struct.Struct, value_list: list[tuple], groups: int) -> None:
        """Many launches in one pass, parameter blocks packed at dynamic offsets."""
        gy = -(-groups // 65535)
        self._many(fmt, value_list, -(-groups // gy), gy)

    def _many(self, fmt: struct.Struct, value_list: list[tuple], gx: int, gy: int) -> None:
        enc = self.dev.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(self.pipe_dyn)
        arena, align, used = self.host_arena, self.align, 0
        for i, values in enumerate(value_list):
            off = i * align
            fmt.pack_into(arena, off, *values)
            cp.set_bind_group(0, self.bg_dyn, [off])
            cp.dispatch_workgroups(gx, gy, 1)
            used = off + fmt.size
        cp.end()
        self.dev.queue.write_buffer(self.arena, 0, memoryview(arena)[:(used + 3) // 4 * 4])
        self.dev.queue.submit([enc.finish()])
