"""The cpu device's own machinery: arrays of any memory layout, moves that keep
NaN bits, launches whose memory does not grow with the thread count, a bounded
namespace cache, and tracebacks whose carets do not mislead."""

from __future__ import annotations

import gc
import traceback
import tracemalloc

import numpy as np
import pytest

import pyshade as ps
from pyshade import f16, f32, f64, u32
from pyshade import types as T
from pyshade.runtime import cpu as cpu_mod
from pyshade.runtime import cpu_support as S
from pyshade.runtime.cpu_convert import Converter


@pytest.fixture
def cpu() -> ps.Device:
    return ps.device("cpu")


# ------------------------------------------------------------ memory layout

@ps.kernel
def double_f32(x: ps.Buffer[f32], y: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(x):
        y[i] = x[i] * 2.0


@ps.kernel
def double_vec4(x: ps.Buffer[ps.vec4], y: ps.Buffer[ps.vec4]):
    i = ps.global_id().x
    if i < len(x):
        y[i] = x[i] * 2.0


def test_device_arrays_are_c_contiguous(cpu: ps.Device, rng: np.random.Generator) -> None:
    """Whatever the host layout, the device array's elements are the host's in C order,
    and a launch's write-back (into flat views of the data) reaches them."""
    x = rng.standard_normal((6, 5, 4)).astype(np.float32)
    s = np.zeros((6, 5), Sample.dtype)
    for host in (np.asfortranarray(x), x.transpose(2, 0, 1), x[:, ::2], x[::-1, 1:],
                 np.asfortranarray(s), s.T):
        arr = cpu.array(host)
        assert arr.data.flags.c_contiguous
        assert arr.shape == host.shape
        np.testing.assert_array_equal(arr.numpy(), host)
    conv = Converter({}, {})
    for host in (np.asfortranarray(x), x.transpose(2, 0, 1), x[:, ::2]):
        arr = cpu.array(np.zeros_like(host))
        vals = rng.standard_normal(host.size).astype(np.float32)
        conv.from_py_list(T.f32, vals.tolist(), arr.data)
        np.testing.assert_array_equal(arr.numpy().reshape(-1), vals)


def test_fortran_order_device_arrays(cpu: ps.Device, rng: np.random.Generator) -> None:
    n = int(rng.integers(3, 40))
    v = rng.standard_normal((n, 4)).astype(np.float32)
    dx = cpu.array(np.asfortranarray(v))
    dy = cpu.array(np.asfortranarray(np.zeros_like(v)))
    double_vec4.launch(dx, dy, threads=n, device=cpu)
    got = dy.numpy()
    assert got.shape == v.shape
    np.testing.assert_array_equal(got, v * 2)        # element order is the C order
    yf = np.asfortranarray(np.zeros_like(v))          # a numpy argument, copied back
    double_vec4.launch(np.asfortranarray(v), yf, threads=n, device=cpu)
    np.testing.assert_array_equal(yf, v * 2)


def test_transposed_and_strided_device_arrays(cpu: ps.Device, rng: np.random.Generator) -> None:
    n = int(rng.integers(3, 40))
    v = rng.standard_normal((4, n)).astype(np.float32)
    out = cpu.array(np.zeros((4, n), np.float32).T)
    double_vec4.launch(cpu.array(v.T), out, threads=n, device=cpu)
    np.testing.assert_array_equal(out.numpy(), v.T * 2)
    x = rng.standard_normal(3 * n).astype(np.float32)
    y = cpu.array(np.zeros(2 * n, np.float32)[::-2])
    double_f32.launch(cpu.array(x[::3]), y, threads=n, device=cpu)
    np.testing.assert_array_equal(y.numpy(), x[::3] * 2)


def test_non_contiguous_numpy_arguments_written_back(cpu: ps.Device,
                                                     rng: np.random.Generator) -> None:
    n = int(rng.integers(5, 60))
    v = rng.standard_normal((5, n)).astype(np.float32)
    vout = np.zeros((4, n), np.float32).T                  # a view, not C-contiguous
    double_vec4.launch(v[1:].T, vout, threads=n, device=cpu)
    np.testing.assert_array_equal(vout, v[1:].T * 2)
    wide = np.zeros((n, 5), np.float32)
    double_vec4.launch(v[:4].T, wide[:, 1:], threads=n, device=cpu)
    np.testing.assert_array_equal(wide[:, 1:], v[:4].T * 2)
    assert not wide[:, 0].any()
    # strided and reversed 1-D views: only the viewed elements of the base change
    big = rng.standard_normal(3 * n).astype(np.float32)
    base = np.zeros(2 * n, np.float32)
    double_f32.launch(big[::3], base[::2], threads=n, device=cpu)
    np.testing.assert_array_equal(base[::2], big[::3] * 2)
    assert not base[1::2].any()
    rev = np.zeros(n, np.float32)
    double_f32.launch(big[:n], rev[::-1], threads=n, device=cpu)
    np.testing.assert_array_equal(rev, big[:n][::-1] * 2)


# ------------------------------------------------------------ NaN payloads

F32_SPECIAL = [0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FC00000, 0xFFC00000, 0x7FC12345,
               0xFFE00001, 0x7F812345, 0x00000000, 0x80000000, 0x00000001, 0x807FFFFF,
               0x00400000, 0x7F800000, 0xFF800000, 0x3F800000, 0x7F7FFFFF]


def _f32_bits(rng: np.random.Generator, n: int) -> np.ndarray:
    """The special patterns, random signalling and quiet NaNs, and random bits."""
    snan = rng.integers(1, 1 << 22, n, dtype=np.uint32) | np.uint32(0x7F800000)
    qnan = rng.integers(0, 1 << 22, n, dtype=np.uint32) | np.uint32(0x7FC00000)
    sign = rng.integers(0, 2, 3 * n, dtype=np.uint32) << np.uint32(31)
    rand = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    bits = np.concatenate([snan, qnan, rand]) | sign
    out = np.concatenate([np.array(F32_SPECIAL, np.uint32), bits])
    return rng.permutation(out)


@ps.kernel
def copy_f32(x: ps.Buffer[f32], y: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(x):
        y[i] = x[i]


@ps.kernel
def bits_via_f32(x: ps.Buffer[u32], y: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(x):
        f: f32 = ps.bitcast(f32, x[i])
        y[i] = ps.bitcast(u32, f)


@ps.kernel
def f32_via_bits(x: ps.Buffer[f32], y: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(x):
        y[i] = ps.bitcast(f32, ps.bitcast(u32, x[i]))


@ps.kernel
def copy_vec4(x: ps.Buffer[ps.vec4], y: ps.Buffer[ps.vec4]):
    i = ps.global_id().x
    if i < len(x):
        v = x[i]
        y[i] = ps.vec4(v.w, v.z, v.y, v.x)


@ps.struct
class Sample:
    a: f32
    k: u32
    v: ps.vec3
    w: ps.array(f32, 3)


@ps.kernel
def copy_struct(x: ps.Buffer[Sample], y: ps.Buffer[Sample]):
    i = ps.global_id().x
    if i < len(x):
        s = x[i]
        y[i] = s
        y[i].a = s.v.y


@ps.kernel
def fill_params(y: ps.Buffer[f32], v4: ps.Buffer[ps.vec4], a: f32, b: ps.vec4):
    i = ps.global_id().x
    if i < len(y):
        y[i] = a
        v4[i] = b


def test_f32_copy_and_bitcast_keep_nan_bits(cpu: ps.Device, rng: np.random.Generator) -> None:
    bits = _f32_bits(rng, 200)
    n = bits.size
    y = cpu.zeros(n, np.float32)
    copy_f32.launch(cpu.array(bits.view(np.float32)), y, threads=n, device=cpu)
    np.testing.assert_array_equal(y.numpy().view(np.uint32), bits)
    yb = cpu.zeros(n, np.uint32)
    bits_via_f32.launch(cpu.array(bits), yb, threads=n, device=cpu)
    np.testing.assert_array_equal(yb.numpy(), bits)
    y2 = cpu.zeros(n, np.float32)
    f32_via_bits.launch(cpu.array(bits.view(np.float32)), y2, threads=n, device=cpu)
    np.testing.assert_array_equal(y2.numpy().view(np.uint32), bits)


def test_vec4_and_struct_moves_keep_nan_bits(cpu: ps.Device, rng: np.random.Generator) -> None:
    bits = _f32_bits(rng, 150)[:400].reshape(100, 4)
    out = cpu.zeros((100, 4), np.float32)
    copy_vec4.launch(cpu.array(bits.view(np.float32)), out, threads=100, device=cpu)
    np.testing.assert_array_equal(out.numpy().view(np.uint32), bits[:, ::-1])
    n = 64
    src = np.zeros(n, Sample.dtype)
    fb = _f32_bits(rng, 150)
    src["a"] = fb[:n].view(np.float32)
    src["k"] = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    src["v"] = fb[n:4 * n].reshape(n, 3).view(np.float32)
    src["w"] = fb[4 * n:7 * n].reshape(n, 3).view(np.float32)
    dst = cpu.zeros(n, Sample.dtype)
    copy_struct.launch(cpu.array(src), dst, threads=n, device=cpu)
    got = dst.numpy()
    np.testing.assert_array_equal(got["a"].view(np.uint32), src["v"][:, 1].view(np.uint32))
    np.testing.assert_array_equal(got["k"], src["k"])
    for f in ("v", "w"):
        np.testing.assert_array_equal(got[f].view(np.uint32), src[f].view(np.uint32))


def test_parameters_keep_nan_bits(cpu: ps.Device, rng: np.random.Generator) -> None:
    for _ in range(3):
        bits = _f32_bits(rng, 4)[:5]
        f = bits.view(np.float32)
        y, v4 = cpu.zeros(3, np.float32), cpu.zeros((3, 4), np.float32)
        fill_params.launch(y, v4, f[0], f[1:5], threads=3, device=cpu)
        np.testing.assert_array_equal(y.numpy().view(np.uint32), [bits[0]] * 3)
        np.testing.assert_array_equal(v4.numpy().view(np.uint32), [bits[1:5]] * 3)


@ps.kernel
def copy_f16(x: ps.Buffer[f16], y: ps.Buffer[f16]):
    i = ps.global_id().x
    if i < len(x):
        y[i] = x[i]


@ps.kernel
def copy_f64(x: ps.Buffer[f64], y: ps.Buffer[f64]):
    i = ps.global_id().x
    if i < len(x):
        y[i] = x[i]


def test_f16_and_f64_copies_keep_nan_bits(cpu: ps.Device, rng: np.random.Generator) -> None:
    h = np.concatenate([np.array([0x7C01, 0xFC01, 0x7DFF, 0x7E00, 0x7E55, 0x0001, 0x8000,
                                  0x7C00, 0xFC00], np.uint16),
                        rng.integers(0, 1 << 16, 300, dtype=np.uint16),
                        rng.integers(1, 1 << 9, 50, dtype=np.uint16) | np.uint16(0x7C00)])
    y = cpu.zeros(h.size, np.float16)
    copy_f16.launch(cpu.array(h.view(np.float16)), y, threads=h.size, device=cpu)
    np.testing.assert_array_equal(y.numpy().view(np.uint16), h)
    d = np.concatenate([np.array([0x7FF0000000000001, 0xFFF0000000000001, 0x7FF8000000000000,
                                  0x7FF7FFFFFFFFFFFF, 1], np.uint64),
                        rng.integers(0, 1 << 63, 200, dtype=np.uint64)])
    y64 = cpu.zeros(d.size, np.float64)
    copy_f64.launch(cpu.array(d.view(np.float64)), y64, threads=d.size, device=cpu)
    np.testing.assert_array_equal(y64.numpy().view(np.uint64), d)


def test_helpers_keep_nan_bits(rng: np.random.Generator) -> None:
    snan = (rng.integers(1, 1 << 22, 50) | 0x7F800000).tolist()
    for b in [*F32_SPECIAL, *snan]:
        f = S._bitcast(b, "u32", "f32")
        assert S._bitcast(f, "f32", "u32") == b
        assert S._bitcast(S._f32(f), "f32", "u32") == b         # rounding keeps a NaN
        assert S._bitcast(S._bitcast(f, "f32", "i32"), "i32", "u32") == b
    for b in (0x7C01, 0xFDFF, 0x7E00, 0x7C00, 0x0001):
        f = S._bitcast(b, "u16", "f16")
        assert S._bitcast(S._f16(f), "f16", "u16") == b
    for b in (0x7FF0000000000001, 0xFFF4000000000000):
        assert S._bitcast(S._bitcast(b, "u64", "f64"), "f64", "u64") == b


# ------------------------------------------------------------ launch memory

@ps.kernel
def first16(y: ps.Buffer[u32]):
    i = ps.global_id().x
    if i >= 16:
        return
    y[i] = i * 3


def test_large_launch_memory_is_bounded(cpu: ps.Device) -> None:
    y = cpu.zeros(16, np.uint32)
    # compile, and fill the id cache, outside the trace
    first16.launch(y, threads=cpu_mod.ID_CACHE_MAX, device=cpu)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        first16.launch(y, threads=2**20, device=cpu)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(y.numpy(), np.arange(16) * 3)
    assert peak - before < 20 * 2**20, f"peak {peak - before} bytes"
    assert current - before < 2**20, f"kept {current - before} bytes"
    assert len(cpu_mod._gid_prefix) <= cpu_mod.ID_CACHE_MAX < 2**20


def test_ids_of_a_chunked_launch(cpu: ps.Device, rng: np.random.Generator) -> None:
    n = cpu_mod.ID_CACHE_MAX + 3 * cpu_mod.ID_CHUNK + int(rng.integers(1, 1000))
    x = rng.standard_normal(n).astype(np.float32)
    y = cpu.zeros(n, np.float32)
    double_f32.launch(cpu.array(x), y, threads=n, device=cpu)
    np.testing.assert_array_equal(y.numpy(), x * 2)


# ------------------------------------------------------------ namespace cache

@ps.kernel
def add_const(y: ps.Buffer[u32], k: ps.Const[int]):
    i = ps.global_id().x
    if i < len(y):
        y[i] = y[i] + u32(k)


def test_namespace_cache_is_a_bounded_lru(rng: np.random.Generator) -> None:
    from pyshade.runtime.cpu import CpuDevice
    assert CpuDevice.max_namespaces == 256
    dev = CpuDevice()
    dev.max_namespaces = 3
    y0 = rng.integers(0, 1000, 10, dtype=np.uint32)
    y = dev.array(y0)
    total, key_of = 0, {}
    for k in [1, 2, 3, 4, 1, 5, 6, 1, 2]:
        add_const.launch(y, k, threads=10, device=dev)
        total += k
        key_of.setdefault(k, list(dev._namespaces)[-1])
        assert len(dev._namespaces) <= 3
    np.testing.assert_array_equal(y.numpy(), y0 + total)   # evicted kernels run again
    assert list(dev._namespaces) == [key_of[6], key_of[1], key_of[2]]


# ------------------------------------------------------------ traceback carets

@ps.kernel
def divide_rows(a: ps.Buffer[ps.i32], b: ps.Buffer[ps.i32], q: ps.Buffer[ps.i32]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = (a[i] + 1) * 3 + a[i] // b[i] + (a[i] - 1) * 7  # MARK-caret-div


@ps.kernel
def read_past(a: ps.Buffer[ps.i32], q: ps.Buffer[ps.i32], off: u32):
    i = ps.global_id().x
    if i < len(q):
        q[i] = a[i] * 2 + a[(i + off) * 2] - a[i]  # MARK-caret-oob


def _caret_check(exc: BaseException, marker: str) -> None:
    lines = "".join(traceback.format_exception(exc)).splitlines()
    hits = [k for k, s in enumerate(lines) if marker in s]
    assert hits, "\n".join(lines)
    for k in hits:
        nxt = (lines[k + 1] if k + 1 < len(lines) else "").strip()
        assert not nxt or set(nxt) - set("^~"), "\n".join(lines)


def test_traceback_has_no_misleading_carets(cpu: ps.Device, rng: np.random.Generator) -> None:
    n = 12
    a = rng.integers(-50, 50, n, dtype=np.int32)
    b = rng.integers(1, 5, n, dtype=np.int32)
    b[int(rng.integers(0, n))] = 0
    with pytest.raises(ZeroDivisionError) as info:
        divide_rows.launch(cpu.array(a), cpu.array(b), cpu.zeros(n, np.int32), threads=n,
                           device=cpu)
    _caret_check(info.value, "MARK-caret-div")
    with pytest.raises(IndexError) as info:
        read_past.launch(cpu.array(a), cpu.zeros(n, np.int32), 3, threads=n, device=cpu)
    _caret_check(info.value, "MARK-caret-oob")
