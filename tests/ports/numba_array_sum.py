"""Port of numba/numba:numba/cuda/tests/doc_examples/test_reduction.py (array_sum)

The shared-memory reduction of numba's documentation ("Shared Memory Reduction" in
docs/source/cuda/examples.rst): one block folds its elements pairwise, the stride
doubling after each ``cuda.syncthreads()``, and thread 0 writes the block's sum over
``data[0]``.

Spelling: ``cuda.threadIdx.x`` is ``ps.local_id().x``, ``cuda.grid(1)`` is
``ps.global_id().x``, ``cuda.blockDim.x`` is the workgroup size ``nelem``,
``cuda.shared.array(nelem, int32)`` is ``ps.shared_array(i32, nelem)`` and
``cuda.syncthreads()`` is ``ps.barrier()``; the stride ``s`` is a ``u32`` like the
thread index it divides. Two changes of shape, both refused in the original form:
numba declares the shared array and calls ``syncthreads()`` inside
``if tid < size:``, and pyshade wants a shared array at the top level of the kernel
and every barrier outside a condition that differs between invocations (``tid``). So
only the load is guarded, and an invocation past the end loads 0. (The example relies
on its launch, ``array_sum.forall(len(a))`` over 1024 elements, putting every element
in one block of ``len(a)`` threads, where the guard holds for every thread.)
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32

nelem = 256       # the block size, and the shared array's length (numba: len(a))


@ps.kernel(workgroup_size=nelem)
def array_sum(data: ps.Buffer[i32]) -> None:
    tid = ps.local_id().x
    size = len(data)
    shr = ps.shared_array(i32, nelem)
    i = ps.global_id().x
    if tid < size:
        shr[tid] = data[i]
    else:
        shr[tid] = 0

    # make sure every thread has written its value to shared memory
    # before the reduction starts
    ps.barrier()

    s = u32(1)
    while s < nelem:
        if tid % (2 * s) == 0:
            # stride by s and add
            shr[tid] += shr[tid + s]
        s *= 2
        ps.barrier()

    # after the loop, element 0 holds the sum
    if tid == 0:
        data[tid] = shr[tid]


def inputs(rng: np.random.Generator) -> dict:
    """One block's worth of data or less (the kernel sums one block), of either sign."""
    n = int(rng.integers(nelem // 2, nelem + 1))
    return {"data": rng.integers(-100_000, 100_000, n, dtype=np.int32)}


def run(dev: ps.Device, data: np.ndarray) -> dict:
    d = dev.array(data)
    array_sum.launch(d, groups=1, device=dev)
    return {"data": d.numpy()}


def reference(data: np.ndarray) -> dict:
    out = data.copy()
    out[0] = data.sum(dtype=np.int64).astype(np.int32)
    return {"data": out}
