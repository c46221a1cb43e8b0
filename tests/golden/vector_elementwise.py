"""Element-wise builtins of vectors: abs, min and max of float, signed and unsigned vectors
(per component, with Python's rules for NaN and -0.0), all() and any() of bool vectors,
and a matrix divided by a scalar or multiplied by one on the left (WGSL and MSL have no
matrix / scalar: a generated function divides each column)."""

import pyshade as ps
from pyshade import f32, ivec4, mat2, mat3, mat4, u32, uvec2, vec4


@ps.kernel(workgroup_size=64)
def float_minmax(a: ps.Buffer[vec4], b: ps.Buffer[vec4], out: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    if i >= len(a):
        return
    out[i * 3] = abs(a[i])
    out[i * 3 + 1] = min(a[i], b[i])
    out[i * 3 + 2] = max(a[i], b[i])


@ps.kernel(workgroup_size=64)
def int_minmax(a: ps.Buffer[ivec4], b: ps.Buffer[ivec4], c: ps.Buffer[uvec2],
               d: ps.Buffer[uvec2], iout: ps.Buffer[ivec4], uout: ps.Buffer[uvec2]) -> None:
    i = ps.global_id().x
    if i >= len(a):
        return
    iout[i * 3] = abs(a[i])
    iout[i * 3 + 1] = min(a[i], b[i])
    iout[i * 3 + 2] = max(a[i], b[i])
    uout[i * 3] = abs(c[i])
    uout[i * 3 + 1] = min(c[i], d[i])
    uout[i * 3 + 2] = max(c[i], d[i])


@ps.kernel(workgroup_size=64)
def all_any(a: ps.Buffer[vec4], b: ps.Buffer[vec4], out: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(a):
        return
    less = a[i] < b[i]
    bits = u32(0)
    if all(less):
        bits |= u32(1)
    if any(less):
        bits |= u32(2)
    if all(a[i].xy <= b[i].xy):
        bits |= u32(4)
    if any(a[i].xyz > b[i].xyz):
        bits |= u32(8)
    out[i] = bits


@ps.kernel(workgroup_size=64)
def matrix_scalar(m2: ps.Buffer[mat2], m3: ps.Buffer[mat3], m4: ps.Buffer[mat4],
                  s: ps.Buffer[f32], o2: ps.Buffer[mat2], o3: ps.Buffer[mat3],
                  o4: ps.Buffer[mat4]) -> None:
    i = ps.global_id().x
    if i >= len(s):
        return
    d = s[i]
    o2[i * 2] = m2[i] / d
    o2[i * 2 + 1] = d * m2[i]
    o3[i * 2] = m3[i] / d
    o3[i * 2 + 1] = d * m3[i]
    o4[i * 2] = (m4[i] + m4[i]) / (d + 1.0)
    o4[i * 2 + 1] = 2.0 * m4[i]
