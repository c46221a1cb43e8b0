"""Vectors: construction (components, splat, concatenation, conversion),
components and swizzles, component assignment, element-wise arithmetic with
scalar broadcast, vector builtins, integer and bool vectors."""

import pyshade as ps
from pyshade import bvec3, ivec2, u32, uvec4, vec2, vec3, vec4


@ps.kernel(workgroup_size=64)
def shade(normals: ps.Buffer[vec4], colors: ps.Buffer[vec4], light: vec3, tint: vec4) -> None:
    i = ps.global_id().x
    if i >= len(normals):
        return
    n = ps.normalize(normals[i].xyz)           # Buffer[vec3] has no portable layout
    l_dir = ps.normalize(-light)
    diffuse = max(ps.dot(n, l_dir), 0.0)
    h = ps.normalize(l_dir + vec3(0.0, 0.0, 1.0))
    spec = ps.dot(n, h) ** 8
    base = vec3(diffuse) * tint.rgb + spec
    c = vec4(base, tint.a)
    c.w = 1.0
    side = ps.cross(n, vec3(0.0, 1.0, 0.0))
    c = vec4(c.xyz * 0.5 + side.zyx * 0.5, c.w)
    c.x += ps.length(side) - ps.distance(n, h)
    colors[i] = ps.clamp(c, vec4(0.0), vec4(1.0))


@ps.kernel(workgroup_size=64)
def int_vectors(cells: ps.Buffer[ivec2], hist: ps.Buffer[uvec4], size: ivec2) -> None:
    i = ps.global_id().x
    if i >= len(cells):
        return
    c = cells[i]
    wrapped = c % size                      # floor modulo, per component
    halves = c // 2
    mirrored = ivec2(-c.y, c.x) + ivec2(1)
    inside: bool = wrapped.x >= 0 and wrapped.x < size.x
    u = uvec4(u32(wrapped.x), u32(wrapped.y), u32(halves.x), u32(mirrored.y))
    u = (u << uvec4(1, 2, 3, 4)) ^ (u >> 1) & uvec4(255)
    v2 = vec2(c)                            # int -> float conversion
    w = ivec2(v2 * 0.5)                     # float -> int truncates
    flags = bvec3(inside, c.x == w.x, c.y < 0)
    if flags.x and not flags.z:
        u.w += 1
    hist[i] = u + uvec4(u32(w.x & 1))
