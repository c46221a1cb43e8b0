"""Faults the differential fuzzer (tests/fuzz, docs/devices/testing.md) found, each
reduced to a kernel and run on every device against numpy: float ``//`` and ``%`` of
f16 and f64 (no prelude function existed: every GPU target raised AttributeError),
HLSL's cast constructors under a swizzle or an index, WGSL's template-list reading of
``f(a < b, c > d)``, WGSL's ``select`` of matrices, and naga's zero vector inside a
constant vector (lost the device on lavapipe)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyshade as ps
from pyshade import bvec2, bvec3, f16, f32, f64, i32, mat2, u32, uvec3, vec2, vec3, vec4


def has_float(dev: ps.Device, name: str) -> bool:
    """Whether the device runs kernels of the float type ``name`` (f16, f64)."""
    if dev.target == "python":
        return True
    feats = set(getattr(dev, "features", ()) or ())
    if name == "f64" and dev.target in ("wgsl", "msl"):
        return False
    return name in feats or (name == "f16" and "shader-f16" in feats)


@ps.kernel(workgroup_size=8)
def floor_mod16(a: ps.Buffer[f16], b: ps.Buffer[f16], q: ps.Buffer[f16], r: ps.Buffer[f16]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@ps.kernel(workgroup_size=8)
def floor_mod64(a: ps.Buffer[f64], b: ps.Buffer[f64], q: ps.Buffer[f64], r: ps.Buffer[f64]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [np.float16, np.float64], ids=["f16", "f64"])
def test_float_floordiv_mod_f16_f64(dev: ps.Device, dtype: type) -> None:
    name = np.dtype(dtype).name.replace("float", "f")
    if not has_float(dev, name):
        pytest.skip(f"{dev.name} has no {name}")
    a = np.array([7, -7, 7.5, -0.5, 0.0, -0.0, 100.25, -3, 1e3, 5], dtype)
    b = np.array([2, 2, -2, 3, 1.5, 4, 0.5, -0.75, 7, -5], dtype)
    q, r = dev.zeros(len(a), dtype), dev.zeros(len(a), dtype)
    k = floor_mod16 if dtype is np.float16 else floor_mod64
    if dev.target == "hlsl" and name == "f64":  # HLSL has no double floor: refused by name
        with pytest.raises(ps.TranslationError, match="not available on hlsl"):
            k.launch(dev.array(a), dev.array(b), q, r, threads=len(a), device=dev)
        return
    k.launch(dev.array(a), dev.array(b), q, r, threads=len(a), device=dev)
    # pyshade's float // and % (docs/design.md): floor(a / b) and a - b * floor(a / b),
    # exact for these operands; so -3.0 % -0.75 is 0.0, where Python's fmod gives -0.0
    want_q = np.floor(a / b)
    want_r = a - b * want_q
    np.testing.assert_array_equal(q.numpy(), want_q)
    np.testing.assert_array_equal(r.numpy(), want_r)
    assert np.signbit(r.numpy()).tolist() == np.signbit(want_r).tolist()
    assert np.signbit(q.numpy()).tolist() == np.signbit(want_q).tolist()


@ps.kernel(workgroup_size=8)
def postfix_of_constructors(a: ps.Buffer[f32], o: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        # HLSL writes vec3(x) as the cast (float3)(x): `.y` and `[k]` need it enclosed
        o[i] = vec3(a[i])[i % u32(3)] + vec2(a[i]).y * 2.0 + vec3(0.25).x + vec2()[i % u32(2)]


@ps.kernel(workgroup_size=8)
def template_like(a: ps.Buffer[i32], m: ps.Buffer[f32], o: ps.Buffer[u32], f: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        n = a[i]
        k = i32(i)
        # WGSL: vec2<bool>(n < k, n >= 3) read as the template n<k, n> (then "expected
        # `)`, found =") without parentheses
        b = bvec2(n < k, n >= 3)
        o[i] = u32(b.x) + u32(2) * u32(b.y)
        mm = mat2() if m[i] > 0.0 else mat2(m[i], 1.0, 2.0, 3.0)   # WGSL select takes no matrix
        f[i] = mm[0].x + mm[1].y


def zero_in_constant(x: f32) -> f32:
    """naga made ``vec4(1.0, 1.0, vec2())`` in a helper SPIR-V that lost lavapipe's device."""
    v = vec4(1.0, 1.0, vec2())
    w = vec4(2.0, 1.0, mat2()[0])
    return x + v.x + v.z + w.x + w.w


