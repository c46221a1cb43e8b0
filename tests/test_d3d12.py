"""The d3d12 device's parts that run anywhere: detection and its error, the register
layout shared with the HLSL emitter, and the check of which fields D3D12 would place
elsewhere than the canonical layout."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, u32
from pyshade.runtime import d3d12
from pyshade.runtime.base import BufferSlot, Layout, ParamBlock, with_group_counts


def _program(k: ps.Kernel, **bindings: object):
    return k.program("hlsl", k.spec(bindings))


@pytest.mark.skipif(sys.platform == "win32", reason="the message is the non-Windows one")
def test_device_is_windows_only() -> None:
    with pytest.raises(ps.BackendUnavailable, match="needs Windows") as info:
        ps.device("d3d12")
    assert 'via="hlsl"' in str(info.value)
    row = next(r for r in ps.devices() if r.name == "d3d12")
    assert not row.available and "Windows" in row.reason
    assert d3d12.available() == (False, str(info.value))


def test_bindings_are_dense_per_register_class() -> None:
    u8 = np.dtype(np.uint32)
    slots = (BufferSlot("a", 0, u8, False), BufferSlot("b", 1, u8, True),
             BufferSlot("c", 2, u8, False), BufferSlot("d", 3, u8, True, atomic=True))
    push = Layout(slots, ParamBlock(4, 16, "push"), (64, 1, 1))
    b = d3d12.bindings(push)
    assert b.registers == ("t0", "u0", "t1", "u1") and b.srv == (0, 2) and b.uav == (1, 3)
    assert b.params == "b0"
    storage = Layout(slots, ParamBlock(4, 256, "storage"), (64, 1, 1))
    assert d3d12.bindings(storage).params == "t2"
    assert d3d12.bindings(Layout(slots[:1], None, (64, 1, 1))).params is None


@ps.kernel(workgroup_size=64)
def rw(src: ps.Buffer[f32], res: ps.Buffer[f32], s: f32):
    i = ps.global_id().x
    if i < len(src):
        res[i] = src[i] * s


def test_emitted_registers_match_the_bindings() -> None:
    text = ps.translate(rw, "hlsl")
    assert "StructuredBuffer<float> src : register(t0);" in text
    assert "RWStructuredBuffer<float> res : register(u0);" in text
    assert "ps_params : register(b0);" in text
    assert d3d12.bindings(rw.layout("hlsl", rw.spec({}))).registers == ("t0", "u0")


@ps.struct
class Clean:
    x: f32
    v: ps.vec4
    m: ps.mat4
    n: u32


@ps.struct
class WithArray:
    g: ps.vec2
    dt: f32
    bounds: ps.array(f32, 4)


@ps.struct
class WithVec3s:
    pts: ps.array(ps.vec3, 2)


@ps.kernel(workgroup_size=64)
def clean(a: ps.Buffer[Clean], c: Clean, k: f32):
    i = ps.global_id().x
    if i < len(a):
        a[i].x = c.x + k


@ps.kernel(workgroup_size=64)
def array_param(a: ps.Buffer[f32], w: WithArray):
    i = ps.global_id().x
    if i < len(a):
        a[i] = w.bounds[1]


@ps.kernel(workgroup_size=64)
def array_buffer(a: ps.Buffer[WithArray], v: ps.Buffer[WithVec3s], m: ps.Buffer[ps.mat3]):
    i = ps.global_id().x
    if i < len(a):
        a[i].dt = v[i].pts[1].x + m[i][0].y


@ps.kernel(workgroup_size=64)
def mat2_param(a: ps.Buffer[ps.vec2], m: ps.mat2):
    i = ps.global_id().x
    if i < len(a):
        a[i] = m @ a[i]


def test_layouts_that_d3d12_keeps() -> None:
    assert d3d12.layout_problems(_program(clean)) == []
    assert d3d12.layout_problems(_program(rw)) == []


def test_constant_buffer_arrays_are_refused() -> None:
    problems = d3d12.layout_problems(_program(array_param))
    assert any("w.bounds" in p and "16 bytes apart" in p for p in problems), problems


def test_structured_buffer_vec3_arrays_and_mat3_are_refused() -> None:
    problems = d3d12.layout_problems(_program(array_buffer))
    assert not any(p.startswith("a") for p in problems), problems   # WithArray packs fine
    assert any(p.startswith("v.pts") and "12 bytes apart" in p for p in problems), problems
    assert any(p.startswith("m:") and "columns" in p for p in problems), problems


def test_mat2_in_a_constant_buffer_is_refused() -> None:
    problems = d3d12.layout_problems(_program(mat2_param))
    assert any(p.startswith("m:") and "16 bytes apart" in p for p in problems), problems


def test_group_counts_go_into_the_block() -> None:
    block = bytes(range(32))
    out = with_group_counts(block, 16, (7, 8, 9))
    assert out[:16] == block[:16] and out[28:] == block[28:]
    assert np.frombuffer(out[16:28], np.uint32).tolist() == [7, 8, 9]
