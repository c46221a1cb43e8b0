"""Tests of the WebGPU runtime with handwritten WGSL and hand-made layouts.

They need wgpu-py and a WebGPU adapter (a GPU, or Mesa's lavapipe on CPU).
Without them the tests are skipped, except under CI (``CI=true``), where a
missing backend is a failure: CI is expected to provide lavapipe.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from conftest import lcg_rounds

import pyshade as ps
from pyshade.errors import BackendUnavailable, CompileError
from pyshade.runtime.base import BufferSlot, Compiled, Layout, ParamBlock
from pyshade.toolchains import map_line


def _unavailable(reason: str) -> None:
    """Skip, or fail under CI where the backend must be present."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"wgpu backend required under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def dev():
    """One WgpuDevice shared by the module's tests."""
    try:
        import wgpu  # noqa: F401
    except ImportError:
        _unavailable("wgpu-py is not installed")
    from pyshade.runtime.wgpu import WgpuDevice

    try:
        return WgpuDevice()
    except BackendUnavailable as exc:
        _unavailable(str(exc))


def _compiled(wgsl: str, buffers: tuple[BufferSlot, ...], params: ParamBlock | None = None,
              entry: str = "main", key: tuple = ()) -> Compiled:
    """A Compiled object as ``ps.compile`` would make it for target wgsl."""
    return Compiled(target="wgsl", binary=wgsl, source=wgsl, entry=entry,
                    layout=Layout(buffers=buffers, params=params, workgroup_size=(64, 1, 1)),
                    key=key)


U32 = np.dtype(np.uint32)
F32 = np.dtype(np.float32)

DOUBLE = """
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&data)) {
        data[i] = data[i] * 2u;
    }
}
"""

AXPB = """
struct Params { scale: f32, offset: f32, n: u32, _pad: u32 }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn axpb(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.n) {
        dst[i] = src[i] * p.scale + p.offset;
    }
}
"""

ADD = """
struct Params { value: u32, n: u32, _a: u32, _b: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < p.n) {
        data[gid.x] = data[gid.x] + p.value;
    }
}
"""

# A deliberately slow kernel: p.iters rounds of an LCG per element.
SLOW = """
struct Params { iters: u32, _a: u32, _b: u32, _c: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = data[gid.x];
    for (var k = 0u; k < p.iters; k++) { x = x * 1664525u + 1013904223u; }
    data[gid.x] = x;
}
"""


def _add_kernel() -> Compiled:
    return _compiled(ADD, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16),
                     key=("add", "u32", "wgsl"))


def _u32s(*vals: int) -> bytes:
    return np.array(vals, dtype=np.uint32).tobytes()


def test_device_info(dev):
    assert dev.name == dev.backend == "wgpu"
    assert dev.target == "wgsl"
    assert " / " in dev.adapter
    assert dev.limits["max_compute_workgroups_per_dimension"] >= 65535
    assert isinstance(dev.features, set)
    assert dev.wgpu_device is not None and dev.wgpu_adapter is not None


