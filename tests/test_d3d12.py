"""The d3d12 device: detection and its errors, the register layout shared with the HLSL
emitter, the check of which fields D3D12 would place elsewhere than the canonical layout,
and the device itself executing kernels through the seam on compushady's Vulkan backend
(the Windows route, DXIL on compushady's d3d12 backend, has never run: no Windows machine)."""

from __future__ import annotations

import importlib.util
import struct
import sys
from dataclasses import replace

import numpy as np
import pytest
from conftest import IN_CI, require, require_tools

import pyshade as ps
from pyshade import f32, i32, u32, vec4
from pyshade.algorithms import sort
from pyshade.runtime import d3d12, d3d12_support
from pyshade.runtime.base import BufferSlot, Layout, ParamBlock, with_group_counts


def _program(k: ps.Kernel, **bindings: object):
    return k.layout("hlsl", k.spec(bindings))


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


# ---- the device, run through the seam on compushady's Vulkan backend -------------------
# On Windows the device runs DXIL on compushady's d3d12 backend (never tried: no Windows
# machine). Here ``_platform``/``_backend`` make the same device code run on compushady's
# Vulkan backend (lavapipe or SwiftShader: the ICD files conftest points VK_DRIVER_FILES
# at in CI) with DXC's SPIR-V of the same HLSL. The device loads compushady's backend
# module itself, so compushady's process-wide backend choice does not matter here.

@pytest.fixture(scope="module")
def dev():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(d3d12, "_platform", lambda: "win32")
        mp.setattr(d3d12, "_backend", lambda: "vulkan")
        require(importlib.util.find_spec("compushady") is not None,
                "compushady is not installed (pip install 'pyshade[hlsl]')")
        try:
            ok, why = d3d12.available()
        except Exception as e:  # noqa: BLE001
            # Without a Vulkan driver compushady raises a bare Exception ("unable to
            # create vulkan instance: -9") that available() lets through.
            ok, why = False, f"{type(e).__name__}: {e}"
        require(ok, f"compushady's Vulkan backend is unusable: {why}")
        require_tools("spirv-val", why="it validates DXC's SPIR-V for compushady's Vulkan "
                      "backend")
        yield d3d12.D3D12Device()


def test_the_seam_is_compushadys_vulkan_backend(dev) -> None:
    assert dev.name == "d3d12" and dev.via == "vulkan" and "vulkan backend" in dev.adapter
    if IN_CI:   # CI's drivers are the CPU ones
        assert any(w in dev.adapter.lower() for w in ("llvmpipe", "swiftshader")), dev.adapter


def test_windows_without_compushady_names_the_extra(monkeypatch) -> None:
    monkeypatch.setattr(d3d12, "_platform", lambda: "win32")
    monkeypatch.setitem(sys.modules, "compushady", None)      # import compushady fails
    ok, why = d3d12.available()
    assert not ok and "pip install 'pyshade[hlsl]'" in why
    with pytest.raises(ps.BackendUnavailable, match=r"pyshade\[hlsl\]"):
        d3d12.D3D12Device()


def test_resource_lists_per_backend() -> None:
    u8 = np.dtype(np.uint32)
    slots = (BufferSlot("a", 0, u8, False), BufferSlot("b", 1, u8, True),
             BufferSlot("c", 2, u8, False))
    b = d3d12.bindings(Layout(slots, ParamBlock(3, 16, "push"), (64, 1, 1)))
    assert d3d12_support.resource_lists(b, 3, "d3d12") == ((3,), (0, 2), (1,))
    # compushady's Vulkan backend binds srv buffers as uniform buffers: all go as uav
    assert d3d12_support.resource_lists(b, 3, "vulkan") == ((3,), (), (1, 0, 2))
    s = d3d12.bindings(Layout(slots, ParamBlock(3, 256, "storage"), (64, 1, 1)))
    assert d3d12_support.resource_lists(s, 3, "d3d12") == ((), (0, 2, 3), (1,))
    assert d3d12_support.resource_lists(s, 3, "vulkan") == ((), (), (1, 0, 2, 3))
    assert "2049" in d3d12_support.shader_options(b)          # t0 after the one uav


def test_arrays_round_trip_odd_and_empty(dev, rng) -> None:
    for n in (0, 1, 3, 1001):
        a = rng.integers(0, 2**32, n, dtype=np.uint32)
        d = dev.array(a)
        assert d.device is dev and d.shape == (n,)
        np.testing.assert_array_equal(d.numpy(), a)
        b = rng.integers(0, 2**32, n, dtype=np.uint32)
        d.write(b)
        np.testing.assert_array_equal(d.numpy(), b)
    np.testing.assert_array_equal(dev.zeros(5, np.float32).numpy(), np.zeros(5, np.float32))
    rec = np.zeros(7, Clean.dtype)
    rec["x"] = rng.random(7)
    np.testing.assert_array_equal(dev.array(rec).numpy(), rec)


@ps.kernel(workgroup_size=64)
def packed_vec3(a: ps.Buffer[ps.vec3], iv: ps.Buffer[ps.ivec3], out: ps.Buffer[ps.vec3],
                s: f32):
    i = ps.global_id().x
    if i < len(a):
        out[i] = a[i].zxy * s
        out[i].y += f32(iv[i][2])
        iv[i] += ps.ivec3(1, 2, 3)


def test_vec3_buffers_are_numpys_packed_layout(dev, rng) -> None:
    for n in (0, 1, 77):
        a = (rng.integers(-100, 100, (n, 3)) / 4).astype(np.float32)
        iv = rng.integers(-100, 100, (n, 3)).astype(np.int32)
        d_iv, out = dev.array(iv), dev.zeros((n, 3), np.float32)
        packed_vec3.launch(a, d_iv, out, 0.5, threads=n, device=dev)
        want = a[:, [2, 0, 1]] * np.float32(0.5)
        want[:, 1] += iv[:, 2]
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(d_iv.numpy(), iv + np.array([1, 2, 3], np.int32))


