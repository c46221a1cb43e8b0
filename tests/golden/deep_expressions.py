"""A chain of 40 products, more than 32 levels deep: written in pieces of 32 levels,
each in a temporary, since the targets' compilers limit nesting."""

import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=64)
def long_sum(a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(out):
        out[i] = (a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i]
              + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i] + a[i] * b[i])