def test_double_u32(dev):
    host = np.arange(1000, dtype=np.uint32)
    arr = dev.array(host)
    k = _compiled(DOUBLE, (BufferSlot("data", 0, U32, True),), key=("double",))
    dev.launch_compiled(k, [arr], None, ((1000 + 63) // 64, 1, 1))
    np.testing.assert_array_equal(arr.numpy(), host * 2)
    # Second launch hits the pipeline cache.
    dev.launch_compiled(k, [arr], None, ((1000 + 63) // 64, 1, 1))
    np.testing.assert_array_equal(arr.numpy(), host * 4)


def test_readonly_buffer_and_uniform(dev):
    n = 300
    src = dev.array(np.linspace(0, 1, n, dtype=np.float32))
    dst = dev.zeros(n, np.float32)
    k = _compiled(AXPB, (BufferSlot("src", 0, F32, False), BufferSlot("dst", 1, F32, True)),
                  ParamBlock(2, 16), entry="axpb")
    params = np.array([3.0, 0.5], np.float32).tobytes() + _u32s(n)  # padded by the runtime
    dev.launch_compiled(k, [src, dst], params, ((n + 63) // 64, 1, 1))
    np.testing.assert_allclose(dst.numpy(), np.linspace(0, 1, n, dtype=np.float32) * 3 + 0.5,
                               rtol=1e-6)


def test_batch_keeps_each_launchs_params(dev):
    n = 256
    arr = dev.zeros(n, np.uint32)
    k = _add_kernel()
    with dev.batch():
        for v in range(1, 11):
            dev.launch_compiled(k, [arr], _u32s(v, n), (n // 64, 1, 1))
    assert (arr.numpy() == 55).all()


def test_batch_nested_ordered_writes_and_raise(dev):
    n = 64
    arr = dev.zeros(n, np.uint32)
    k = _add_kernel()
    with dev.batch():
        dev.launch_compiled(k, [arr], _u32s(1, n), (1, 1, 1))
        with dev.batch():  # joins the outer batch
            arr.write(np.full(n, 100, np.uint32))  # ordered after the first launch
            dev.launch_compiled(k, [arr], _u32s(2, n), (1, 1, 1))
    assert (arr.numpy() == 102).all()

    # An exception inside the batch: the launches recorded before it still run (as on
    # the cpu device, where they have already run), then the exception propagates.
    with pytest.raises(RuntimeError), dev.batch():
        dev.launch_compiled(k, [arr], _u32s(1000, n), (1, 1, 1))
        raise RuntimeError("boom")
    assert (arr.numpy() == 1102).all()


def test_structured_dtype_round_trip(dev):
    dt = np.dtype([("pos", np.float32, 3), ("id", np.uint32), ("w", np.float16)])
    host = np.zeros(5, dtype=dt)
    host["pos"] = np.arange(15, dtype=np.float32).reshape(5, 3)
    host["id"] = [7, 8, 9, 10, 11]
    host["w"] = [0.5, 1.5, 2.5, 3.5, 4.5]
    arr = dev.array(host)
    assert arr.shape == (5,) and arr.dtype == dt
    back = arr.numpy()
    assert back.dtype == dt
    assert back.tobytes() == host.tobytes()
    host["id"] += 1
    arr.write(host)
    assert arr.numpy().tobytes() == host.tobytes()


def test_shapes_and_empty(dev):
    arr = dev.array(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert arr.shape == (3, 4) and len(arr) == 3
    np.testing.assert_array_equal(arr.numpy(), np.arange(12).reshape(3, 4))
    empty = dev.empty(0, np.float32)
    assert empty.numpy().shape == (0,)
    odd = dev.array(np.array([1, 2, 3], np.uint8))  # 3 bytes: padded buffer
    np.testing.assert_array_equal(odd.numpy(), [1, 2, 3])


def test_freed_arrays_are_pooled_and_reused(dev, monkeypatch):
    """A freed array's buffer (a new one costs milliseconds) goes to the next ``empty``
    array of the same byte size at once, even while a recorded launch still reads it:
    the queue orders the uses. The new array keeps the buffer's uid, so the bind group
    made for the old one serves it. A view keeps the buffer; ``zeros`` clears a pooled
    buffer in order with the launches; the pool holds at most its limit."""
    import gc
    n = 3000
    rng = np.random.default_rng()
    x = rng.random(n, dtype=np.float32)
    axpb = _compiled(AXPB, (BufferSlot("src", 0, F32, False), BufferSlot("dst", 1, F32, True)),
                     ParamBlock(2, 16), entry="axpb", key=("axpb", "pool"))
    params = np.array([2.0, 1.0], np.float32).tobytes() + _u32s(n, 0)
    groups = ((n + 63) // 64, 1, 1)
    gc.collect()
    dev._pool.drain()
    y = dev.empty(n, np.float32)
    with dev.batch():
        a = dev.empty(n, np.float32)
        a.write(x)
        dev.launch_compiled(axpb, [a, y], params, groups)     # recorded, not yet run
        buf, uid = a.buffer, a.uid
        view = a.view(np.uint32)
        del a
        gc.collect()
        assert dev._pool.bytes == 0                          # the view holds it
        del view
        gc.collect()
        assert dev._pool.bytes == 12000
        b = dev.empty(n, np.float32)
        assert b.buffer is buf and b.uid == uid and dev._pool.bytes == 0
        b.write(np.full(n, 5, np.float32))
        dev.launch_compiled(_add_kernel(), [b.view(np.uint32)], _u32s(0, n), groups)
    np.testing.assert_array_equal(y.numpy(), x * 2 + 1)    # a's values, not b's
    bind_groups = len(dev._bind_groups)
    dev.launch_compiled(axpb, [b, y], params, groups)
    assert len(dev._bind_groups) == bind_groups
    np.testing.assert_array_equal(y.numpy(), np.full(n, 11, np.float32))
    with dev.batch():
        dev.launch_compiled(axpb, [b, y], params, groups)   # recorded before the clear
        del b
        gc.collect()
        z = dev.zeros(n, np.float32)                        # b's buffer, cleared after
        assert z.buffer is buf and dev._pool.bytes == 0
        dev.launch_compiled(_add_kernel(), [z.view(np.uint32)], _u32s(3, n), groups)
    np.testing.assert_array_equal(y.numpy(), np.full(n, 11, np.float32))
    np.testing.assert_array_equal(z.numpy().view(np.uint32), np.full(n, 3, np.uint32))
    del z
    gc.collect()
    z = dev.zeros(n, np.float32)                            # outside a batch
    assert z.buffer is buf
    np.testing.assert_array_equal(z.numpy(), np.zeros(n, np.float32))
    # an array collected in a reference cycle: its GPUBuffer's own finalizer may release
    # the buffer after ours pooled it (a released buffer crashed wgpu-native's bind group)
    for _ in range(3):
        a = dev.empty(n, np.float32)
        a.cycle = [a]
        del a
        gc.collect()
        c = dev.zeros(n, np.float32)
        dev.launch_compiled(_add_kernel(), [c.view(np.uint32)], _u32s(4, n), groups)
        np.testing.assert_array_equal(c.numpy().view(np.uint32), np.full(n, 4, np.uint32))
        del c
    monkeypatch.setattr(dev._pool, "limit", 40000)
    many = [dev.empty(n, np.float32) for _ in range(5)]
    del many
    gc.collect()
    assert dev._pool.bytes == 36000 and len(dev._pool.free[12000]) == 3


def test_validate_wgsl_maps_python_line(dev):
    from pyshade.toolchains.naga import validate_wgsl

    bad = (
        "@compute @workgroup_size(1)\n"
        "fn main() {  // k.py:40\n"
        "    var x: i32 = 1;  // k.py:41\n"
        "    x = x + 1u;  // k.py:42\n"
        "}\n"
    )
    with pytest.raises(CompileError) as info:
        validate_wgsl(bad, dev)
    err = info.value
    assert err.target == "wgsl"
    assert (err.filename, err.lineno) == ("k.py", 42)
    assert "Validation Error" in err.log or "error" in err.log
    assert err.source == bad

    parse_bad = "@compute @workgroup_size(1)\nfn main() {\n    // k.py:7\n    let y: u32 = 1.0;\n}\n"
    with pytest.raises(CompileError) as info:
        validate_wgsl(parse_bad, dev)
    assert (info.value.filename, info.value.lineno) == ("k.py", 7)
    validate_wgsl(DOUBLE, dev)  # valid code passes


def test_launch_of_bad_wgsl_raises_compile_error(dev):
    bad = "@compute @workgroup_size(1)\nfn main() {\n    let y: u32 = 1.0;  // k.py:3\n}\n"
    k = _compiled(bad, (), key=("bad",))
    with pytest.raises(CompileError) as info:
        dev.launch_compiled(k, [], None, (1, 1, 1))
    assert info.value.lineno == 3


def test_kernels_run_without_naga_runtime_checks(dev, monkeypatch):
    """The device makes its shader modules through wgpu-native's
    wgpuDeviceCreateShaderModuleTrusted with no runtime checks (as every other GPU device,
    out-of-bounds indexing is undefined); PYSHADE_WGPU_CHECKS=1 keeps naga's checks. Both
    run kernels, and both report naga's errors at the Python line."""
    from pyshade.runtime.wgpu import WgpuDevice
    from pyshade.toolchains import naga
    assert dev.runtime_checks is False
    made = []
    real = naga._trusted_module
    monkeypatch.setattr(naga, "_trusted_module", lambda *a: made.append(a[2]) or real(*a))
    bad = "@compute @workgroup_size(1)\nfn main() {\n    let y: u32 = 1.0;  // k.py:3\n}\n"
    for checks in ("0", "1"):
        monkeypatch.setenv("PYSHADE_WGPU_CHECKS", checks)
        d = WgpuDevice()
        assert d.runtime_checks is (checks == "1")
        made.clear()
        data = np.random.default_rng().integers(0, 2**31, 256, dtype=np.uint32)
        arr = d.array(data)
        k = _compiled(DOUBLE, (BufferSlot("data", 0, U32, True),), key=("double", checks))
        d.launch_compiled(k, [arr], None, (4, 1, 1))
        np.testing.assert_array_equal(arr.numpy(), data * 2)
        assert made == ([] if checks == "1" else ["main"])
        with pytest.raises(CompileError) as info:
            d.launch_compiled(_compiled(bad, (), key=("bad", checks)), [], None, (1, 1, 1))
        assert info.value.lineno == 3


def test_synchronize_waits(dev):
    n = 64 * 256
    arr = dev.zeros(n, np.uint32)
    k = _compiled(SLOW, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16), key=("slow",))
    groups = (n // 64, 1, 1)
    # Calibrate: choose an iteration count that takes a measurable time.
    iters = 2000
    while True:
        t0 = time.perf_counter()
        dev.launch_compiled(k, [arr], _u32s(iters), groups)
        dev.synchronize()
        work = time.perf_counter() - t0
        if work > 0.1 or iters > 10_000_000:
            break
        iters *= 4
    if work < 0.05:
        pytest.skip("device too fast to time the kernel reliably")

    dev.launch_compiled(k, [arr], _u32s(iters), groups)
    dev.synchronize()
    # If synchronize had returned early, this read would still wait for the kernel.
    t0 = time.perf_counter()
    arr.numpy()
    after = time.perf_counter() - t0
    assert after < work / 2, (after, work)


def test_synchronize_polls_for_work_done_then_blocks(dev):
    """On a GPU adapter ``synchronize()`` polls wgpu-native until the queue's work-done
    callback has run (``WorkDoneWaiter``), for at most its ``spin_s``, then blocks; CPU
    adapters (CI's) block at once, so the waiter is forced on here. A long poll must see
    the work through alone; a poll shorter than the work hands over to the blocking wait.
    Either way the results are complete when it returns."""
    from pyshade.runtime.recording import SPIN_WAIT_S
    from pyshade.runtime.wgpu_support import WorkDoneWaiter, is_cpu_adapter
    cpu = is_cpu_adapter(dev.wgpu_adapter)
    assert (dev._waiter is None) == cpu
    if not cpu:
        assert dev._waiter.spin_s == SPIN_WAIT_S
    waiter = WorkDoneWaiter.make(dev.wgpu_device, 0.0)
    assert waiter is not None
    polled = []
    real_wait = waiter.wait
    waiter.wait = lambda: polled.append(real_wait()) or polled[-1]
    n = 64 * 64
    k = _compiled(SLOW, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16), key=("slow",))
    start = np.random.default_rng().integers(0, 2**32, n, dtype=np.uint32)
    want = lcg_rounds(start, 3000)
    kept = dev._waiter
    try:
        dev._waiter = waiter
        for spin in (30.0, 1e-6):
            waiter.spin_s = spin
            arr = dev.array(start)
            dev.launch_compiled(k, [arr], _u32s(3000), (n // 64, 1, 1))
            dev.synchronize()
            # the results are there: a read-back now needs no wait for the kernel
            np.testing.assert_array_equal(arr.numpy(), want)
    finally:
        dev._waiter = kept
    assert polled[0] is True                # the long poll saw the callback
    assert len(polled) == 2


def test_synchronize_submits_only_for_an_unsubmitted_write(dev, monkeypatch):
    """An idle ``synchronize()`` submits nothing (an empty submission cost 40 us on an H100's
    host); after ``write()`` outside any recording it submits an empty command list, which
    takes the queued write to the GPU, and a launch's own submission takes it too."""
    calls = []
    queue_type = type(dev.wgpu_device.queue)
    real = queue_type.submit

    def counting(self, buffers):
        calls.append(len(buffers))
        return real(self, buffers)

    monkeypatch.setattr(queue_type, "submit", counting)
    data = np.random.default_rng().integers(0, 2**31, 256, dtype=np.uint32)
    arr = dev.array(np.zeros(256, np.uint32))
    dev.synchronize()
    assert calls == []
    arr.write(data)
    dev.synchronize()
    assert calls == [0]
    dev.synchronize()
    assert calls == [0]
    arr.write(data + 1)
    k = _compiled(DOUBLE, (BufferSlot("data", 0, U32, True),), key=("double",))
    dev.launch_compiled(k, [arr], None, (4, 1, 1))
    dev.synchronize()
    assert calls == [0, 1]
    np.testing.assert_array_equal(arr.numpy(), (data + 1) * 2)


def test_map_line():
    src = "a;  // x.py:3\n// y/z.py:10\nb;\nc;  // y/z.py:11\n\n"
    assert map_line(src, 1) == ("x.py", 3)
    assert map_line(src, 2) == ("y/z.py", 10)
    assert map_line(src, 3) == ("y/z.py", 10)
    assert map_line(src, 4) == ("y/z.py", 11)
    assert map_line(src, 99) == ("y/z.py", 11)
    assert map_line("a\nb\n", 2) == (None, None)
    assert map_line("x = 1  # k.py:5\n", 1) == ("k.py", 5)


UNUSED_AND_STORAGE_PARAMS = """
struct Params { value: u32, _a: u32, _b: u32, _c: u32 }
@group(0) @binding(0) var<storage, read> unused: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out[gid.x] = p.value + gid.x;
}
"""


def test_unused_binding_and_storage_param_block(dev):
    # The explicit bind group layout keeps binding 0 although naga drops it.
    k = _compiled(UNUSED_AND_STORAGE_PARAMS,
                  (BufferSlot("unused", 0, U32, False), BufferSlot("out", 1, U32, True)),
                  ParamBlock(2, 16, kind="storage"))
    ignored = dev.zeros(4, np.uint32)
    out = dev.zeros(64, np.uint32)
    dev.launch_compiled(k, [ignored, out], _u32s(1000), (1, 1, 1))
    np.testing.assert_array_equal(out.numpy(), 1000 + np.arange(64))


def test_f16_without_shader_f16_is_an_error_at_the_python_line(dev, monkeypatch):
    """The device checks ``Compiled.requirements``: f16 code on an adapter without the
    shader-f16 feature is refused at the kernel's line before naga or a driver sees it."""
    @ps.kernel(workgroup_size=64)
    def halve(x: ps.Buffer[ps.f16]):
        i = ps.global_id().x
        if i < len(x):
            x[i] = x[i] * ps.f16(0.5)
    monkeypatch.setattr(dev, "features", set(dev.features) - {"shader-f16"})
    x = dev.zeros(8, np.float16)
    with pytest.raises(ps.TranslationError, match="has no f16 support") as info:
        halve.launch(x, threads=8, device=dev)
    assert (info.value.filename, info.value.lineno) == (__file__,
                                                        halve.__wrapped__.__code__.co_firstlineno + 1)
