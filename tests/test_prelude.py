"""The prelude (pyshade/prelude.py) against Python: each prelude function is translated
for the cpu device (as a helper a kernel calls) and compared, bit for bit, with the
operator or builtin it stands for on GPU targets, which the cpu device computes with
Python's own semantics. Edge values: 0, +-1, MIN, MAX, -0.0, inf, nan, subnormals and
random values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pyshade as ps
from pyshade import f16, f32, i32, prelude, prelude_math, u32

CPU = ps.device("cpu")


@ps.kernel(workgroup_size=64)
def by_operators(a: ps.Buffer[i32], b: ps.Buffer[i32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        x, y = a[i], b[i]
        j = i * 8
        out[j] = x // y
        out[j + 1] = x % y
        out[j + 2] = min(x, y)
        out[j + 3] = max(x, y)
        out[j + 4] = abs(x)
        out[j + 5] = x ** 3
        out[j + 6] = ps.clamp(x, min(y, 7), max(y, 7))
        out[j + 7] = x ** 0


@ps.kernel(workgroup_size=64)
def by_prelude(a: ps.Buffer[i32], b: ps.Buffer[i32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        x, y = a[i], b[i]
        j = i * 8
        out[j] = prelude.ps_floordiv_signed(x, y)
        out[j + 1] = prelude.ps_mod_signed(x, y)
        out[j + 2] = prelude.ps_min_signed(x, y)
        out[j + 3] = prelude.ps_max_signed(x, y)
        out[j + 4] = prelude.ps_abs_signed(x)
        out[j + 5] = prelude.ps_pow_signed(x, u32(3), u32(0))
        lo = prelude.ps_min_signed(y, 7)
        out[j + 6] = prelude.ps_clamp_signed(x, lo, prelude.ps_max_signed(y, 7))
        out[j + 7] = prelude.ps_pow_signed(x, u32(0), u32(0))


@ps.kernel(workgroup_size=64)
def u_operators(a: ps.Buffer[u32], b: ps.Buffer[u32], out: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        out[i * 3] = a[i] // b[i]
        out[i * 3 + 1] = a[i] % b[i]
        out[i * 3 + 2] = a[i] ** 2


@ps.kernel(workgroup_size=64)
def u_prelude(a: ps.Buffer[u32], b: ps.Buffer[u32], out: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        out[i * 3] = prelude.ps_floordiv_unsigned(a[i], b[i])
        out[i * 3 + 1] = prelude.ps_mod_unsigned(a[i], b[i])
        out[i * 3 + 2] = prelude.ps_pow_unsigned(a[i], u32(2))


@ps.kernel(workgroup_size=64)
def f_operators(a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32],
                n: ps.Buffer[i32], flags: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        x, y = a[i], b[i]
        j = i * 5
        out[j] = x // y
        out[j + 1] = x % y
        out[j + 2] = min(x, y)
        out[j + 3] = max(x, y)
        out[j + 4] = ps.clamp(x, min(y, 1.0), max(y, 1.0))
        n[i * 2] = int(x)
        n[i * 2 + 1] = i32(u32(x) >> 1)
        flags[i] = u32(math.isnan(x)) | (u32(math.isinf(x)) << 1)


@ps.kernel(workgroup_size=64)
def f_prelude(a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32],
              n: ps.Buffer[i32], flags: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        x, y = a[i], b[i]
        j = i * 5
        out[j] = prelude.ps_floordiv_float(x, y)
        out[j + 1] = prelude.ps_mod_float(x, y)
        out[j + 2] = prelude.ps_min_float(x, y)
        out[j + 3] = prelude.ps_max_float(x, y)
        lo = prelude.ps_min_float(y, 1.0)
        out[j + 4] = prelude.ps_clamp_float(x, lo, prelude.ps_max_float(y, 1.0))
        n[i * 2] = prelude.ps_float_to_int(x, -2147483648, 2147483647)
        un = prelude.ps_float_to_int(x, u32(0), u32(4294967295))
        n[i * 2 + 1] = i32(un >> 1)
        flags[i] = u32(prelude.ps_isnan(x)) | (u32(prelude.ps_isinf(x)) << 1)


@ps.kernel(workgroup_size=64)
def v_operators(a: ps.Buffer[ps.ivec2], b: ps.Buffer[ps.vec4], out: ps.Buffer[ps.ivec2],
                fout: ps.Buffer[ps.vec4]):
    i = ps.global_id().x
    if i < len(a):
        out[i] = a[i] // ps.ivec2(3, -3) + a[i] % 5 + ps.ivec2(b[i].xy)
        fout[i] = min(b[i], b[(i + 1) % len(b)]) + b[i] % 2.5


@ps.kernel(workgroup_size=64)
def v_prelude(a: ps.Buffer[ps.ivec2], b: ps.Buffer[ps.vec4], out: ps.Buffer[ps.ivec2],
              fout: ps.Buffer[ps.vec4]):
    i = ps.global_id().x
    if i < len(a):
        five = ps.ivec2(5)
        lo, hi = ps.ivec2(-2147483648), ps.ivec2(2147483647)
        out[i] = (prelude.ps_floordiv_signed(a[i], ps.ivec2(3, -3))
                  + prelude.ps_mod_signed(a[i], five)
                  + prelude.ps_float_to_int(b[i].xy, lo, hi))
        fout[i] = (prelude.ps_min_float(b[i], b[prelude.ps_mod_unsigned(i + 1, len(b))])
                   + prelude.ps_mod_float(b[i], ps.vec4(2.5)))


@ps.kernel(workgroup_size=64)
def h_prelude(a: ps.Buffer[f16], b: ps.Buffer[f16], out: ps.Buffer[f16], flags: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        out[i * 2] = prelude.ps_min_plain(a[i], b[i])
        out[i * 2 + 1] = prelude.ps_max_plain(a[i], b[i])
        flags[i] = u32(prelude.ps_isnan_plain(a[i])) | (u32(prelude.ps_isinf_f16(a[i])) << 1)


I32_EDGES = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2**31 - 1, -2**31, -2**31 + 1, 2**31 - 2, 1000, -1000]
F32_EDGES = [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 2.5, -2.5, 0.1, -0.1, math.inf, -math.inf,
             math.nan, -math.nan, 1e-45, -1e-45, 3.4028235e38, -3.4028235e38, 2147483520.0,
             2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0, 0.5,
             -0.5, 1e-30, 7.0, -7.0]


def _pairs(edges: list, rnd: np.ndarray) -> tuple[list, list]:
    a = [x for x in edges for _ in edges] + list(rnd[0])
    b = [y for _ in edges for y in edges] + list(rnd[1])
    return a, b


def _run(k, *arrays, n):
    outs = [np.array(x) for x in arrays]
    k.launch(*outs, threads=n, device=CPU)
    return outs


def test_signed_integers_match_python():
    """floor // and %, min, max, abs, ** and clamp of i32 on every pair of edge values
    (zero divisors aside: Python raises there) and random pairs."""
    rng = np.random.default_rng(6)
    rnd = rng.integers(-2**31, 2**31, size=(2, 400))
    a, b = _pairs(I32_EDGES, rnd)
    keep = [(x, y) for x, y in zip(a, b) if y != 0]
    a = np.array([x for x, _ in keep], np.int32)
    b = np.array([y for _, y in keep], np.int32)
    want = _run(by_operators, a, b, np.zeros(8 * len(a), np.int32), n=len(a))[2]
    got = _run(by_prelude, a, b, np.zeros(8 * len(a), np.int32), n=len(a))[2]
    np.testing.assert_array_equal(got, want)
    # spot checks against plain Python, wrapped to i32
    assert got[8 * list(zip(a, b)).index((-2**31, -1))] == -2**31        # MIN // -1 wraps
    assert got[8 * list(zip(a, b)).index((-7, 2)) + 1] == (-7) % 2


def test_signed_division_by_zero_is_guarded():
    """The cpu device raises for x // 0; the prelude (what GPUs run) gives a defined value
    (x / 0 is x, as WGSL defines it) instead of the target's undefined behaviour."""
    a = np.array(I32_EDGES, np.int32)
    b = np.zeros(len(a), np.int32)
    with pytest.raises(ZeroDivisionError):
        _run(by_operators, a, b, np.zeros(8 * len(a), np.int32), n=len(a))
    got = _run(by_prelude, a, b, np.zeros(8 * len(a), np.int32), n=len(a))[2]
    np.testing.assert_array_equal(got[0::8], a)                         # q = x, as documented
    np.testing.assert_array_equal(got[1::8], a)                         # r = x - x * 0


