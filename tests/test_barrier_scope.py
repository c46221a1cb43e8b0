"""What ``ps.barrier()`` orders (``frontend/barrier_scope.py``): shared memory only, unless
some written buffer is accessed on both sides of a barrier; then shared and device
memory on every target. The analysis on small kernels (helpers, atomics, loops), the
spelling each target gets, and execution on every device of kernels that pass values
between the invocations of a workgroup through a buffer."""

from __future__ import annotations

import numpy as np
import pytest

import pyshade as ps
from pyshade import i32, u32

WG = 64

# barrier() on each target: (device memory too, shared memory only)
SPELLING = {
    "glsl": (["memoryBarrierShared(); memoryBarrierBuffer(); barrier();"],
             ["memoryBarrierShared(); barrier();"]),
    "hlsl": (["AllMemoryBarrierWithGroupSync();"], ["GroupMemoryBarrierWithGroupSync();"]),
    "msl": (["threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);"],
            ["threadgroup_barrier(mem_flags::mem_threadgroup);"]),
    "wgsl": (["storageBarrier();", "workgroupBarrier();"], ["workgroupBarrier();"]),
    "cuda": (["__syncthreads();"], ["__syncthreads();"]),
}


def ordered(k: ps.Kernel, **bindings) -> tuple[str, ...]:
    """The buffers whose accesses ``k``'s barriers order (one answer for every target)."""
    answers = {k.program(t, k.spec(bindings)).kernel.ordered_buffers
               for t in ("wgsl", "glsl", "cuda")}
    assert len(answers) == 1
    return answers.pop()


def store_one(buf: ps.Buffer[u32], i: u32, v: u32) -> None:
    buf[i] = v


def load_one(buf: ps.Buffer[u32], i: u32) -> u32:
    return buf[i]


def length_of(buf: ps.Buffer[u32]) -> u32:
    return u32(len(buf))


# -- shared memory only ----------------------------------------------------------------------

@ps.kernel(workgroup_size=WG)
def reverse_tiles(src: ps.Buffer[u32], dst: ps.Buffer[u32]) -> None:
    """Read-only input, write-once output: the barrier orders the tile only."""
    tile = ps.shared_array(u32, WG)
    lx = ps.local_index()
    i = ps.global_id().x
    tile[lx] = src[i]
    ps.barrier()
    dst[i] = tile[WG - 1 - lx]


@ps.kernel(workgroup_size=WG)
def accumulate_after(src: ps.Buffer[u32], acc: ps.Buffer[u32]) -> None:
    """acc read and written between the same two barriers (after the last one)."""
    tile = ps.shared_array(u32, WG)
    lx = ps.local_index()
    tile[lx] = src[ps.global_id().x]
    ps.barrier()
    if lx == 0:
        s = u32(0)
        for k in range(u32(WG)):
            s += tile[k]
        acc[ps.group_id().x] += s
        acc[ps.group_id().x] = acc[ps.group_id().x] * 1


@ps.kernel(workgroup_size=WG)
def histogram_once(keys: ps.Buffer[u32], hist: ps.Buffer[u32]) -> None:
    """One atomic site on the buffer, after the barriers (len() of it before: no access)."""
    bins = ps.shared_array(u32, 16)
    lx = ps.local_index()
    if lx < 16:
        bins[lx] = 0
    ps.barrier()
    i = ps.global_id().x
    if i < len(keys) and len(hist) == 16:
        ps.atomic_add(bins, keys[i] % 16, 1)
    ps.barrier()
    if lx < 16:
        ps.atomic_add(hist, lx, bins[lx])


@ps.kernel(workgroup_size=WG)
def written_through_helper(src: ps.Buffer[u32], dst: ps.Buffer[u32]) -> None:
    """The write is in a helper: it counts where the call is (once, after the barrier)."""
    tile = ps.shared_array(u32, WG)
    lx = ps.local_index()
    tile[lx] = load_one(src, ps.global_id().x)
    ps.barrier()
    store_one(dst, ps.global_id().x, tile[WG - 1 - lx])


@ps.kernel(workgroup_size=WG)
def barriers_in_a_loop_write_after(src: ps.Buffer[u32], dst: ps.Buffer[u32],
                                   rounds: u32) -> None:
    """A loop with barriers over the shared tile; dst written once after it."""
    tile = ps.shared_array(u32, WG)
    lx = ps.local_index()
    tile[lx] = src[ps.global_id().x]
    for _ in range(rounds):
        ps.barrier()
        v = tile[(lx + 1) % WG]
        ps.barrier()
        tile[lx] = v
    ps.barrier()
    dst[ps.global_id().x] = tile[lx]


