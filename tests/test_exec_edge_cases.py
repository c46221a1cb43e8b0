"""Execution tests of edge cases on every device, each against plain Python: helpers
that end in an exhaustive ``match``, float ``min``/``max``/``clamp`` with signed zeros,
NaN and infinities, and very deep expressions."""

from __future__ import annotations

import importlib.util
import math
import struct
from enum import IntEnum
from pathlib import Path

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, i32, u32, vec2, vec3

WG = 64

# ------------------------------------------------- exhaustive match ending a helper


class Op(IntEnum):
    ADD = 0
    SUB = 1
    MUL = 2
    MIN = 3


class Only(IntEnum):
    ONE = 7


def combine(op: Op, x: f32, y: f32) -> f32:
    match op:                       # exhaustive, every arm returns: no return after it
        case Op.ADD:
            return x + y
        case Op.SUB:
            return x - y
        case Op.MUL | Op.MIN:
            if op == Op.MUL:
                return x * y
            return min(x, y)


def only(o: Only, x: f32) -> f32:
    match o:                        # one member: nothing to test
        case Only.ONE:
            return x + 1.0


def by_default(n: u32) -> u32:
    match n:
        case _:
            return n * 2


@ps.kernel(workgroup_size=WG)
def apply_ops(ops: ps.Buffer[Op], a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = combine(ops[i], a[i], b[i]) + only(Only.ONE, 0.0) + f32(by_default(i))


def test_helper_ending_in_exhaustive_match(dev: ps.Device, rng: np.random.Generator) -> None:
    ps.compile(apply_ops, "wgsl")             # naga accepts the helpers without a final return
    n = 300
    ops = rng.integers(0, 4, n).astype(np.uint32)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = dev.zeros(n, np.float32)
    apply_ops.launch(dev.array(ops), dev.array(a), dev.array(b), out, threads=n, device=dev)
    f = np.float32
    want = [f(f([x + y, x - y, x * y, min(x, y)][o]) + f(1.0)) + f(2 * i)
            for i, (o, x, y) in enumerate(zip(ops, a, b))]
    np.testing.assert_array_equal(out.numpy(), np.array(want, np.float32))


# ------------------------------------------- float min/max/clamp are Python's exactly

SPECIAL = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 1.0, -1.0, 3.4e38, 1e-45]


@ps.kernel(workgroup_size=WG)
def min_max_f32(a: ps.Buffer[f32], b: ps.Buffer[f32], lo: ps.Buffer[f32], hi: ps.Buffer[f32],
                out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        out[4 * i] = min(a[i], b[i])
        out[4 * i + 1] = max(a[i], b[i])
        out[4 * i + 2] = ps.clamp(a[i], lo[i], hi[i])
        v = max(vec3(a[i], b[i], lo[i]), vec3(b[i], a[i], hi[i]))
        w = min(vec2(a[i], b[i]), vec2(b[i], a[i]))
        c = ps.clamp(vec2(a[i], b[i]), vec2(lo[i], lo[i]), vec2(hi[i], hi[i]))
        # every lane must be right: fold them into one value with exact bit tests
        ok = (bits(v.x) == bits(max(a[i], b[i])) and bits(v.y) == bits(max(b[i], a[i]))
              and bits(v.z) == bits(max(lo[i], hi[i])) and bits(w.x) == bits(min(a[i], b[i]))
              and bits(w.y) == bits(min(b[i], a[i]))
              and bits(c.x) == bits(ps.clamp(a[i], lo[i], hi[i]))
              and bits(c.y) == bits(ps.clamp(b[i], lo[i], hi[i])))
        out[4 * i + 3] = ps.select(f32(0.0), f32(1.0), ok)


def bits(x: f32) -> u32:
    return ps.bitcast(u32, x)


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_float_min_max_clamp_follow_python(dev: ps.Device, rng: np.random.Generator) -> None:
    pairs = [(x, y) for x in SPECIAL for y in SPECIAL]
    rand = rng.standard_normal((200, 2)).astype(np.float32)
    pairs += [(float(x), float(y)) for x, y in rand]
    pairs += [(float(x), float(x)) for x in rand[:20, 0]]         # ties
    a = np.array([p[0] for p in pairs], np.float32)
    b = np.array([p[1] for p in pairs], np.float32)
    # clamp needs lo <= hi (else the CPU device raises): sorted bounds, some of them NaN
    lo = np.minimum(b, a[::-1])
    hi = np.maximum(b, a[::-1])
    bad = np.isnan(a[::-1]) | np.isnan(b)
    lo[bad], hi[bad] = b[bad], a[::-1][bad]
    lo = np.where(lo > hi, hi, lo)
    out = dev.zeros(4 * len(a), np.float32)
    min_max_f32.launch(dev.array(a), dev.array(b), dev.array(lo), dev.array(hi), out,
                       threads=len(a), device=dev)
    got = out.numpy().reshape(-1, 4).view(np.uint32)
    for j, (x, y, l, h) in enumerate(zip(a.tolist(), b.tolist(), lo.tolist(), hi.tolist())):
        want = [min(x, y), max(x, y), min(max(x, l), h), 1.0]
        assert got[j].tolist() == [_f32_bits(w) for w in want], (j, x, y, l, h, got[j])
