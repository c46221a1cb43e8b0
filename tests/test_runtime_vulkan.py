"""Tests of the Vulkan runtime with hand-written GLSL compiled by glslang.

Every test runs on each CPU Vulkan driver (lavapipe, SwiftShader) in two
memory modes: ``unified`` (arrays mapped, as CPU drivers and unified memory
do) and ``staging`` (staging buffers and recorded copies, as on a discrete
GPU). Locally a missing driver skips (``PYSHADE_TEST_VK_DRIVERS=lavapipe,
swiftshader`` makes both visible); under ``CI=true`` it fails.
"""

from __future__ import annotations

import functools
import gc
import os
import shutil
import threading
import time

import numpy as np
import pytest
from conftest import VK_DRIVERS, WANTED_DRIVERS, icd_file, lcg_rounds, require

import pyshade as ps
from pyshade.errors import BackendUnavailable, CompileError, LaunchError
from pyshade.runtime.base import BufferSlot, Compiled, Layout, ParamBlock

U32 = np.dtype(np.uint32)
F32 = np.dtype(np.float32)

# The CPU drivers asked for (both in CI); with none asked, the first adapter found
# (e.g. an NVIDIA GPU), in both memory modes.
PARAMS = [(d, m) for d in (WANTED_DRIVERS or [""]) for m in ("unified", "staging")]


@pytest.fixture(scope="module", params=PARAMS, ids=[f"{d or 'adapter0'}-{m}" for d, m in PARAMS])
def dev(request: pytest.FixtureRequest):
    """A VulkanDevice on one driver, in one memory mode."""
    driver, mode = request.param
    require(shutil.which("glslangValidator") is not None and shutil.which("spirv-val") is not None,
            "glslangValidator/spirv-val (glslang-tools, spirv-tools) are not installed")
    try:
        from pyshade.runtime.vulkan import VulkanDevice, list_adapters
        adapters = list_adapters()
    except BackendUnavailable as e:
        require(False, f"vulkan unavailable: {e}")
        raise
    if not driver:
        require(bool(adapters), "no Vulkan adapter found")
        return VulkanDevice(0, staging=mode == "staging")
    word = VK_DRIVERS[driver][1]
    index = next((i for i, a in enumerate(adapters) if word in a.name.lower()), None)
    require(index is not None,
            f"no Vulkan adapter of {driver}: ICD file {VK_DRIVERS[driver][0]} "
            f"{'found' if icd_file(driver) else 'missing'}, VK_DRIVER_FILES="
            f"{os.environ.get('VK_DRIVER_FILES', '')!r} (PYSHADE_TEST_VK_DRIVERS=lavapipe,"
            f"swiftshader sets it), adapters: {[a.label for a in adapters]}")
    return VulkanDevice(index, staging=mode == "staging")


@functools.lru_cache(maxsize=None)
def _spirv(src: str) -> bytes:
    from pyshade.toolchains.glslang import compile_glsl
    return compile_glsl(src)


def _compiled(src: str, buffers: tuple[BufferSlot, ...], params: ParamBlock | None = None,
              key: tuple = ()) -> Compiled:
    """A Compiled object as ``ps.compile`` would make it for target glsl."""
    return Compiled(target="glsl", binary=_spirv(src), source=src, entry="main",
                    layout=Layout(buffers=buffers, params=params, workgroup_size=(64, 1, 1)),
                    key=key)


def _u32s(*vals: int) -> bytes:
    return np.array(vals, dtype=np.uint32).tobytes()


HEAD = "#version 450\nlayout(local_size_x = 64) in;\n"

DOUBLE = HEAD + """
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant, std430) uniform Params { uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) data[i] *= 2u; }
"""

AXPB = HEAD + """
layout(std430, set = 0, binding = 0) readonly buffer Src { float src[]; };
layout(std430, set = 0, binding = 1) buffer Dst { float dst[]; };
layout(push_constant, std430) uniform Params { float scale; float offset; uint n; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) dst[i] = src[i] * p.scale + p.offset;
}
"""

