"""The smallest kernel: y = a * x + y, with a bound check on len(x)."""

import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=64)
def saxpy(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32) -> None:
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


@ps.kernel(workgroup_size=(8, 8, 1))
def scale_rows(m: ps.Buffer[f32], width: ps.u32, height: ps.u32, factor: f32) -> None:
    """Scale each row of a width x height matrix by (row + 1) * factor."""
    gid = ps.global_id()
    col: ps.u32 = gid.x
    row: ps.u32 = gid.y
    if col >= width or row >= height:
        return
    s: f32 = float(row + 1) * factor
    m[row * width + col] *= s
