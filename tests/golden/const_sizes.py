"""Array lengths from compile-time expressions (issue 18, item 6): ``ps.array`` and
``ps.shared_array`` sized by module constants, ``Const[int]`` parameters and
arithmetic of them, a shared array as long as the workgroup (``BLOCK * 2``)."""

import pyshade as ps
from pyshade import f32, i32, u32

BLOCK = 32
OVERFLOW = 1                # one more bin, for the keys past the last


@ps.kernel(workgroup_size=BLOCK * 2)
def block_reverse(data: ps.Buffer[f32]) -> None:
    """Reverse each workgroup's slice of ``data`` (a whole number of groups)."""
    tile = ps.shared_array(f32, BLOCK * 2)
    i = ps.global_id().x
    j = ps.local_index()
    tile[j] = data[i]
    ps.barrier()
    data[i] = tile[BLOCK * 2 - 1 - j]


@ps.kernel(workgroup_size=64)
def window_sum(src: ps.Buffer[f32], dst: ps.Buffer[f32], radius: ps.Const[int]) -> None:
    """dst[i] = the sum of src[i - radius .. i + radius] (zero outside)."""
    i = ps.global_id().x
    if i >= len(dst):
        return
    w = ps.array(f32, 2 * radius + 1)
    for k in range(len(w)):
        j = i32(i) + i32(k) - radius
        if 0 <= j < i32(len(src)):
            w[k] = src[j]
    acc: f32 = 0.0
    for k in range(len(w)):
        acc += w[k]
    dst[i] = acc


@ps.kernel(workgroup_size=64)
def group_histogram(keys: ps.Buffer[u32], out: ps.Buffer[u32], nbins: ps.Const[int]) -> None:
    """Per workgroup, the count of each key below ``nbins`` and (last) of the others."""
    counts = ps.shared_array(u32, nbins + OVERFLOW)
    li = ps.local_index()
    i = ps.global_id().x
    for b in range(li, nbins + OVERFLOW, 64):
        counts[b] = 0
    ps.barrier()
    if i < len(keys):
        ps.atomic_add(counts, min(keys[i], u32(nbins)), 1)
    ps.barrier()
    g = ps.group_id().x
    for b in range(li, nbins + OVERFLOW, 64):
        out[g * (nbins + OVERFLOW) + b] = counts[b]


SPECS = {"window_sum": {"radius": 2}, "group_histogram": {"nbins": 5}}
