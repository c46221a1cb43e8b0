"""Python's numeric promotion on every device against numpy's float32: an integer next
to a float becomes that float, ``/`` of integers is f32 true division, and ``ps.tid()``
(tests/golden/promotion.py holds the kernels)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "golden_promotion", Path(__file__).parent / "golden" / "promotion.py")
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)
f32 = np.float32


def test_histogram_bins(dev, rng) -> None:
    nbins, xmin, xmax = 7, f32(-2.0), f32(5.0)
    width = f32(xmax - xmin) / f32(nbins)
    # bin centres: no value sits on a boundary, where a GPU's division may round apart
    bins = rng.integers(0, nbins, 500)
    x = (xmin + (bins.astype(f32) + f32(0.5)) * width).astype(f32)
    out = dev.zeros(500, np.uint32)
    P.histogram_bins.launch(dev.array(x), out, xmin, xmax, nbins, threads=500, device=dev)
    np.testing.assert_array_equal(np.asarray(out), bins.astype(np.uint32))


def test_mixed_int_float_arithmetic(dev, rng) -> None:
    n = 300
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b[::7] = 0
    out = dev.zeros(n, np.float32)
    P.mixed.launch(dev.array(a), dev.array(b), out, threads=n, device=dev)
    af, bf = a.astype(f32), b.astype(f32)
    half = af * f32(0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b != 0, af / np.where(b != 0, bf, f32(1)), f32(0)).astype(f32)
    noise = (b >> 8).astype(f32) * f32(1.0 / 16777216.0)
    mean = (af + bf / f32(2)) / f32(3)
    want = np.where(af < f32(0.5), half + ratio + noise + mean, half - mean).astype(f32)
    # f32 division on a GPU may be off by an ulp or two (WGSL and Vulkan allow 2.5 ulp)
    np.testing.assert_allclose(np.asarray(out), want, rtol=4e-7, atol=1e-30)


def test_tid_is_signed(dev, rng) -> None:
    x = rng.standard_normal(100).astype(f32)
    out = dev.zeros(100, np.float32)
    P.signed_index.launch(dev.array(x), out, threads=100, device=dev)
    want = np.concatenate([[0], np.diff(x)]).astype(f32)
    np.testing.assert_array_equal(np.asarray(out), want)
