"""The canonical example of DESIGN.md section 7: one step of a bitonic sort,
with a generic element type, NewTypes, an enum, a struct parameter and a
Const[type] trait implementation."""

from enum import IntEnum
from typing import NewType, TypeVar

import pyshade as ps
from pyshade import f32, i32, u32

T = TypeVar("T", u32, i32, f32)
Stage = NewType("Stage", u32)                 # newtype: zero cost
Pass = NewType("Pass", u32)


class SortOrder(IntEnum):                     # repr(u32) enum
    ASCENDING = 0
    DESCENDING = 1


@ps.struct
class BitonicParams:                          # repr(C) struct, portable layout
    n: u32
    stage: Stage
    pass_of_stage: Pass
    order: SortOrder


class Natural:                                # a "trait implementation"
    @staticmethod
    def before(a: T, b: T) -> bool:
        return a < b


@ps.kernel(workgroup_size=256)
def bitonic_step(data: ps.Buffer[T], p: BitonicParams, cmp: ps.Const[type] = Natural):
    i = ps.global_id().x
    partner = i ^ (u32(1) << (p.stage - p.pass_of_stage))
    if partner > i and partner < p.n:
        up = ((i >> (p.stage + 1)) & 1) == 0
        match p.order:
            case SortOrder.ASCENDING:
                pass
            case SortOrder.DESCENDING:
                up = not up
        a, b = data[i], data[partner]
        if cmp.before(b, a) == up:
            data[i], data[partner] = b, a


SPECS = {"bitonic_step": {"T": f32}}
