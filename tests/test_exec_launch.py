"""Execution tests of specialisation and launching on every device: Const
parameters, TypeVar generics bound from array dtypes, ``dev.batch()``, numpy
arguments, launches beyond 65535 workgroups, and local names that are
keywords or reserved words in some target language."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, i32, u32

# ---------------------------------------------------------------------------- Const


@ps.kernel
def const_poly(x: ps.Buffer[f32], out: ps.Buffer[f32], k: ps.Const[int],
               negate: ps.Const[bool] = False, scale: ps.Const[float] = 1.0):
    i = ps.global_id().x
    if i < len(x):
        acc = 0.0
        for _j in ps.unroll(range(k)):           # x^0 + x^1 + ... + x^(k-1)
            acc = acc * x[i] + 1.0
        if negate:
            acc = -acc
        out[i] = acc * scale


@pytest.mark.parametrize("k,negate,scale", [(1, False, 1.0), (3, True, 2.5), (5, False, 0.5)])
def test_const_params(dev: ps.Device, rng: np.random.Generator, k: int, negate: bool,
                      scale: float) -> None:
    n = 300
    x = rng.uniform(-1.5, 1.5, n).astype(np.float32)
    out = dev.zeros(n, np.float32)
    const_poly.launch(dev.array(x), out, k=k, negate=negate, scale=scale, threads=n, device=dev)
    want = sum(x.astype(np.float64) ** j for j in range(k)) * (-1 if negate else 1) * scale
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    # a Const named like translate's own ``k`` parameter is still a binding
    assert ps.translate(const_poly, "wgsl", k=k, negate=negate, scale=scale) != \
        ps.translate(const_poly, "wgsl", k=k + 1, negate=negate, scale=scale)


def test_const_default_and_positional(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 100
    x = rng.uniform(-1, 1, n).astype(np.float32)
    a, b = dev.zeros(n, np.float32), dev.zeros(n, np.float32)
    const_poly.launch(dev.array(x), a, 2, threads=n, device=dev)             # positional k
    const_poly.launch(dev.array(x), b, 2, True, threads=n, device=dev)
    np.testing.assert_allclose(a.numpy(), x + 1, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), -(x + 1), rtol=1e-6)


# ---------------------------------------------------------------------------- TypeVar

N = TypeVar("N", u32, i32, f32)


def twice_plus(a: N, b: N) -> N:
    return a + a + b


@ps.kernel
def generic_combine(x: ps.Buffer[N], y: ps.Buffer[N], out: ps.Buffer[N]):
    i = ps.global_id().x
    if i < len(x):
        v = twice_plus(x[i], y[i]) * y[i]
        if v < x[i]:
            v = x[i]
        out[i] = v


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32], ids=["u32", "i32", "f32"])
def test_typevar_bound_from_dtype(dev: ps.Device, rng: np.random.Generator,
                                  dtype: type) -> None:
    n = 500
    if dtype is np.float32:
        x = rng.normal(0, 100, n).astype(dtype)
        y = rng.normal(0, 100, n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        y = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    out = dev.zeros(n, dtype)
    generic_combine.launch(dev.array(x), dev.array(y), out, threads=n, device=dev)
    with np.errstate(over="ignore"):
        v = (x + x + y) * y                      # numpy: same width, same wrapping
    want = np.where(v < x, x, v)
    if dtype is np.float32:
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(out.numpy(), want)


def test_typevar_mismatch_is_launch_error(dev: ps.Device) -> None:
    x = dev.zeros(4, np.uint32)
    y = dev.zeros(4, np.int32)
    with pytest.raises(ps.LaunchError, match="TypeVar N"):
        generic_combine.launch(x, y, dev.zeros(4, np.uint32), threads=4, device=dev)


# ---------------------------------------------------------------------------- batches


@ps.kernel
def affine_step(x: ps.Buffer[u32], mul: u32, add: u32):
    i = ps.global_id().x
    if i < len(x):
        x[i] = x[i] * mul + add


def test_batch_with_different_parameters(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 777
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    params = [(int(m), int(a)) for m, a in rng.integers(0, 2**32, (6, 2))]
    buf = dev.array(x)
    with dev.batch():
        for m, a in params:
            affine_step.launch(buf, m, a, threads=n, device=dev)
    want = x.copy()
    with np.errstate(over="ignore"):
        for m, a in params:                       # order matters: not commutative
            want = want * np.uint32(m) + np.uint32(a)
    np.testing.assert_array_equal(buf.numpy(), want)


def _pending(dev: ps.Device) -> int:
    """Launches recorded and not yet submitted on a recording device (vulkan, wgpu)."""
    if hasattr(dev, "_slot"):
        return dev._slot.recorded if dev._slot is not None else 0
    return dev._recorded


def _check_chunks(dev: ps.Device, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a batch the first BATCH_FIRST_CHUNK launches go to the GPU at once (it
    starts while the rest are recorded), then chunks 4 times larger; outside a batch,
    every FIRST_CHUNK launches. The steps depend on each other across submissions."""
    from pyshade.runtime import recording
    n = 64
    buf = dev.array(np.zeros(n, np.uint32))
    dev.synchronize()
    sizes: list[int] = []
    submit = dev._submit

    def counted() -> None:
        if _pending(dev):
            sizes.append(_pending(dev))
        submit()
    monkeypatch.setattr(dev, "_submit", counted)
    first, every = recording.BATCH_FIRST_CHUNK, recording.FIRST_CHUNK
    with dev.batch():
        for _ in range(5 * first + 3):
            affine_step.launch(buf, 3, 1, threads=n, device=dev)
    assert sizes == [first, 4 * first, 3]
    for _ in range(every + 5):
        affine_step.launch(buf, 3, 1, threads=n, device=dev)
    assert sizes == [first, 4 * first, 3, every]
    want = np.zeros(n, np.uint32)
    with np.errstate(over="ignore"):
        for _ in range(5 * first + 3 + every + 5):
            want = want * np.uint32(3) + np.uint32(1)
    np.testing.assert_array_equal(buf.numpy(), want)
    assert sizes == [first, 4 * first, 3, every, 5]


