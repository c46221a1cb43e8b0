"""Local arrays: ps.array(T, N) (zero-initialised), indexing with runtime and
constant indices, len(), arrays of vectors and structs, ps.unroll loops."""

import pyshade as ps
from pyshade import f32, i32, u32, vec2

TAPS = 5


@ps.struct
class Bin:
    lo: f32
    count: u32


@ps.kernel(workgroup_size=64)
def fir(src: ps.Buffer[f32], dst: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    w = ps.array(f32, TAPS)
    for k in ps.unroll(range(TAPS)):
        w[k] = 1.0 / f32(k + 1)
    acc: f32 = 0.0
    for t in range(len(w)):
        j = i32(i) - i32(t)
        if j >= 0:
            acc += w[t] * src[j]
    dst[i] = acc


@ps.kernel(workgroup_size=64)
def sort8(data: ps.Buffer[i32]) -> None:
    """Insertion sort of 8 consecutive values in a local array."""
    base = ps.global_id().x * 8
    if base + 8 > len(data):
        return
    v = ps.array(i32, 8)
    for k in ps.unroll(range(8)):
        v[k] = data[base + u32(k)]
    for k in range(1, 8):
        x = v[k]
        j = k - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x
    for k in ps.unroll(range(7, -1, -1)):       # negative step, unrolled
        data[base + u32(k)] = v[k]


@ps.kernel(workgroup_size=64)
def histogram(samples: ps.Buffer[f32], bins_out: ps.Buffer[Bin], pts: ps.Buffer[vec2]) -> None:
    if ps.global_id().x != 0:
        return
    bins = ps.array(Bin, 4)
    corners = ps.array(vec2, 2)
    for b in range(4):
        bins[b].lo = f32(b) * 0.25
    for s in range(len(samples)):
        x = samples[s]
        for b in ps.unroll(range(3, -1, -1)):
            if x >= bins[b].lo:
                bins[b].count += 1
                break                       # unroll keeps a loop when it breaks
        corners[0] = min(corners[0], vec2(x))
        corners[1].y = max(corners[1].y, x)
    copy = bins                             # arrays are values: this copies
    copy[0].count = 0
    for t in range(len(bins)):
        bins_out[t] = bins[t]
    pts[0] = corners[0]
    pts[1] = corners[1] + vec2(f32(copy[0].count))
