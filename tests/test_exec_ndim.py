"""Multi-dimensional data on every device against numpy (issue 18, item 5): the tiled
matrix product with 2-D shared tiles, a 3-D stencil and a 3x3 filter with a 2-D local
array (tests/golden/ndim.py) on 2-D and 3-D arrays of odd sizes; numpy arrays, device
arrays and their shapes; the cpu device's per-axis bounds; the launch checks."""

from __future__ import annotations

import numpy as np
import pytest
from test_golden import load_case

import pyshade as ps
from pyshade import f32, i32, u32

N = load_case("ndim")


def test_matmul_tiled(dev: ps.Device, rng: np.random.Generator) -> None:
    m, k, n = (int(x) for x in rng.integers(1, 40, 3))
    a = rng.integers(-8, 8, (m, k)).astype(np.float32)
    b = rng.integers(-8, 8, (k, n)).astype(np.float32)
    c = dev.zeros((m, n), np.float32)
    groups = (-(-n // N.TILE), -(-m // N.TILE), 1)
    N.matmul_tiled.launch(dev.array(a), b, c, groups=groups, device=dev)
    np.testing.assert_array_equal(c.numpy(), a @ b)     # small integers: exact in f32
    assert c.shape == (m, n) and c.numpy().shape == (m, n)


def test_laplace3d(dev: ps.Device, rng: np.random.Generator) -> None:
    nz, ny, nx = (int(x) for x in rng.integers(3, 11, 3))
    u = (rng.integers(-64, 64, (nz, ny, nx)) / 8).astype(np.float32)
    out = np.zeros_like(u)
    N.laplace3d.launch(u, out, groups=(-(-nx // 4), -(-ny // 4), -(-nz // 4)), device=dev)
    want = np.zeros_like(u)
    c = u[1:-1, 1:-1, 1:-1]
    want[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                              + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
                              - np.float32(6.0) * c)
    np.testing.assert_array_equal(out, want)    # eighths: every sum is exact


def test_blur3x3(dev: ps.Device, rng: np.random.Generator) -> None:
    h, w = (int(x) for x in rng.integers(1, 30, 2))
    img = rng.integers(0, 256, (h, w)).astype(np.uint32)
    out = dev.zeros((h, w), np.float32)
    N.blur3x3.launch(dev.array(img), out, groups=(-(-w // 64), h, 1), device=dev)
    pad = np.pad(img, 1, mode="edge").astype(np.float32)
    acc = np.zeros((h, w), np.float32)
    for dy in range(3):
        for dx in range(3):
            acc = (acc + np.float32(1.0 / 9.0) * pad[dy:dy + h, dx:dx + w]).astype(np.float32)
    np.testing.assert_allclose(out.numpy(), acc, rtol=1e-6)


@ps.kernel(workgroup_size=8)
def rows_cols(a: ps.Buffer[i32, 2], info: ps.Buffer[u32]) -> None:
    """Each invocation a row: the sum of its elements; the shape and len()."""
    r = ps.global_id().x
    if r == 0:
        info[0] = a.shape[0]
        info[1] = a.shape[1]
        info[2] = len(a)
    if r < len(a):
        s: i32 = 0
        for j in range(a.shape[1]):
            s += a[r, j]
        a[r, 0] = s


def test_shape_and_len(dev: ps.Device, rng: np.random.Generator) -> None:
    rows, cols = int(rng.integers(1, 20)), int(rng.integers(1, 9))
    a = rng.integers(-100, 100, (rows, cols)).astype(np.int32)
    d = dev.array(a)
    info = dev.zeros(3, np.uint32)
    rows_cols.launch(d, info, threads=rows, device=dev)
    want = a.copy()
    want[:, 0] = a.sum(axis=1)
    np.testing.assert_array_equal(d.numpy(), want)
    assert info.numpy().tolist() == [rows, cols, rows]


@ps.kernel(workgroup_size=1)
def poke(a: ps.Buffer[f32, 2], i: i32, j: i32) -> None:
    a[i, j] = 1.0


def test_cpu_checks_each_axis() -> None:
    cpu = ps.device("cpu")
    a = cpu.zeros((3, 4), np.float32)
    poke.launch(a, 2, 3, threads=1, device=cpu)
    assert a.numpy()[2, 3] == 1.0
    # (0, 5) is element 5 of the flat array, inside it: only a per-axis check sees it.
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 4"):
        poke.launch(a, 0, 5, threads=1, device=cpu)
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0"):
        poke.launch(a, -1, 0, threads=1, device=cpu)


def test_launch_needs_the_declared_dimensions() -> None:
    cpu = ps.device("cpu")
    with pytest.raises(ps.LaunchError, match=r"parameter 'a' needs a 2-D array, got shape \(12,\)"):
        poke.launch(np.zeros(12, np.float32), 0, 0, threads=1, device=cpu)
    with pytest.raises(ps.LaunchError, match="parameter 'a' needs a 2-D array"):
        poke.launch(np.zeros((2, 2, 3), np.float32), 0, 0, threads=1, device=cpu)


@ps.kernel(workgroup_size=4)
def vec_rows(a: ps.Buffer[ps.vec2, 2], out: ps.Buffer[f32, 2]) -> None:
    """A 2-D buffer of vectors: a (rows, cols, 2) array."""
    r = ps.global_id().x
    if r < len(a):
        for j in range(a.shape[1]):
            out[r, j] = a[r, j].x * a[r, j].y


def test_2d_buffer_of_vectors(dev: ps.Device, rng: np.random.Generator) -> None:
    a = rng.integers(-9, 9, (5, 3, 2)).astype(np.float32)
    out = np.zeros((5, 3), np.float32)
    vec_rows.launch(a, out, threads=5, device=dev)
    np.testing.assert_array_equal(out, a[..., 0] * a[..., 1])


def test_errors_name_the_line() -> None:
    @ps.kernel
    def one_index(a: ps.Buffer[f32, 2]) -> None:
        a[0] = 1.0

    with pytest.raises(ps.TranslationError, match=r"a is a 2-D buffer: index it with 2 "
                                                    r"indices, as a\[i, j\]"):
        ps.translate(one_index, "wgsl")

    @ps.kernel
    def bad_axis(a: ps.Buffer[f32, 2]) -> None:
        a[0, 0] = f32(a.shape[2])

    with pytest.raises(ps.TranslationError, match="a is a 2-D buffer: its axes are 0 to 1, "
                                                    "not 2"):
        ps.translate(bad_axis, "glsl")

    @ps.kernel
    def three_on_2d(a: ps.Buffer[f32]) -> None:
        t = ps.array(f32, (2, 2))
        a[0] = t[0, 1, 1]

    with pytest.raises(ps.TranslationError, match=r"t is a 2-D array \(array\(array\(f32, "
                                                    r"2\), 2\)\): it takes 2 indices, not 3"):
        ps.translate(three_on_2d, "cuda")


def test_transpose_with_helpers(dev: ps.Device, rng: np.random.Generator) -> None:
    h, w = (int(x) for x in rng.integers(1, 20, 2))
    img = rng.integers(0, 1000, (h, w)).astype(np.uint32)
    out = dev.zeros((w, h), np.float32)
    gx, gy = -(-w // 4), -(-h // 8)
    N.transpose_sum.launch(img, out, groups=(gx, gy, 1), device=dev)
    # The tile holds the edge-clamped pixels of the whole launch grid.
    ys = np.minimum(np.arange(gy * 8), h - 1)
    xs = np.minimum(np.arange(gx * 4), w - 1)
    full = img[np.ix_(ys, xs)].astype(np.float32)
    rows = full.reshape(gy * 8, gx, 4).sum(axis=2)          # each tile row's 4 values
    want = full + np.repeat(rows, 4, axis=1)
    np.testing.assert_array_equal(out.numpy(), want[:h, :w].T)