def test_unsigned_integers_match_python():
    """// and % and ** of u32 (zero divisors: x // 0 is x, x % 0 is x)."""
    edges = [0, 1, 2, 3, 7, 2**31, 2**32 - 1, 2**32 - 2, 1000]
    rng = np.random.default_rng(7)
    a, b = _pairs(edges, rng.integers(0, 2**32, size=(2, 300)))
    a, b = np.array(a, np.uint32), np.array(b, np.uint32)
    nz = b != 0
    want = _run(u_operators, a[nz], b[nz], np.zeros(3 * nz.sum(), np.uint32), n=int(nz.sum()))[2]
    got = _run(u_prelude, a[nz], b[nz], np.zeros(3 * nz.sum(), np.uint32), n=int(nz.sum()))[2]
    np.testing.assert_array_equal(got, want)
    z = _run(u_prelude, a[~nz], b[~nz], np.zeros(3 * (~nz).sum(), np.uint32),
             n=int((~nz).sum()))[2]
    np.testing.assert_array_equal(z[0::3], a[~nz])
    np.testing.assert_array_equal(z[1::3], a[~nz])


def test_floats_match_python_bit_for_bit():
    """float // and %, min/max/clamp (NaN in either position, -0.0 against 0.0), int()
    saturating at both ends, u32() of floats, isnan and isinf on f32 edge values."""
    rng = np.random.default_rng(8)
    rnd = (rng.standard_normal((2, 300)) * 10.0 ** rng.integers(-3, 12, (2, 300)))
    a, b = _pairs(F32_EDGES, rnd)
    a, b = np.array(a, np.float32), np.array(b, np.float32)
    n = len(a)
    want = _run(f_operators, a, b, np.zeros(5 * n, np.float32), np.zeros(2 * n, np.int32),
                np.zeros(n, np.uint32), n=n)
    got = _run(f_prelude, a, b, np.zeros(5 * n, np.float32), np.zeros(2 * n, np.int32),
               np.zeros(n, np.uint32), n=n)
    np.testing.assert_array_equal(got[2].view(np.uint32), want[2].view(np.uint32))
    np.testing.assert_array_equal(got[3], want[3])
    np.testing.assert_array_equal(got[4], want[4])
    # min/max keep Python's choice of argument: compare with Python itself too
    for x, y, mn, mx in zip(a.tolist(), b.tolist(), got[2][2::5], got[2][3::5]):
        for v, ref in ((mn, y if y < x else x), (mx, y if y > x else x)):
            assert np.float32(v).tobytes() == np.float32(ref).tobytes() or (
                math.isnan(v) and math.isnan(ref))


