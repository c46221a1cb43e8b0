"""Python integer semantics on fixed-width types: floor // and %, wrapping,
arithmetic >> on signed values, bit operations, ** with a constant exponent."""

import pyshade as ps
from pyshade import f32, i32, u32


@ps.kernel(workgroup_size=64)
def signed_ops(a: ps.Buffer[i32], b: ps.Buffer[i32], out: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    x = a[i]
    y = b[i]
    q = x // y                  # floors toward -inf
    r = x % y                   # sign of the divisor
    r2 = x % 16                 # constant divisor
    q2 = -x // 4
    wrapped = x * 65536 + 2147483647
    sh = (x >> 3) + (y << 2)    # >> is arithmetic on i32
    bits = (x & 0xFF) | (y ^ ~x)
    cube = x ** 3
    out[i] = q + r + r2 + q2 + wrapped + sh + bits + cube + (-y)


@ps.kernel(workgroup_size=64)
def unsigned_ops(a: ps.Buffer[u32], out: ps.Buffer[u32], k: u32) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    x = a[i]
    h = x * 2654435761          # wraps modulo 2**32
    h ^= h >> 16
    h = (h << 5) | (h >> 27)
    neg = -x                    # 2**32 - x
    inv = ~x
    sq = x ** 2
    one = x ** 0
    out[i] = h + x // k + x % k + neg + inv + sq + one + (x >> k) + (u32(1) << (k & 31))


@ps.kernel(workgroup_size=64)
def float_ops(a: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    x = a[i]
    fq = x // 0.25              # floor(x / 0.25)
    fm = x % -1.5               # sign of the divisor
    p = x ** 4
    out[i] = fq + fm + p / 2.0 - x * -1.0


@ps.kernel(workgroup_size=64)
def logic(a: ps.Buffer[i32], flags: ps.Buffer[u32], lo: i32, hi: i32) -> None:
    i = ps.global_id().x
    if i >= len(a):
        return
    x = a[i]
    inside = lo <= x < hi                       # chained comparison
    ordered = lo < hi <= 100 != x               # three links
    both = inside and not ordered
    either = x == 0 or (x > 0 and a[i - 1 if i > 0 else i] < x)   # short-circuit
    sign = 1 if x > 0 else (-1 if x < 0 else 0)
    f: u32 = 0
    if both:
        f |= 1
    if either or not inside:
        f |= 2
    flags[i] = f | u32(sign & 4)