ADD = HEAD + """
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant, std430) uniform Params { uint value; uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) data[i] += p.value; }
"""

# dst[i] = src[i] + add: chains of these depend on each other through buffers.
STEP = HEAD + """
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Dst { uint dst[]; };
layout(push_constant, std430) uniform Params { uint add; uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) dst[i] = src[i] + p.add; }
"""

# 272 bytes of parameters: more than the 128 bytes of push constants Vulkan guarantees.
BIG_UNIFORM = HEAD + """
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(std140, set = 0, binding = 1) uniform Params { uvec4 v[16]; uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) data[i] = p.v[i % 16u].x + p.v[15].w; }
"""
BIG_STORAGE = BIG_UNIFORM.replace("std140, set = 0, binding = 1) uniform",
                                  "std430, set = 0, binding = 1) readonly buffer")

GROUPS = "#version 450\nlayout(local_size_x = 1) in;\n" + """
layout(std430, set = 0, binding = 0) buffer Out { uint hits[]; };
void main() { uvec3 g = gl_WorkGroupID; hits[g.x + g.y + g.z] = g.x + g.y + g.z + 1u; }
"""

SLOW = HEAD + """
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant, std430) uniform Params { uint iters; } p;
void main() {
    uint x = data[gl_GlobalInvocationID.x];
    for (uint k = 0u; k < p.iters; k++) { x = x * 1664525u + 1013904223u; }
    data[gl_GlobalInvocationID.x] = x;
}
"""

SCALE_F32 = HEAD + """
layout(std430, set = 0, binding = 0) readonly buffer Src { float src[]; };
layout(std430, set = 0, binding = 1) buffer Dst { float dst[]; };
layout(push_constant, std430) uniform Params { float one; uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) dst[i] = src[i] * p.one; }
"""


def _add() -> Compiled:
    return _compiled(ADD, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16, "push"),
                     key=("add",))


def _step() -> Compiled:
    return _compiled(STEP, (BufferSlot("src", 0, U32, False), BufferSlot("dst", 1, U32, True)),
                     ParamBlock(2, 16, "push"), key=("step",))


def test_device_info(dev) -> None:
    assert dev.backend == "vulkan" and dev.target == "glsl"
    assert dev.name == "vulkan" or dev.name.startswith("vulkan:")
    assert " / Vulkan 1." in dev.adapter
    assert dev.max_groups_per_dim >= 65535
    assert len(dev.max_workgroup_size) == 3 and dev.max_workgroup_invocations >= 128
    assert dev.max_push_constants_size >= 128
    assert isinstance(dev.features, set) and dev.features <= {
        "f16", "i8", "i16", "i64", "f64", "float-controls-denorm-preserve",
        "float-controls-signed-zero"}
    if "llvmpipe" in dev.adapter:
        assert "65535" in dev.note and {"f16", "i64", "f64"} <= dev.features


def test_double_u32(dev) -> None:
    host = np.arange(1000, dtype=np.uint32)
    arr = dev.array(host)
    k = _compiled(DOUBLE, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16, "push"),
                  key=("double",))
    dev.launch_compiled(k, [arr], _u32s(1000), (16, 1, 1))
    np.testing.assert_array_equal(arr.numpy(), host * 2)
    dev.launch_compiled(k, [arr], _u32s(1000), (16, 1, 1))     # cached pipeline and set
    np.testing.assert_array_equal(arr.numpy(), host * 4)
    assert dev.prepare(k) is dev.prepare(k)


