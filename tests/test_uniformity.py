"""Barriers in non-uniform control flow are a TranslationError at the barrier, on every
target (``frontend/uniformity.py``); the usual uniform patterns translate."""

from __future__ import annotations

import pytest

import pyshade as ps
from pyshade import f32, u32

TARGETS = ["python", "wgsl", "glsl", "hlsl", "msl", "cuda"]


def helper_reads_id() -> u32:
    return ps.local_id().x


def helper_pure(v: u32) -> u32:
    return v * 2


class P:
    pass


@ps.struct
class Params:
    n: u32
    rounds: u32


# -- uniform: these translate -------------------------------------------------------------

@ps.kernel(workgroup_size=64)
def tree_reduce(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    tile = ps.shared_array(f32, 64)
    lid = ps.local_id().x
    tile[lid] = x[ps.global_id().x]
    ps.barrier()
    s = u32(32)
    while s > 0:                       # s is uniform: every invocation runs each round
        if lid < s:
            tile[lid] = tile[lid] + tile[lid + s]
        ps.barrier()
        s = s // 2
    if lid == 0:
        out[ps.group_id().x] = tile[0]


@ps.kernel(workgroup_size=64)
def uniform_conditions(x: ps.Buffer[u32], p: Params) -> None:
    tile = ps.shared_array(u32, 64)
    lid = ps.local_id().x
    for r in range(p.rounds):
        tile[lid] = x[lid] + r
        ps.barrier()
    if p.n > 64 and ps.group_id().x < ps.num_groups().x:
        ps.barrier()
    k = helper_pure(p.n)
    if k > len(x):
        ps.barrier()
    if lid < 4:
        x[lid] = tile[lid]             # varying, but no barrier under it
    ps.barrier()


@pytest.mark.parametrize("target", TARGETS)
def test_uniform_barriers_translate(target: str) -> None:
    for k in (tree_reduce, uniform_conditions):
        assert ps.translate(k, target)


# -- varying: refused at the barrier --------------------------------------------------------

@ps.kernel(workgroup_size=64)
def while_on_buffer(x: ps.Buffer[u32]) -> None:
    v = x[0]
    while v > 0:
        ps.barrier()
        v = v - 1


@ps.kernel(workgroup_size=64)
def for_over_id(x: ps.Buffer[u32]) -> None:
    for _i in range(ps.local_id().x):
        ps.barrier()
    x[0] = 1


@ps.kernel(workgroup_size=64)
def after_varying_break(x: ps.Buffer[u32]) -> None:
    for i in range(4):
        if x[i] == 0:
            break
        ps.barrier()


@ps.kernel(workgroup_size=64)
def after_nested_return(x: ps.Buffer[u32], p: Params) -> None:
    if p.n > 0:
        if ps.global_id().x >= p.n:
            return
    ps.barrier()
    x[0] = 1


@ps.kernel(workgroup_size=64)
def implicit_flow(x: ps.Buffer[u32]) -> None:
    flag = 0
    if ps.local_index() < 4:
        flag = 1
    if flag == 1:
        ps.barrier()


@ps.kernel(workgroup_size=64)
def through_a_helper(x: ps.Buffer[u32]) -> None:
    if helper_reads_id() == 0:
        ps.barrier()


@ps.kernel(workgroup_size=64)
def on_an_atomic(x: ps.Buffer[u32]) -> None:
    if ps.atomic_add(x, 0, u32(1)) == 0:
        ps.barrier()


@ps.kernel(workgroup_size=64)
def assigned_in_a_loop(x: ps.Buffer[u32]) -> None:
    a = u32(0)
    b = u32(0)
    for _round in range(3):
        if b > 0:
            ps.barrier()
        b = a                          # varying only from the second round on
        a = ps.local_id().x


# (kernel, what the message says the condition reads, the text of the condition's line)
CASES = [(while_on_buffer, "v", "while v > 0:"),
         (for_over_id, "ps.local_id()", "for _i in range(ps.local_id().x):"),
         (after_varying_break, "x[i]", "if x[i] == 0:"),
         (after_nested_return, "ps.global_id()", "if ps.global_id().x >= p.n:"),
         (implicit_flow, "flag", "if flag == 1:"),
         (through_a_helper, "helper_reads_id()", "if helper_reads_id() == 0:"),
         (on_an_atomic, "ps.atomic_add(x, 0, 1)", "if ps.atomic_add(x, 0, u32(1)) == 0:"),
         (assigned_in_a_loop, "b", "if b > 0:")]
SOURCE = open(__file__).read().splitlines()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__)
def test_varying_barriers_are_refused(case, target: str) -> None:
    k, reads, cond_text = case
    cond_line = SOURCE.index(next(x for x in SOURCE if x.strip() == cond_text)) + 1
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(k, target)
    e = info.value
    assert e.filename == __file__
    assert SOURCE[e.lineno - 1].strip() == "ps.barrier()"
    assert e.message.startswith(f"barrier() in non-uniform control flow: the condition on "
                                f"line {cond_line} reads {reads}, which can differ"), e.message
