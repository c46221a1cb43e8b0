"""Port of numba/numba:numba/cuda/tests/doc_examples/test_matmul.py (fast_matmul)

The shared-memory matrix product of numba's CUDA examples (docs/source/cuda/examples.rst
includes it from that file), with its two TPB x TPB tiles indexed ``sA[ty, tx]`` and
its loop over ``gridDim.x`` tiles.

Written in pyshade's spelling: ``cuda.grid(2)`` is ``ps.global_id().xy``,
``cuda.threadIdx`` is ``ps.local_id()``, ``cuda.gridDim`` is ``ps.num_groups()``,
``cuda.shared.array(shape=..., dtype=float32)`` is ``ps.shared_array(f32, ...)`` and
``cuda.syncthreads()`` is ``ps.barrier()``. The arrays are typed parameters.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import f32

TPB = 16


@ps.kernel(workgroup_size=(TPB, TPB, 1))
def fast_matmul(A: ps.Buffer[f32, 2], B: ps.Buffer[f32, 2], C: ps.Buffer[f32, 2]) -> None:
    sA = ps.shared_array(f32, (TPB, TPB))
    sB = ps.shared_array(f32, (TPB, TPB))

    x, y = ps.global_id().xy

    tx = ps.local_id().x
    ty = ps.local_id().y
    bpg = ps.num_groups().x

    tmp = f32(0.0)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        ps.barrier()

        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        ps.barrier()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def inputs(rng: np.random.Generator) -> dict:
    """Non-square matrices whose sides are not multiples of TPB (the example's second
    case is 5 x 23 by 23 x 7)."""
    m, k, n = (int(rng.integers(TPB + 1, 3 * TPB)) for _ in range(3))
    return {"A": rng.uniform(-1.0, 1.0, (m, k)).astype(np.float32),
            "B": rng.uniform(-1.0, 1.0, (k, n)).astype(np.float32)}


def run(dev: ps.Device, A: np.ndarray, B: np.ndarray) -> dict:
    """The example's launch for the non-square case: a grid that covers the larger
    of the two matrices in each direction (its ``gridDim.x`` tiles then cover the
    inner dimension)."""
    C = dev.zeros((A.shape[0], B.shape[1]), np.float32)
    grid_y_max = max(A.shape[0], B.shape[0])
    grid_x_max = max(A.shape[1], B.shape[1])
    blockspergrid = (-(-grid_x_max // TPB), -(-grid_y_max // TPB), 1)
    fast_matmul.launch(A, B, C, groups=blockspergrid, device=dev)
    return {"C": C.numpy()}


def reference(A: np.ndarray, B: np.ndarray) -> dict:
    return {"C": A.astype(np.float64) @ B.astype(np.float64)}
