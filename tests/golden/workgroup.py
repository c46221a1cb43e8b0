"""Workgroup cooperation: shared arrays, barrier(), and every invocation id
(global_id, local_id, group_id, num_groups, local_index)."""

import pyshade as ps
from pyshade import f32, u32, uvec3, uvec4

GROUP = 64


@ps.kernel(workgroup_size=GROUP)
def block_sum(src: ps.Buffer[f32], partial: ps.Buffer[f32]) -> None:
    """Tree reduction of each workgroup's block into partial[group]."""
    tile = ps.shared_array(f32, GROUP)
    gid = ps.global_id().x
    lid = ps.local_id().x
    v: f32 = 0.0
    if gid < len(src):
        v = src[gid]
    tile[lid] = v
    ps.barrier()
    stride: u32 = GROUP // 2
    while stride > 0:
        if lid < stride:
            tile[lid] += tile[lid + stride]
        ps.barrier()
        stride >>= 1
    if lid == 0:
        partial[ps.group_id().x] = tile[0]


@ps.kernel(workgroup_size=(4, 4, 2))
def ids(out: ps.Buffer[uvec4], flat: ps.Buffer[u32]) -> None:
    g = ps.global_id()
    n = ps.num_groups()
    size = n * uvec3(4, 4, 2)
    linear = g.x + g.y * size.x + g.z * size.x * size.y
    out[linear] = uvec4(ps.group_id() * 100 + ps.local_id(), n.x)
    flat[linear] = ps.local_index() + ps.group_id().x * 32


@ps.kernel(workgroup_size=GROUP)
def transpose_tiles(src: ps.Buffer[f32], dst: ps.Buffer[f32], n: u32) -> None:
    """Reverse each block of 64 values through shared memory."""
    buf = ps.shared_array(f32, GROUP)
    i = ps.local_index()
    base = ps.group_id().x * GROUP
    if base + i < n:
        buf[i] = src[base + i]
    ps.barrier()
    j = GROUP - 1 - i
    if base + i < n and base + j < n:
        dst[base + i] = buf[j]
