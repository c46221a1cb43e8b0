"""TypeVar generics and NewType: a generic kernel (bound by SPECS), a generic
helper monomorphised per argument type, and zero-cost NewTypes."""

from typing import NewType, TypeVar

import pyshade as ps
from pyshade import f32, i32, u32

T = TypeVar("T", u32, i32, f32)
N = TypeVar("N", i32, f32)
Index = NewType("Index", u32)
Meters = NewType("Meters", f32)


@ps.func
def larger(a: N, b: N) -> N:
    return a if a > b else b


def twice(x: T) -> T:
    return x + x


@ps.kernel(workgroup_size=64)
def reduce_pairs(src: ps.Buffer[T], dst: ps.Buffer[T], zero: T) -> None:
    i: Index = Index(ps.global_id().x)
    if i * 2 + 1 >= len(src):
        return
    dst[i] = twice(src[i * 2]) + src[i * 2 + 1] + zero


@ps.kernel(workgroup_size=64)
def clamp_lengths(lengths: ps.Buffer[Meters], counts: ps.Buffer[i32], limit: Meters) -> None:
    i = Index(ps.global_id().x)
    if i >= len(lengths):
        return
    m: Meters = lengths[i]
    lengths[i] = Meters(larger(m, limit) - limit)
    counts[i] = larger(counts[i], 0) + larger(i32(i), -1)
    half: f32 = twice(m) / 4.0
    lengths[i] = Meters(lengths[i] + half)     # f32 + Meters is an f32 to mypy


SPECS = {"reduce_pairs": {"T": f32}}