def test_vector_instances_match_python():
    """The same prelude functions monomorphised for vectors (ivec2, vec4)."""
    rng = np.random.default_rng(9)
    a = rng.integers(-2**31, 2**31, size=(200, 2)).astype(np.int32)
    a[:8] = [[-2**31, 0], [2**31 - 1, -1], [-7, 7], [0, -1], [5, -5], [-1, 1], [3, -3], [1, 0]]
    b = (rng.standard_normal((200, 4)) * 1e9).astype(np.float32)
    b[:4] = [[math.nan, -0.0, math.inf, 3e9], [0.0, math.nan, -3e9, -1.5],
             [-0.0, 0.0, 1.0, math.nan], [2.5, -2.5, -math.inf, 0.0]]
    want = _run(v_operators, a, b, np.zeros_like(a), np.zeros_like(b), n=200)
    got = _run(v_prelude, a, b, np.zeros_like(a), np.zeros_like(b), n=200)
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_array_equal(got[3].view(np.uint32), want[3].view(np.uint32))


def test_f16_plain_versions_match_python():
    """min/max/isnan/isinf of f16 (no 16-bit integer for the bit tricks)."""
    edges = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 65504.0, -65504.0, 6e-8]
    a, b = _pairs(edges, np.zeros((2, 0)))
    a, b = np.array(a, np.float16), np.array(b, np.float16)
    got = _run(h_prelude, a, b, np.zeros(2 * len(a), np.float16), np.zeros(len(a), np.uint32),
               n=len(a))
    for x, y, mn, mx, fl in zip(a.tolist(), b.tolist(), got[2][0::2], got[2][1::2], got[3]):
        assert np.float16(mn).tobytes() == np.float16(y if y < x else x).tobytes() or math.isnan(x)
        assert np.float16(mx).tobytes() == np.float16(y if y > x else x).tobytes() or math.isnan(x)
        assert fl == int(math.isnan(x)) | int(math.isinf(x)) << 1


@ps.kernel(workgroup_size=64)
def folded_pow(a: ps.Buffer[u32], out: ps.Buffer[u32]):
    if ps.global_id().x == 0:
        out[0] = -u32(abs(i32(2147483647)) ** 3)
        out[1] = -u32(abs(i32(a[0])) ** 3)
        out[2] = u32(i32(-46341) ** 2)


