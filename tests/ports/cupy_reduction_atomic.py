"""Port of cupy/cupy:examples/jit/reduction_atomic.py (reduction)

CuPy's JIT example of a sum: each thread adds up a grid-stride slice of ``x``, the
block's partial sums meet in shared memory, and thread 0 of each block adds them and
then adds the block's total to ``y[0]`` with a float atomic.

Spelling: ``jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x`` is
``ps.group_id().x * BLOCK + ps.local_id().x`` (``jit.blockDim.x`` is the workgroup size
``BLOCK``, ``jit.gridDim.x`` is ``ps.num_groups().x``), ``cupy.float32(0)`` is
``f32(0)``, ``jit.shared_memory(cupy.float32, 1024)`` is ``ps.shared_array(f32,
1024)``, ``jit.syncthreads()`` is ``ps.barrier()`` and ``jit.atomic_add`` is
``ps.atomic_add``. The example launches blocks of 1024 threads; WebGPU's default limit
is 256 invocations per workgroup, so BLOCK is 256 here (the shared array keeps its
1024 elements, of which the first BLOCK are used, as in the original with smaller
blocks).
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import f32, u32

BLOCK = 256
GRID = 5


@ps.kernel(workgroup_size=BLOCK)
def reduction(x: ps.Buffer[f32], y: ps.Buffer[f32], size: u32) -> None:
    tid = ps.group_id().x * BLOCK + ps.local_id().x
    ntid = BLOCK * ps.num_groups().x

    value = f32(0)
    for i in range(tid, size, ntid):
        value += x[i]

    smem = ps.shared_array(f32, 1024)
    smem[ps.local_id().x] = value

    ps.barrier()

    if ps.local_id().x == u32(0):
        value = f32(0)
        for i in range(BLOCK):
            value += smem[i]
        ps.atomic_add(y, 0, value)


def inputs(rng: np.random.Generator) -> dict:
    """More elements than threads (so each thread's loop runs several times), not a
    multiple of the grid."""
    size = int(rng.integers(3 * BLOCK * GRID, 4 * BLOCK * GRID))
    return {"x": rng.normal(size=size).astype(np.float32)}


def run(dev: ps.Device, x: np.ndarray) -> dict:
    y = dev.zeros(1, np.float32)
    reduction.launch(x, y, np.uint32(len(x)), groups=GRID, device=dev)
    return {"y": y.numpy()}


def reference(x: np.ndarray) -> dict:
    return {"y": np.array([x.astype(np.float64).sum()])}
