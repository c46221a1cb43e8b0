"""CuPy arrays and torch CUDA tensors used in place by the cuda device: sorted by
``pyshade.algorithms.sort(..., in_place=True)`` with the same memory (pointer identity)
and no device-to-host copy. Needs a CUDA GPU (the lent H200: bench/h200_cuda.sh); CI
has none, so these tests skip there with the reason."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32
from pyshade.algorithms.sort import sort

pytestmark = pytest.mark.gpu


@ps.kernel(workgroup_size=64)
def axpy(a: f32, x: ps.Buffer[f32], y: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(y):
        y[i] = a * x[i] + y[i]


def _cuda() -> ps.Device:
    try:
        return ps.device("cuda")
    except ps.BackendUnavailable as e:
        pytest.skip(f"no CUDA device here (runs on the H200): {e}")


@contextlib.contextmanager
def no_host_copies(monkeypatch: pytest.MonkeyPatch):
    """The ways the cuda device and CuPy's Python API copy device memory to the host
    raise (CuPy's MemoryPointer is a Cython type that cannot be patched; the device's
    only read-back, CudaArray.numpy, goes through it)."""
    import cupy

    from pyshade.runtime import cuda as rc

    def refuse(*_a, **_k):
        raise AssertionError("a device-to-host copy happened")
    monkeypatch.setattr(rc.CudaArray, "numpy", refuse)
    monkeypatch.setattr(cupy.ndarray, "get", refuse)
    monkeypatch.setattr(cupy, "asnumpy", refuse)
    yield
    monkeypatch.undo()


@pytest.mark.parametrize("dtype,n", [(np.uint32, 1 << 20), (np.int32, 100_003),
                                     (np.float32, 1 << 16)])
def test_cupy_array_sorted_in_place(monkeypatch: pytest.MonkeyPatch, dtype: type,
                                    n: int) -> None:
    dev = _cuda()
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng()
    host = (rng.standard_normal(n) * 1e4).astype(dtype) if dtype is np.float32 else \
        rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, n, dtype=dtype)
    x = cupy.asarray(host)
    ptr = x.data.ptr
    with no_host_copies(monkeypatch):
        assert sort(x, in_place=True, device=dev) is x
        dev.synchronize()
    assert x.data.ptr == ptr
    assert cupy.asnumpy(x).tobytes() == np.sort(host).tobytes()


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_torch_tensor_sorted_in_place(monkeypatch: pytest.MonkeyPatch, dtype: str) -> None:
    dev = _cuda()
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng()
    n = (1 << 18) + 5
    host = (rng.standard_normal(n) * 1e4).astype(dtype) if dtype == "float32" else \
        rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)
    t = torch.from_numpy(host).to("cuda")
    ptr = t.data_ptr()
    with no_host_copies(monkeypatch):
        assert sort(t, in_place=True, device=dev) is t
        dev.synchronize()
    assert t.data_ptr() == ptr
    assert t.cpu().numpy().tobytes() == np.sort(host).tobytes()


def test_cupy_and_torch_arrays_as_kernel_arguments() -> None:
    """A launch takes CuPy arrays and torch tensors in place; a non-contiguous one is a
    LaunchError naming the parameter."""
    dev = _cuda()
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(1000, dtype=cupy.float32)
    y = cupy.ones(1000, dtype=cupy.float32)
    axpy.launch(2.0, x, y, threads=1000, device=dev)
    dev.synchronize()
    assert (cupy.asnumpy(y) == np.arange(1000, dtype=np.float32) * 2 + 1).all()
    with pytest.raises(ps.LaunchError, match="parameter 'x'.*not C-contiguous"):
        axpy.launch(2.0, x[::2], y[:500], threads=500, device=dev)


@ps.kernel(workgroup_size=(16, 16, 1))
def scale2d(a: ps.Buffer[f32, 2], s: f32):
    i = ps.global_id().y
    j = ps.global_id().x
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = a[i, j] * s + f32(i * 1000 + j)


def test_2d_cupy_array_and_torch_tensor_in_place() -> None:
    """A C-contiguous 2-D CuPy array (and torch tensor) binds a Buffer[f32, 2] in place."""
    dev = _cuda()
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng()
    host = rng.standard_normal((37, 53)).astype(np.float32)
    ii, jj = np.meshgrid(np.arange(37), np.arange(53), indexing="ij")
    want = host * np.float32(2.0) + (ii * 1000 + jj).astype(np.float32)
    c = cupy.asarray(host)
    scale2d.launch(c, np.float32(2.0), groups=(4, 3, 1), device=dev)
    np.testing.assert_array_equal(cupy.asnumpy(c), want)
    torch = pytest.importorskip("torch")
    t = torch.tensor(host, device="cuda")
    scale2d.launch(t, np.float32(2.0), groups=(4, 3, 1), device=dev)
    np.testing.assert_array_equal(t.cpu().numpy(), want)


def _algorithm_results(host: np.ndarray) -> dict:
    """What each library algorithm gives for ``host`` on numpy's side."""
    return {"sort": np.sort(host), "argsort": np.argsort(host, kind="stable"),
            "scan": np.cumsum(host, dtype=host.dtype), "reduce": np.max(host)}


@pytest.mark.parametrize("fn", ["sort", "argsort", "scan", "reduce"])
def test_algorithms_keep_cupy_and_torch_data_on_the_gpu(monkeypatch: pytest.MonkeyPatch,
                                                        fn: str) -> None:
    """sort/argsort/scan/reduce of a CuPy array or torch tensor run with no copy to the
    host and give a cuda device array, which CuPy and torch use in place."""
    from pyshade import algorithms
    dev = _cuda()
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng()
    n = 100_003
    host = rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)
    op = getattr(algorithms, fn)
    call = (lambda a: op(a, "max")) if fn == "reduce" else op
    want = np.asarray(_algorithm_results(host)[fn]).reshape(-1)
    with no_host_copies(monkeypatch):
        out = call(cupy.asarray(host))
        dev.synchronize()
    assert isinstance(out, ps.DeviceArray) and out.device is dev
    np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(out)), want)
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(host).to("cuda")
    with no_host_copies(monkeypatch):
        out = call(t)
        dev.synchronize()
    assert isinstance(out, ps.DeviceArray) and out.device is dev
    np.testing.assert_array_equal(torch.as_tensor(out, device="cuda").cpu().numpy(), want)
