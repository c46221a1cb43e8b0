"""Execution tests of ``pyshade.algorithms.sort`` (the DESIGN.md section-7
bitonic kernel) on every device, against ``np.sort`` on fresh random data."""

from __future__ import annotations

import numpy as np
import pytest

import pyshade as ps
from pyshade.algorithms.sort import sort

SIZES = [1, 2, 3, 1000, 2**16]
DTYPES = [np.uint32, np.int32, np.float32]


def _random(rng: np.random.Generator, dtype: type, n: int) -> np.ndarray:
    if dtype is np.float32:
        return rng.normal(0, 1e3, n).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _expected(data: np.ndarray, descending: bool) -> np.ndarray:
    s = np.sort(data, kind="stable")
    return s[::-1] if descending else s


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["u32", "i32", "f32"])
def test_sort_random(dev: ps.Device, rng: np.random.Generator, dtype: type, descending: bool,
                     n: int) -> None:
    data = _random(rng, dtype, n)
    got = sort(data, descending=descending, device=dev)
    assert got.dtype == data.dtype and got.shape == data.shape
    np.testing.assert_array_equal(got, _expected(data, descending))


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype", [np.uint32, np.int32], ids=["u32", "i32"])
def test_sort_extremes_and_duplicates(dev: ps.Device, rng: np.random.Generator, dtype: type,
                                      descending: bool) -> None:
    """Values equal to the padding value (the type's min/max) and many duplicates."""
    info = np.iinfo(dtype)
    pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
    data = rng.choice(pool, 777)
    got = sort(data, descending=descending, device=dev)
    np.testing.assert_array_equal(got, _expected(data, descending))


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_f32_infinities_and_signed_zeros(dev: ps.Device, rng: np.random.Generator,
                                              descending: bool) -> None:
    n = 1000
    data = rng.normal(0, 10, n).astype(np.float32)
    special = np.array([np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
    idx = rng.choice(n, 200, replace=False)
    data[idx] = rng.choice(special, 200)
    data[:4] = special                     # each one present at least once
    got = sort(data, descending=descending, device=dev)
    want = _expected(data, descending)
    # -0.0 == 0.0, so their relative order is free; values must match exactly.
    np.testing.assert_array_equal(got, want)
    assert np.isposinf(got[-1 if not descending else 0])
    assert np.isneginf(got[0 if not descending else -1])
    # the multiset of signs of zeros is preserved (bit patterns are not altered)
    zeros = got[got == 0]
    assert np.sum(np.signbit(zeros)) == np.sum(np.signbit(data[data == 0]))


def test_sort_accepts_device_array_and_leaves_input(dev: ps.Device,
                                                    rng: np.random.Generator) -> None:
    data = rng.integers(0, 100, 300, dtype=np.uint32)
    arr = dev.array(data)
    got = sort(arr, device=dev)
    np.testing.assert_array_equal(got, np.sort(data))
    np.testing.assert_array_equal(arr.numpy(), data)


@pytest.mark.parametrize("dtype,n", [(np.uint32, 1024), (np.int32, 1000), (np.float32, 777),
                                     (np.float32, 512)])
def test_sort_in_place_on_the_device(dev: ps.Device, rng: np.random.Generator, dtype: type,
                                     n: int) -> None:
    """in_place=True sorts the device array itself (padded scratch when n is not 2^k, and
    for float keys) and returns it; descending is the exact reverse."""
    if dtype is np.float32:
        data = (rng.standard_normal(n) * 1e3).astype(np.float32)
        data[:3] = [np.inf, -0.0, np.nan]
    else:
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    arr = dev.array(data)
    assert sort(arr, in_place=True) is arr
    assert arr.numpy().tobytes() == np.sort(data).tobytes()
    sort(arr, descending=True, in_place=True)
    assert arr.numpy().tobytes() == np.sort(data)[::-1].tobytes()


def test_sort_in_place_needs_a_device_array() -> None:
    with pytest.raises(TypeError, match=r"in_place=True\) needs a device array"):
        sort(np.zeros(4, np.uint32), in_place=True)


def test_sort_rejects_other_dtypes(dev: ps.Device) -> None:
    with pytest.raises(TypeError, match="uint32, int32 or float32"):
        sort(np.zeros(4, np.float64), device=dev)


def _special_f32(rng: np.random.Generator, n: int) -> np.ndarray:
    """Normal values mixed with every f32 class that a float ``<`` gets wrong on some GPU."""
    bits = rng.normal(0, 1e3, n).astype(np.float32).view(np.uint32)
    nan_bits = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF,
                         0xFFFFFFFF, 0x7FC12345, 0xFFA5A5A5], dtype=np.uint32)
    special = np.concatenate([
        np.array([0, 0x80000000, 0x7F800000, 0xFF800000,           # +0 -0 +inf -inf
                  0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,   # smallest/largest subnormals
                  0x00800000, 0x80800000], dtype=np.uint32),        # smallest normals
        np.array([1e-38, -1e-38, 1e-40, -1e-40], dtype=np.float32).view(np.uint32),
        nan_bits,
        rng.integers(0x7F800001, 0x7FFFFFFF, 4, dtype=np.uint32, endpoint=True),
        rng.integers(0xFF800001, 0xFFFFFFFF, 4, dtype=np.uint32, endpoint=True)])
    k = min(n, max(n // 4, special.size))
    bits[rng.choice(n, k, replace=False)] = rng.choice(special, k)
    bits[:min(n, special.size)] = special[:n]   # every class present at least once
    return bits.view(np.float32)


def _check_float_sort(data: np.ndarray, got: np.ndarray, descending: bool) -> None:
    """``got`` must be ``numpy.sort(data)`` (reversed when descending) bit for bit.

    numpy defines the order of the values; where it leaves the order free we
    check what ``sort`` promises: -0.0 before +0.0, and the NaNs, which numpy
    puts last in no defined order, last as the same multiset of bit patterns.
    """
    assert got.dtype == np.float32 and got.shape == data.shape
    asc = got[::-1] if descending else got
    np.testing.assert_array_equal(asc, np.sort(data))       # values, NaNs last
    nan = np.isnan(data)
    vals = data[~nan]
    want = vals[np.lexsort((~np.signbit(vals), vals))]     # by value, then -0 before +0
    m = want.size
    np.testing.assert_array_equal(asc[:m].view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(np.sort(asc[m:].view(np.uint32)),
                                  np.sort(data[nan].view(np.uint32)))


@pytest.mark.parametrize("n", [2, 3, 37, 1001, 4099])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_f32_bits_subnormals_nans(dev: ps.Device, rng: np.random.Generator,
                                       descending: bool, n: int) -> None:
    data = _special_f32(rng, n)
    before = data.copy()
    got = sort(data, descending=descending, device=dev)
    _check_float_sort(data, got, descending)
    np.testing.assert_array_equal(data.view(np.uint32), before.view(np.uint32))


def test_sort_f32_descending_is_exact_reverse(dev: ps.Device, rng: np.random.Generator) -> None:
    """``descending=True`` is exactly ``sort(x)[::-1]``, NaN order included."""
    data = _special_f32(rng, 777)
    asc = sort(data, device=dev)
    desc = sort(data, descending=True, device=dev)
    np.testing.assert_array_equal(desc.view(np.uint32), asc[::-1].view(np.uint32))


def test_sort_f32_nan_order(dev: ps.Device) -> None:
    """The documented order among NaNs: positive by bits, then negative by descending bits."""
    bits = np.array([0xFFC00002, 0x7FC00002, 0x3F800000, 0xFFC00001, 0x7FC00001, 0xFF800000,
                     0x80000000, 0x00000000], dtype=np.uint32)
    got = sort(bits.view(np.float32), device=dev).view(np.uint32)
    assert [hex(b) for b in got] == [hex(b) for b in [
        0xFF800000, 0x80000000, 0x00000000, 0x3F800000,
        0x7FC00001, 0x7FC00002, 0xFFC00002, 0xFFC00001]]


def test_sort_f32_all_nan_and_all_negative_nan(dev: ps.Device) -> None:
    """The rotation edge cases: no element, or every element, is a negative NaN."""
    for bits in ([0xFFC00000] * 5, [0xFFC00003, 0xFFC00001, 0x7FC00000], [0x7FC00000] * 3):
        data = np.array(bits, dtype=np.uint32).view(np.float32)
        _check_float_sort(data, sort(data, device=dev), False)
