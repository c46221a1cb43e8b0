"""Buffers of 3-component vectors in numpy's packed (n, 3) layout: declared as arrays of
their scalar, each element three scalars at 3 * i + k (whole elements, components,
swizzles, run-time component indices, augmented stores, a helper, i32 indices)."""

import pyshade as ps
from pyshade import f32, i32, ivec3, u32, uvec3, vec3


def shade(pts: ps.Buffer[vec3], i: u32) -> f32:
    return ps.dot(pts[i], vec3(0.25, 0.5, 0.25))


@ps.kernel(workgroup_size=64)
def vec3_buffers(pts: ps.Buffer[vec3], vel: ps.Buffer[vec3], cells: ps.Buffer[ivec3],
                 flags: ps.Buffer[uvec3], out: ps.Buffer[f32], dt: f32, k: i32) -> None:
    i = ps.global_id().x
    if i >= len(pts):
        return
    pts[i] = pts[i] + vel[i] * dt
    pts[i].y = pts[i].y - 9.75 * dt
    vel[i] += vel[i].zxy * 0.5
    vel[i][k] = 0.0
    j = i32(i) - 1
    c = cells[j] if j >= 0 else ivec3(0)
    cells[i] = c + ivec3(1, 2, 3)
    flags[i].z = flags[i].x | flags[i][u32(k)]
    out[i] = shade(pts, i) + pts[0].x + f32(len(vel))
