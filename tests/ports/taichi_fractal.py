"""Port of taichi-dev/taichi:python/taichi/examples/simulation/fractal.py (paint)

Taichi's Julia set: every pixel of a ``(2n, n)`` field iterates ``z = z*z + c`` (the
square of a complex number held in a 2-vector, by the helper ``complex_sqr``) until
``|z|`` reaches 20 or 50 iterations, and stores ``1 - iterations * 0.02``.

Spelling: the ``ti.field(dtype=float, shape=(n * 2, n))`` is a ``ps.Buffer[f32, 2]``
parameter; the struct-for ``for i, j in pixels:`` is one invocation per pixel,
``i, j = ps.global_id().xy`` with a bounds check; ``ti.Vector([a, b])`` is ``vec2(a,
b)``, ``z.norm()`` is ``ps.length(z)`` and ``ti.cos`` is ``math.cos``; the ``@ti.func``
helper is a plain function. ``n`` is 24 instead of the example's 320, for the cpu
device.
"""

from __future__ import annotations

import math

import numpy as np

import pyshade as ps
from pyshade import f32, vec2

n = 24


def complex_sqr(z: vec2) -> vec2:
    return vec2(z[0]**2 - z[1]**2, z[1] * z[0] * 2)


@ps.kernel(workgroup_size=(8, 8, 1))
def paint(pixels: ps.Buffer[f32, 2], t: f32) -> None:
    i, j = ps.global_id().xy   # parallelized over all pixels
    if i < pixels.shape[0] and j < pixels.shape[1]:
        c = vec2(-0.8, math.cos(t) * 0.2)
        z = vec2(i / n - 1, j / n - 0.5) * 2
        iterations = 0
        while ps.length(z) < 20 and iterations < 50:
            z = complex_sqr(z) + c
            iterations += 1
        pixels[i, j] = 1 - iterations * 0.02


def inputs(rng: np.random.Generator) -> dict:
    """A frame of the example's animation (``paint(i * 0.03)``) at a random step of its
    first 105, where ``t`` is in [0, pi]: Vulkan bounds the error of ``cos`` there only
    (by 2**-11, absolute), and SwiftShader uses much of it."""
    return {"t": np.float32(int(rng.integers(0, 105)) * 0.03)}


def run(dev: ps.Device, t: np.float32) -> dict:
    pixels = dev.zeros((n * 2, n), np.float32)
    paint.launch(pixels, t, groups=((2 * n + 7) // 8, (n + 7) // 8, 1), device=dev)
    return {"pixels": pixels.numpy()}


def julia(c1: np.float32) -> np.ndarray:
    """The picture for ``c = (-0.8, c1)``, in float32 numpy, operation by operation."""
    f = np.float32
    i, j = np.meshgrid(np.arange(2 * n), np.arange(n), indexing="ij")
    c0 = f(-0.8)
    z0 = (f(i) / f(n) - f(1)) * f(2)
    z1 = (f(j) / f(n) - f(0.5)) * f(2)
    iterations = np.zeros(i.shape, np.int32)
    for _ in range(50):
        going = np.sqrt(z0 * z0 + z1 * z1) < f(20)
        z0, z1 = (np.where(going, z0 * z0 - z1 * z1 + c0, z0),
                  np.where(going, z1 * z0 * f(2) + c1, z1))
        iterations += going
    return f(1) - iterations.astype(np.float32) * f(0.02)


def reference(t: np.float32) -> dict:
    return {"pixels": julia(np.float32(np.cos(np.float64(t))) * np.float32(0.2))}
