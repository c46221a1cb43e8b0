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