@ps.kernel(workgroup_size=8)
def zero_vectors(a: ps.Buffer[f32], o: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        o[i] = zero_in_constant(a[i])


def test_constructor_postfix(dev: ps.Device) -> None:
    a = np.arange(20, dtype=np.float32) - 5.5
    o = dev.zeros(len(a), np.float32)
    postfix_of_constructors.launch(dev.array(a), o, threads=len(a), device=dev)
    np.testing.assert_array_equal(o.numpy(), a + a * 2 + np.float32(0.25))


def test_wgsl_template_and_matrix_select(dev: ps.Device) -> None:
    a = np.array([0, 5, -1, 3, 4, 2, 9, -7, 6, 1], np.int32)
    m = np.array([1, -1, 0, 2.5, -3, 0.5, -0.25, 4, -8, 7], np.float32)
    o, f = dev.zeros(len(a), np.uint32), dev.zeros(len(a), np.float32)
    template_like.launch(dev.array(a), dev.array(m), o, f, threads=len(a), device=dev)
    k = np.arange(len(a))
    np.testing.assert_array_equal(o.numpy(), (a < k) + 2 * (a >= 3))
    np.testing.assert_array_equal(f.numpy(), np.where(m > 0, 0.0, m + 3.0).astype(np.float32))


def test_zero_vector_in_constant(dev: ps.Device) -> None:
    a = np.arange(16, dtype=np.float32)
    o = dev.zeros(len(a), np.float32)
    zero_vectors.launch(dev.array(a), o, threads=len(a), device=dev)
    np.testing.assert_array_equal(o.numpy(), a + 3.0)


@ps.kernel(workgroup_size=8)
def classify64(x: ps.Buffer[f64], o: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(x):
        # math.isinf of f64 was refused on every GPU target (f32-only spellings)
        o[i] = u32(math.isinf(x[i])) + u32(2) * u32(math.isnan(x[i]))


def test_isinf_f64(dev: ps.Device) -> None:
    if not has_float(dev, "f64"):
        pytest.skip(f"{dev.name} has no f64")
    x = np.array([np.inf, -np.inf, np.nan, 1.7976931348623157e308, -1e308, 0.0, 1.0, 5e-324])
    o = dev.zeros(len(x), np.uint32)
    classify64.launch(dev.array(x), o, threads=len(x), device=dev)
    np.testing.assert_array_equal(o.numpy(), np.isinf(x) + 2 * np.isnan(x))


@ps.kernel(workgroup_size=8)
def third_everywhere(a: ps.Buffer[f32], b: ps.Buffer[f32], o: ps.Buffer[f32], c: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        # DXC's spirv-opt wrote a[i] / 3.0 as a[i] * 0.33333334 where no `precise` reached
        # it: a helper-call argument, a condition (bench/probes/dxc_reciprocal_probe.py)
        o[i] = math.copysign(a[i] / 3.0, 1.0)
        c[i] = u32(1) if a[i] / 3.0 == b[i] else u32(0)


def test_division_by_constant_untraced(dev: ps.Device) -> None:
    a = np.array([-15.334710121154785, -18.160173416137695, -94.48817443847656,
                  50.70262145996094, 7.628662586212158, -73.19165802001953,
                  96.1474380493164, 24.69795036315918, 3.0, 1.0], np.float32)
    q = a / np.float32(3.0)
    assert (q != a * (np.float32(1) / np.float32(3))).sum() >= 8   # a reciprocal is off
    o, c = dev.zeros(len(a), np.float32), dev.zeros(len(a), np.uint32)
    third_everywhere.launch(dev.array(a), dev.array(q), o, c, threads=len(a), device=dev)
    if dev.target == "wgsl":    # WGSL allows 2.5 ulp for a division and cannot ask for less
        np.testing.assert_array_max_ulp(o.numpy(), np.abs(q), maxulp=3)
        return
    np.testing.assert_array_equal(o.numpy(), np.abs(q))
    np.testing.assert_array_equal(c.numpy(), np.ones(len(a), np.uint32))


@ps.kernel(workgroup_size=8)
def f64_to_int(x: ps.Buffer[f64], o: ps.Buffer[u32], s: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(x):
        # DXC converted a double to an integer through float: 2147483647.5 -> 2147483648
        o[i] = u32(x[i])
        s[i] = i32(x[i])


def test_f64_to_int_exact(dev: ps.Device) -> None:
    if not has_float(dev, "f64"):
        pytest.skip(f"{dev.name} has no f64")
    x = np.array([2147483647.5, 16777217.0, 4294967294.75, 4294967295.5, -2147483648.5,
                  -2147483647.25, 2147483646.5, 3000000001.0, -0.75, 1e300])
    o, s = dev.zeros(len(x), np.uint32), dev.zeros(len(x), np.int32)
    f64_to_int.launch(dev.array(x), o, s, threads=len(x), device=dev)
    t = np.trunc(x)   # the cpu device: truncation toward zero, saturating
    np.testing.assert_array_equal(o.numpy(), np.clip(t, 0, 2**32 - 1).astype(np.uint32))
    np.testing.assert_array_equal(s.numpy(), np.clip(t, -2**31, 2**31 - 1).astype(np.int32))


@ps.kernel(workgroup_size=8)
def negative_zero_products(a: ps.Buffer[f32], o: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        x = a[i]
        o[i * 4 + 0] = x * -0.0
        o[i * 4 + 1] = -0.0 * x
        o[i * 4 + 2] = x - x
        # the sign as a value: what a lost sign becomes downstream (fuzz seed
        # 4808303094374983443 kernel 89: copysign of a max of x * -0.0, 7 of 16 wrong)
        o[i * 4 + 3] = math.copysign(2.0, max(x * -0.0, 0.0 - 0.0))


def test_negative_zero_products(dev: ps.Device) -> None:
    """The zero's sign of ``x * -0.0``: lavapipe's NIR turned it into +0.0 until the vulkan
    device declared ``SignedZeroInfNanPreserve`` (which it reports). WGSL cannot declare it
    (lavapipe and SwiftShader both lose the sign through wgpu): there only the values of
    the products are compared. On lavapipe's HLSL route DXC's ``-0.0f``, a negation of
    0.0, reached gallivm's short cuts until the HLSL emitter wrote -0.0 from its bits
    (``NEG_ZERO_FROM_BITS``; bench/probes/lavapipe_signed_zero_probe.py)."""
    a = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 0.0, -0.0], np.float32)
    o = dev.zeros(4 * len(a), np.float32)
    negative_zero_products.launch(dev.array(a), o, threads=len(a), device=dev)
    z = np.float32(-0.0)
    # Python's max keeps its first argument when the two compare equal
    signs = np.where(np.signbit(a * z), np.float32(-2.0), np.float32(2.0))
    want = np.stack([a * z, z * a, a - a, signs], axis=1)
    got = o.numpy().reshape(len(a), 4)
    if dev.target == "wgsl":
        np.testing.assert_array_equal(got[:, :3], want[:, :3])
        return    # a documented limitation: WGSL may ignore a zero's sign
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got).tolist() == np.signbit(want).tolist()


@ps.kernel(workgroup_size=8)
def select_nested_constants(a: ps.Buffer[f32], o: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        # naga 29 panicked (aborting the process) on select() of a constant vector made of
        # a vector: the WGSL has its components (bench/probes/wgsl_nested_select.py)
        v = ps.select(vec3(vec2(1.0, 3.0), -1.0), vec3(2.0),
                      bvec3(bvec2(bvec2(False, 0.3 != 0.2)), True))
        w = vec3(vec2(a[i]), 1.0) + vec4(vec2(0.5, a[i]), vec2(-2.0)).xyz
        o[i] = v.x + v.y * 10.0 + v.z * 100.0 + w.x + w.y + w.z


def test_select_of_nested_constant_vectors(dev: ps.Device) -> None:
    a = np.arange(8, dtype=np.float32) - 2.5
    o = dev.zeros(len(a), np.float32)
    select_nested_constants.launch(dev.array(a), o, threads=len(a), device=dev)
    # v = (1, 2, 2): (x, y, z) picks (false, true, true); w = (a + 0.5, 2a, -1)
    want = np.float32(1 + 20 + 200) + (a + np.float32(0.5)) + (a + a) + np.float32(-1.0)
    np.testing.assert_array_equal(o.numpy(), want)


@ps.kernel(workgroup_size=4)
def int_to_bool(x: ps.Buffer[u32], v: ps.Buffer[vec2], out: ps.Buffer[u32], n: u32) -> None:
    i = ps.global_id().x
    if i < len(x):
        out[i * 5 + 0] = u32(bool(x[i]))
        out[i * 5 + 1] = u32(bool(u32(len(x))))
        out[i * 5 + 2] = u32(bool(u32(n)))
        out[i * 5 + 3] = u32(bool(i32(x[i]) - 1))
        b = bvec2(ps.uvec2(x[i], u32(len(v))))
        out[i * 5 + 4] = u32(b.x) * 2 + u32(b.y)


def test_int_to_bool(dev: ps.Device) -> None:
    """DXC took ``bool(uint(x))`` of a uint ``x`` as ``x``: ``uint(bool(uint(len)))``
    gave the length (fuzz seed 20261204 kernel 100); HLSL writes ``x != 0`` now."""
    x = np.array([0, 5, 64, 1], np.uint32)
    out = dev.zeros(20, np.uint32)
    v = dev.array(np.zeros((3, 2), np.float32))
    int_to_bool.launch(dev.array(x), v, out, 7, threads=4, device=dev)
    want = np.stack([x != 0, np.full(4, True), np.full(4, True),
                     x.astype(np.int64) - 1 != 0, np.zeros(4, bool)], axis=1).astype(np.uint32)
    want[:, 4] = (x != 0) * 2 + 1
    assert np.array_equal(out.numpy().reshape(4, 5), want), out.numpy().reshape(4, 5)


@ps.kernel(workgroup_size=4)
def loop_of_folded_constant(b: ps.Buffer[u32], out: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(b):
        z = b[i] * u32(0)
        out[i * 4 + 0] = max(z, 3) ** 2
        out[i * 4 + 1] = min(z, 3) ** 2
        out[i * 4 + 2] = (4294967263 + max(z, 0)) ** 2
        out[i * 4 + 3] = -(1 // max(b[i], 1))


def test_loop_of_folded_constant(dev: ps.Device) -> None:
    """SwiftShader returned the loop's initial value (1) for ``x ** 2`` (a helper with a
    loop) of an argument that only its own folding makes constant, on both vulkan routes
    (integer differential test, seed 869933548349354142 kernel 15): the vulkan routes run
    spirv-opt's constant propagation before the driver, not its ``-O``, which folds
    ``-(1 // x)`` of a u32 into ``0xFFFFFFFF // x`` (bench/probes/swiftshader_unoptimised_probe.py)."""
    b = np.array([7, 25, 2147483647, 29], np.uint32)
    out = dev.zeros(16, np.uint32)
    loop_of_folded_constant.launch(dev.array(b), out, threads=4, device=dev)
    want = np.stack([np.full(4, 9), np.zeros(4), np.full(4, 1089),
                     np.zeros(4)], axis=1)
    assert np.array_equal(out.numpy().reshape(4, 4), want.astype(np.uint32)), \
        out.numpy().reshape(4, 4)


@ps.kernel(workgroup_size=4)
def round_constants(x: ps.Buffer[f32], out: ps.Buffer[f32], bits: ps.Buffer[i32],
                    vo: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    if i < len(x):
        vo[i] = vec4(round(vec2(vec2(0.3))), round(vec2(-0.3, 2.5)))
        out[i * 4 + 0] = round(0.1)
        out[i * 4 + 1] = round(-0.1)
        out[i * 4 + 2] = round(f32(2.5)) + round(x[i])
        out[i * 4 + 3] = round(-3.5)
        bits[i] = ps.bitcast(i32, round(0.1)) % 7


def test_round_of_a_constant(dev: ps.Device) -> None:
    """glslang folds ``roundEven(0.1)`` to -0.0 (and -0.1 to +0.0): on the GLSL route
    ``bitcast(i32, round(0.1))`` was -2**31 (fuzz seed 20261204 kernel 102), and
    ``round(vec2(vec2(0.3)))`` -0.0 (seed 20261206 kernel 12); the frontend folds ``round``
    of a constant or a vector of constants itself now
    (bench/probes/glslang_round_even_probe.py)."""
    x = np.array([0.5, 1.5, -0.5, 2.49], np.float32)
    out, bits, vo = dev.zeros(16, np.float32), dev.zeros(4, np.int32), dev.zeros((4, 4), np.float32)
    round_constants.launch(dev.array(x), out, bits, vo, threads=4, device=dev)
    v = vo.numpy()
    vwant = np.tile(np.array([0.0, 0.0, -0.0, 2.0], np.float32), (4, 1))
    assert np.array_equal(v, vwant) and np.array_equal(np.signbit(v), np.signbit(vwant)), v
    got = out.numpy().reshape(4, 4)
    want = np.stack([np.zeros(4), np.full(4, -0.0), 2 + np.rint(x), np.full(4, -4.0)],
                    axis=1).astype(np.float32)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), got
    assert np.array_equal(bits.numpy(), np.zeros(4, np.int32)), bits.numpy()


ROUND_TABLE = (-0.1, 0.1, 2.5)


@ps.kernel(workgroup_size=4)
def round_constant_expressions(x: ps.Buffer[f32], out: ps.Buffer[f32],
                               bits: ps.Buffer[i32], vo: ps.Buffer[vec2]) -> None:
    i = ps.global_id().x
    if i < len(x):
        out[i * 4 + 0] = round(vec2(0.1).y)
        out[i * 4 + 1] = round(f32(0.1) * 3.0)
        out[i * 4 + 2] = round(ROUND_TABLE[0])
        out[i * 4 + 3] = round(ROUND_TABLE[1])
        bits[i] = ps.bitcast(i32, round(vec2(0.1).x)) % 7
        vo[i] = round(vec2(0.1, -0.1) * 2.0)


def test_round_of_a_constant_expression(dev: ps.Device) -> None:
    """``round`` of a constant expression that the frontend does not fold: glslang folded
    ``roundEven(vec2(0.1).y)`` to -0.0 (fuzz seed 8985045185412620368 kernel 22, on
    SwiftShader's GLSL route; lavapipe's ``lavapipe-zero-sign`` rule hid it there); the
    GLSL emitter calls ``roundEven`` of such an argument in a function of its own, which
    glslang does not fold (bench/probes/glslang_round_even_probe.py)."""
    x = np.array([0.5, 1.5, -0.5, 2.49], np.float32)
    out, bits, vo = dev.zeros(16, np.float32), dev.zeros(4, np.int32), dev.zeros((4, 2), np.float32)
    round_constant_expressions.launch(dev.array(x), out, bits, vo, threads=4, device=dev)
    got = out.numpy().reshape(4, 4)
    want = np.stack([np.zeros(4), np.zeros(4), np.full(4, -0.0), np.zeros(4)],
                    axis=1).astype(np.float32)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), got
    assert np.array_equal(bits.numpy(), np.zeros(4, np.int32)), bits.numpy()
    v, vwant = vo.numpy(), np.tile(np.array([0.0, -0.0], np.float32), (4, 1))
    assert np.array_equal(v, vwant) and np.array_equal(np.signbit(v), np.signbit(vwant)), v


@ps.kernel(workgroup_size=4)
def folded_constants(x: ps.Buffer[f32], out: ps.Buffer[vec3]) -> None:
    i = ps.global_id().x
    if i < len(x):
        out[i] = abs(math.fabs(vec3(-0.2)) * math.fabs(6.5)) + 0.0625 + vec3(x[i] * 0.0)


def test_folded_constant_arithmetic(dev: ps.Device) -> None:
    """glslang folded ``abs(vec3(-0.2)) * 6.5 + 0.0625`` from the decimal 0.2 in double:
    1 ulp off f32 on the GLSL route (fuzz seed 20261204 kernel 62); the GLSL emitter
    writes literals inside constant operations exactly (bench/probes/glslang_fold_probe.py)."""
    out = dev.zeros((4, 3), np.float32)
    folded_constants.launch(dev.array(np.ones(4, np.float32)), out, threads=4, device=dev)
    f = np.float32
    want = np.abs(np.abs(f(-0.2)) * f(6.5)) + f(0.0625)
    assert want.view(np.uint32) == 0x3fae6667
    assert np.array_equal(out.numpy().view(np.uint32), np.full((4, 3), 0x3fae6667, np.uint32)), \
        out.numpy()


@ps.kernel(workgroup_size=8)
def fmod_f16_literal(x: ps.Buffer[f16], out: ps.Buffer[f16]) -> None:
    i = ps.global_id().x
    if i < len(x):
        out[i] = math.fmod(x[i], f16(0.1))


def test_fmod_f16_by_a_literal(dev: ps.Device) -> None:
    """``math.fmod`` of f16 runs the f32 prelude function on widened arguments; glslang
    folded ``float(0.1hf)`` from the decimal 0.1 (the f32 0.1, not the f16
    0.0999755859375), so on the GLSL route fmod(-1.0, 0.1) was -0.09998 (fuzz seed
    20263327 kernel 14). The GLSL emitter writes every f16 literal exactly."""
    if not has_float(dev, "f16"):
        pytest.skip(f"{dev.name} has no f16")
    x = np.array([-1.0, 0.3, 0.7, -0.3, 1.0, 2.5, 100.0, 1234.0], np.float16)
    out = dev.zeros(len(x), np.float16)
    fmod_f16_literal.launch(dev.array(x), out, threads=len(x), device=dev)
    want = np.fmod(x.astype(np.float64), np.float64(np.float16(0.1))).astype(np.float16)
    assert np.array_equal(out.numpy().view(np.uint16), want.view(np.uint16)), out.numpy()


@ps.kernel(workgroup_size=4)
def f16_constants(x: ps.Buffer[f16], out: ps.Buffer[f16], wide: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        c = f16(-0.001)
        out[i * 8 + 0] = f16(0.3)
        out[i * 8 + 1] = c
        out[i * 8 + 2] = f16(0.6) * x[i]
        out[i * 8 + 3] = f16(2051)
        out[i * 8 + 4] = f16(0.1) + f16(0.6)
        out[i * 8 + 5] = f16(f32(0.1) * 3.0)
        out[i * 8 + 6] = abs(f16(-0.3)) * f16(3.0)
        out[i * 8 + 7] = math.fmod(c, f16(1.0))
        wide[i] = (f32(0.2) + f32(-0.5)) + abs(f32(0.2))


def test_f16_constants(dev: ps.Device) -> None:
    """glslang makes an f16 constant by truncating the literal's f32 to f16
    (``makeFloat16Constant`` rounds toward zero): ``0.3hf`` was 0x34cc and ``-0.001hf``
    0x9418 on the GLSL route, 1 f16 ulp off (fuzz seeds 20263101 kernel 8, 20263113
    kernel 39), and so is every f16 it folds. The GLSL emitter writes an f16 literal from
    its f16 value and the literals of a constant operation that makes an f16 from their
    bits, which glslang does not fold (bench/probes/glslang_f16_literal_probe.py). So are
    those of a chain of f32 operations, which glslang folds in double and rounds once:
    ``(0.2 + -0.5) + 0.2`` was 0xbdcccccc, f32 gives 0xbdccccce (seed 20263119 kernel 57)."""
    if not has_float(dev, "f16"):
        pytest.skip(f"{dev.name} has no f16")
    x = np.array([1, 2, -0.5, 3], np.float16)
    out, wide = dev.zeros(32, np.float16), dev.zeros(4, np.float32)
    f16_constants.launch(dev.array(x), out, wide, threads=4, device=dev)
    h = np.float16
    row = [h(0.3), h(-0.001), None, h(2051), h(0.1) + h(0.6),
           h(np.float32(0.1) * np.float32(3.0)), abs(h(-0.3)) * h(3.0), h(-0.001)]
    want = np.array([[h(0.6) * v if w is None else w for w, v in zip(row, [xi] * 8)]
                     for xi in x], np.float16)
    got = out.numpy().reshape(4, 8)
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16)), \
        [[hex(b) for b in r] for r in got.view(np.uint16)]
    f = np.float32
    w = (f(0.2) + f(-0.5)) + abs(f(0.2))
    assert w.view(np.uint32) == 0xbdccccce
    assert np.array_equal(wide.numpy().view(np.uint32), np.full(4, 0xbdccccce, np.uint32)), \
        [hex(b) for b in wide.numpy().view(np.uint32)]


@ps.kernel(workgroup_size=4)
def folded_chains(x: ps.Buffer[f32], of: ps.Buffer[f32], ou: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        ou[i * 2] = uvec3(math.ceil(vec3(1000000.0) * vec3(0.2))).y
        ou[i * 2 + 1] = ps.bitcast(u32, f32(7.0) * 0.1 * 3.0)
        of[i * 2] = math.fmod(x[i], abs(vec3(0.25) / 1.5).z + 0.25)
        of[i * 2 + 1] = (vec2(1.0, 3.0) / 3.0 * 3.0).x


def test_folded_constant_chains(dev: ps.Device) -> None:
    """glslang folds a chain of operations on constants in double and rounds to f32 once,
    at the end: ``ceil(1e6 * 0.2)`` was 200001 on the GLSL route (fuzz seed 20263224
    kernel 14; f32 1e6 * 0.2 is 200000) and the divisor ``abs(0.25 / 1.5) + 0.25`` of an
    ``fmod`` 1 ulp off (seed 20263327 kernel 28: 1e-4 off); the GLSL emitter now writes
    the literals of such a chain as bits (``uintBitsToFloat(0x3e4ccccdu)``), which
    glslang does not fold (``emit/glsl.mark_folded``)."""
    x = np.array([1000.0, 7.5, -3.0, 1e5], np.float32)
    of, ou = dev.zeros(8, np.float32), dev.zeros(8, np.uint32)
    folded_chains.launch(dev.array(x), of, ou, threads=4, device=dev)
    f = np.float32
    d = np.abs(f(0.25) / f(1.5)) + f(0.25)
    want_f = np.stack([np.fmod(x, d), np.full(4, f(f(1.0) / f(3.0)) * f(3.0))], axis=1)
    want_u = np.tile(np.array([200000, (f(f(7.0) * f(0.1)) * f(3.0)).view(np.uint32)],
                              np.uint32), (4, 1))
    assert np.array_equal(ou.numpy().reshape(4, 2), want_u), ou.numpy()
    assert np.array_equal(of.numpy().reshape(4, 2).view(np.uint32), want_f.view(np.uint32)), \
        of.numpy()




@ps.kernel(workgroup_size=4)
def nested_swizzle_and_casts(x: ps.Buffer[i32], out: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        w = x[i]
        v = ps.ivec4(w, w + 1, w + 2, w + 3)
        s = v.xwz.yx + v.rgb.bg
        t = (ps.uvec3(ps.uvec2(u32(w), u32(w)), u32(w)) + ps.uvec3(u32(w))) & ps.uvec3(7)
        out[i * 5 + 0] = u32(s.x)
        out[i * 5 + 1] = u32(s.y)
        out[i * 5 + 2] = t.x
        out[i * 5 + 3] = t.y
        out[i * 5 + 4] = t.z


def test_nested_swizzle_and_casts(dev: ps.Device) -> None:
    """MSL (fuzz seed 20261204 kernel 120): C++ read ``(uint3(uint2(uint(w), uint(w)),
    uint(w)) + ...)`` as a cast to a function type with parameters named ``w``, and the
    g++ stand-in had no swizzle of a swizzle; constructor arguments are ``static_cast``
    there now, and ``v.xwz.yx`` is composed into ``v.wx`` for every target."""
    x = np.array([1, 5, -3, 100], np.int32)
    out = dev.zeros(20, np.uint32)
    nested_swizzle_and_casts.launch(dev.array(x), out, threads=4, device=dev)
    w = x.astype(np.int64)
    want = np.stack([(w + 3) + (w + 2), w + (w + 1), (2 * w) & 7, (2 * w) & 7, (2 * w) & 7],
                    axis=1) % 2**32
    assert np.array_equal(out.numpy().reshape(4, 5), want.astype(np.uint32)), out.numpy()


@ps.kernel(workgroup_size=4)
def component_of_swizzle(x: ps.Buffer[vec4], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        v = x[i]
        out[i * 4 + 0] = v.rbrg[2147483647 % 4]
        out[i * 4 + 1] = v.xzxy[2]
        out[i * 4 + 2] = v.wzyx.xy[1]
        out[i * 4 + 3] = x[i].zw[0]


def test_component_of_swizzle(dev: ps.Device, rng: np.random.Generator) -> None:
    """A constant index into a swizzle (fuzz seed 5255634946121578419 kernel 80:
    ``vec4(...).rbrg[2147483647 % 4]``) is the component it names, as a swizzle of a
    swizzle is composed (``v.rbrg[3]`` is ``v.g``): MSL had ``v.xzxy.w``, which the g++
    stand-in's swizzle proxies do not take."""
    x = rng.standard_normal((8, 4)).astype(np.float32)
    out = dev.zeros(32, np.float32)
    component_of_swizzle.launch(dev.array(x), out, threads=8, device=dev)
    want = np.stack([x[:, 1], x[:, 0], x[:, 2], x[:, 2]], axis=1)
    assert np.array_equal(out.numpy().reshape(8, 4), want), out.numpy()


@ps.kernel(workgroup_size=4)
def bool_of_low_precedence(x: ps.Buffer[i32], y: ps.Buffer[u32], out: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        n = x[i]
        m = y[i]
        out[i * 5 + 0] = u32(bool(i32(1) & n))
        out[i * 5 + 1] = u32(bool(m ^ u32(1)))
        out[i * 5 + 2] = u32(bool(m | u32(0)))
        out[i * 5 + 3] = u32(bool(n if m > u32(1) else i32(0)))
        if bool(i32(2) & n):
            out[i * 5 + 4] = u32(1)


def test_bool_of_low_precedence_operand(dev: ps.Device) -> None:
    """CUDA and MSL wrote ``bool(1 & n)`` as ``(1 & n != 0)``, which C++ reads as
    ``1 & (n != 0)`` (fuzz seed 20262224 kernel 60: an ``elif`` taken for every odd or
    even ``n`` alike); the conversion's operand is parenthesised now."""
    rng = np.random.default_rng(60)
    x = rng.integers(-8, 8, 16).astype(np.int32)
    y = rng.integers(0, 4, 16).astype(np.uint32)
    out = dev.zeros(80, np.uint32)
    bool_of_low_precedence.launch(dev.array(x), dev.array(y), out, threads=16, device=dev)
    want = np.stack([(x & 1) != 0, (y ^ 1) != 0, y != 0, np.where(y > 1, x, 0) != 0,
                     (x & 2) != 0], axis=1).astype(np.uint32)
    assert np.array_equal(out.numpy().reshape(16, 5), want), out.numpy().reshape(16, 5)


@ps.kernel(workgroup_size=32)
def code_after_return(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    li = ps.local_index()
    sh = ps.shared_array(f32, 32)
    sh[li] = x[i]
    ps.barrier()
    out[i] = sh[31 - li] + 1.0
    return
    a = math.fmod(x[i], 1.0)        # never runs
    out[i] = ps.fma(a, 2.0, ps.clamp(a, 0.0, 1.0))


def test_code_after_return(dev: ps.Device) -> None:
    """Statements after a ``return`` are not written (fuzz seed 4417001 kernel 65): for
    them, after a barrier, DXC -O0 wrote SPIR-V with a forward reference to an undefined
    id, a CompileError on the HLSL route."""
    x = np.random.default_rng(4417001).standard_normal(64).astype(np.float32)
    out = dev.zeros(64, np.float32)
    code_after_return.launch(dev.array(x), out, threads=64, device=dev)
    want = x.reshape(2, 32)[:, ::-1].reshape(-1) + np.float32(1)
    assert np.array_equal(out.numpy(), want), out.numpy()


@ps.kernel(workgroup_size=32)
def fma_after_continue(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    out[i * 2] = ps.fma(x[i], x[i], 1.0)
    for _j in ps.unroll(range(3)):
        if True:
            continue
        a = ps.clamp(x[i], 0.0, 1.0)        # never runs
        out[i * 2 + 1] = ps.fma(a, 2.0, 1.0)
    out[i * 2 + 1] = x[i] - 1.0


def test_fma_after_continue(dev: ps.Device) -> None:
    """``fma`` after ``if True: continue`` (fuzz seeds 20263125 kernel 24, 20263131 kernel
    18): DXC folds the constant test, so the ``mad`` follows the ``continue`` in one block
    and is never written, but its ``NoContraction`` decoration was: SPIR-V with a forward
    reference to an undefined id, a CompileError on the HLSL route. HLSL calls ``mad``
    only inside a generated function now (``bench/probes/dxc_mad_dead_code_probe.py``)."""
    x = np.random.default_rng(20263131).integers(-8, 8, 64).astype(np.float32)
    out = dev.zeros(128, np.float32)
    fma_after_continue.launch(dev.array(x), out, threads=64, device=dev)
    want = np.stack([x * x + np.float32(1), x - np.float32(1)], axis=1).reshape(-1)
    assert np.array_equal(out.numpy(), want), out.numpy()


@ps.kernel(workgroup_size=8)
def round_trunc64(x: ps.Buffer[f64], o: ps.Buffer[f64], u: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        o[i * 2] = round(x[i])
        o[i * 2 + 1] = math.trunc(x[i])
        u[i] = u32(round(x[i]))


def test_f64_round_and_trunc(dev: ps.Device) -> None:
    """f64 ``round`` (halves to even) and ``trunc`` with numpy's bits, signed zeros too:
    lavapipe's own ``roundEven`` and ``trunc`` of f64 round 3.5 to 3, leave 1e15 + 0.5
    unrounded and lose -0.0 (fuzz seed 4417005 kernel 43; the GLSL emitter writes them
    from ``floor``; ``bench/probes/lavapipe_f64_round_probe.py``)."""
    if not has_float(dev, "f64"):
        pytest.skip(f"{dev.name} has no f64")
    rng = np.random.default_rng()
    x = np.concatenate([np.arange(-8, 8) + 0.5, [3.5000000000000004, 0.49999999999999994,
                        1e15 + 0.5, -1e15 - 0.5, 2.0 ** 52 - 0.5, 2.0 ** 60, -0.0, 0.0,
                        -0.3, math.inf, -math.inf], rng.uniform(-1e3, 1e3, 21)])
    o, u = dev.zeros(2 * len(x), np.float64), dev.zeros(len(x), np.uint32)
    if dev.target == "hlsl":            # HLSL has no double round: refused by name
        with pytest.raises(ps.TranslationError, match="not available on hlsl"):
            round_trunc64.launch(dev.array(x), o, u, threads=len(x), device=dev)
        return
    round_trunc64.launch(dev.array(x), o, u, threads=len(x), device=dev)
    want = np.stack([np.round(x), np.trunc(x)], 1)
    got = o.numpy().reshape(-1, 2)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    small = np.abs(x) < 1e3
    np.testing.assert_array_equal(u.numpy()[small & (x >= 0)],
                                  np.round(x[small & (x >= 0)]).astype(np.uint32))
