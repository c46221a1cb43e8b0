"""Constant tables: module-level tuples and lists of numbers (1-D and 2-D, f32, i32
and u32 elements) read at run-time indices in a kernel and a helper; len() of a table;
loops over a table and over a tuple literal, unrolled (with continue and break); list
literals as local arrays; a row of a 2-D table read whole (a copy)."""

import pyshade as ps
from pyshade import Buffer, f32, i32, u32

W = (0.25, 0.5, 0.25)
K = ((1, 2, 3), (4, 5, 6))
BIG = [1, 2, 3000000000]
OFFS = (-1, 0, 1)


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


@ps.kernel(workgroup_size=64)
def seq(src: ps.Buffer[f32], dst: ps.Buffer[f32], idx: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    acc: f32 = 0.0
    for w in W:
        acc += w
    for d in OFFS:
        j = i32(i) + d
        if j < 0:
            continue
        acc += src[j % i32(len(src))]
    x = src[i]
    for s in (x, x * 2.0, 3.0):
        x = 0.0
        acc += s
    first = -1
    for v in (5, 7, 9, 11):
        if (i32(i) + v) % 3 == 0:
            first = v
            break
    dst[i] = acc
    idx[i] = first


@ps.kernel(workgroup_size=64)
def lists(src: ps.Buffer[f32], dst: ps.Buffer[f32], k: u32) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    x = src[i]
    w = [0.25, x, 0.25 * x]
    w[1] += 1.0
    n = [1, 2, 3]
    acc: f32 = 0.0
    for j in range(len(w)):
        acc += w[j] * f32(n[j])
    dst[i] = acc + w[k % 3]


@ps.kernel(workgroup_size=64)
def rows(dst: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(dst):
        return
    row = K[i % 2]
    dst[i] = row[0] + row[1] * 10 + row[2] * 100
