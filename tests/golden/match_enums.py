"""match/case on integers and IntEnum members: literal patterns, | alternatives,
case _, exhaustive enum matches; enums with a negative member are i32."""

from enum import IntEnum

import pyshade as ps
from pyshade import f32, i32, u32


class Op(IntEnum):
    ADD = 0
    SUB = 1
    MUL = 2
    MIN = 3
    MAX = 4


class Direction(IntEnum):          # has a negative member: i32
    BACKWARD = -1
    STAY = 0
    FORWARD = 1


@ps.kernel(workgroup_size=64)
def apply_op(ops: ps.Buffer[Op], a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    x = a[i]
    y = b[i]
    r: f32
    match ops[i]:                   # exhaustive: no case _ needed
        case Op.ADD:
            r = x + y
        case Op.SUB:
            r = x - y
        case Op.MUL:
            r = x * y
        case Op.MIN | Op.MAX:
            r = min(x, y) if ops[i] == Op.MIN else max(x, y)
    out[i] = r


@ps.kernel(workgroup_size=64)
def day_kind(days: ps.Buffer[u32], kinds: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(days):
        return
    kind: u32 = 0
    match days[i] % 7:
        case 0 | 6:
            kind = 2
        case 5:
            kind = 1
        case _:
            pass
    kinds[i] = kind


@ps.kernel(workgroup_size=64)
def walk(dirs: ps.Buffer[i32], pos: ps.Buffer[i32], steps: i32) -> None:
    i = ps.global_id().x
    if i >= len(pos):
        return
    d = Direction(dirs[i])
    p = pos[i]
    for _ in range(steps):
        match d:
            case Direction.FORWARD:
                p += 1
            case Direction.BACKWARD:
                p -= 1
                if p < 0:
                    d = Direction.FORWARD
                    break           # leaves the loop, not just the match
            case _:
                continue
    pos[i] = p + d.value + Direction.BACKWARD


def combine(op: Op, x: f32, y: f32) -> f32:
    match op:                       # exhaustive and every arm returns: no return after it
        case Op.ADD:
            return x + y
        case Op.SUB:
            return x - y
        case Op.MUL:
            return x * y
        case Op.MIN | Op.MAX:       # the last case becomes the else
            return min(x, y) if op == Op.MIN else max(x, y)


def twice(n: u32) -> u32:
    match n:                        # only case _: a plain block
        case _:
            return n * 2


@ps.kernel(workgroup_size=64)
def apply_helper(ops: ps.Buffer[Op], a: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(out):
        out[i] = combine(ops[i], a[i], f32(twice(i)))
