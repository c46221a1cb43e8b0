"""Port of webgpu/webgpu-samples:sample/gameOfLife/compute.wgsl (main)

The WebGPU sample's Game of Life step on a wrapped board of ``u32`` cells: helpers
index the board modulo its size, count the eight neighbours and ``select`` the next
state.

Spelling: the storage variables ``size`` (a ``vec2<u32>``), ``current`` and ``next``
are kernel parameters (``ps.Buffer[uvec2]`` of one element, ``ps.Buffer[u32]``) that
the helpers take as arguments, since a pyshade helper reads only the buffers it is
given; ``override blockSize = 8`` is a module constant; ``1u`` literals are plain
integers (they take the ``u32`` type of the other operand) and ``select(f, t, c)`` is
``ps.select(f, t, c)``. As in the sample, ``x - 1`` of column 0 wraps to 4294967295
before ``% w``, which is the last column only when the width divides 2**32: on the
boards here (multiples of 8 that are not powers of two, the sample's slider steps) the
left and top neighbours of the first column and row come from elsewhere, and the numpy
reference does the same ``u32`` arithmetic. The kernel has no bounds check: the board
is a whole number of 8 x 8 workgroups.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import u32, uvec2

blockSize = 8


def getIndex(size: ps.Buffer[uvec2], x: u32, y: u32) -> u32:
    h = size[0].y
    w = size[0].x

    return (y % h) * w + (x % w)


def getCell(size: ps.Buffer[uvec2], current: ps.Buffer[u32], x: u32, y: u32) -> u32:
    return current[getIndex(size, x, y)]


def countNeighbors(size: ps.Buffer[uvec2], current: ps.Buffer[u32], x: u32, y: u32) -> u32:
    return (getCell(size, current, x - 1, y - 1) + getCell(size, current, x, y - 1)
            + getCell(size, current, x + 1, y - 1) + getCell(size, current, x - 1, y)
            + getCell(size, current, x + 1, y) + getCell(size, current, x - 1, y + 1)
            + getCell(size, current, x, y + 1) + getCell(size, current, x + 1, y + 1))


@ps.kernel(workgroup_size=(blockSize, blockSize, 1))
def main(size: ps.Buffer[uvec2], current: ps.Buffer[u32], next: ps.Buffer[u32]) -> None:
    grid = ps.global_id()
    x = grid.x
    y = grid.y
    n = countNeighbors(size, current, x, y)
    next[getIndex(size, x, y)] = ps.select(u32(n == 3), u32(n == 2 or n == 3),
                                           getCell(size, current, x, y) == 1)


def inputs(rng: np.random.Generator) -> dict:
    """A random board whose sides are multiples of 8 but not powers of two."""
    w, h = (8 * int(rng.choice([3, 5, 6, 7])) for _ in range(2))
    return {"board": (rng.random((h, w)) < 0.3).astype(np.uint32)}


def run(dev: ps.Device, board: np.ndarray) -> dict:
    h, w = board.shape
    nxt = dev.zeros(h * w, np.uint32)
    main.launch(np.array([[w, h]], np.uint32), board.reshape(-1), nxt,
                groups=(w // blockSize, h // blockSize, 1), device=dev)
    return {"board": nxt.numpy().reshape(h, w)}


def reference(board: np.ndarray) -> dict:
    """One step, with the sample's ``u32`` index arithmetic (``(x - 1) % w`` of
    ``x = 0`` is ``4294967295 % w``)."""
    h, w = board.shape
    ys, xs = np.meshgrid(np.arange(h, dtype=np.uint32), np.arange(w, dtype=np.uint32), indexing="ij")
    with np.errstate(over="ignore"):
        def cell(dx: int, dy: int) -> np.ndarray:
            cx = (xs + np.uint32(dx % 2**32)) % np.uint32(w)
            cy = (ys + np.uint32(dy % 2**32)) % np.uint32(h)
            return board[cy, cx]
        n = sum(cell(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0))
    alive = board == 1
    return {"board": np.where(alive, (n == 2) | (n == 3), n == 3).astype(np.uint32)}
