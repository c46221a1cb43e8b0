"""f32 atomics on buffer elements and on shared array elements: add, sub, min, max,
exchange and compare-exchange, each returning the old value; plain reads and writes
of atomic f32 elements."""

import math

import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=64)
def float_buffer(values: ps.Buffer[f32], acc: ps.Buffer[f32], old: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(values):
        return
    v = values[i]
    old[i] = ps.atomic_add(acc, 0, v)
    ps.atomic_sub(acc, 1, v)
    ps.atomic_min(acc, 2, v)
    ps.atomic_max(acc, 3, v)
    prev = ps.atomic_exchange(acc, 4, v)
    seen = ps.atomic_compare_exchange(acc, 5, -1.0, f32(i))
    if seen == -1.0:
        old[i] += prev
    acc[6] = acc[7] * 0.5                       # plain accesses of atomic elements


@ps.kernel(workgroup_size=64)
def float_shared(values: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    """Sum, difference, min and max per workgroup in shared memory, merged into out."""
    tile = ps.shared_array(f32, 4)
    lid = ps.local_index()
    if lid == 0:
        tile[0] = 0.0
        ps.atomic_exchange(tile, 1, 0.0)
        tile[2] = math.inf
        tile[3] = -math.inf
    ps.barrier()
    i = ps.global_id().x
    if i < len(values):
        v = values[i]
        ps.atomic_add(tile, 0, v)
        ps.atomic_sub(tile, 1, v)
        ps.atomic_min(tile, 2, v)
        ps.atomic_max(tile, 3, v)
    ps.barrier()
    if lid == 0:
        total = tile[0]
        ps.atomic_add(out, 0, total)
        ps.atomic_add(out, 1, tile[1])
        ps.atomic_min(out, 2, tile[2])
        ps.atomic_max(out, 3, tile[3])
        ps.atomic_compare_exchange(tile, 0, total, 0.0)
