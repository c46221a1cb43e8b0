"""f32 atomics on every device against numpy: add, sub, min, max, exchange and
compare-exchange on buffer elements and on shared-array elements, each returning the
old value.

What can be checked whatever order the invocations run in:

- sums of multiples of 1/8 small enough to be exact in f32 (every order gives the same
  sum), and the old values returned, which chain from the initial value to the final one;
- min and max where pyshade's rules (``min(a, b)`` is ``b if b < a else a``) make the
  result independent of the order: a NaN value never wins a comparison, so NaNs among
  the values leave the min of the others; a NaN element is never replaced; zeros of
  either sign never replace a zero (``-0.0 < 0.0`` is false), so an element holding 0.0
  stays 0.0 under ``atomic_min`` of -0.0 and one holding -0.0 stays -0.0 under
  ``atomic_max`` of 0.0, bit for bit;
- exchange: the old values and the final value are a permutation of the initial value
  and the values written;
- compare-exchange compares bits: exactly one invocation replaces an element holding the
  expected bits (a NaN included), none replaces -0.0 when 0.0 is expected.
"""

from __future__ import annotations

import math

import numpy as np

import pyshade as ps
from pyshade import f32, u32

WG = 64
NAN_BITS = 0x7FC01234          # a quiet NaN with a payload: kept bit for bit


def bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, np.float32).view(np.uint32)


def payload_nan() -> np.float32:
    return np.array([NAN_BITS], np.uint32).view(np.float32)[0]


def eighths(rng: np.random.Generator, n: int) -> np.ndarray:
    """Multiples of 1/8 in [-100, 100): any sum of a few thousand is exact in f32."""
    return (rng.integers(-800, 800, n) / 8).astype(np.float32)