def test_readonly_buffer_and_push_constants(dev) -> None:
    n = 300
    src = dev.array(np.linspace(0, 1, n, dtype=np.float32))
    dst = dev.zeros(n, np.float32)
    k = _compiled(AXPB, (BufferSlot("src", 0, F32, False), BufferSlot("dst", 1, F32, True)),
                  ParamBlock(2, 16, "push"))
    params = np.array([3.0, 0.5], np.float32).tobytes() + _u32s(n)   # padded by the device
    dev.launch_compiled(k, [src, dst], params, ((n + 63) // 64, 1, 1))
    np.testing.assert_allclose(dst.numpy(), np.linspace(0, 1, n, dtype=np.float32) * 3 + 0.5,
                               rtol=1e-6)


def test_batch_keeps_each_launchs_params(dev) -> None:
    n = 256
    arr = dev.zeros(n, np.uint32)
    k = _add()
    with dev.batch():
        for v in range(1, 11):
            dev.launch_compiled(k, [arr], _u32s(v, n), (n // 64, 1, 1))
    assert (arr.numpy() == 55).all()


def test_batch_nested_ordered_writes_and_raise(dev) -> None:
    n = 64
    arr = dev.zeros(n, np.uint32)
    k = _add()
    with dev.batch():
        dev.launch_compiled(k, [arr], _u32s(1, n), (1, 1, 1))
        with dev.batch():                                  # joins the outer batch
            arr.write(np.full(n, 100, np.uint32))          # after the first launch
            dev.launch_compiled(k, [arr], _u32s(2, n), (1, 1, 1))
        assert (arr.numpy() == 102).all()                  # a read inside submits
        dev.launch_compiled(k, [arr], _u32s(3, n), (1, 1, 1))
    assert (arr.numpy() == 105).all()
    # The launches recorded before an exception still run, then it propagates.
    with pytest.raises(RuntimeError), dev.batch():
        dev.launch_compiled(k, [arr], _u32s(1000, n), (1, 1, 1))
        raise RuntimeError("boom")
    assert (arr.numpy() == 1105).all()


def test_dependent_dispatches_in_one_batch(dev) -> None:
    n = 4096
    bufs = [dev.array(np.arange(n, dtype=np.uint32))] + [dev.zeros(n, np.uint32)
                                                         for _ in range(3)]
    k = _step()
    with dev.batch():
        for r in range(30):           # a -> b -> c -> d -> a ...: each reads the last write
            src, dst = bufs[r % 4], bufs[(r + 1) % 4]
            dev.launch_compiled(k, [src, dst], _u32s(1, n), (n // 64, 1, 1))
        # Write after read: this launch overwrites a buffer the previous one read.
        dev.launch_compiled(k, [bufs[2], bufs[1]], _u32s(1000, n), (n // 64, 1, 1))
    # After 30 steps bufs[30 % 4] == bufs[2] holds arange + 30.
    np.testing.assert_array_equal(bufs[2].numpy(), np.arange(n) + 30)
    np.testing.assert_array_equal(bufs[1].numpy(), np.arange(n) + 1030)


def test_structured_dtype_round_trip(dev) -> None:
    dt = np.dtype([("pos", np.float32, 3), ("id", np.uint32), ("w", np.float16)])
    host = np.zeros(5, dtype=dt)
    host["pos"] = np.arange(15, dtype=np.float32).reshape(5, 3)
    host["id"] = [7, 8, 9, 10, 11]
    host["w"] = [0.5, 1.5, 2.5, 3.5, 4.5]
    arr = dev.array(host)
    assert arr.shape == (5,) and arr.dtype == dt
    assert arr.numpy().tobytes() == host.tobytes()
    host["id"] += 1
    arr.write(host)
    assert arr.numpy().tobytes() == host.tobytes()


def test_zero_size_and_odd_size_arrays(dev) -> None:
    arr = dev.array(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert arr.shape == (3, 4) and len(arr) == 3
    np.testing.assert_array_equal(arr.numpy(), np.arange(12).reshape(3, 4))
    for empty in (dev.empty(0, np.float32), dev.zeros(0, np.uint8), dev.array(np.zeros(0))):
        assert empty.numpy().shape == (0,)
        empty.write(np.zeros(0, empty.dtype))
    odd = dev.array(np.array([1, 2, 3], np.uint8))         # 3 bytes in a 16-byte buffer
    np.testing.assert_array_equal(odd.numpy(), [1, 2, 3])
    odd.write(np.array([4, 5, 6], np.uint8))
    np.testing.assert_array_equal(odd.numpy(), [4, 5, 6])
    z = dev.zeros(1001, np.uint8)
    assert not z.numpy().any()
    with pytest.raises(ValueError):
        odd.write(np.zeros(4, np.uint8))
    with pytest.raises(ValueError):
        odd.write(np.zeros(3, np.int8))
    # A launch over an empty array with zero groups does nothing.
    dev.launch_compiled(_add(), [dev.empty(0, np.uint32)], _u32s(1, 0), (0, 1, 1))


@pytest.mark.parametrize("kind", ["uniform", "storage"])
def test_parameter_block_over_push_limit(dev, kind: str) -> None:
    assert 272 > 128
    n = 100
    arr = dev.zeros(n, np.uint32)
    src = BIG_UNIFORM if kind == "uniform" else BIG_STORAGE
    k = _compiled(src, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 272, kind),
                  key=("big", kind))
    for base in (0, 1000):       # two launches in a batch keep their own blocks
        with dev.batch():
            for j in range(2):
                v = np.zeros((16, 4), np.uint32)
                v[:, 0] = np.arange(16) + base + 10 * j
                v[15, 3] = 7
                params = v.tobytes() + _u32s(n)
                dev.launch_compiled(k, [arr], params, (2, 1, 1))
                if j == 0:
                    first = arr.numpy()
        np.testing.assert_array_equal(first, np.arange(n) % 16 + base + 7)
        np.testing.assert_array_equal(arr.numpy(), np.arange(n) % 16 + base + 17)


def test_push_block_over_the_limit_is_refused(dev) -> None:
    k = _compiled(ADD, (BufferSlot("data", 0, U32, True),),
                  ParamBlock(1, dev.max_push_constants_size + 16, "push"), key=("too-big",))
    with pytest.raises(LaunchError, match="maxPushConstantsSize"):
        dev.prepare(k)


def test_group_counts_at_the_limit(dev) -> None:
    limit = dev.limits["max_compute_work_group_count"]
    n = min(limit[0], 65535)
    hits = dev.zeros(n, np.uint32)
    k = _compiled(GROUPS, (BufferSlot("hits", 0, U32, True),), key=("groups",))
    dev.launch_compiled(k, [hits], None, (n, 1, 1))
    np.testing.assert_array_equal(hits.numpy(), np.arange(n) + 1)
    hits.write(np.zeros(n, np.uint32))
    dev.launch_compiled(k, [hits], None, (1, min(limit[1], n), 1))
    dev.launch_compiled(k, [hits], None, (1, 1, min(limit[2], n)))
    np.testing.assert_array_equal(hits.numpy(), np.arange(n) + 1)
    with pytest.raises(LaunchError, match="group counts"):
        dev.launch_compiled(k, [hits], None, (limit[0] + 1, 1, 1))


def test_launch_checks(dev) -> None:
    k = _add()
    with pytest.raises(LaunchError, match="binds 1 buffers"):
        dev.launch_compiled(k, [], _u32s(1, 1), (1, 1, 1))
    with pytest.raises(LaunchError, match="not an array on this device"):
        dev.launch_compiled(k, [np.zeros(4, np.uint32)], _u32s(1, 1), (1, 1, 1))
    with pytest.raises(LaunchError, match="exceeds its declared size"):
        dev.launch_compiled(k, [dev.zeros(4, np.uint32)], bytes(32), (1, 1, 1))
    wgsl = Compiled("wgsl", "fn main() {}", "", "main", Layout((), None, (1, 1, 1)))
    with pytest.raises(CompileError, match="SPIR-V"):
        dev.launch_compiled(wgsl, [], None, (1, 1, 1))


@pytest.mark.parametrize("batched", [False, True], ids=["plain", "batch"])
def test_threads_launch_and_read_back(dev, batched: bool) -> None:
    n, rounds, nthreads = 256, 200, 8
    k = _add()
    errors: list[str] = []

    def work(t: int) -> None:
        try:
            x = dev.zeros(n, np.uint32)
            total = 0
            for r in range(rounds):
                if batched:
                    with dev.batch():
                        dev.launch_compiled(k, [x], _u32s(t, n), (4, 1, 1))
                        dev.launch_compiled(k, [x], _u32s(r, n), (4, 1, 1))
                    total += t + r
                else:
                    dev.launch_compiled(k, [x], _u32s(r, n), (4, 1, 1))
                    total += r
                got = x.numpy()
                if not (got == total).all():
                    errors.append(f"thread {t} round {r}: {got[:4]} != {total}")
                    return
        except Exception as e:          # a worker's exception must fail the test
            errors.append(f"thread {t}: {e!r}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(nthreads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:5]


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_memory_flat_over_launches_and_allocations(dev) -> None:
    k = _add()
    big = _compiled(BIG_UNIFORM, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 272, "uniform"),
                    key=("big", "uniform"))
    x = dev.zeros(1024, np.uint32)
    p = _u32s(1, 1024)
    bp = bytes(272)

    def rounds(launches: int, allocs: int) -> None:
        for i in range(launches):
            dev.launch_compiled(k, [x], p, (16, 1, 1))
            if i % 10 == 0:
                dev.launch_compiled(big, [x], bp, (1, 1, 1))
        for i in range(allocs):
            y = dev.zeros(4096, np.uint32)
            dev.launch_compiled(k, [y], _u32s(i, 4096), (64, 1, 1))
            del y
        dev.synchronize()
        gc.collect()

    # Warm up with the measured workload itself: pipelines, command buffers, pools and
    # caches fill, and the driver's and malloc's pools settle (after a 1000-launch warm-up
    # the first measured round could still grow by 4-9 MiB under a loaded CI run).
    rounds(10_000, 1000)
    before = _rss_mb()
    rounds(10_000, 1000)
    grown = _rss_mb() - before
    dev.synchronize()
    assert not dev._mem.retired        # everything retired has been destroyed
    assert len(dev._pools) <= 4 and len(dev._free) + len(dev._in_flight) <= 17
    # 1000 freed 16 KiB arrays would be 16 MiB; parameter arenas, descriptor sets or
    # command buffers per launch would grow as well.
    assert grown < 8, f"RSS grew by {grown:.1f} MiB"


def test_synchronize_waits(dev) -> None:
    n = 64 * 256
    arr = dev.zeros(n, np.uint32)
    k = _compiled(SLOW, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16, "push"),
                  key=("slow",))
    groups = (n // 64, 1, 1)
    iters = 2000
    while True:                        # calibrate: a kernel that takes measurable time
        t0 = time.perf_counter()
        dev.launch_compiled(k, [arr], _u32s(iters), groups)
        dev.synchronize()
        work = time.perf_counter() - t0
        if work > 0.1 or iters > 60_000:      # lavapipe stops loops at 65535 iterations
            break
        iters *= 4
    if work < 0.05:
        pytest.skip("device too fast to time the kernel reliably")
    t0 = time.perf_counter()
    dev.launch_compiled(k, [arr], _u32s(iters), groups)
    launch = time.perf_counter() - t0
    dev.synchronize()
    t0 = time.perf_counter()
    arr.numpy()
    after = time.perf_counter() - t0
    assert launch < work / 2, (launch, work)       # launching does not wait
    assert after < work / 2, (after, work)         # synchronize did


def test_synchronize_polls_then_blocks(dev, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wait for results polls the fence for ``spin_wait`` seconds (GPU adapters; 0 on CPU
    drivers), then blocks: with a blocking wait that cannot wait (timeout 0) a long poll
    must see the work through alone, and a poll shorter than the work must hand over to
    the blocking wait. Either way the results are complete."""
    from pyshade.runtime import recording, vulkan_memory
    assert dev.spin_wait == (0.0 if dev.kind == "CPU" else recording.SPIN_WAIT_S)
    n = 64 * 64
    k = _compiled(SLOW, (BufferSlot("data", 0, U32, True),), ParamBlock(1, 16, "push"),
                  key=("slow",))
    start = np.random.default_rng().integers(0, 2**32, n, dtype=np.uint32)
    want = lcg_rounds(start, 3000)
    spin = dev.spin_wait
    try:
        for poll, wait_ns in ((30.0, 0), (1e-6, vulkan_memory._WAIT_NS)):
            dev.spin_wait = poll
            monkeypatch.setattr(vulkan_memory, "_WAIT_NS", wait_ns)
            arr = dev.array(start)
            dev.launch_compiled(k, [arr], _u32s(3000), (n // 64, 1, 1))
            dev.synchronize()
            np.testing.assert_array_equal(arr.numpy(), want)
    finally:
        dev.spin_wait = spin


def test_subnormals_survive_where_denorm_preserve_is_reported(dev) -> None:
    if "float-controls-denorm-preserve" not in dev.features:
        pytest.skip(f"{dev.adapter} does not report shaderDenormPreserveFloat32")
    host = np.array([1e-40, -1e-45, 1.17e-38, 1.0, 0.0], np.float32)
    assert (np.abs(host[:3]) < np.finfo(np.float32).tiny).any()
    src = dev.array(host)
    dst = dev.zeros(len(host), np.float32)
    k = _compiled(SCALE_F32, (BufferSlot("src", 0, F32, False), BufferSlot("dst", 1, F32, True)),
                  ParamBlock(2, 16, "push"))
    params = np.array([1.0], np.float32).tobytes() + _u32s(len(host))
    dev.launch_compiled(k, [src, dst], params, (1, 1, 1))
    assert dst.numpy().tobytes() == host.tobytes()


def test_denorm_preserve_patch_is_valid_spirv() -> None:
    require(shutil.which("glslangValidator") is not None and shutil.which("spirv-val") is not None,
            "glslangValidator/spirv-val are not installed")
    from pyshade.runtime.vulkan_support import add_denorm_preserve
    from pyshade.toolchains.glslang import validate_spirv
    spv = _spirv(SCALE_F32)
    patched = add_denorm_preserve(spv, "main")
    assert patched != spv and len(patched) == len(spv) + 4 * (4 + 2 + 7)
    validate_spirv(patched, "vulkan1.1")
    validate_spirv(patched, "vulkan1.2")
    assert add_denorm_preserve(patched, "main") == patched       # already there
    with pytest.raises(ValueError):
        add_denorm_preserve(spv, "nope")


def test_float_modes_patch_is_valid_spirv() -> None:
    """DenormPreserve and SignedZeroInfNanPreserve together; the 16- and 64-bit modes only
    in a module with floats of that width (the f32 kernel here has none)."""
    require(shutil.which("glslangValidator") is not None and shutil.which("spirv-val") is not None,
            "glslangValidator/spirv-val are not installed")
    from pyshade.runtime.vulkan_support import FloatModes
    from pyshade.toolchains.glslang import validate_spirv
    spv = _spirv(SCALE_F32)
    assert not FloatModes() and FloatModes().apply(spv, "main") == spv
    modes = FloatModes(True, (16, 32, 64))
    patched = modes.apply(spv, "main")
    # two modes (4 words each), two capabilities (2 each), the extension (7)
    assert len(patched) == len(spv) + 4 * (2 * 4 + 2 * 2 + 7)
    validate_spirv(patched, "vulkan1.1")
    assert modes.apply(patched, "main") == patched       # already there
    signed = FloatModes(False, (32,)).apply(spv, "main")
    assert len(signed) == len(spv) + 4 * (4 + 2 + 7)
    both = FloatModes(True, (32,)).apply(signed, "main")     # only DenormPreserve added
    assert len(both) == len(patched)
    validate_spirv(both, "vulkan1.1")


def test_signed_zero_preserve_is_declared_where_reported(dev) -> None:
    if "float-controls-signed-zero" not in dev.features:
        pytest.skip(f"{dev.adapter} does not report shaderSignedZeroInfNanPreserveFloat32")
    assert 32 in dev.float_modes.signed_zero


def test_registered_device_and_rows(dev) -> None:
    from pyshade.runtime.vulkan import VulkanDevice, list_adapters
    d = ps.device("vulkan")
    assert isinstance(d, VulkanDevice) and d.name == "vulkan"
    rows = [r for r in ps.devices() if r.backend == "vulkan"]
    labels = [a.label for a in list_adapters()]
    assert [r.name for r in rows] == ["vulkan"] + [f"vulkan:{i}" for i in range(1, len(labels))]
    assert [r.adapter for r in rows] == labels
    with pytest.raises(BackendUnavailable, match="no Vulkan adapter 99"):
        ps.device("vulkan:99")


def test_freed_arrays_are_pooled_and_reused(dev) -> None:
    """A freed array's storage is kept (the driver's allocation is slow) and given to
    the next array of the same byte size once nothing pending uses it; its contents
    are the new array's, and the pool never holds more than POOL_BYTES."""
    from pyshade.runtime.vulkan_memory import POOL_BYTES
    mem = dev._mem
    # the module's device: arrays of earlier tests may still be retiring into the pool
    gc.collect()
    dev.synchronize()
    mem.release_pool()
    a = dev.array(np.arange(3000, dtype=np.uint32))
    handle, uid = a.buf.handle, a.uid
    del a
    gc.collect()
    dev.synchronize()
    assert mem.pool.bytes == 12000 and len(mem.pool.free[12000]) == 1
    b = dev.array(np.arange(3000, dtype=np.float32) * 2)       # same bytes, other dtype
    # the buffer's uid too: the descriptor sets cached for the old array serve the new
    assert b.buf.handle == handle and b.uid == uid and mem.pool.bytes == 0
    np.testing.assert_array_equal(b.numpy(), np.arange(3000, dtype=np.float32) * 2)
    c = dev.empty(3001, np.uint32)                              # another size: a new buffer
    assert c.buf.handle != handle
    big = [dev.empty(POOL_BYTES // 4, np.uint8) for _ in range(5)]
    del big
    gc.collect()
    dev.synchronize()
    assert mem.pool.bytes <= POOL_BYTES and mem.pool.bytes >= POOL_BYTES // 2
    mem.release_pool()
    assert mem.pool.bytes == 0 and not mem.pool.free


def test_gpu_wait_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """PYSHADE_GPU_WAIT: the fence wait's seconds (60 by default); a value that is not a
    positive number is an error naming the variable."""
    from pyshade.runtime import vulkan_memory
    monkeypatch.delenv("PYSHADE_GPU_WAIT", raising=False)
    assert vulkan_memory._wait_seconds() == 60.0
    monkeypatch.setenv("PYSHADE_GPU_WAIT", "2.5")
    assert vulkan_memory._wait_seconds() == 2.5
    for bad in ("abc", "0", "-5", "nan"):
        monkeypatch.setenv("PYSHADE_GPU_WAIT", bad)
        with pytest.raises(ValueError, match=f"PYSHADE_GPU_WAIT='{bad}'"):
            vulkan_memory._wait_seconds()
