"""Port of NVIDIA/cuda-samples:Samples/0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh (testKernel)

The CUDA sample that runs every integer atomic once per thread on eleven ``int``
counters: add, sub, exchange, max, min, increment and decrement with wrap-around,
compare-and-swap, and, or, xor. The sample's ``computeGold`` checks the result.

Spelling: ``blockDim.x * blockIdx.x + threadIdx.x`` is ``ps.global_id().x`` and
``atomicAdd(&g_odata[0], 10)`` is ``ps.atomic_add(g_odata, 0, 10)`` (likewise sub,
exchange, max, min, and, or, xor, and ``atomicCAS`` is ``ps.atomic_compare_exchange``);
the unsigned ``tid`` becomes an ``i32`` where it is stored in the ``int`` buffer.
pyshade has no ``atomicInc``/``atomicDec``: ``atomic_inc`` and ``atomic_dec`` below do
what CUDA documents for them (``old >= limit ? 0 : old + 1`` and ``old == 0 || old >
limit ? limit : old - 1``) with a compare-exchange loop. ``1 << tid`` shifts by up to
the thread count, past 31, which C leaves undefined (x86, where ``computeGold`` runs,
shifts by ``tid & 31``; the cpu device raises): here it is ``1 << (tid & 31)``, which
sets the same 32 bits once 32 threads have run.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32

NUM_THREADS = 64      # the sample runs 64 blocks of 256 threads


def atomic_inc(buf: ps.Buffer[i32], i: i32, limit: i32) -> i32:
    """CUDA's atomicInc: ``buf[i] = 0 if old >= limit else old + 1``; returns old."""
    old = buf[i]
    while True:
        new = 0 if old >= limit else old + 1
        seen = ps.atomic_compare_exchange(buf, i, old, new)
        if seen == old:
            break
        old = seen
    return old


def atomic_dec(buf: ps.Buffer[i32], i: i32, limit: i32) -> i32:
    """CUDA's atomicDec: ``buf[i] = limit if old == 0 or old > limit else old - 1``."""
    old = buf[i]
    while True:
        new = limit if old == 0 or old > limit else old - 1
        seen = ps.atomic_compare_exchange(buf, i, old, new)
        if seen == old:
            break
        old = seen
    return old


@ps.kernel(workgroup_size=NUM_THREADS)
def testKernel(g_odata: ps.Buffer[i32]) -> None:
    # access thread id
    tid = ps.global_id().x

    # Arithmetic atomic instructions
    ps.atomic_add(g_odata, 0, 10)
    ps.atomic_sub(g_odata, 1, 10)
    ps.atomic_exchange(g_odata, 2, i32(tid))
    ps.atomic_max(g_odata, 3, i32(tid))
    ps.atomic_min(g_odata, 4, i32(tid))
    atomic_inc(g_odata, 5, 17)           # increment modulo 17 + 1
    atomic_dec(g_odata, 6, 137)
    ps.atomic_compare_exchange(g_odata, 7, i32(tid) - 1, i32(tid))

    # Bitwise atomic instructions
    ps.atomic_and(g_odata, 8, 2 * i32(tid) + 7)
    ps.atomic_or(g_odata, 9, 1 << i32(tid & 31))
    ps.atomic_xor(g_odata, 10, i32(tid))


def inputs(rng: np.random.Generator) -> dict:
    """A random number of blocks; the counters start as the sample sets them."""
    g_odata = np.zeros(11, np.int32)
    g_odata[8] = g_odata[10] = 0xff      # so that AND and XOR give something other than 0
    return {"g_odata": g_odata, "blocks": int(rng.integers(3, 9))}


def run(dev: ps.Device, g_odata: np.ndarray, blocks: int) -> dict:
    d = dev.array(g_odata)
    testKernel.launch(d, groups=blocks, device=dev)
    return {"g_odata": d.numpy()}


def reference(g_odata: np.ndarray, blocks: int) -> dict:
    """What ``computeGold`` accepts, as exact values: the exchange and compare-and-swap
    slots (2 and 7) hold some thread id, which depends on the order the threads ran in,
    so the reference holds -1 there and the test checks them for membership."""
    n = blocks * NUM_THREADS
    out = g_odata.copy()
    out[0] += 10 * n
    out[1] -= 10 * n
    out[2] = -1
    out[3] = max(out[3], n - 1)
    out[4] = min(out[4], 0)
    for _ in range(n):
        out[5] = 0 if out[5] >= 17 else out[5] + 1
        out[6] = 137 if out[6] == 0 or out[6] > 137 else out[6] - 1
    out[7] = -1
    for i in range(n):
        out[8] &= 2 * i + 7
        out[9] |= np.int32(np.uint32(1 << (i & 31)).view(np.int32))
        out[10] ^= i
    return {"g_odata": out}
