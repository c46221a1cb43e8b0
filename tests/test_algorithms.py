"""``pyshade.algorithms`` (sort, argsort, scan, reduce) on every device against numpy:
sizes 0, 1, odd and 2^k +- 1 around the tile sizes, u32/i32/f32 with NaN (both
signs, payloads), -0.0, infinities and subnormals; device arrays in give device
arrays on the same device, numpy in gives numpy out. Sorts of float32 are checked
bit for bit against the documented order; float sums within the documented bounds
(``scan_tolerance``, ``sum_tolerance``)."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np
import pytest

import pyshade as ps
from pyshade.algorithms import argsort, reduce, scan, sort
from pyshade.algorithms.reduce import sum_tolerance
from pyshade.algorithms.scan import scan_tolerance

# around the tiles: 256 (the radix histogram's workgroup; 4097 is two radix tiles of 2048
# and one key), scan/reduce tile 512, bitonic tile 512, and 2^k +- 1
SIZES = [0, 1, 2, 7, 255, 256, 257, 511, 512, 513, 1023, 1025, 4097]
DTYPES = [np.uint32, np.int32, np.float32]
DT_IDS = ["u32", "i32", "f32"]
METHODS = ["bitonic", "radix"]
# The cpu device interprets every invocation in Python: these sizes, and 4097 but for
# u32, run on the other devices only (the rest exercise the same code as fully), to keep
# the suite's time down.
EMULATED = ("cpu",)
GPU_ONLY_SIZES = {256, 511, 512, 1023}


def _trim(dev: ps.Device, n: int, dtype: Any) -> None:
    if dev.backend in EMULATED and (n in GPU_ONLY_SIZES or n > 1025 and dtype is not np.uint32):
        pytest.skip(f"the cpu device interprets: n={n} runs on the other devices (and for u32 "
                    f"here)")


_NAN_BITS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF,
                      0x7FC12345], dtype=np.uint32)
_SPECIAL_BITS = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001,
                          0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000], dtype=np.uint32)


def _data(rng: np.random.Generator, dtype: Any, n: int, nan: bool = True) -> np.ndarray:
    """Random data with many ties; for float32 also every special class (NaNs only with
    ``nan``), each present at least once when n allows."""
    if np.dtype(dtype).kind != "f":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        pool = np.array([info.min, info.max, 0, 1, 5], dtype=dtype)
        tie = rng.random(n) < 0.3
        x[tie] = rng.choice(pool, int(tie.sum()))
        return x
    bits = (rng.standard_normal(n) * 100).astype(np.float32).view(np.uint32)
    bits[rng.random(n) < 0.2] = np.float32(1.5).view(np.uint32)      # ties
    special = np.concatenate([_SPECIAL_BITS, _NAN_BITS]) if nan else _SPECIAL_BITS
    k = min(n, max(n // 5, special.size))
    bits[rng.choice(n, k, replace=False)] = rng.choice(special, k)
    bits[:min(n, special.size)] = special[:n]
    return bits.view(np.float32)


def _total_order_sort(x: np.ndarray) -> np.ndarray:
    """The documented float32 sort, bit for bit: IEEE total order of the bits with the
    negative NaNs moved behind the positive ones."""
    b = x.view(np.uint32)
    keys = np.where(b >> 31 == 1, ~b, b | np.uint32(0x80000000))
    s = np.sort(keys)
    m = int(np.sum(s < 0x007FFFFF))
    s = np.concatenate([s[m:], s[:m]])
    return np.where(s >> 31 == 1, s ^ np.uint32(0x80000000), ~s).astype(np.uint32).view(np.float32)


def _argsort_desc(x: np.ndarray) -> np.ndarray:
    """Stable descending order: by descending value, NaNs first, ties by index."""
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        return np.lexsort((-np.where(nan, 0, x), ~nan))
    return np.argsort(~x, kind="stable")        # ~ reverses u32 and i32 order exactly


def _on_device(dev: ps.Device, got: Any, dtype: Any, n: int) -> np.ndarray:
    assert isinstance(got, ps.DeviceArray) and got.device is dev
    assert got.dtype == np.dtype(dtype) and got.shape == (n,)
    return got.numpy()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("n", SIZES)
def test_sort(dev: ps.Device, rng: np.random.Generator, n: int, dtype: Any, method: str) -> None:
    _trim(dev, n, dtype)
    x = _data(rng, dtype, n)
    want = _total_order_sort(x) if x.dtype.kind == "f" else np.sort(x)
    arr = dev.array(x)
    got = _on_device(dev, sort(arr, method=method), dtype, n)
    np.testing.assert_array_equal(got, np.sort(x))
    assert got.tobytes() == want.tobytes()
    desc = sort(x, descending=True, device=dev, method=method)
    assert isinstance(desc, np.ndarray) and desc.tobytes() == want[::-1].tobytes()
    assert arr.numpy().tobytes() == x.tobytes()          # the input is left alone


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("n", SIZES)
def test_argsort(dev: ps.Device, rng: np.random.Generator, n: int, dtype: Any,
                 method: str) -> None:
    _trim(dev, n, dtype)
    x = _data(rng, dtype, n)
    got = _on_device(dev, argsort(dev.array(x), method=method), np.int32, n)
    np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))
    desc = argsort(x, descending=True, device=dev, method=method)
    assert isinstance(desc, np.ndarray) and desc.dtype == np.int32
    np.testing.assert_array_equal(desc, _argsort_desc(x))


def test_sort_and_argsort_large_auto(dev: ps.Device, rng: np.random.Generator) -> None:
    """Above ``RADIX_MIN`` ``method="auto"`` takes the radix sort: 2^15 + 1 keys."""
    n = (1 << 15) + 1 if dev.target != "python" else (1 << 14) + 1
    x = _data(rng, np.float32, n)
    assert sort(x, device=dev).tobytes() == _total_order_sort(x).tobytes()
    y = _data(rng, np.int32, n)
    np.testing.assert_array_equal(argsort(y, device=dev), np.argsort(y, kind="stable"))


def _float_scan_ok(x: np.ndarray, got: np.ndarray, inclusive: bool) -> None:
    """float32 prefix sums: NaN where the exact sum is NaN, infinities exact, the rest
    within ``scan_tolerance(n) * cumsum(abs(x))`` of the float64 sum."""
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        exact = np.cumsum(x64)                          # inf + -inf: NaN
    mag = np.cumsum(np.abs(np.where(np.isfinite(x64), x64, 0)))
    if not inclusive:
        exact = np.concatenate([[0.0], exact[:-1]])[:x.size]
        mag = np.concatenate([[0.0], mag[:-1]])[:x.size]
    g = got.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(exact))
    fin = np.isfinite(exact)
    np.testing.assert_array_equal(g[~fin & ~np.isnan(exact)], exact[~fin & ~np.isnan(exact)])
    # subnormal inputs may be flushed by a GPU: 2^-126 each at most
    bound = scan_tolerance(x.size) * mag + np.arange(1, x.size + 1) * 2.0 ** -126
    assert np.all(np.abs(g[fin] - exact[fin]) <= bound[fin])


@pytest.mark.parametrize("inclusive", [True, False], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("n", SIZES)
def test_scan(dev: ps.Device, rng: np.random.Generator, n: int, dtype: Any,
              inclusive: bool) -> None:
    _trim(dev, n, dtype)
    x = _data(rng, dtype, n, nan=False)
    got = _on_device(dev, scan(dev.array(x), inclusive=inclusive), dtype, n)
    host = scan(x, inclusive=inclusive, device=dev)
    assert isinstance(host, np.ndarray) and host.tobytes() == got.tobytes()
    if x.dtype.kind == "f":
        _float_scan_ok(x, got, inclusive)
        return
    want = np.cumsum(x, dtype=dtype)          # wraps modulo 2^32
    if not inclusive:
        want = np.concatenate([np.zeros(1, dtype), want[:-1]])[:n]
    np.testing.assert_array_equal(got, want)


def test_scan_and_reduce_three_levels(dev: ps.Device, rng: np.random.Generator) -> None:
    """Above 512 * 512 elements the tile totals of a scan are scanned in tiles again (and
    a reduction takes three rounds)."""
    n = 512 * 512 + 513
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    np.testing.assert_array_equal(scan(x, device=dev), np.cumsum(x, dtype=np.uint32))
    assert reduce(x, device=dev) == np.sum(x, dtype=np.uint32)
    assert reduce(x, "max", device=dev) == x.max()
    f = (rng.standard_normal(n) * 10).astype(np.float32)
    _float_scan_ok(f, scan(f, inclusive=False, device=dev), False)


@pytest.mark.parametrize("n", [1, 7, 513, 4097])
def test_scan_f32_nan_inf_signed_zero(dev: ps.Device, rng: np.random.Generator, n: int) -> None:
    """NaN and inf propagate from where they are; a prefix of -0.0 stays -0.0; the
    exclusive scan starts with +0.0."""
    zeros = np.full(n, -0.0, np.float32)
    inc = scan(zeros, device=dev)
    assert np.all(np.signbit(inc)) and np.all(inc == 0)
    exc = scan(zeros, inclusive=False, device=dev)
    assert not np.signbit(exc[0]) and np.all(np.signbit(exc[1:]))
    x = (rng.standard_normal(n) * 10).astype(np.float32)
    x[n // 2] = np.nan
    if n > 2:
        x[n // 3] = np.inf
    for inclusive in (True, False):
        _float_scan_ok(x, scan(x, inclusive=inclusive, device=dev), inclusive)
    if n > 2:
        x[n // 2] = -np.inf                  # inf + -inf is NaN from there on
        _float_scan_ok(x, scan(x, device=dev), True)


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("n", SIZES)
def test_reduce(dev: ps.Device, rng: np.random.Generator, n: int, dtype: Any) -> None:
    _trim(dev, n, dtype)
    x = _data(rng, dtype, n, nan=False)
    for op in ("sum", "min", "max"):
        if n == 0 and op != "sum":
            with pytest.raises(ValueError, match=f"empty array has no {op}"):
                reduce(x, op, device=dev)
            continue
        got_dev = reduce(dev.array(x), op)
        got = _on_device(dev, got_dev, dtype, 1)[0]
        host = reduce(x, op, device=dev)
        assert type(host) is np.dtype(dtype).type and host.tobytes() == got.tobytes()
        if op == "sum" and x.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                exact = float(np.sum(x.astype(np.float64)))       # inf + -inf: NaN
            finite = x[np.isfinite(x)].astype(np.float64)
            if not np.isfinite(exact):
                assert got.tobytes() == np.float32(exact).tobytes() or np.isnan(exact) \
                    and np.isnan(got)
            else:
                assert abs(float(got) - exact) <= (sum_tolerance(n) * np.sum(np.abs(finite))
                                                   + n * 2.0 ** -126)
        elif op == "sum":
            assert got == np.sum(x, dtype=dtype)
        else:
            assert got == getattr(np, op)(x)


@pytest.mark.parametrize("n", [1, 2, 257, 1025])
def test_reduce_f32_nan_and_zeros(dev: ps.Device, rng: np.random.Generator, n: int) -> None:
    """NaN propagates through sum, min and max (one of the NaNs, bits kept); -0.0 is
    below 0.0; a sum of only -0.0 is -0.0; inf and -inf."""
    x = _data(rng, np.float32, n, nan=False)
    x[rng.integers(n)] = np.float32(np.nan)
    for op in ("sum", "min", "max"):
        assert np.isnan(reduce(x, op, device=dev))
    bits = np.array([0x7FC00001, 0xFFC00002], np.uint32)
    nans = np.zeros(n, np.float32)
    nans[-1] = bits[0].view(np.float32)
    nans[0] = bits[1].view(np.float32)
    for op in ("min", "max"):
        assert reduce(nans, op, device=dev).view(np.uint32) in bits
    zeros = np.full(n, -0.0, np.float32)
    assert np.signbit(reduce(zeros, "sum", device=dev))
    zeros[n // 2] = 0.0
    assert np.signbit(reduce(zeros, "min", device=dev)) == (n > 1)
    assert not np.signbit(reduce(zeros, "max", device=dev))
    inf = np.zeros(n, np.float32)
    inf[0] = np.inf
    assert reduce(inf, "sum", device=dev) == np.inf and reduce(-inf, "min", device=dev) == -np.inf
    if n > 1:
        inf[-1] = -np.inf
        assert np.isnan(reduce(inf, "sum", device=dev))


def test_one_batch_per_call(monkeypatch: pytest.MonkeyPatch, rng: np.random.Generator) -> None:
    """Every launch of a call is recorded inside one ``dev.batch()``."""
    dev = ps.device("cpu")
    depth = [0]
    batches = [0]
    launches: list[int] = []
    real_batch = dev.batch

    @contextlib.contextmanager
    def batch() -> Iterator[ps.Device]:
        depth[0] += 1
        batches[0] += 1
        with real_batch():
            yield dev
        depth[0] -= 1
    real_launch = ps.Kernel.launch

    def launch(self: Any, *args: Any, **kw: Any) -> None:
        launches.append(depth[0])
        real_launch(self, *args, **kw)
    monkeypatch.setattr(dev, "batch", batch)
    monkeypatch.setattr(ps.Kernel, "launch", launch)
    # more than one reduce tile (4096), so that every call launches more than once
    x = dev.array(_data(rng, np.float32, 5000))
    for call in (lambda: sort(x, method="radix"), lambda: sort(x, method="bitonic"),
                 lambda: argsort(x), lambda: scan(x), lambda: reduce(x, "max"),
                 lambda: reduce(x, "sum"), lambda: sort(x, in_place=True)):
        batches[0] = 0
        launches.clear()
        call()
        assert batches[0] == 1 and len(launches) > 1 and all(launches)


@pytest.mark.parametrize("tuning", [(16, 1, False, False, False), (16, 16, True, True, True),
                                    (16, 4, True, False, False), (8, 1, False, True, True),
                                    (16, 1, False, True, False)],
                         ids=["16-1", "16-16-tkeys-rake-nib", "16-4-tkeys", "8-1-rake-nib",
                              "16-1-rake"])
def test_radix_tunings(dev: ps.Device, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch,
                       tuning: tuple[int, int, bool, bool, bool]) -> None:
    """Every (items, unroll, tkeys, rake, nib) of ``radix.tuning`` gives the same results (the
    cuda device takes tiles of 2048 keys, which CI cannot run): a partial last tile (its
    missing keys sort behind the present ones, digit 255 among them), every kind of key
    in the first pass and of word in the last."""
    if dev.backend in EMULATED:
        pytest.skip("the cpu device interprets: the tunings run on the other devices")
    import pyshade.algorithms.radix as radix
    monkeypatch.setattr(radix, "tuning", lambda dev: tuning)
    n = 2 * tuning[0] * radix.WG + tuning[0] * radix.WG // 2 + 1
    for dtype in DTYPES:
        x = _data(rng, dtype, n)
        want = _total_order_sort(x) if x.dtype.kind == "f" else np.sort(x)
        assert sort(x, device=dev, method="radix").tobytes() == want.tobytes()
        assert sort(x, descending=True, device=dev, method="radix").tobytes() == \
            want[::-1].tobytes()
        np.testing.assert_array_equal(argsort(x, device=dev, method="radix"),
                                      np.argsort(x, kind="stable"))
        np.testing.assert_array_equal(argsort(x, descending=True, device=dev, method="radix"),
                                      _argsort_desc(x))


def test_radix_sort_stopped_half_recorded(dev: ps.Device, rng: np.random.Generator,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the radix sort's scan is fused (WebGPU), its histogram adds to scan totals
    that its scatter sets back to zero; a sort that stops after a histogram was recorded
    (here: the scatter refused) must not leave them for the next sort, which would place
    its keys wrong."""
    import pyshade.algorithms.radix as radix
    # more counts than one scan tile holds, so that the totals are read
    x = _data(rng, np.uint32, 20000)
    assert sort(x, device=dev, method="radix").tobytes() == np.sort(x).tobytes()

    def refused(*args: object, **kwargs: object) -> None:
        raise RuntimeError("scatter refused")

    monkeypatch.setattr(radix.radix_scatter, "launch", refused)
    with pytest.raises(RuntimeError, match="scatter refused"):
        sort(x, device=dev, method="radix")
    monkeypatch.undo()
    for _ in range(2):
        assert sort(x, device=dev, method="radix").tobytes() == np.sort(x).tobytes()
        np.testing.assert_array_equal(argsort(x, device=dev, method="radix"),
                                      np.argsort(x, kind="stable"))