# -- shared and device memory ----------------------------------------------------------------

@ps.kernel(workgroup_size=WG)
def pass_through_buffer(src: ps.Buffer[u32], scratch: ps.Buffer[u32],
                        dst: ps.Buffer[u32]) -> None:
    """Each invocation writes scratch, and after the barrier reads another invocation's
    element: the barrier must order scratch in device memory."""
    i = ps.global_id().x
    g = ps.group_id().x * WG
    lx = ps.local_index()
    scratch[i] = src[i] * 3 + 1
    ps.barrier()
    dst[i] = scratch[g + (lx + 7) % WG]


@ps.kernel(workgroup_size=WG)
def pass_through_helpers(src: ps.Buffer[u32], scratch: ps.Buffer[u32],
                         dst: ps.Buffer[u32]) -> None:
    """pass_through_buffer with both accesses of scratch in helpers."""
    i = ps.global_id().x
    g = ps.group_id().x * WG
    lx = ps.local_index()
    store_one(scratch, i, src[i] * 3 + 1)
    ps.barrier()
    dst[i] = load_one(scratch, g + (lx + 7) % WG)


@ps.kernel(workgroup_size=WG)
def atomics_across(counts: ps.Buffer[u32], dst: ps.Buffer[u32]) -> None:
    """Atomics on counts before the barrier, a plain read of it after."""
    g = ps.group_id().x
    ps.atomic_add(counts, g, 1)
    ps.barrier()
    dst[ps.global_id().x] = counts[g]


@ps.kernel(workgroup_size=WG)
def atomic_then_atomic(counts: ps.Buffer[i32], dst: ps.Buffer[i32]) -> None:
    """Two atomic sites on one buffer with a barrier between them."""
    g = ps.group_id().x
    ps.atomic_add(counts, g, 1)
    ps.barrier()
    dst[ps.global_id().x] = ps.atomic_add(counts, g, 0)


@ps.kernel(workgroup_size=WG)
def write_in_barrier_loop(src: ps.Buffer[u32], buf: ps.Buffer[u32], rounds: u32) -> None:
    """One write site, in a loop with a barrier: round r+1's write follows round r's on
    the other side of a barrier (and src is read-only, so it needs nothing)."""
    lx = ps.local_index()
    i = ps.global_id().x
    for r in range(rounds):
        buf[ps.group_id().x * WG + (lx + r) % WG] = src[i] + r
        ps.barrier()


@ps.kernel(workgroup_size=WG)
def helper_in_barrier_loop(buf: ps.Buffer[u32], rounds: u32) -> None:
    """The one write is in a helper called in a loop with a barrier."""
    lx = ps.local_index()
    for r in range(rounds):
        ps.barrier()
        store_one(buf, ps.group_id().x * WG + (lx + r) % WG, r)


@ps.kernel(workgroup_size=WG)
def len_in_helper_before(buf: ps.Buffer[u32]) -> None:
    """A helper that only takes len() of buf counts as an access (the rule does not look
    into helpers): before the barrier, with the write after it -> full barrier."""
    n = length_of(buf)
    ps.barrier()
    i = ps.global_id().x
    if i < n:
        buf[i] = i


@ps.kernel(workgroup_size=WG)
def rmw_across(data: ps.Buffer[u32]) -> None:
    """Read before the barrier and written after it (block_reverse's pattern)."""
    tile = ps.shared_array(u32, WG)
    i = ps.global_id().x
    lx = ps.local_index()
    tile[lx] = data[i]
    ps.barrier()
    data[i] = tile[WG - 1 - lx]


@ps.kernel(workgroup_size=WG)
def barrier_in_one_branch(a: ps.Buffer[u32], flag: u32) -> None:
    """Accesses in the if and the else of a uniform condition, a barrier in the if: the
    rule orders them (coarse: no invocation runs both branches)."""
    i = ps.global_id().x
    if flag == 1:
        a[i] = 1
        ps.barrier()
    else:
        a[i] = 2


SHARED_ONLY = [(reverse_tiles, {}), (accumulate_after, {}), (histogram_once, {}),
               (written_through_helper, {}), (barriers_in_a_loop_write_after, {})]
DEVICE = [(pass_through_buffer, {}, ("scratch",)), (pass_through_helpers, {}, ("scratch",)),
          (atomics_across, {}, ("counts",)), (atomic_then_atomic, {}, ("counts",)),
          (write_in_barrier_loop, {}, ("buf",)), (helper_in_barrier_loop, {}, ("buf",)),
          (len_in_helper_before, {}, ("buf",)), (rmw_across, {}, ("data",)),
          (barrier_in_one_branch, {}, ("a",))]


