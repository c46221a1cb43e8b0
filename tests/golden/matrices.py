"""Matrices (f32, column-major): construction from columns and from scalars,
m @ v, m @ m, v @ m, column access, matrix arithmetic."""

import math

import pyshade as ps
from pyshade import f32, mat2, mat3, mat4, vec2, vec3, vec4


@ps.func
def rotation_z(angle: f32) -> mat3:
    c = math.cos(angle)
    s = math.sin(angle)
    return mat3(vec3(c, s, 0.0), vec3(-s, c, 0.0), vec3(0.0, 0.0, 1.0))


@ps.kernel(workgroup_size=64)
def transform(points: ps.Buffer[vec4], out: ps.Buffer[vec4], model: mat4, view: mat4,
              angle: f32) -> None:
    i = ps.global_id().x
    if i >= len(points):
        return
    mv = view @ model                       # m @ m
    p = mv @ points[i]                      # m @ v
    r = rotation_z(angle)
    q = r @ p.xyz
    q = q @ r                               # v @ m (the transpose's product)
    scale = mat3(2.0, 0.0, 0.0,
                 0.0, 2.0, 0.0,
                 0.0, 0.0, 2.0)
    both = (scale + r) * 0.5 - scale
    first_col = both[0]
    out[i] = vec4(both @ q + first_col, p.w)


@ps.kernel(workgroup_size=64)
def solve2(a: ps.Buffer[mat2], b: ps.Buffer[vec2], x: ps.Buffer[vec2]) -> None:
    """Cramer's rule for 2x2 systems a @ x = b."""
    i = ps.global_id().x
    if i >= len(b):
        return
    m = a[i]
    det = m[0].x * m[1].y - m[1].x * m[0].y
    if abs(det) < 1e-12:
        x[i] = vec2(0.0)
        return
    d = 1.0 / det
    c = mat2(vec2(m[1].y, -m[0].y), vec2(-m[1].x, m[0].x))
    inv = c * d                             # a scalar named d, a matrix named c
    m[1] = vec2(1.0, 1.0)
    x[i] = inv @ b[i]