def test_sort_in_place_any_length(dev: ps.Device, rng: np.random.Generator) -> None:
    for dtype in DTYPES:
        x = _data(rng, dtype, 1000)
        arr = dev.array(x)
        assert sort(arr, in_place=True, method="radix") is arr
        want = _total_order_sort(x) if x.dtype.kind == "f" else np.sort(x)
        assert arr.numpy().tobytes() == want.tobytes()


def test_errors() -> None:
    dev = ps.device("cpu")
    for fn in (sort, argsort, scan, reduce):
        with pytest.raises(TypeError, match=r"needs a 1-D uint32, int32 or float32 array, got "
                                            r"float64 with shape \(3,\)"):
            fn(np.zeros(3), device=dev)
        with pytest.raises(TypeError, match=r"got int32 with shape \(2, 2\)"):
            fn(dev.array(np.zeros((2, 2), np.int32)))
    with pytest.raises(ValueError, match="method must be one of 'auto', 'bitonic', 'radix'"):
        sort(np.zeros(3, np.uint32), device=dev, method="quick")
    with pytest.raises(ValueError, match="op must be one of 'sum', 'min', 'max', got 'prod'"):
        reduce(np.zeros(3, np.uint32), "prod", device=dev)
    from pyshade.runtime.cpu import CpuDevice
    with pytest.raises(ValueError, match="lives on 'cpu', device=<pyshade.Device cpu"):
        scan(dev.array(np.zeros(3, np.uint32)), device=CpuDevice())
    with pytest.raises(TypeError, match=r"in_place=True\) needs a device array"):
        sort(np.zeros(4, np.uint32), in_place=True)