def test_wgpu_batch_submits_early(wgpu_dev: ps.Device, monkeypatch: pytest.MonkeyPatch) -> None:
    _check_chunks(wgpu_dev, monkeypatch)


def test_vulkan_batch_submits_early(vulkan_dev: ps.Device,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _check_chunks(vulkan_dev, monkeypatch)


def test_batch_read_back_inside(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 64
    x = rng.integers(0, 1000, n, dtype=np.uint32)
    buf = dev.array(x)
    with dev.batch():
        affine_step.launch(buf, 2, 1, threads=n, device=dev)
        mid = buf.numpy()                         # sees the launch recorded before it
        affine_step.launch(buf, 3, 0, threads=n, device=dev)
    np.testing.assert_array_equal(mid, x * 2 + 1)
    np.testing.assert_array_equal(buf.numpy(), (x * 2 + 1) * 3)


# ---------------------------------------------------------------------- numpy arguments


@ps.kernel
def saxpy(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32):
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


def test_numpy_arrays_are_copied_back(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 1000
    x = rng.normal(size=n).astype(np.float32)
    y = rng.normal(size=n).astype(np.float32)
    x0, y0 = x.copy(), y.copy()
    saxpy.launch(x, y, 2.0, threads=n, device=dev)
    np.testing.assert_array_equal(x, x0)                       # read-only: unchanged
    np.testing.assert_allclose(y, np.float32(2.0) * x0 + y0, rtol=1e-6)
    vecs = rng.normal(size=(50, 4)).astype(np.float32)         # a (n, 4) array for vec4
    vec_scale.launch(vecs.copy(), out := np.zeros((50, 4), np.float32), threads=50, device=dev)
    np.testing.assert_allclose(out, vecs[:, ::-1] * 3, rtol=1e-6)


@ps.kernel
def vec_scale(v: ps.Buffer[ps.vec4], out: ps.Buffer[ps.vec4]):
    i = ps.global_id().x
    if i < len(v):
        out[i] = v[i].wzyx * 3.0


def test_vec3_buffer_takes_numpys_packed_layout(dev: ps.Device) -> None:
    src = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros((4, 3), np.float32)
    vec3_copy.launch(src, out, threads=4, device=dev)
    np.testing.assert_array_equal(out, src)


@ps.kernel
def vec3_copy(v: ps.Buffer[ps.vec3], out: ps.Buffer[ps.vec3]):
    i = ps.global_id().x
    if i < len(v):
        out[i] = v[i]


# ------------------------------------------------------------------ many workgroups


@ps.kernel(workgroup_size=1)
def count_ids(hits: ps.Buffer[u32], ids: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(hits):
        ps.atomic_add(hits, i, 1)
        ids[i] = i * 3 + 1


@pytest.mark.parametrize("n", [70000, 70001])
def test_more_than_65535_groups(dev: ps.Device, n: int) -> None:
    hits, ids = dev.zeros(n, np.uint32), dev.zeros(n, np.uint32)
    count_ids.launch(hits, ids, threads=n, device=dev)
    np.testing.assert_array_equal(hits.numpy(), np.ones(n, np.uint32))   # each exactly once
    np.testing.assert_array_equal(ids.numpy(), np.arange(n, dtype=np.uint32) * 3 + 1)


# ------------------------------------------------------------- names that are keywords


@ps.kernel
def keyword_names(inp: ps.Buffer[i32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(inp):
        kernel = inp[i]
        device = kernel + 1
        half = device * 2
        var = half - 3
        let = var ^ 5
        fn = let + kernel
        uniform = fn * 3
        layout = uniform - device
        threadIdx = layout + 7
        main = threadIdx * 2
        vec4 = main + half
        __x = vec4 - 1
        gl_x = __x + var
        out[i] = gl_x


def test_keyword_local_names(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 300
    a = rng.integers(-10000, 10000, n, dtype=np.int32)
    out = dev.zeros(n, np.int32)
    keyword_names.launch(dev.array(a), out, threads=n, device=dev)
    kernel = a
    device = kernel + 1
    half = device * 2
    var = half - 3
    let = var ^ 5
    fn = let + kernel
    uniform = fn * 3
    layout = uniform - device
    main = (layout + 7) * 2
    want = main + half - 1 + var
    np.testing.assert_array_equal(out.numpy(), want)
