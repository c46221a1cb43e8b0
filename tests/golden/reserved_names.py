"""Python names that are keywords or reserved words in some target language:
they are renamed in the output (out_, kernel_, ...), consistently."""

from typing import Literal

import pyshade as ps
from pyshade import f32, i32, u32


@ps.struct
class Layout:
    loop: u32
    var: f32
    out: ps.Array[f32, Literal[2]]


def main(device: f32, half: f32) -> f32:
    var = device * half
    return var


@ps.kernel(workgroup_size=64)
def kernel(out: ps.Buffer[f32], layout: ps.Buffer[u32], uniform: f32, struct: Layout,
           loop: u32, threadgroup: ps.Buffer[Layout]) -> None:
    threadIdx = ps.global_id().x
    if threadIdx >= len(out):
        return
    let = layout[threadIdx]
    fn = f32(let) * uniform
    vec4 = fn + 1.0
    __x = main(vec4, 0.5)
    gl_x: i32 = i32(let) - 1
    device = __x + f32(gl_x)
    half = main(device, 2.0)
    kernel_: f32 = half
    for var in range(3):
        kernel_ += f32(var)
    out[threadIdx] = kernel_ + struct.var + struct.out[1] + f32(loop + struct.loop)
    threadgroup[threadIdx] = struct
    threadgroup[threadIdx].loop += loop
