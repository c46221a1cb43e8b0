"""Port of NVIDIA/warp:warp/examples/core/example_wave.py (wave_displace, wave_solve, grid_update)

Warp's 2-D wave equation: ``wave_displace`` pushes the surface down inside a circle,
``wave_solve`` integrates one step with a clamped-border Laplacian (the helpers
``sample`` and ``laplacian``), the two height grids swap roles after each substep, and
``grid_update`` copies the heights into the ``y`` of a grid of vertices.

Spelling: ``wp.array(dtype=float)`` is ``ps.Buffer[f32]`` (in the helpers too) and
``wp.array(dtype=wp.vec3)`` is ``ps.Buffer[vec3]``; ``int`` and ``float`` parameters
are ``i32`` and ``f32``; ``wp.tid()`` is ``ps.tid()`` (an ``i32``, as Warp's is);
``wp.clamp`` and ``wp.sin`` are ``ps.clamp`` and ``math.sin``; ``wp.vec3(...)`` is
``vec3(...)``; the ``@wp.func`` helpers are plain functions and ``sample`` reassigns its
parameters ``x`` and ``y`` as Warp's does. Warp launches exactly ``dim`` threads, so its
kernels have no bounds check: here the grid is a whole number of workgroups.
"""

from __future__ import annotations

import math

import numpy as np

import pyshade as ps
from pyshade import f32, i32, vec3

WG = 64


def sample(f: ps.Buffer[f32], x: i32, y: i32, width: i32, height: i32) -> f32:
    # clamp texture coords
    x = ps.clamp(x, 0, width - 1)
    y = ps.clamp(y, 0, height - 1)

    s = f[y * width + x]
    return s


def laplacian(f: ps.Buffer[f32], x: i32, y: i32, width: i32, height: i32) -> f32:
    ddx = (sample(f, x + 1, y, width, height) - 2.0 * sample(f, x, y, width, height)
           + sample(f, x - 1, y, width, height))
    ddy = (sample(f, x, y + 1, width, height) - 2.0 * sample(f, x, y, width, height)
           + sample(f, x, y - 1, width, height))

    return ddx + ddy


@ps.kernel(workgroup_size=WG)
def wave_displace(hcurrent: ps.Buffer[f32], hprevious: ps.Buffer[f32], width: i32, height: i32,
                  center_x: f32, center_y: f32, r: f32, mag: f32, t: f32) -> None:
    tid = ps.tid()

    x = tid % width
    y = tid // width

    dx = float(x) - center_x
    dy = float(y) - center_y

    dist_sq = float(dx * dx + dy * dy)

    if dist_sq < r * r:
        h = mag * math.sin(t)

        hcurrent[tid] = h
        hprevious[tid] = h


@ps.kernel(workgroup_size=WG)
def wave_solve(hprevious: ps.Buffer[f32], hcurrent: ps.Buffer[f32], width: i32, height: i32,
               inv_cell: f32, k_speed: f32, k_damp: f32, dt: f32) -> None:
    tid = ps.tid()

    x = tid % width
    y = tid // width

    l = laplacian(hcurrent, x, y, width, height) * inv_cell * inv_cell  # noqa: E741 (Warp's name)

    # integrate
    h1 = hcurrent[tid]
    h0 = hprevious[tid]

    h = 2.0 * h1 - h0 + dt * dt * (k_speed * l - k_damp * (h1 - h0))

    # buffers get swapped each iteration
    hprevious[tid] = h


# simple kernel to apply height deltas to a vertex array
@ps.kernel(workgroup_size=WG)
def grid_update(heights: ps.Buffer[f32], vertices: ps.Buffer[vec3]) -> None:
    tid = ps.tid()

    h = heights[tid]
    v = vertices[tid]

    v_new = vec3(v[0], h, v[2])

    vertices[tid] = v_new


# The example's constants (Example.__init__), and its sphere of radius 10 cells.
SUBSTEPS = 6
DT = (1.0 / 60.0) / 16
K_SPEED, K_DAMP = 1.0, 0.0
GRID_SIZE = 0.1
RADIUS, MAG, T_DISPLACE = 10.0, 0.5, -math.pi * 0.5