def test_plain_kernel_with_a_scalar(dev, rng) -> None:
    for n in (1, 63, 64, 1000):
        a = rng.standard_normal(n).astype(np.float32)
        src, res = dev.array(a), dev.empty(n, np.float32)
        rw.launch(src, res, 2.5, threads=n, device=dev)
        np.testing.assert_array_equal(res.numpy(), a * np.float32(2.5))
    rw.launch(src, res, -1.0, threads=n, device=dev)       # the same Compute, new block
    np.testing.assert_array_equal(res.numpy(), -a)


@ps.struct
class Affine:
    scale: f32
    n: u32
    bias: vec4


@ps.kernel(workgroup_size=64)
def affine(x: ps.Buffer[f32], out: ps.Buffer[f32], p: Affine, k: i32):
    i = ps.global_id().x
    if i < len(x):
        out[i] = x[i] * p.scale + p.bias.y + f32(p.n) + f32(k)


def test_struct_parameter_block(dev, rng) -> None:
    n = 517
    x = rng.standard_normal(n).astype(np.float32)
    p = Affine(scale=1.5, n=7, bias=ps.vec4(0.0, -2.25, 0.0, 0.0))
    out = dev.empty(n, np.float32)
    affine.launch(dev.array(x), out, p, -3, threads=n, device=dev)
    want = x * np.float32(1.5) + np.float32(-2.25) + np.float32(7) + np.float32(-3)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


@ps.kernel(workgroup_size=(4, 2, 1))
def groups_k(out: ps.Buffer[u32]):
    g = ps.global_id()
    n = ps.num_groups()
    w = n.x * 4
    out[(g.z * n.y * 2 + g.y) * w + g.x] = n.x * 100 + n.y * 10 + n.z


def test_num_groups_travel_in_the_block(dev) -> None:
    for groups in ((3, 2, 1), (1, 1, 2)):
        count = groups[0] * 4 * groups[1] * 2 * groups[2]
        out = dev.zeros(count, np.uint32)
        groups_k.launch(out, groups=groups, device=dev)
        want = groups[0] * 100 + groups[1] * 10 + groups[2]
        assert (out.numpy() == want).all(), out.numpy()


@ps.kernel(workgroup_size=64)
def step(a: ps.Buffer[u32], b: ps.Buffer[u32], k: u32):
    i = ps.global_id().x
    if i < len(a):
        b[i] = a[i] * 3 + k


def test_batch_of_dependent_launches(dev, rng) -> None:
    n = 300
    host = rng.integers(0, 1000, n, dtype=np.uint32)
    a, b = dev.array(host), dev.empty(n, np.uint32)
    want = host.copy()
    with dev.batch():
        for k in range(6):
            step.launch(a, b, k, threads=n, device=dev)
            a, b = b, a
            want = want * np.uint32(3) + np.uint32(k)
    dev.synchronize()
    np.testing.assert_array_equal(a.numpy(), want)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32])
@pytest.mark.parametrize("n", [0, 1, 5, 777, 1024])
def test_bitonic_sort(dev, rng, dtype, n) -> None:
    if dtype == np.float32:
        data = rng.standard_normal(n).astype(np.float32) * 1000
    else:
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    want = np.sort(data)
    got = sort(data, device=dev)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    arr = dev.array(data)
    sort(arr, in_place=True)
    np.testing.assert_array_equal(arr.numpy().view(np.uint32), want.view(np.uint32))


def test_dxc_error_names_the_python_line(dev) -> None:
    c = ps.compile(rw, "hlsl")
    lines = c.source.splitlines()
    i = next(n for n, ln in enumerate(lines) if "res[i] =" in ln)
    pyline = int(lines[i].rsplit(":", 1)[1])
    lines[i] = lines[i].replace("=", "= no_such_name +", 1)
    bad = replace(c, source="\n".join(lines) + "\n", key=("broken rw",))
    a = dev.zeros(4, np.float32)
    with pytest.raises(ps.CompileError) as info:
        dev.launch_compiled(bad, [a, a], struct.pack("<fI", 1.0, 4) + bytes(8), (1, 1, 1))
    assert info.value.filename.endswith("test_d3d12.py") and info.value.lineno == pyline
    assert "no_such_name" in str(info.value)


def test_layout_problems_are_refused_naming_the_field(dev) -> None:
    w = WithArray(g=ps.vec2(0.0, 0.0), dt=0.0, bounds=[1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ps.CompileError, match=r"w\.bounds.*16 bytes apart"):
        array_param.launch(dev.zeros(8, np.float32), w, threads=8, device=dev)


def test_launch_errors(dev) -> None:
    good = dev.zeros(8, np.float32)
    with pytest.raises(ps.LaunchError, match="src"):
        rw.launch(dev.zeros(8, np.int32), good, 1.0, threads=8, device=dev)
    other = ps.device("cpu").zeros(8, np.float32)
    with pytest.raises(ps.LaunchError, match="res"):
        rw.launch(good, other, 1.0, threads=8, device=dev)
    c = ps.compile(rw, "hlsl")
    with pytest.raises(ps.LaunchError, match="binds 2 buffers"):
        dev.launch_compiled(c, [good], b"", (1, 1, 1))
    with pytest.raises(ps.LaunchError, match="group counts"):
        dev.launch_compiled(c, [good, good], b"", (70000, 1, 1))
