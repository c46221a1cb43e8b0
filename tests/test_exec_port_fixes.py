"""Issue 18's port fixes on every device against numpy: constructors without
arguments and locals declared by an exhaustive match (tests/golden/port_fixes.py),
array lengths from compile-time expressions (const_sizes.py), an index with a call in
an augmented assignment evaluated once and variables assigned in constant loops
(port_forms.py)."""

from __future__ import annotations

import numpy as np
import pytest
from test_golden import load_case

import pyshade as ps

f32 = np.float32
F = load_case("port_fixes")
C = load_case("const_sizes")
P = load_case("port_forms")


@ps.kernel(workgroup_size=64)
def bare_struct(cells: ps.Buffer[F.Cell]) -> None:
    """``Cell()``: the fields without a default are zero (type checkers want them given,
    so this kernel is not among the type-checked goldens)."""
    i = ps.global_id().x
    if i < len(cells):
        c = F.Cell()
        c.count += i
        cells[i] = c


# -- item 9: zero constructors, match-declared locals, bool arrays ------------------------
def test_struct_without_arguments(dev) -> None:
    n = 70
    cells = dev.array(np.full(n, 7, F.Cell.dtype))
    bare_struct.launch(cells, threads=n, device=dev)
    c = np.asarray(cells)
    np.testing.assert_array_equal(c["total"], np.zeros(n, f32))
    np.testing.assert_array_equal(c["count"], np.arange(n, dtype=np.uint32))
    np.testing.assert_array_equal(c["seen"], np.zeros(n, np.uint32))
    np.testing.assert_array_equal(c["weight"], np.full(n, 1.5, f32))     # the default


def test_zero_constructors(dev) -> None:
    n = 70
    out = dev.zeros(n, np.float32)
    cells = dev.array(np.full(n, 7, F.Blank.dtype))     # every field overwritten
    bits = dev.array(np.full(n, 99, np.uint32))
    F.zero_constructors.launch(out, cells, bits, threads=n, device=dev)
    i = np.arange(n)
    # v = (i, 0), w, m, iv, s zero; m3's third column (1, 2, 3) gives z = 3; u = (0, i, 0)
    np.testing.assert_array_equal(np.asarray(out), (2 * i + 3).astype(f32))
    c = np.asarray(cells)
    np.testing.assert_array_equal(c["total"], np.zeros(n, f32))
    np.testing.assert_array_equal(c["count"], i.astype(np.uint32))
    np.testing.assert_array_equal(c["seen"], np.zeros(n, np.uint32))
    np.testing.assert_array_equal(c["weight"], np.full(n, 1.5, f32))     # the default
    np.testing.assert_array_equal(np.asarray(bits), (i % 2).astype(np.uint32))


def test_match_locals(dev, rng) -> None:
    n = 200
    shapes = rng.integers(0, 3, n).astype(np.uint32)
    r = rng.uniform(0.5, 2.0, n).astype(f32)
    area = dev.zeros(n, np.float32)
    info = dev.zeros(n, np.uint32)
    cells = dev.zeros(n, F.Cell.dtype)
    F.match_locals.launch(dev.array(shapes), dev.array(r), area, info, cells, threads=n,
                          device=dev)
    coef = np.array([3.1415927, 1.0, 0.4330127], f32)[shapes]
    # NVIDIA's Vulkan compiler (wgpu, GLSL and HLSL routes on the H200) gave 1-ulp
    # differences for c * r * r on some elements: pyshade does not yet forbid the
    # driver's float transformations there (NoContraction/precise, issue 16).
    np.testing.assert_allclose(np.asarray(area), coef * r * r, rtol=2.4e-7, atol=0)
    corners = np.array([0, 4, 3])[shapes]
    curved = shapes == 0
    ax = np.array([[1, 1], [1, 0], [0, 0]])[shapes]
    want = corners * 100 + curved * 10 + ax[:, 0] * 4 + ax[:, 1] * 2 + corners % 2 \
        + shapes * 1000
    np.testing.assert_array_equal(np.asarray(info), want.astype(np.uint32))
    c = np.asarray(cells)
    np.testing.assert_array_equal(c["total"], r * np.array([1, 4, 3], f32)[shapes])
    np.testing.assert_array_equal(c["count"], np.array([1, 4, 3], np.uint32)[shapes])
    np.testing.assert_array_equal(c["seen"], np.array([1, 0, 1], np.uint32)[shapes])
    np.testing.assert_array_equal(c["weight"], np.array([1.5, 1.5, 0.5], f32)[shapes])


def test_bool_arrays(dev) -> None:
    n = 90
    out = dev.zeros(n, np.uint32)
    F.bool_arrays.launch(out, threads=n, device=dev)
    i = np.arange(n)
    want = (i % 12) * 10 + (i % 4) * 1000 + (i % 3) * 100000
    np.testing.assert_array_equal(np.asarray(out), want.astype(np.uint32))