def inputs(rng: np.random.Generator) -> dict:
    """A grid of a whole number of workgroups (sides multiples of 8; the example's is
    128 x 128), a random initial surface, and a random start time (so a random path of
    the circle) at which no cell centre lies within 1e-3 of the circle in squared
    distance, where one rounding would decide whether it is displaced."""
    width, height = 8 * int(rng.integers(5, 9)), 8 * int(rng.integers(4, 7))
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    while True:
        time = float(rng.uniform(0.0, 5.0))
        near = False
        for s in range(SUBSTEPS):
            cx, cy = _centre(width, height, time + s * DT)
            d = (xs - np.float64(cx)) ** 2 + (ys - np.float64(cy)) ** 2
            near |= bool((np.abs(d - RADIUS ** 2) < 1e-3).any())
        if not near:
            break
    return {"width": width, "height": height, "time": time,
            "h0": rng.uniform(-0.1, 0.1, width * height).astype(np.float32),
            "h1": rng.uniform(-0.1, 0.1, width * height).astype(np.float32)}


def _centre(width: int, height: int, time: float) -> tuple[np.float32, np.float32]:
    return (np.float32(width / 2 + math.sin(time) * width / 3),
            np.float32(height / 2 + math.cos(time) * height / 3))


def run(dev: ps.Device, width: int, height: int, time: float, h0: np.ndarray,
        h1: np.ndarray) -> dict:
    """The example's ``step``: SUBSTEPS of displace, solve and swap, then the mesh."""
    n = width * height
    f = np.float32
    grid0, grid1 = dev.array(h0), dev.array(h1)
    zs, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    verts = np.stack([xs * GRID_SIZE, np.zeros(xs.shape), zs * GRID_SIZE], axis=-1).reshape(n, 3)
    verts_d = dev.array(verts.astype(np.float32))
    for _ in range(SUBSTEPS):
        cx, cy = _centre(width, height, time)
        wave_displace.launch(grid0, grid1, i32(width), i32(height), cx, cy, f(RADIUS), f(MAG),
                             f(T_DISPLACE), threads=n, device=dev)
        wave_solve.launch(grid0, grid1, i32(width), i32(height), f(1.0 / GRID_SIZE), f(K_SPEED),
                          f(K_DAMP), f(DT), threads=n, device=dev)
        grid0, grid1 = grid1, grid0
        time += DT
    grid_update.launch(grid0, verts_d, threads=n, device=dev)
    return {"heights": grid0.numpy(), "vertices": verts_d.numpy()}


def reference(width: int, height: int, time: float, h0: np.ndarray, h1: np.ndarray) -> dict:
    """The same substeps in float64 numpy on the whole grid."""
    n = width * height
    g0, g1 = h0.astype(np.float64).reshape(height, width), h1.astype(np.float64).reshape(height, width)
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    f = lambda v: np.float64(np.float32(v))
    for _ in range(SUBSTEPS):
        cx, cy = _centre(width, height, time)
        inside = (xs - np.float64(cx)) ** 2 + (ys - np.float64(cy)) ** 2 < f(RADIUS) ** 2
        h = f(MAG) * np.sin(f(T_DISPLACE))
        g0, g1 = np.where(inside, h, g0), np.where(inside, h, g1)
        p = np.pad(g1, 1, mode="edge")
        lap = (p[1:-1, 2:] - 2.0 * g1 + p[1:-1, :-2]) + (p[2:, 1:-1] - 2.0 * g1 + p[:-2, 1:-1])
        lap *= f(1.0 / GRID_SIZE) ** 2
        g0 = 2.0 * g1 - g0 + f(DT) ** 2 * (f(K_SPEED) * lap - f(K_DAMP) * (g1 - g0))
        g0, g1 = g1, g0
        time += DT
    verts = np.stack([np.float32(xs * GRID_SIZE), g0, np.float32(ys * GRID_SIZE)],
                     axis=-1).reshape(n, 3)
    return {"heights": g0.reshape(-1), "vertices": verts}
