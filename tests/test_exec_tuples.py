"""Tuples on every device against numpy: helpers that return two to four values
(scalars, vectors, a struct, a bool), unpacked by the caller into new and existing
variables (in a loop too), early returns of the same shape, and unpacking of vectors,
swizzles and ``ps.global_id()``, and tuples passed to helpers (``f((a, b))``)."""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32, vec2, vec3, vec4

WG = 64


@ps.struct
class Span:
    lo: f32
    hi: f32


def divmod_u(a: u32, b: u32) -> tuple[u32, u32]:
    if b == 0:
        return 0, a
    return a // b, a % b


def min_max(x: f32, y: f32):
    if x < y:
        return Span(lo=x, hi=y), i32(-1)
    return Span(lo=y, hi=x), 1


def split(p: vec3) -> tuple[vec2, f32, bool]:
    return p.xy, p.z, p.z > 0.0


def four(v: u32) -> tuple[u32, u32, u32, u32]:
    return v & 255, (v >> 8) & 255, (v >> 16) & 255, v >> 24


@ps.kernel(workgroup_size=WG)
def scalars(a: ps.Buffer[u32], b: ps.Buffer[u32], q_out: ps.Buffer[u32],
            r_out: ps.Buffer[u32], bytes_out: ps.Buffer[u32]) -> None:
    i, _gy = ps.global_id().xy
    if i >= len(a):
        return
    q, r = divmod_u(a[i], b[i])
    q_out[i] = q
    r_out[i] = r
    total = u32(0)
    for k in range(2):
        q, r = divmod_u(q + u32(k), r + 1)       # into existing variables
        total += q
    x0, x1, x2, x3 = four(a[i])
    bytes_out[i] = x0 + x1 * 3 + x2 * 5 + x3 * 7 + total * 11


def test_scalar_returns(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 700 + int(rng.integers(0, WG))
    a = rng.integers(0, 2**32, n, dtype=np.uint32)
    b = rng.integers(0, 50, n, dtype=np.uint32)      # zeros: the early return
    q, r, bo = (dev.zeros(n, np.uint32) for _ in range(3))
    scalars.launch(dev.array(a), dev.array(b), q, r, bo, threads=n, device=dev)

    def dm(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        safe = np.where(y == 0, 1, y)
        return np.where(y == 0, 0, x // safe), np.where(y == 0, x, x % safe)

    eq, er = dm(a, b)
    np.testing.assert_array_equal(q.numpy(), eq)
    np.testing.assert_array_equal(r.numpy(), er)
    total = np.zeros(n, np.uint32)
    qq, rr = eq, er
    for k in range(2):
        qq, rr = dm((qq + k).astype(np.uint32), (rr + 1).astype(np.uint32))
        total = (total + qq).astype(np.uint32)
    parts = [(a >> s) & 255 for s in (0, 8, 16, 24)]
    want = (parts[0] + parts[1] * 3 + parts[2] * 5 + parts[3] * 7 + total * 11).astype(np.uint32)
    np.testing.assert_array_equal(bo.numpy(), want)


def weigh(pair: tuple[u32, f32], scale: f32) -> f32:
    n, w = pair
    return f32(n) * w * scale


def forward(pair: tuple[u32, f32]) -> tuple[u32, f32]:
    return pair


@ps.kernel(workgroup_size=WG)
def tuple_args(a: ps.Buffer[u32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(a):
        n, w = forward((a[i], 0.25))
        out[i] = weigh((n + 1, w), 4.0) + weigh((3, 1.5), f32(i))


def test_tuple_arguments(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 300 + int(rng.integers(0, WG))
    a = rng.integers(0, 1000, n, dtype=np.uint32)
    out = dev.zeros(n, np.float32)
    tuple_args.launch(dev.array(a), out, threads=n, device=dev)
    want = (a + 1).astype(np.float32) * np.float32(0.25) * np.float32(4.0) \
        + np.float32(3 * 1.5) * np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), want.astype(np.float32))


@ps.kernel(workgroup_size=WG)
def mixed(pts: ps.Buffer[vec4], spans: ps.Buffer[Span], out: ps.Buffer[f32]) -> None:
    i, _y, _z = ps.global_id()
    if i >= len(pts):
        return
    xy, z, up = split(pts[i].xyz)
    a, b = xy
    s, order = min_max(a, b)
    spans[i] = s
    x, y, w = pts[i].zyx
    v = 0.0
    if up:
        v = z
    out[i] = f32(order) * 1000.0 + v + (x - w) * y


def test_mixed_returns(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 500 + int(rng.integers(0, WG))
    p = rng.integers(-8, 8, (n, 4)).astype(np.float32) / 4
    spans, out = dev.zeros(n, Span.dtype), dev.zeros(n, np.float32)
    mixed.launch(dev.array(p), spans, out, threads=n, device=dev)
    got = spans.numpy()
    np.testing.assert_array_equal(got["lo"], np.minimum(p[:, 0], p[:, 1]))
    np.testing.assert_array_equal(got["hi"], np.maximum(p[:, 0], p[:, 1]))
    order = np.where(p[:, 0] < p[:, 1], -1, 1).astype(np.float32)
    want = order * 1000 + np.where(p[:, 2] > 0, p[:, 2], 0) + (p[:, 2] - p[:, 0]) * p[:, 1]
    np.testing.assert_array_equal(out.numpy(), want.astype(np.float32))
