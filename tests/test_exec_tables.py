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
