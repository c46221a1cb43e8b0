"""Conversions: u32(), i32(), int(), float(), bool(), NewType and IntEnum
casts; constant folding of casts (u32(-1) wraps); float to int truncates."""

from enum import IntEnum
from typing import NewType

import pyshade as ps
from pyshade import f32, i32, u32

Handle = NewType("Handle", u32)


class Level(IntEnum):
    LOW = 0
    HIGH = 1


@ps.kernel(workgroup_size=64)
def convert(f: ps.Buffer[f32], u: ps.Buffer[u32], s: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(f):
        return
    x = f[i]
    as_int = int(x)                     # truncates toward zero
    as_u = u32(as_int)                  # wraps negative values
    as_i = i32(u[i])                    # reinterprets values above 2**31 - 1
    back = float(as_int) + f32(as_u) * 0.5
    flag = bool(as_i)                   # non-zero is True
    all_ones = u32(-1)                  # folded: 4294967295
    big = i32(3000000000)               # folded: wraps to -1294967296
    trunc = int(-2.7)                   # folded: -2
    h = Handle(as_u & 0xFFFF)
    level = Level(u32(flag))
    b2 = u32(x > 0.5) + u32(level == Level.HIGH)
    f[i] = back + float(trunc) + float(flag)
    u[i] = all_ones - h + b2 + u32(Level.HIGH)
    s[i] = big + as_i + i32(h) + int(b2)
