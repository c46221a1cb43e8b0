"""Port of NVIDIA/cuda-samples:Samples/2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh (scalarProdGPU)

The CUDA sample's batch of dot products: each block takes vectors ``blockIdx.x,
blockIdx.x + gridDim.x, ...``; its threads fill ``ACCUM_N`` shared accumulators with
strided partial sums, fold them in a tree (a barrier before each level) and thread 0
stores the vector's product.

Spelling: ``blockIdx.x``, ``gridDim.x`` and ``threadIdx.x`` are
``ps.group_id().x``, ``ps.num_groups().x`` and ``ps.local_id().x`` (as ``i32``, since
the sample's loop variables are ``int``), ``blockDim.x`` is the workgroup size
``BLOCK_DIM``, ``__shared__ float accumResult[ACCUM_N]`` is ``ps.shared_array(f32,
ACCUM_N)`` and ``cg::sync(cta)`` is ``ps.barrier()``. C's counted ``for`` loops are
``range`` loops, and the halving one, ``for (stride = ACCUM_N / 2; stride > 0; stride
>>= 1)``, a ``while`` loop. ``IMUL(a, b)`` (``__mul24``) is ``a * b``.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import f32, i32

ACCUM_N = 1024      # a power of two
BLOCK_DIM = 256     # the sample launches 128 blocks of 256 threads
GRID = 6


@ps.kernel(workgroup_size=BLOCK_DIM)
def scalarProdGPU(d_C: ps.Buffer[f32], d_A: ps.Buffer[f32], d_B: ps.Buffer[f32],
                  vectorN: i32, elementN: i32) -> None:
    # Accumulators cache
    accumResult = ps.shared_array(f32, ACCUM_N)

    # Cycle through every pair of vectors, taking into account that vector counts can
    # be different from the total number of thread blocks
    for vec in range(i32(ps.group_id().x), vectorN, i32(ps.num_groups().x)):
        vectorBase = elementN * vec
        vectorEnd = vectorBase + elementN

        # Each accumulator cycles through vectors with stride equal to the total number
        # of accumulators ACCUM_N
        for iAccum in range(i32(ps.local_id().x), ACCUM_N, BLOCK_DIM):
            sum = f32(0)

            for pos in range(vectorBase + iAccum, vectorEnd, ACCUM_N):
                sum += d_A[pos] * d_B[pos]

            accumResult[iAccum] = sum

        # Tree-like reduction of the accumulators' results (ACCUM_N a power of two)
        stride = ACCUM_N // 2
        while stride > 0:
            ps.barrier()

            for iAccum in range(i32(ps.local_id().x), stride, BLOCK_DIM):
                accumResult[iAccum] += accumResult[stride + iAccum]
            stride >>= 1

        ps.barrier()

        if ps.local_id().x == 0:
            d_C[vec] = accumResult[0]


def inputs(rng: np.random.Generator) -> dict:
    """More vectors than blocks (not a multiple of the grid), and vectors longer than
    ACCUM_N but not a multiple of it, as in the sample (whose 4096 is one)."""
    vectorN = int(rng.integers(2 * GRID + 1, 3 * GRID))
    elementN = int(rng.integers(ACCUM_N + 1, 2 * ACCUM_N))
    return {"A": rng.uniform(0.0, 1.0, (vectorN, elementN)).astype(np.float32),
            "B": rng.uniform(0.0, 1.0, (vectorN, elementN)).astype(np.float32)}


def run(dev: ps.Device, A: np.ndarray, B: np.ndarray) -> dict:
    vectorN, elementN = A.shape
    C = dev.zeros(vectorN, np.float32)
    scalarProdGPU.launch(C, A.reshape(-1), B.reshape(-1), np.int32(vectorN), np.int32(elementN),
                         groups=GRID, device=dev)
    return {"C": C.numpy()}


def reference(A: np.ndarray, B: np.ndarray) -> dict:
    return {"C": (A.astype(np.float64) * B.astype(np.float64)).sum(axis=1)}
