"""Every atomic, on buffer elements (u32 and i32) and on shared array elements;
each returns the old value."""

import pyshade as ps
from pyshade import i32, u32


@ps.kernel(workgroup_size=64)
def counters(values: ps.Buffer[u32], stats: ps.Buffer[u32], signed: ps.Buffer[i32],
             old: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(values):
        return
    v = values[i]
    slot = ps.atomic_add(stats, 0, 1)           # a ticket: the old count
    old[i] = slot
    ps.atomic_sub(stats, 1, v & 3)
    ps.atomic_min(stats, 2, v)
    ps.atomic_max(stats, 3, v)
    ps.atomic_and(stats, 4, ~(u32(1) << (v & 31)))
    ps.atomic_or(stats, 5, u32(1) << (v & 31))
    ps.atomic_xor(stats, 6, v)
    prev = ps.atomic_exchange(stats, 7, i)
    seen = ps.atomic_compare_exchange(stats, 8, 0, v)
    if seen == 0:
        old[i] += prev
    first, second = ps.atomic_add(stats, 9, 1), ps.atomic_add(stats, 9, 1)   # in order
    old[i] += second - first
    d = i32(v) - 100
    ps.atomic_add(signed, 0, d)
    ps.atomic_min(signed, 1, d)
    ps.atomic_max(signed, 2, d)
    ps.atomic_compare_exchange(signed, 3, -1, d)
    signed_i = i32(i % 4) + 4
    ps.atomic_exchange(signed, signed_i, -d)


@ps.kernel(workgroup_size=64)
def local_histogram(keys: ps.Buffer[u32], hist: ps.Buffer[u32]) -> None:
    """Count keys % 16 per workgroup in shared memory, then merge into hist."""
    bins = ps.shared_array(u32, 16)
    lid = ps.local_index()
    if lid < 16:
        ps.atomic_exchange(bins, lid, 0)
    ps.barrier()
    i = ps.global_id().x
    if i < len(keys):
        ps.atomic_add(bins, keys[i] % 16, 1)
    ps.barrier()
    if lid < 16:
        count = bins[lid]
        ps.atomic_add(hist, lid, count)
        ps.atomic_max(bins, lid, ps.atomic_min(bins, lid, count))
        ps.atomic_and(bins, lid, 0xFF)
        ps.atomic_or(bins, lid, 1)
        ps.atomic_xor(bins, lid, 2)
        ps.atomic_sub(bins, lid, 1)
        ps.atomic_compare_exchange(bins, lid, count, 0)
