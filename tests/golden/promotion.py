"""Python's numeric promotion: an integer next to a float becomes that float, `/` of two
integers is true division (f32), comparisons of ints with floats, and ps.tid(), the
signed 1-D id of ports from Warp."""

import pyshade as ps
from pyshade import f32, i32, u32


@ps.kernel(workgroup_size=64)
def histogram_bins(x: ps.Buffer[f32], out: ps.Buffer[u32], xmin: f32, xmax: f32,
                   nbins: u32) -> None:
    i = ps.global_id().x
    if i < len(x):
        width = (xmax - xmin) / nbins           # u32 nbins: f32 division
        b = int((x[i] - xmin) / width)
        out[i] = u32(min(max(b, 0), i32(nbins) - 1))


@ps.kernel(workgroup_size=64)
def mixed(a: ps.Buffer[i32], b: ps.Buffer[u32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(a):
        half = a[i] * 0.5                       # i32 * float literal
        ratio = a[i] / b[i] if b[i] != 0 else 0.0     # true division of two ints
        noise = (b[i] >> 8) * (1.0 / 16777216.0)   # an integer scaled into [0, 1)
        mean = (a[i] + b[i] / 2) / 3            # literal 2 and 3 follow the floats
        out[i] = half + ratio + noise + mean if a[i] < 0.5 else half - mean


@ps.kernel(workgroup_size=64)
def signed_index(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.tid()
    if i - 1 >= 0 and i < i32(len(x)):
        out[i] = x[i] - x[i - 1]
