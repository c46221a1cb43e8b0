"""Constant tables: module-level tuples and lists of numbers (1-D and 2-D, f32, i32
and u32 elements) read at run-time indices in a kernel and a helper; len() of a table."""

import pyshade as ps
from pyshade import Buffer, f32, u32

W = (0.25, 0.5, 0.25)
K = ((1, 2, 3), (4, 5, 6))
BIG = [1, 2, 3000000000]


def weight(i: u32) -> f32:
    return W[i]

@ps.kernel(workgroup_size=64)
def blur(src: Buffer[f32], dst: Buffer[f32], n: u32) -> None:
    i = ps.global_id().x
    if i < n:
        acc = 0.0
        for j in range(len(W)):
            acc += weight(u32(j)) * src[(i + u32(j)) % n]
        dst[i] = acc + f32(K[i % 2][i % 3]) + f32(BIG[i % 3] % 7)
