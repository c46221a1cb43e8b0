"""Buffers of 3-component vectors (``Buffer[vec3]``, ``ivec3``, ``uvec3``) bind numpy's
packed ``(n, 3)`` arrays on every device: reads, computations and writes of whole
elements, components and swizzles, in the kernel and in a helper, against numpy, for
0, 1 and an odd number of elements, from numpy arrays, ``dev.array`` and ``dev.zeros``.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, i32, ivec3, u32, uvec3, vec3

WG = 64


def weigh(b: ps.Buffer[vec3], i: u32, k: i32) -> f32:
    v = b[i]
    return v.x * 2.0 + v.y - v.z * 0.5 + b[i][k]


@ps.kernel(workgroup_size=WG)
def floats(a: ps.Buffer[vec3], b: ps.Buffer[vec3], out: ps.Buffer[vec3],
           sums: ps.Buffer[f32], lens: ps.Buffer[u32], s: f32, k: i32) -> None:
    i = ps.global_id().x
    if i >= len(a):
        return
    out[i] = a[i] * s + b[i].zxy
    out[i].y = out[i].y - a[i].z
    out[i][2] += b[i][k]
    sums[i] = weigh(a, i, k) + weigh(b, i, 0)
    lens[i] = len(a) + len(out) * 1000


@ps.kernel(workgroup_size=WG)
def ints(src: ps.Buffer[ivec3], iv: ps.Buffer[ivec3], uv: ps.Buffer[uvec3],
         idx: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(iv):
        return
    j = idx[i]
    iv[i] = src[i] + ivec3(1, -2, 3)
    iv[i] += ivec3(0, 5, 0)
    iv[i].x = iv[i].x * src[j].z
    t = uv[i]
    uv[i] = uvec3(t.z ^ t.x, t.y + 7, t.x * 3)
    uv[i][u32(j) % 3] += i


def _vec(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 3) float32 values that every device computes exactly (quarters)."""
    return (rng.integers(-400, 400, (n, 3)) / 4).astype(np.float32)


@pytest.mark.parametrize("n", [0, 1, 77])
def test_f32_vec3_buffers(dev: ps.Device, rng: np.random.Generator, n: int) -> None:
    a, b = _vec(rng, n), _vec(rng, n)
    s, k = np.float32(0.5 * int(rng.integers(-4, 5))), int(rng.integers(0, 3))
    out = dev.zeros((n, 3), np.float32)
    sums, lens = np.zeros(n, np.float32), np.zeros(n, np.uint32)
    floats.launch(dev.array(a), b, out, sums, lens, s, k, threads=n, device=dev)
    assert out.shape == (n, 3) and len(out) == n
    want = a * s + b[:, [2, 0, 1]]
    want[:, 1] -= a[:, 2]
    want[:, 2] += b[:, k]
    np.testing.assert_array_equal(out.numpy(), want)

    def weigh_np(v: np.ndarray, kk: int) -> np.ndarray:
        return v[:, 0] * 2 + v[:, 1] - v[:, 2] * np.float32(0.5) + v[:, kk]
    np.testing.assert_array_equal(sums, weigh_np(a, k) + weigh_np(b, 0))
    np.testing.assert_array_equal(lens, np.full(n, n * 1001, np.uint32))


@pytest.mark.parametrize("n", [0, 1, 77])
def test_int_vec3_buffers(dev: ps.Device, rng: np.random.Generator, n: int) -> None:
    src = rng.integers(-1000, 1000, (n, 3)).astype(np.int32)
    uv = rng.integers(0, 2**32, (n, 3), dtype=np.uint64).astype(np.uint32)
    idx = rng.integers(0, max(n, 1), n).astype(np.int32)
    iv = dev.zeros((n, 3), np.int32)
    host_uv = uv.copy()
    ints.launch(src, iv, host_uv, dev.array(idx), threads=n, device=dev)
    want_i = src + np.array([1, 3, 3], np.int32)
    want_i[:, 0] *= src[idx, 2]
    np.testing.assert_array_equal(iv.numpy(), want_i)
    want_u = np.stack([uv[:, 2] ^ uv[:, 0], uv[:, 1] + np.uint32(7), uv[:, 0] * np.uint32(3)],
                      axis=1)
    rows = np.arange(n)
    want_u[rows, idx % 3] += rows.astype(np.uint32)
    np.testing.assert_array_equal(host_uv, want_u)


def test_atomics_on_vec3_buffers_are_refused() -> None:
    @ps.kernel
    def bump(pts: ps.Buffer[vec3]):
        ps.atomic_add(pts, 0, 1.0)

    with pytest.raises(ps.TranslationError, match="atomics need a Buffer"):
        ps.translate(bump, "wgsl")


def test_an_index_with_side_effects_is_refused_where_it_would_repeat() -> None:
    @ps.kernel
    def counted(pts: ps.Buffer[vec3], n: ps.Buffer[u32], out: ps.Buffer[f32]):
        out[0] = ps.length(pts[ps.atomic_add(n, 0, 1)])

    for target in ("wgsl", "glsl", "hlsl", "msl", "cuda"):
        with pytest.raises(ps.TranslationError, match="assign it to a variable first"):
            ps.translate(counted, target)
    assert "length" in ps.translate(counted, "python")

    @ps.kernel
    def once(pts: ps.Buffer[vec3], n: ps.Buffer[u32]):
        pts[ps.atomic_add(n, 0, 1)].y = pts[ps.atomic_add(n, 1, 1)].x
        pts[ps.atomic_add(n, 2, 1)] = vec3(1.0)

    for target in ("wgsl", "glsl", "hlsl", "msl", "cuda"):
        assert ps.translate(once, target).count("atomic") >= 3


@ps.struct
class Body:
    pos: vec3
    mass: f32


def test_structs_of_vec3_keep_their_layout() -> None:
    @ps.kernel
    def masses(bodies: ps.Buffer[Body], pts: ps.Buffer[vec3], out: ps.Buffer[f32]):
        i = ps.global_id().x
        if i < len(out):
            out[i] = bodies[i].mass + pts[i].x

    assert Body.dtype.itemsize == 16
    wgsl = ps.translate(masses, "wgsl")
    assert "bodies: array<Body>;" in wgsl and "pts: array<f32>;" in wgsl
