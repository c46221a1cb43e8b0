"""Assignment forms: annotated, augmented (every operator), tuple assignment,
swaps through buffers and vector components, chained targets."""

import pyshade as ps
from pyshade import f32, i32, u32


@ps.kernel(workgroup_size=64)
def fibonacci(out: ps.Buffer[u32], steps: u32) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    a: u32 = 0
    b: u32 = 1
    for _ in range(steps + i):
        a, b = b, a + b             # both values are read before either is written
    out[i] = a


@ps.kernel(workgroup_size=64)
def augmented(ints: ps.Buffer[i32], uints: ps.Buffer[u32], floats: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(ints):
        return
    x: i32 = ints[i]
    x += 3
    x -= 1
    x *= 7
    x //= 2
    x %= 1000
    x <<= 2
    x >>= 1
    x &= 0x7FFF
    x |= 1
    x ^= 0x55
    x **= 2
    ints[i] = x
    u: u32 = uints[i]
    u -= 10                         # wraps below zero
    u //= 3
    u %= 7
    uints[i] += u
    f: f32 = floats[i]
    f /= 3.0
    f //= 0.5
    f %= 2.0
    f -= 0.25
    floats[i] *= f


@ps.kernel(workgroup_size=64)
def swaps(data: ps.Buffer[i32], pts: ps.Buffer[ps.vec2]) -> None:
    i = ps.global_id().x
    j = i ^ 1
    if j >= len(data) or i > j:
        return
    data[i], data[j] = data[j], data[i]             # swap two buffer elements
    p = pts[i]
    p.x, p.y = p.y, p.x                             # swap vector components
    lo = hi = data[i]                               # chained targets
    x, y, z = lo + 1, hi - 1, lo * hi               # three values
    x, y, z = z, x, y                               # rotate
    pts[i] = p
    data[j] = x + y + z
