"""Constant tables (module-level tuples and lists of numbers) on every device against
numpy: 1-D and 2-D tables of f32, i32 and u32 read at run-time indices in a kernel and
in a helper, ``len()`` of a table, and the bounds rule of the CPU device."""

from __future__ import annotations

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, i32, u32

WG = 64
W = (0.25, 0.5, 0.25)
K = ((1, -2, 3), (4, 5, -6))
BIG = [1, 2, 3000000000]


def weight(j: u32) -> f32:
    return W[j]


@ps.kernel(workgroup_size=WG)
def tables(src: ps.Buffer[f32], dst: ps.Buffer[f32], ints: ps.Buffer[i32],
           uints: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    acc: f32 = 0.0
    for j in range(len(W)):
        acc += weight(u32(j)) * src[(i + u32(j)) % len(src)]
    dst[i] = acc
    ints[i] = K[i % 2][i % 3]
    uints[i] = BIG[i % 3]


def test_tables(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 1000 + int(rng.integers(0, WG))
    x = (rng.integers(-64, 64, n) / 4).astype(np.float32)
    dst, ints, uints = dev.zeros(n, np.float32), dev.zeros(n, np.int32), \
        dev.zeros(n, np.uint32)
    tables.launch(dev.array(x), dst, ints, uints, threads=n, device=dev)
    idx = np.arange(n)
    want = sum(np.float32(w) * x[(idx + j) % n] for j, w in enumerate(W))
    np.testing.assert_array_equal(dst.numpy(), want.astype(np.float32))
    np.testing.assert_array_equal(ints.numpy(), np.array(K, np.int32)[idx % 2, idx % 3])
    np.testing.assert_array_equal(uints.numpy(), np.array(BIG, np.uint32)[idx % 3])


@ps.kernel(workgroup_size=WG)
def past_end(dst: ps.Buffer[f32], k: u32) -> None:
    i = ps.global_id().x
    if i < len(dst):
        dst[i] = W[k]


def test_cpu_index_past_the_end_raises() -> None:
    cpu = ps.device("cpu")
    dst = cpu.zeros(4, np.float32)
    with pytest.raises(IndexError):
        past_end.launch(dst, 3, threads=4, device=cpu)


OFFS = (-1, 0, 1)


@ps.kernel(workgroup_size=WG)
def loops(src: ps.Buffer[f32], dst: ps.Buffer[f32], idx: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    acc: f32 = 0.0
    for w in W:
        acc += w
    for d in OFFS:
        j = i32(i) + d
        if j < 0:
            continue
        acc += src[j % i32(len(src))]
    x = src[i]
    for s in (x, x * 2.0, 3.0):     # evaluated before the loop: x = 0.0 changes none
        x = 0.0
        acc += s
    first = -1
    for v in (5, 7, 9, 11):
        if (i32(i) + v) % 3 == 0:
            first = v
            break
    dst[i] = acc
    idx[i] = first


def test_unrolled_loops(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 500 + int(rng.integers(0, WG))
    x = (rng.integers(-64, 64, n) / 4).astype(np.float32)
    dst, idx = dev.zeros(n, np.float32), dev.zeros(n, np.int32)
    loops.launch(dev.array(x), dst, idx, threads=n, device=dev)
    i = np.arange(n)
    want = np.full(n, sum(W)) + x[(i + 1) % n] + x + np.where(i > 0, x[i - 1], 0) \
        + 3 * x + 3.0
    np.testing.assert_array_equal(dst.numpy(), want.astype(np.float32))
    first = np.array([next(v for v in (5, 7, 9, 11) if (k + v) % 3 == 0) for k in i])
    np.testing.assert_array_equal(idx.numpy(), first)


@ps.kernel(workgroup_size=WG)
def list_arrays(src: ps.Buffer[f32], dst: ps.Buffer[f32], k: u32) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    x = src[i]
    w = [0.25, x, 0.25 * x]
    w[1] += 1.0
    n = [1, 2, 3]
    acc: f32 = 0.0
    for j in range(len(w)):
        acc += w[j] * f32(n[j])
    dst[i] = acc + w[k % 3]


@pytest.mark.parametrize("k", [0, 2])
def test_list_literals(dev: ps.Device, rng: np.random.Generator, k: int) -> None:
    n = 300 + int(rng.integers(0, WG))
    x = (rng.integers(-64, 64, n) / 4).astype(np.float32)
    dst = dev.zeros(n, np.float32)
    list_arrays.launch(dev.array(x), dst, k, threads=n, device=dev)
    w = [np.full(n, 0.25, np.float32), x + np.float32(1.0), np.float32(0.25) * x]
    want = w[0] * 1 + w[1] * 2 + w[2] * 3 + w[k % 3]
    np.testing.assert_array_equal(dst.numpy(), want.astype(np.float32))


GAINS = [1.0, 2.0]
SHIFTS = (10, 20)


@ps.kernel(workgroup_size=WG)
def gains(dst: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(dst):
        dst[i] = GAINS[i % 2] + f32(SHIFTS[i % 2])


def test_changed_table_translates_again() -> None:
    """A module table changed in place (a list) or rebound (a tuple) is read again at
    the next launch; an equal new tuple keeps the translation."""
    global SHIFTS
    cpu = ps.device("cpu")
    dst = cpu.zeros(4, np.float32)
    gains.launch(dst, threads=4, device=cpu)
    np.testing.assert_array_equal(dst.numpy(), [11, 22, 11, 22])
    generation = gains.generation
    SHIFTS = (10, 20)                   # equal by value: nothing to translate
    gains.launch(dst, threads=4, device=cpu)
    assert gains.generation == generation
    GAINS[1] = 5.0                      # in place
    try:
        gains.launch(dst, threads=4, device=cpu)
        np.testing.assert_array_equal(dst.numpy(), [11, 25, 11, 25])
        SHIFTS = (30, 40)
        gains.launch(dst, threads=4, device=cpu)
        np.testing.assert_array_equal(dst.numpy(), [31, 45, 31, 45])
        assert "30" in gains.source("wgsl")
    finally:
        GAINS[1], SHIFTS = 2.0, (10, 20)


def total(a: ps.Array[f32, 3]) -> f32:
    return a[0] + a[1] + a[2]


@ps.kernel(workgroup_size=WG)
def whole_tables(dst: ps.Buffer[f32], rows: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    w = W                   # a copy: a local array
    w[0] = f32(i)
    dst[i] = total(w) + total(W) + W[i % 3]
    row = K[i % 2]          # a row of a 2-D table
    rows[i] = row[0] + row[1] * 10 + row[2] * 100


def test_whole_tables_and_rows(dev: ps.Device) -> None:
    n = 70
    dst, rows = dev.zeros(n, np.float32), dev.zeros(n, np.int32)
    whole_tables.launch(dst, rows, threads=n, device=dev)
    i = np.arange(n)
    want = (i + 0.75) + 1.0 + np.array(W)[i % 3]
    np.testing.assert_array_equal(dst.numpy(), want.astype(np.float32))
    k = np.array(K)[i % 2]
    np.testing.assert_array_equal(rows.numpy(), k[:, 0] + k[:, 1] * 10 + k[:, 2] * 100)