def with_specials(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random floats with NaNs (one with a payload), zeros of both signs and infinities-free
    extremes sprinkled in."""
    y = rng.normal(0, 1000, n).astype(np.float32)
    for v in (np.float32(np.nan), payload_nan(), np.float32(-0.0), np.float32(0.0)):
        y[rng.integers(0, n, 5)] = v
    return y


# --------------------------------------------------------------------------- buffers


@ps.kernel(workgroup_size=WG)
def buffer_ops(x: ps.Buffer[f32], y: ps.Buffer[f32], acc: ps.Buffer[f32],
               olds: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        olds[i] = ps.atomic_add(acc, 0, x[i])
        ps.atomic_sub(acc, 1, x[i])
        ps.atomic_min(acc, 2, y[i])
        ps.atomic_max(acc, 3, y[i])
        ps.atomic_min(acc, 4, -0.0)         # 0.0 stays 0.0
        ps.atomic_max(acc, 5, 0.0)          # -0.0 stays -0.0
        ps.atomic_min(acc, 6, y[i])         # a NaN element stays that NaN
        ps.atomic_max(acc, 7, y[i])


def test_buffer_add_sub_min_max(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 3000 + int(rng.integers(0, WG))
    x, y = eighths(rng, n), with_specials(rng, n)
    init = np.array([1.5, -2.25, math.inf, -math.inf, 0.0, -0.0, 0.0, 0.0], np.float32)
    init[6] = init[7] = payload_nan()
    acc, olds = dev.array(init), dev.zeros(n, np.float32)
    buffer_ops.launch(dev.array(x), dev.array(y), acc, olds, threads=n, device=dev)
    got, old = acc.numpy(), olds.numpy()
    assert got[0] == init[0] + x.astype(np.float64).sum()
    assert got[1] == init[1] - x.astype(np.float64).sum()
    # each add returned the value before it: the olds chain from init[0] to the sum
    np.testing.assert_array_equal(np.sort(np.append(old, got[0])),
                                  np.sort(np.append(old + x, init[0])))
    assert got[2] == np.nanmin(y) and got[3] == np.nanmax(y)
    np.testing.assert_array_equal(bits(got[4:8]), bits(init[4:8]))


@ps.kernel(workgroup_size=WG)
def exchange_ops(x: ps.Buffer[f32], acc: ps.Buffer[f32], olds: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        olds[i] = ps.atomic_exchange(acc, 0, x[i])


def test_buffer_exchange(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 2000 + int(rng.integers(0, WG))
    x = with_specials(rng, n)
    init = np.array([payload_nan()], np.float32)
    acc, olds = dev.array(init), dev.zeros(n, np.float32)
    exchange_ops.launch(dev.array(x), acc, olds, threads=n, device=dev)
    # old values and the final one: the initial value and every written one, bit for bit
    np.testing.assert_array_equal(np.sort(np.append(bits(olds.numpy()), bits(acc.numpy()))),
                                  np.sort(np.append(bits(x), bits(init))))


@ps.kernel(workgroup_size=WG)
def cas_ops(keys: ps.Buffer[f32], slots: ps.Buffer[f32], olds: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(olds):
        s = i % len(slots)
        olds[i] = ps.atomic_compare_exchange(slots, s, keys[s], f32(i) + 1000.5)


def test_buffer_compare_exchange(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 1000 + int(rng.integers(0, WG))
    nan = payload_nan()
    # slot: its value, the expected value: same NaN (one success), -0.0 against 0.0 (none:
    # the bits differ), equal (one success), different (none)
    init = np.array([nan, -0.0, 2.5, 1.0], np.float32)
    keys = np.array([nan, 0.0, 2.5, 2.0], np.float32)
    slots, olds = dev.array(init), dev.zeros(n, np.float32)
    cas_ops.launch(dev.array(keys), slots, olds, threads=n, device=dev)
    got, old = slots.numpy(), olds.numpy()
    for s in range(4):
        seen = old[s::4]
        won = bits(seen) == bits(init[s])
        if s in (0, 2):                       # replaced once, by the one that saw init
            assert won.sum() == 1
            winner = s + 4 * int(np.flatnonzero(won)[0])
            assert got[s] == np.float32(winner + 1000.5)
            assert (seen[~won] == got[s]).all()   # the others saw the winner's value
        else:                                 # never replaced
            assert won.all() and bits(got[s]) == bits(init[s])


# ----------------------------------------------------------------------- shared memory


@ps.kernel(workgroup_size=WG)
def shared_ops(x: ps.Buffer[f32], y: ps.Buffer[f32], out: ps.Buffer[f32],
               wins: ps.Buffer[u32]) -> None:
    acc = ps.shared_array(f32, 6)
    lid = ps.local_index()
    if lid == 0:
        acc[0] = 0.0
        acc[1] = 0.0
        acc[2] = math.inf
        acc[3] = -math.inf
        ps.atomic_exchange(acc, 4, -1.0)
        acc[5] = -1.0
    ps.barrier()
    i = ps.global_id().x
    if i < len(x):
        ps.atomic_add(acc, 0, x[i])
        ps.atomic_sub(acc, 1, x[i])
        ps.atomic_min(acc, 2, y[i])
        ps.atomic_max(acc, 3, y[i])
        ps.atomic_exchange(acc, 4, f32(lid))
        if ps.atomic_compare_exchange(acc, 5, -1.0, f32(lid)) == -1.0:
            wins[i] = u32(1)
    ps.barrier()
    if lid < 6:
        out[ps.group_id().x * 6 + lid] = acc[lid]


def test_shared_float_atomics(dev: ps.Device, rng: np.random.Generator) -> None:
    groups = 9
    n = WG * (groups - 1) + int(rng.integers(1, WG + 1))     # the last group partial
    x, y = eighths(rng, n), with_specials(rng, n)
    out, wins = dev.zeros(groups * 6, np.float32), dev.zeros(n, np.uint32)
    shared_ops.launch(dev.array(x), dev.array(y), out, wins, threads=n, device=dev)
    got, won = out.numpy().reshape(groups, 6), wins.numpy()
    for g in range(groups):
        xs, ys = x[g * WG:(g + 1) * WG], y[g * WG:(g + 1) * WG]
        assert got[g, 0] == xs.astype(np.float64).sum()
        assert got[g, 1] == -xs.astype(np.float64).sum()
        assert got[g, 2] == np.nanmin(ys) and got[g, 3] == np.nanmax(ys)
        assert got[g, 4] in np.arange(len(xs), dtype=np.float32)      # a lid written
        w = won[g * WG:(g + 1) * WG]
        assert w.sum() == 1 and got[g, 5] == np.float32(np.flatnonzero(w)[0])
