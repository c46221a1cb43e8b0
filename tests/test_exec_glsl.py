"""Execution tests of the Vulkan device's two routes (GLSL and HLSL, ``vk_route_dev``)
on every Vulkan adapter: how the parameter block travels (push constants or a storage
block, same offsets), and device limits reported as TranslationErrors at the Python
line. HLSL-only behaviour is in test_exec_hlsl.py."""

from __future__ import annotations

import numpy as np
import pytest

import pyshade as ps
from pyshade import f16, f32, u32


@ps.struct
class Pair:
    a: ps.vec3
    flag: bool
    w: ps.array(f32, 3)


@ps.kernel(workgroup_size=64)
def small_params(out: ps.Buffer[f32], s: f32, p: Pair, on: bool):
    i = ps.global_id().x
    if i < len(out):
        v = s * f32(i) + p.a.y + p.w[2]
        if on and p.flag:
            v = -v
        out[i] = v


@ps.kernel(workgroup_size=64)
def big_params(out: ps.Buffer[f32], m: ps.mat4, n: ps.mat4, k: f32, tail: u32):
    i = ps.global_id().x
    if i < len(out):
        v = (m @ n) @ ps.vec4(1.0, 2.0, 3.0, 4.0)
        out[i] = v.x + v.w * k + f32(tail)


@ps.kernel(workgroup_size=64)
def halves(a: ps.Buffer[f16], out: ps.Buffer[f16]):
    i = ps.global_id().x
    if i < len(a):
        out[i] = a[i] * f16(2.0)


@ps.kernel(workgroup_size=64)
def too_much_shared(a: ps.Buffer[f32]):
    tile = ps.shared_array(f32, 1 << 20)
    i = ps.local_index()
    tile[i] = a[i]
    ps.barrier()
    a[i] = tile[63 - i]


# How each route declares its parameter block: (push constants, the storage form).
BLOCK_TEXT = {"glsl": ("layout(push_constant, std430) uniform", "readonly buffer ps_Params {"),
              "hlsl": ("[[vk::push_constant]]", "StructuredBuffer<ps_Params> ps_params")}


def test_push_constant_block(vk_route_dev: ps.Device) -> None:
    c = ps.compile(small_params, vk_route_dev.target)
    assert c.layout.params.kind == "push"
    assert BLOCK_TEXT[vk_route_dev.target][0] in c.source
    out = vk_route_dev.zeros(70, np.float32)
    p = Pair(a=ps.vec3(0.0, 1.5, 0.0), flag=True, w=[0.0, 0.0, 0.25])
    small_params.launch(out, 2.0, p, True, threads=70, device=vk_route_dev)
    np.testing.assert_array_equal(out.numpy(), -(2.0 * np.arange(70, dtype=np.float32) + 1.75))


def test_storage_parameter_block_when_push_constants_do_not_fit(vk_route_dev: ps.Device) -> None:
    c = ps.compile(big_params, vk_route_dev.target)
    assert c.layout.params.size > 128 and c.layout.params.kind == "storage"
    assert BLOCK_TEXT[vk_route_dev.target][1] in c.source
    rng = np.random.default_rng(1)
    m, n = rng.integers(-3, 4, (4, 4)).astype(np.float32), rng.integers(-3, 4, (4, 4))
    n = n.astype(np.float32)
    out = vk_route_dev.zeros(5, np.float32)
    # ps.mat4 takes columns: transpose the row-major numpy matrices
    big_params.launch(out, ps.mat4(*m.T.ravel()), ps.mat4(*n.T.ravel()), 0.5, 7,
                      threads=5, device=vk_route_dev)
    v = m @ n @ np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_allclose(out.numpy(), v[0] + v[3] * 0.5 + 7)


def test_missing_f16_is_a_translation_error_or_runs(vk_route_dev: ps.Device) -> None:
    # HLSL turns 16-bit types on with a DXC flag, not in the text
    assert "-enable-16bit-types" not in ps.translate(halves, "hlsl")
    a = vk_route_dev.array(np.arange(8, dtype=np.float16))
    out = vk_route_dev.zeros(8, np.float16)
    if "f16" in vk_route_dev.features:
        halves.launch(a, out, threads=8, device=vk_route_dev)
        np.testing.assert_array_equal(out.numpy(), np.arange(8, dtype=np.float16) * 2)
        return
    with pytest.raises(ps.TranslationError, match="no f16 support") as info:
        halves.launch(a, out, threads=8, device=vk_route_dev)
    assert "test_exec_glsl.py:41" in str(info.value)      # the kernel's def line


def test_shared_memory_over_the_limit_names_its_line(vulkan_dev: ps.Device) -> None:
    a = vulkan_dev.zeros(64, np.float32)
    with pytest.raises(ps.TranslationError, match="shared memory") as info:
        too_much_shared.launch(a, groups=1, device=vulkan_dev)
    assert "test_exec_glsl.py:49" in str(info.value)      # the shared_array line
