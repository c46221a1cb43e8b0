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


def test_sort_rejects_other_dtypes(dev: ps.Device) -> None:
    with pytest.raises(TypeError, match="uint32, int32 or float32"):
        sort(np.zeros(4, np.float64), device=dev)
