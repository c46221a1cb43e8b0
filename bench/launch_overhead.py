"""Launch overhead and the section-7 sort loop: pyshade's wgpu device against the same
work hand-driven through wgpu-py.

The baseline (class ``Direct`` below) uses wgpu-py only: no pyshade call, no pyshade
code. They are what a careful wgpu-py user writes: for one launch, write the
parameters with ``queue.write_buffer`` and submit one encoder with one compute
pass; for many launches, one encoder and one compute pass with the parameter
blocks in one buffer bound at dynamic offsets.

Measured side by side in one run, each the median of ``--reps`` repetitions:

* ``trivial``: one 64-invocation kernel launched ``--launches`` times outside any
  batch, then synchronised: host cost per launch, pyshade / direct. The direct
  version submits each launch (what wgpu-py code does); pyshade records launches
  and submits them in chunks of 32, which is why it costs less.
* ``batched``: the same inside ``dev.batch()`` / one hand-recorded pass: host time
  per launch; the difference is pyshade's own host time per launch (binding,
  checking and packing beyond the wgpu-py calls that the hand version makes too).
  Host times cover recording and submitting, not the wait for the GPU.
* ``sort``: the DESIGN.md section-7 bitonic network over 2^k u32 keys, every step
  a launch in ``dev.batch()`` / one hand-recorded pass, timed to completion.

Usage: ``python bench/launch_overhead.py --sizes 65536 1048576 --json out.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import struct
import sys
import time

import numpy as np

import pyshade as ps
from pyshade import u32


@ps.kernel(workgroup_size=64)
def fill(x: ps.Buffer[u32], v: u32):
    """The trivial kernel: every invocation stores v."""
    i = ps.global_id().x
    if i < len(x):
        x[i] = v


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


_clock = time.perf_counter


def _median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_launches(launches: int, reps: int) -> dict:
    """Trivial launches, unbatched and batched: pyshade and direct, per launch in us."""
    dev = ps.device("wgpu")
    n = 64
    x = dev.zeros(n, np.uint32)
    d = Direct(FILL_WGSL, n, 8)
    fmt = struct.Struct("<II")
    vals = [(i, n) for i in range(launches)]

    # Each function records its launches and returns the host time of that part
    # (submissions included); the wait for the GPU comes after, untimed.
    def ps_single():
        t0 = _clock()
        for i in range(launches):
            fill.launch(x, i, threads=n, device=dev)
        t = _clock() - t0
        dev.synchronize()
        return t

    def direct_single():
        t0 = _clock()
        for v in vals:
            d.launch(fmt, v, 1)
        t = _clock() - t0
        d.sync()
        return t

    def ps_batch():
        t0 = _clock()
        with dev.batch():
            for i in range(launches):
                fill.launch(x, i, threads=n, device=dev)
        t = _clock() - t0
        dev.synchronize()
        return t

    def direct_batch():
        t0 = _clock()
        d.many(fmt, vals, 1)
        t = _clock() - t0
        d.sync()
        return t

    for f in (ps_single, direct_single, ps_batch, direct_batch):   # warm up
        f()
    out = {}
    for name, f in (("pyshade_single", ps_single), ("direct_single", direct_single),
                    ("pyshade_batch", ps_batch), ("direct_batch", direct_batch)):
        out[name + "_us"] = statistics.median(f() for _ in range(reps)) / launches * 1e6
    assert (x.numpy() == launches - 1).all()
    out["single_ratio"] = out["pyshade_single_us"] / out["direct_single_us"]
    out["batch_own_us"] = out["pyshade_batch_us"] - out["direct_batch_us"]
    return out


def bench_sort(n: int, reps: int) -> dict:
    """The section-7 loop over n u32 keys: pyshade in dev.batch() vs one hand-recorded pass."""
    from pyshade.algorithms.sort import BitonicParams, SortOrder, bitonic_step, sort_steps

    dev = ps.device("wgpu")
    rng = np.random.default_rng(1)
    host = rng.integers(0, 2**32, n, dtype=np.uint32)
    buf = dev.array(host)
    steps = sort_steps(n)
    d = Direct(BITONIC_WGSL, n, 16, slots=len(steps))
    fmt = struct.Struct("<4I")
    groups = -(-n // 256)

    def ps_sort():
        with dev.batch():
            for s, p in steps:
                bitonic_step.launch(buf, BitonicParams(n=n, stage=s, pass_of_stage=p,
                                                       order=SortOrder.ASCENDING),
                                    threads=n, device=dev)
        dev.synchronize()

    def direct_sort():
        d.many(fmt, [(n, s, p, 0) for s, p in steps], groups)
        d.sync()

    want = np.sort(host)
    buf.write(host)
    ps_sort()
    assert (buf.numpy() == want).all(), "pyshade sort wrong"
    d.upload(host)
    direct_sort()
    assert (np.frombuffer(d.dev.queue.read_buffer(d.data, 0, n * 4), np.uint32) == want).all()
    tp, td = [], []
    for _ in range(reps):         # interleaved, fresh data each time (not timed)
        h = rng.integers(0, 2**32, n, dtype=np.uint32)
        buf.write(h)
        dev.synchronize()
        tp.append(_median_time(ps_sort, 1))
        d.upload(h)
        td.append(_median_time(direct_sort, 1))
    p_ms, d_ms = statistics.median(tp) * 1e3, statistics.median(td) * 1e3
    return {"n": n, "launches": len(steps), "pyshade_ms": p_ms, "direct_ms": d_ms,
            "ratio": p_ms / d_ms}


def main() -> None:
    """Run the benchmarks, print a table, save JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[65536])
    ap.add_argument("--launches", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json", default=None)
    ap.add_argument("--cpu-time", action="store_true",
                    help="host times as CPU time of the calling thread (time.thread_time), "
                         "for machines whose Vulkan driver runs on the same cores")
    args = ap.parse_args()
    global _clock
    if args.cpu_time:
        _clock = time.thread_time
    import wgpu

    dev = ps.device("wgpu")
    result = {"command": " ".join([sys.executable.split("/")[-1]] + sys.argv),
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "adapter": dev.adapter, "wgpu": wgpu.__version__,
              "python": platform.python_version(), "cpu": platform.processor() or
              platform.machine()}
    result["launch"] = bench_launches(args.launches, args.reps)
    result["sort"] = [bench_sort(n, args.reps) for n in args.sizes]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    L = result["launch"]
    print(f"adapter: {result['adapter']}  ({result['date']})")
    print(f"{'measure':<34}{'pyshade':>10}{'direct':>10}{'ratio/own':>11}")
    print(f"{'trivial launch, host us':<34}{L['pyshade_single_us']:>10.1f}"
          f"{L['direct_single_us']:>10.1f}{L['single_ratio']:>11.2f}")
    print(f"{'launch in a batch, host us':<34}{L['pyshade_batch_us']:>10.1f}"
          f"{L['direct_batch_us']:>10.1f}{L['batch_own_us']:>11.1f}")
    for s in result["sort"]:
        print(f"{'sort 2^%d (%d launches), ms' % (s['n'].bit_length() - 1, s['launches']):<34}"
              f"{s['pyshade_ms']:>10.2f}{s['direct_ms']:>10.2f}{s['ratio']:>11.2f}")


if __name__ == "__main__":
    main()