# -- item 6: lengths from compile-time expressions ----------------------------------------
def test_shared_array_of_the_workgroup_size(dev, rng) -> None:
    x = rng.standard_normal(64 * 3).astype(f32)
    data = dev.array(x)
    C.block_reverse.launch(data, threads=len(x), device=dev)
    np.testing.assert_array_equal(np.asarray(data), x.reshape(3, 64)[:, ::-1].ravel())


@pytest.mark.parametrize("radius", [0, 1, 3])
def test_local_array_sized_by_a_const(dev, rng, radius: int) -> None:
    x = rng.integers(-8, 8, 100).astype(f32)     # small integers: sums are exact
    dst = dev.zeros(100, np.float32)
    C.window_sum.launch(dev.array(x), dst, radius, threads=100, device=dev)
    pad = np.concatenate([np.zeros(radius, f32), x, np.zeros(radius, f32)])
    want = sum(pad[k:k + 100] for k in range(2 * radius + 1))
    np.testing.assert_array_equal(np.asarray(dst), want.astype(f32))


@pytest.mark.parametrize("nbins", [1, 5, 70])
def test_shared_array_sized_by_a_const(dev, rng, nbins: int) -> None:
    n = 64 * 4 - 10
    keys = rng.integers(0, nbins + 3, n).astype(np.uint32)
    out = dev.zeros(4 * (nbins + 1), np.uint32)
    C.group_histogram.launch(dev.array(keys), out, nbins, threads=n, device=dev)
    want = np.zeros((4, nbins + 1), np.uint32)
    for g in range(4):
        part = np.minimum(keys[g * 64:(g + 1) * 64], nbins)
        want[g] = np.bincount(part, minlength=nbins + 1)
    np.testing.assert_array_equal(np.asarray(out).reshape(4, nbins + 1), want)


# -- item 7: a call in an augmented assignment's index, loops that run -------------------
def test_augmented_index_evaluated_once(dev, rng) -> None:
    n = 100
    NB, PER = P.NB, P.PER
    x = rng.uniform(-0.2, 1.2, n * PER).astype(f32)
    hist = dev.zeros(n * NB, np.uint32)
    copies = dev.zeros(n * 2 * NB, np.uint32)
    tallies = dev.zeros(n * NB, P.Tally.dtype)
    sums = dev.zeros(n * NB, P.Tally.dtype)
    calls = dev.zeros(n, np.uint32)
    P.tally.launch(dev.array(x), hist, copies, tallies, sums, calls, threads=n, device=dev)
    np.testing.assert_array_equal(np.asarray(calls), np.full(n, 6 * PER, np.uint32))
    bins = np.minimum((np.maximum(x, f32(0)) * f32(NB)).astype(np.uint32), NB - 1)
    bins = bins.reshape(n, PER)
    counts = np.stack([np.bincount(b, minlength=NB) for b in bins]).astype(np.uint32)
    totals = np.zeros((n, NB), f32)
    for s in range(PER):                # in the kernel's order, rounding each sum to f32
        np.add.at(totals, (np.arange(n), bins[:, s]), x.reshape(n, PER)[:, s])
    np.testing.assert_array_equal(np.asarray(hist).reshape(n, NB), counts)
    cp = np.asarray(copies).reshape(n, 2, NB)
    np.testing.assert_array_equal(cp[:, 0], counts)       # the local array
    np.testing.assert_array_equal(cp[:, 1], counts)       # the shared array
    s = np.asarray(sums).reshape(n, NB)
    np.testing.assert_array_equal(s["count"], counts)
    np.testing.assert_array_equal(s["total"], totals)
    t = np.asarray(tallies).reshape(n, NB)
    np.testing.assert_array_equal(t["total"], totals)
    np.testing.assert_array_equal(t["count"], np.zeros((n, NB), np.uint32))


@pytest.mark.parametrize("width", [1, 3])
def test_variables_assigned_in_constant_loops(dev, rng, width: int) -> None:
    n = 80
    x = rng.uniform(0.0, 1.0, n * 4).astype(f32)
    x[::7] = 0.25                       # some rows where no element passes 0.5 early
    out = dev.zeros(n * 6, np.float32)
    P.loop_results.launch(dev.array(x), out, width, threads=n, device=dev)
    r = x.reshape(n, 4)
    over = r > 0.5
    first = np.where(over.any(axis=1), over.argmax(axis=1), 3)
    want = np.stack([r[:, 3], r[:, 0] + f32(2), r[:, width - 1] * f32(width),
                     first.astype(f32), np.full(n, 3, f32), np.full(n, 2, f32)], axis=1)
    np.testing.assert_array_equal(np.asarray(out).reshape(n, 6), want.astype(f32))
