"""Tuples: helpers that ``return a, b`` (scalars, vectors, a struct; declared
``tuple[...]`` or inferred; early returns of the same shape), callers that unpack
them into new and existing variables, a tuple passed to a helper (``f((a, b))``), and
unpacking of vectors and swizzles."""

import pyshade as ps
from pyshade import f32, i32, u32, uvec3, vec2, vec3


@ps.struct
class Span:
    lo: f32
    hi: f32


def divmod_u(a: u32, b: u32) -> tuple[u32, u32]:
    if b == 0:
        return 0, a
    return a // b, a % b


def split(p: vec3) -> tuple[vec2, f32, bool]:
    return p.xy, p.z, p.z > 0.0


def bounds(x: f32, y: f32) -> tuple[Span, i32]:
    if x < y:
        return Span(lo=x, hi=y), i32(-1)
    return Span(lo=y, hi=x), 1


def polar(v: vec2) -> tuple[f32, f32, f32, u32]:
    r = ps.length(v)
    return r, v.x / r, v.y / r, u32(r)


def weigh(pair: tuple[u32, f32], scale: f32) -> f32:
    n, w = pair
    return f32(n) * w * scale


@ps.kernel(workgroup_size=64)
def unpack(data: ps.Buffer[u32], pts: ps.Buffer[vec3], out: ps.Buffer[f32]) -> None:
    i, _unused, _z = ps.global_id()
    if i >= len(data):
        return
    q, r = divmod_u(data[i], 7)
    gx, gy = ps.global_id().xy
    xy, z, up = split(pts[i])
    a, b = xy
    s, order = bounds(a, b)
    q, r = r, q
    r, q = divmod_u(q + gx + gy, r + 1)
    rad, c, sn, ri = polar(vec2(a, z))
    x, y, w = pts[i].zyx
    c3: uvec3 = ps.global_id()
    k0, k1, k2 = c3
    if up:
        out[i] = s.hi - s.lo + f32(order) + rad * c + sn + f32(ri) + x + y + w
    else:
        out[i] = weigh((q, 0.5), 2.0)
    data[i] = q * 1000 + r + k0 + k1 + k2
