"""pyshade's own builtins: clamp, mix, step, smoothstep, dot, cross, length,
normalize, distance, fma, select, bitcast, popcount, reverse_bits,
count_leading_zeros."""

import pyshade as ps
from pyshade import f32, i32, u32, vec2, vec3, vec4


@ps.kernel(workgroup_size=64)
def blend(pa: ps.Buffer[vec4], pb: ps.Buffer[vec4], t: ps.Buffer[f32], out: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    a = pa[i].xyz
    b = pb[i].xyz
    k = ps.clamp(t[i], 0.0, 1.0)
    m = ps.mix(a, b, k)                       # scalar weight
    m2 = ps.mix(a, b, vec3(k, 0.5, 1.0 - k))  # per-component weights
    edge = ps.step(0.5, k)
    soft = ps.smoothstep(0.2, 0.8, k)
    n = ps.normalize(ps.cross(a, b))
    far = ps.distance(a, b) > ps.length(m)
    w = ps.fma(k, edge, soft)
    picked = ps.select(m, m2, far)                  # m2 where far, else m
    lanes = ps.select(vec2(0.0), vec2(1.0), vec2(w) > vec2(0.5, 0.7))
    out[i] = vec4(picked + n * ps.dot(m, m2), 1.0) + vec4(lanes, ps.step(vec2(0.1), lanes))


@ps.kernel(workgroup_size=64)
def bits(x: ps.Buffer[u32], f: ps.Buffer[f32], out: ps.Buffer[u32], signed: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(x):
        return
    v = x[i]
    raw = ps.bitcast(u32, f[i])                     # the float's bit pattern
    back = ps.bitcast(f32, raw ^ 0x80000000)        # flip the sign bit
    s = ps.bitcast(i32, v)
    out[i] = ps.popcount(v) + ps.reverse_bits(v) + ps.count_leading_zeros(v | 1) + raw
    signed[i] = ps.popcount(s) + ps.count_leading_zeros(s) + ps.reverse_bits(s) \
        + ps.clamp(s, -10, 10) + i32(back)
    f[i] = ps.clamp(back, -1.0, 1.0)