def test_signed_power_that_overflows_a_constant(dev):
    """A constant signed power that overflows, negated: NVIDIA's Vulkan driver folded it as
    if signed overflow could not happen (bench/probes/nvidia_vulkan_pow_probe.py), so signed
    powers are computed in unsigned arithmetic."""
    out = dev.zeros(3, np.uint32)
    folded_pow.launch(dev.array(np.array([2147483647], np.uint32)), out, threads=1, device=dev)
    cube = 2147483647 ** 3
    want = [(-cube) & 0xFFFFFFFF, (-cube) & 0xFFFFFFFF, (46341 ** 2) & 0xFFFFFFFF]
    assert out.numpy().tolist() == want


def test_gpu_targets_route_to_the_prelude():
    """On a GPU target the operators become prelude calls; the python target keeps them."""
    wgsl = ps.translate(by_operators, "wgsl")
    for name in ("ps_floordiv_signed_i32", "ps_mod_signed_i32", "ps_min_signed_i32",
                 "ps_abs_signed_i32", "ps_pow_signed_i32_u32", "ps_clamp_signed_i32"):
        assert f"fn {name}(" in wgsl
    assert "// prelude.py:" in wgsl
    py = ps.translate(by_operators, "python")
    assert "ps_floordiv" not in py and " // " in py


# -- the math prelude (pyshade/prelude_math.py) ------------------------------------------------
@ps.kernel(workgroup_size=64)
def math_prelude(x: ps.Buffer[f32], y: ps.Buffer[f32], out: ps.Buffer[f32]):
    """math_more.scalars with each function the math prelude's (exp2 is native everywhere)."""
    i = ps.global_id().x
    if i < len(x) // 17:
        j = i * 17
        out[j] = prelude_math.ps_tanh(x[j])
        out[j + 1] = prelude_math.ps_sinh(x[j + 1])
        out[j + 2] = prelude_math.ps_cosh(x[j + 2])
        out[j + 3] = prelude_math.ps_asinh(x[j + 3])
        out[j + 4] = prelude_math.ps_acosh(x[j + 4])
        out[j + 5] = prelude_math.ps_atanh(x[j + 5])
        out[j + 6] = math.exp2(x[j + 6])
        out[j + 7] = prelude_math.ps_expm1(x[j + 7])
        out[j + 8] = prelude_math.ps_log10(x[j + 8])
        out[j + 9] = prelude_math.ps_log1p(x[j + 9])
        out[j + 10] = prelude_math.ps_degrees(x[j + 10])
        out[j + 11] = prelude_math.ps_radians(x[j + 11])
        out[j + 12] = prelude_math.ps_erf(x[j + 12])
        out[j + 13] = prelude_math.ps_erfc(x[j + 13])
        out[j + 14] = prelude_math.ps_hypot(x[j + 14], y[j + 14])
        out[j + 15] = prelude_math.ps_copysign(x[j + 15], y[j + 15])
        out[j + 16] = prelude_math.ps_fmod(x[j + 16], y[j + 16])


def test_math_prelude_in_exact_f32_arithmetic():
    """The math prelude on the cpu device, where each operation rounds exactly once (the
    GPUs' exp and log are not used by it): within the bounds the GPU tests allow, special
    values included (tests/test_exec_math.py: domains, metric and bounds)."""
    import test_exec_math as EM
    x, y = EM.domains(np.random.default_rng(7), 64)
    xs, ys = EM.table(x, y)
    got = _run(math_prelude, xs.ravel(), ys.ravel(), np.zeros(xs.size, np.float32),
               n=len(xs))[2].reshape(xs.shape)
    for k, name in enumerate(EM.FUNCS):
        e = EM.ulp_errors(got[:, k], EM.exact_of(name, xs[:, k], ys[:, k]))
        limit = EM.BOUNDS[name][0] if EM.BOUNDS[name][0] is not None else EM.CPU_BOUND
        assert e.max() <= limit, (name, e.max(), xs[np.argmax(e), k])


def test_math_prelude_is_routed_per_target():
    """A math function a target lacks is a call of the math prelude there, the target's own
    function elsewhere; f16 goes through f32."""
    wgsl = ps.translate(math_prelude, "wgsl")
    assert "fn ps_expm1(" in wgsl and "// prelude_math.py:" in wgsl
    k = ps.kernel(workgroup_size=1)(_halves)
    assert "ps_tanh(f32(" in ps.translate(k, "wgsl").replace(" ", "")
    assert "tanh(" in ps.translate(k, "cuda") and "ps_tanh" not in ps.translate(k, "cuda")


def _halves(a: ps.Buffer[f16]):
    a[0] = math.tanh(a[0])
