"""Port of numba/numba:docs/source/cuda/examples.rst (fast_matmul): the shared-memory
matrix product of numba's CUDA examples, with its two TPB x TPB tiles indexed
``sA[ty, tx]`` and its loop over ``gridDim.x`` tiles.

Written in pyshade's spelling: ``cuda.grid(2)`` is ``ps.global_id().xy``,
``cuda.threadIdx`` is ``ps.local_id()``, ``cuda.gridDim`` is ``ps.num_groups()``,
``cuda.shared.array(shape=..., dtype=float32)`` is ``ps.shared_array(f32, ...)`` and
``cuda.syncthreads()`` is ``ps.barrier()``. The arrays are typed parameters.
"""

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