@pytest.mark.parametrize("case", SHARED_ONLY, ids=lambda c: c[0].__name__)
def test_shared_only(case) -> None:
    k, b = case
    assert ordered(k, **b) == ()
    assert k.program("glsl", k.spec(b)).kernel.barrier_scope == "workgroup"


@pytest.mark.parametrize("case", DEVICE, ids=lambda c: c[0].__name__)
def test_device_ordering(case) -> None:
    k, b, want = case
    assert ordered(k, **b) == want
    assert k.program("glsl", k.spec(b)).kernel.barrier_scope == "device"


def test_no_barrier_no_scope() -> None:
    @ps.kernel(workgroup_size=WG)
    def plain(a: ps.Buffer[u32]) -> None:
        i = ps.global_id().x
        a[i] = a[i] + 1
    assert ordered(plain) == ()


@pytest.mark.parametrize("target", sorted(SPELLING))
@pytest.mark.parametrize("k,full", [(reverse_tiles, False), (pass_through_buffer, True)],
                         ids=["shared", "device"])
def test_spelling(target: str, k: ps.Kernel, full: bool) -> None:
    src = ps.translate(k, target=target)
    want = SPELLING[target][0 if full else 1]
    code = [ln.split("//")[0].strip() for ln in src.splitlines() if not ln.startswith("#line")]
    lines = [ln for ln in code if "arrier" in ln or "syncthreads" in ln]
    assert lines == want            # the kernels have one barrier each
    if target == "glsl":       # coherent on the ordered buffer only
        assert ("coherent buffer ps_scratch_block" in src) == full
        assert "coherent buffer ps_dst_block" not in src
    if target == "hlsl":
        assert src.count("globallycoherent") == (1 if full else 0)


# -- execution: values passed through a buffer between invocations ---------------------------

@pytest.mark.parametrize("k", [pass_through_buffer, pass_through_helpers],
                         ids=lambda k: k.__name__)
def test_pass_through_buffer_runs(dev: ps.Device, k: ps.Kernel) -> None:
    n = WG * 4
    src = np.arange(n, dtype=np.uint32) * 5
    a = dev.array(src)
    scratch = dev.array(np.zeros(n, dtype=np.uint32))
    out = dev.array(np.zeros(n, dtype=np.uint32))
    k.launch(a, scratch, out, threads=n, device=dev)
    lx = np.arange(n) % WG
    g = np.arange(n) // WG
    want = (src * 3 + 1)[g * WG + (lx + 7) % WG]
    np.testing.assert_array_equal(out.numpy(), want)


def test_shared_only_runs(dev: ps.Device) -> None:
    n = WG * 3
    src = np.arange(n, dtype=np.uint32) + 11
    a = dev.array(src)
    out = dev.array(np.zeros(n, dtype=np.uint32))
    reverse_tiles.launch(a, out, threads=n, device=dev)
    np.testing.assert_array_equal(out.numpy(), src.reshape(-1, WG)[:, ::-1].reshape(-1))
    out2 = dev.array(np.zeros(n, dtype=np.uint32))
    barriers_in_a_loop_write_after.launch(a, out2, 5, threads=n, device=dev)
    np.testing.assert_array_equal(out2.numpy(), np.roll(src.reshape(-1, WG), -5, axis=1)
                                  .reshape(-1))


def test_write_in_barrier_loop_runs(dev: ps.Device) -> None:
    """Each round rewrites every element of the group's slice, each by another invocation
    than the round before: the last round's values must win."""
    n, rounds = WG * 2, 3
    src = np.arange(n, dtype=np.uint32) * 2
    a = dev.array(src)
    buf = dev.array(np.zeros(n, dtype=np.uint32))
    write_in_barrier_loop.launch(a, buf, rounds, threads=n, device=dev)
    r = rounds - 1
    j = np.arange(n) % WG
    g = np.arange(n) // WG
    np.testing.assert_array_equal(buf.numpy(), src[g * WG + (j - r) % WG] + r)


def test_not_analysed_is_full() -> None:
    """A KernelInfo that no analysis filled in (ordered_buffers None) gets the full barrier
    and coherent written buffers: the safe default."""
    from pyshade.emit.glsl import GlslEmitter
    prog = reverse_tiles.program("glsl", reverse_tiles.spec({}))
    saved = prog.kernel.ordered_buffers
    try:
        prog.kernel.ordered_buffers = None
        text = GlslEmitter(prog).emit()
    finally:
        prog.kernel.ordered_buffers = saved
    assert "memoryBarrierBuffer(); barrier();" in text
    assert "coherent buffer ps_dst_block" in text
