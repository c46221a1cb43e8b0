"""Execution tests of edge cases on every device, each against plain Python: helpers
that end in an exhaustive ``match``, float ``min``/``max``/``clamp`` with signed zeros,
NaN and infinities, and very deep expressions."""

from __future__ import annotations

import importlib.util
import math
import struct
from enum import IntEnum
from pathlib import Path

import numpy as np
import pytest
from conftest import get_device

import pyshade as ps
from pyshade import f16, f32, f64, i32, mat2, u32, vec2, vec3

WG = 64

# ------------------------------------------------- exhaustive match ending a helper


class Op(IntEnum):
    ADD = 0
    SUB = 1
    MUL = 2
    MIN = 3


class Only(IntEnum):
    ONE = 7


def combine(op: Op, x: f32, y: f32) -> f32:
    match op:                       # exhaustive, every arm returns: no return after it
        case Op.ADD:
            return x + y
        case Op.SUB:
            return x - y
        case Op.MUL | Op.MIN:
            if op == Op.MUL:
                return x * y
            return min(x, y)


def only(o: Only, x: f32) -> f32:
    match o:                        # one member: nothing to test
        case Only.ONE:
            return x + 1.0


def by_default(n: u32) -> u32:
    match n:
        case _:
            return n * 2


@ps.kernel(workgroup_size=WG)
def apply_ops(ops: ps.Buffer[Op], a: ps.Buffer[f32], b: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = combine(ops[i], a[i], b[i]) + only(Only.ONE, 0.0) + f32(by_default(i))


def test_helper_ending_in_exhaustive_match_validates() -> None:
    get_device("wgpu")                        # naga lives in wgpu: skip locally, fail in CI
    ps.compile(apply_ops, "wgsl")             # naga accepts the helpers without a final return


def test_helper_ending_in_exhaustive_match(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 300
    ops = rng.integers(0, 4, n).astype(np.uint32)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = dev.zeros(n, np.float32)
    apply_ops.launch(dev.array(ops), dev.array(a), dev.array(b), out, threads=n, device=dev)
    f = np.float32
    want = [f(f([x + y, x - y, x * y, min(x, y)][o]) + f(1.0)) + f(2 * i)
            for i, (o, x, y) in enumerate(zip(ops, a, b))]
    np.testing.assert_array_equal(out.numpy(), np.array(want, np.float32))


# ------------------------------------------- float min/max/clamp are Python's exactly

SPECIAL = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 1.0, -1.0, 3.4e38, 1e-45]


@ps.kernel(workgroup_size=WG)
def min_max_f32(a: ps.Buffer[f32], b: ps.Buffer[f32], lo: ps.Buffer[f32], hi: ps.Buffer[f32],
                out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        out[4 * i] = min(a[i], b[i])
        out[4 * i + 1] = max(a[i], b[i])
        out[4 * i + 2] = ps.clamp(a[i], lo[i], hi[i])
        v = max(vec3(a[i], b[i], lo[i]), vec3(b[i], a[i], hi[i]))
        w = min(vec2(a[i], b[i]), vec2(b[i], a[i]))
        c = ps.clamp(vec2(a[i], b[i]), vec2(lo[i], lo[i]), vec2(hi[i], hi[i]))
        # every lane must be right: fold them into one value with exact bit tests
        ok = (bits(v.x) == bits(max(a[i], b[i])) and bits(v.y) == bits(max(b[i], a[i]))
              and bits(v.z) == bits(max(lo[i], hi[i])) and bits(w.x) == bits(min(a[i], b[i]))
              and bits(w.y) == bits(min(b[i], a[i]))
              and bits(c.x) == bits(ps.clamp(a[i], lo[i], hi[i]))
              and bits(c.y) == bits(ps.clamp(b[i], lo[i], hi[i])))
        out[4 * i + 3] = ps.select(f32(0.0), f32(1.0), ok)


def bits(x: f32) -> u32:
    return ps.bitcast(u32, x)


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _ftz(v: float) -> float:
    """``v`` with an f32 subnormal flushed to a zero of the same sign."""
    return math.copysign(0.0, v) if v == v and 0 < abs(v) < 1.1754943508222875e-38 else v


def test_float_min_max_clamp_follow_python(dev: ps.Device, rng: np.random.Generator) -> None:
    pairs = [(x, y) for x in SPECIAL for y in SPECIAL]
    rand = rng.standard_normal((200, 2)).astype(np.float32)
    pairs += [(float(x), float(y)) for x, y in rand]
    pairs += [(float(x), float(x)) for x in rand[:20, 0]]         # ties
    a = np.array([p[0] for p in pairs], np.float32)
    b = np.array([p[1] for p in pairs], np.float32)
    # clamp needs lo <= hi (else the CPU device raises): sorted bounds, some of them NaN
    lo = np.minimum(b, a[::-1])
    hi = np.maximum(b, a[::-1])
    bad = np.isnan(a[::-1]) | np.isnan(b)
    lo[bad], hi[bad] = b[bad], a[::-1][bad]
    lo = np.where(lo > hi, hi, lo)
    out = dev.zeros(4 * len(a), np.float32)
    min_max_f32.launch(dev.array(a), dev.array(b), dev.array(lo), dev.array(hi), out,
                       threads=len(a), device=dev)
    got = out.numpy().reshape(-1, 4).view(np.uint32)
    for j, (x, y, lo_, h) in enumerate(zip(a.tolist(), b.tolist(), lo.tolist(), hi.tolist())):
        want = [min(x, y), max(x, y), min(max(x, lo_), h), 1.0]
        ok = [[_f32_bits(w)] for w in want]
        if dev.name != "cpu":
            # GPU drivers may flush f32 subnormals (SwiftShader does in comparisons,
            # DESIGN section 1): the select then compares flushed values and moves
            # the original bits, which a store may flush too.
            def mn(p: float, q: float) -> float:
                return q if _ftz(q) < _ftz(p) else p

            def mx(p: float, q: float) -> float:
                return q if _ftz(q) > _ftz(p) else p

            flushed = [mn(x, y), mx(x, y), mn(mx(x, lo_), h), 1.0]
            for alts, w in zip(ok, flushed):
                alts += [_f32_bits(w), _f32_bits(_ftz(w))]
        assert all(g in alts for g, alts in zip(got[j].tolist(), ok)), (j, x, y, lo_, h, got[j])


# ----------------------------------------------------- very deep expressions translate


def _kernel_from_source(tmp_path: Path, name: str, body: str) -> ps.Kernel:
    """A kernel ``k(x, y)`` whose statement is ``y[i] = <body>``, from a real file (the
    frontend reads the source), as tests/test_differential.py builds its kernels."""
    path = tmp_path / f"{name}.py"
    path.write_text("import pyshade as ps\n"
                    "from pyshade import f32\n\n\n"
                    "@ps.kernel(workgroup_size=64)\n"
                    "def k(x: ps.Buffer[f32], y: ps.Buffer[f32]):\n"
                    "    i = ps.global_id().x\n"
                    "    if i < len(x):\n"
                    f"        y[i] = {body}\n")
    spec = importlib.util.spec_from_file_location(f"pyshade_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.k


# ------------------------------------------------- conversions of conversions


@ps.kernel(workgroup_size=WG)
def nested_casts(a: ps.Buffer[u32], b: ps.Buffer[u32], out: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        t0 = a[i]
        # C++ reads a parenthesised ``uint(int(t0))`` as a cast to the function type
        # ``uint(int t0)``: the CUDA and MSL texts must not spell it so (found by the
        # differential test).
        out[i] = (u32(ps.bitcast(u32, ps.i32(t0))) + u32(b[i])) ^ u32(u32(ps.i32(t0)))


def test_nested_conversions(dev: ps.Device, rng: np.random.Generator) -> None:
    a = rng.integers(0, 2**32, 300, dtype=np.uint32)
    b = rng.integers(0, 2**32, 300, dtype=np.uint32)
    out = dev.zeros(300, np.uint32)
    nested_casts.launch(dev.array(a), dev.array(b), out, threads=300, device=dev)
    np.testing.assert_array_equal(out.numpy(), (a + b) ^ a)


@pytest.mark.parametrize("terms", [250, 1000])
def test_long_sum_validates(tmp_path: Path, terms: int) -> None:
    get_device("wgpu")                             # naga lives in wgpu
    k = _kernel_from_source(tmp_path, f"deep_sum_{terms}", " + ".join(["x[i]"] * terms))
    ps.compile(k, "wgsl")                          # naga accepts the pieces


@pytest.mark.parametrize("terms", [250, 1000])
def test_long_sum_translates_and_runs(dev: ps.Device, rng: np.random.Generator,
                                      tmp_path: Path, terms: int) -> None:
    k = _kernel_from_source(tmp_path, f"deep_sum_{terms}", " + ".join(["x[i]"] * terms))
    x = rng.standard_normal(100).astype(np.float32)
    y = dev.zeros(100, np.float32)
    k.launch(dev.array(x), y, threads=100, device=dev)
    want = []
    for v in x:                                    # f32 rounding after every addition
        acc = np.float32(v)
        for _ in range(terms - 1):
            acc = np.float32(acc + v)
        want.append(acc)
    if dev.name == "cpu":
        np.testing.assert_array_equal(y.numpy(), np.array(want, np.float32))
    else:
        # NVIDIA's driver reassociates the chain (x + x + ... gave 250 * x's rounding):
        # within the error bound of a sequential f32 sum of `terms` terms.
        np.testing.assert_allclose(y.numpy(), want, rtol=terms * 2**-24, atol=0)


def test_long_sum_of_products(dev: ps.Device, tmp_path: Path) -> None:
    k = _kernel_from_source(tmp_path, "deep_products", " + ".join(["x[i] * 2.0"] * 1000))
    x = np.arange(64, dtype=np.float32)
    y = dev.zeros(64, np.float32)
    k.launch(dev.array(x), y, threads=64, device=dev)
    np.testing.assert_array_equal(y.numpy(), x * 2000)      # exact: small integers


def test_too_deep_expression_is_located(tmp_path: Path) -> None:
    # Deep on the right: not a chain of first operands, so it cannot be written in pieces.
    k = _kernel_from_source(tmp_path, "deep_right", "x[i] - (" * 150 + "x[i]" + ")" * 150)
    for target in ("wgsl", "python"):
        with pytest.raises(ps.TranslationError) as info:
            ps.translate(k, target)
        e = info.value
        assert (e.filename, e.lineno, e.col_offset, e.target) == \
            (str(tmp_path / "deep_right.py"), 9, 15, None)
        assert e.msg == ("this expression is nested 152 levels deep, more than the 100 that "
                         "every target accepts: split it with intermediate variables")


def test_recursion_overflow_is_a_located_error(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the recursion headroom the frontend overflows on 1000 terms: the
    # RecursionError becomes a TranslationError at the deepest expression.
    import pyshade.frontend.deep as deep
    monkeypatch.setattr(deep, "RECURSION_LIMIT", 0)
    k = _kernel_from_source(tmp_path, "deep_overflow", " + ".join(["x[i]"] * 1000))
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(k, "wgsl")
    e = info.value
    assert (e.filename, e.lineno, e.col_offset) == (str(tmp_path / "deep_overflow.py"), 9, 15)
    assert e.msg == ("this expression is nested 1001 levels deep, more than pyshade can "
                     "translate: split it with intermediate variables")


# ------------------------------------------- float // and % of f16 and f64 (fuzz seed 1)


@ps.kernel(workgroup_size=WG)
def div_mod_f16(a: ps.Buffer[f16], b: ps.Buffer[f16], q: ps.Buffer[f16], r: ps.Buffer[f16]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@ps.kernel(workgroup_size=WG)
def div_mod_f64(a: ps.Buffer[f64], b: ps.Buffer[f64], q: ps.Buffer[f64], r: ps.Buffer[f64]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("ty", ["f16", "f64"])
def test_float_floordiv_mod_of_f16_and_f64(dev: ps.Device, ty: str) -> None:
    """Routed to the prelude like f32's (they named a missing ``ps_floordiv_plain``, an
    AttributeError on every GPU target). Small halves: every result is exact."""
    feats = set(getattr(dev, "features", ()) or ())
    if dev.target != "python" and ty not in feats and f"shader-{ty}" not in feats:
        pytest.skip(f"{dev.name} has no {ty}")
    if ty == "f64" and dev.target in ("wgsl", "msl"):
        pytest.skip(f"{dev.target} has no f64")
    if ty == "f64" and dev.target == "hlsl":
        with pytest.raises(ps.TranslationError, match="floor.*not available on hlsl"):
            ps.translate(div_mod_f64, "hlsl")       # HLSL has no f64 floor (documented)
        return
    dt = np.float16 if ty == "f16" else np.float64
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.5, -3.0, 6.0, 1.25], dt)
    b = np.array([2.0, 2.0, -2.0, -2.0, 4.0, 1.5, -4.0, 0.5], dt)
    q, r = dev.zeros(len(a), dt), dev.zeros(len(a), dt)
    kern = div_mod_f16 if ty == "f16" else div_mod_f64
    kern.launch(dev.array(a), dev.array(b), q, r, threads=len(a), device=dev)
    np.testing.assert_array_equal(q.numpy(), np.array([x // y for x, y in zip(a, b)], dt))
    np.testing.assert_array_equal(r.numpy(), np.array([x % y for x, y in zip(a, b)], dt))


# ------------------------------------------- a conditional expression of matrix type


@ps.kernel(workgroup_size=WG)
def pick_matrix(x: ps.Buffer[f32], out: ps.Buffer[vec2]) -> None:
    i = ps.global_id().x
    if i < len(x):
        m = mat2(x[i], 1.0, 2.0, 3.0) if x[i] > 0.0 else mat2()
        out[i] = m[0] + (mat2(vec2(x[i]), vec2(4.0)) if x[i] < 1.5 else m)[1]


def test_conditional_expression_of_matrices(dev: ps.Device) -> None:
    """WGSL's select() takes no matrix: a generated helper selects each column (naga
    refused the kernel; fuzz seed 2 kernel 1)."""
    x = np.array([1.0, -2.0, 0.5, 4.0], np.float32)
    out = dev.zeros((4, 2), np.float32)
    pick_matrix.launch(dev.array(x), out, threads=4, device=dev)
    want = []
    for v in x:
        m = np.array([[v, 1.0], [2.0, 3.0]]) if v > 0 else np.zeros((2, 2))
        other = np.array([[v, v], [4.0, 4.0]]) if v < 1.5 else m
        want.append(m[0] + other[1])
    np.testing.assert_array_equal(out.numpy(), np.array(want, np.float32))


# ------------------------------------------- f16 and f64 -> i32/u32 saturate like f32


@ps.kernel(workgroup_size=WG)
def f16_to_int(x: ps.Buffer[f16], oi: ps.Buffer[i32], ou: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        oi[i] = i32(x[i])
        ou[i] = u32(x[i])


@ps.kernel(workgroup_size=WG)
def f64_to_int(x: ps.Buffer[f64], oi: ps.Buffer[i32], ou: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        oi[i] = i32(x[i])
        ou[i] = u32(x[i])


@pytest.mark.parametrize("ty", ["f16", "f64"])
def test_f16_f64_to_int_saturate(dev: ps.Device, ty: str) -> None:
    """Out of range (a negative to u32, beyond i32) and NaN as the cpu device: clamped,
    NaN 0 (f16 -> u32 of -9.0 gave 0xfffffff7 on lavapipe; fuzz seed 20261204 kernel 10)."""
    feats = set(getattr(dev, "features", ()) or ())
    if dev.target != "python" and ty not in feats and f"shader-{ty}" not in feats \
            or ty == "f64" and dev.target in ("wgsl", "msl"):
        pytest.skip(f"{dev.name} has no {ty}")
    dt = np.float16 if ty == "f16" else np.float64
    vals = [-9.0, -0.5, 3.75, 65504.0, -65504.0, math.inf, -math.inf, math.nan]
    if ty == "f64":
        vals += [3e9, -3e9, 4294967296.0]
        if dev.target != "hlsl":    # open: DXC's double -> uint of it gives 2147483648
            vals.append(2147483647.5)
    x = np.array(vals, dt)
    oi, ou = dev.zeros(len(x), np.int32), dev.zeros(len(x), np.uint32)
    (f16_to_int if ty == "f16" else f64_to_int).launch(dev.array(x), oi, ou, threads=len(x),
                                                       device=dev)
    sat = lambda v, lo, hi: 0 if v != v else int(min(max(v, lo), hi))  # noqa: E731
    np.testing.assert_array_equal(oi.numpy(), [sat(v, -2**31, 2**31 - 1) for v in vals])
    np.testing.assert_array_equal(ou.numpy(), [sat(v, 0, 2**32 - 1) for v in vals])


# ------------------------------------------------- literal operands at the range's edges
# bench/probes/constant_operands_probe.py runs the conformance table's cases with literal
# operands: it found the three faults these kernels keep fixed.

F32_MAX = float(np.finfo(np.float32).max)


@ps.kernel(workgroup_size=4)
def constant_edges(x: ps.Buffer[f32], out: ps.Buffer[f32], io: ps.Buffer[i32],
                   uo: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        lowest = -3.4028235e38
        out[i * 2] = max(lowest, x[i])
        out[i * 2 + 1] = min(3.4028235e38, x[i])
        if i == 0:
            io[0] = i32(3e9)
            io[1] = i32(-3e9)
            io[2] = i32(f32(math.inf))
            io[3] = i32(-math.inf)
            io[4] = i32(math.nan)
            io[5] = i32(f32(16777217.0))
            io[6] = int(-1.5)
            uo[0] = u32(-1.5)
            uo[1] = u32(5e9)
            uo[2] = u32(f32(math.nan))
            uo[3] = u32(-1)


def test_constant_edge_operands(dev: ps.Device, rng: np.random.Generator) -> None:
    """The f32 maximum as a literal (a max-reduction's identity) crashed every GPU
    emitter with OverflowError (the shortest-decimal search packed 3.403e38); a float
    constant converted to an integer wrapped (``i32(3e9)`` was -1294967296) or raised
    OverflowError (``i32(math.inf)``) in the frontend, where a loaded value saturates as
    docs/language.md says; ints still wrap (``u32(-1)``)."""
    x = np.concatenate([(rng.standard_normal(14) * 1e38).astype(np.float32),
                        np.array([-np.inf, np.inf], np.float32)])
    out, io, uo = dev.zeros(32, np.float32), dev.zeros(7, np.int32), dev.zeros(4, np.uint32)
    constant_edges.launch(dev.array(x), out, io, uo, threads=16, device=dev)
    got = out.numpy().reshape(16, 2)
    np.testing.assert_array_equal(got[:, 0], np.maximum(x, np.float32(-F32_MAX)))
    np.testing.assert_array_equal(got[:, 1], np.minimum(x, np.float32(F32_MAX)))
    assert io.numpy().tolist() == [2**31 - 1, -2**31, 2**31 - 1, -2**31, 0, 16777216, -1]
    assert uo.numpy().tolist() == [0, 2**32 - 1, 0, 2**32 - 1]


@ps.kernel(workgroup_size=4)
def zero_divisors(out: ps.Buffer[f32]) -> None:
    if ps.global_id().x == 0:
        out[0] = f32(1.0) / f32(-0.0)
        out[1] = f32(-1.0) / f32(-0.0)
        out[2] = (vec2(2.0) / vec2(-0.0, 0.0)).x
        out[3] = f32(1.0) / f32(0.0)


def test_division_by_a_constant_zero(dev: ps.Device) -> None:
    """glslang folds ``1.0 / -0.0`` to +inf, ignoring the zero's sign
    (bench/probes/glslang_zero_divisor_probe.py): the GLSL route gave +inf on both CPU
    drivers; its literals are written as bits now. WGSL makes a constant expression whose
    value is not finite a shader-creation error (a CompileError on wgpu until the WGSL
    emitter left such operations to the device: emit/wgsl_consts.py)."""
    out = dev.zeros(4, np.float32)
    zero_divisors.launch(out, threads=1, device=dev)
    assert out.numpy().tolist() == [-math.inf, math.inf, -math.inf, math.inf]


@ps.kernel(workgroup_size=4)
def constant_non_finite(out: ps.Buffer[f32]) -> None:
    if ps.global_id().x == 0:
        out[0] = math.exp(f32(100.0))
        out[1] = math.exp(f32(1.0) + f32(99.0)) * f32(0.5)
        out[2] = f32(3e38) * f32(10.0)
        out[3] = math.log(f32(0.0))
        out[4] = f32(isnan(math.sqrt(f32(-1.0))))
        out[5] = f32(isnan(math.asin(f32(2.0))))
        out[6] = f32(isnan(ps.normalize(vec2(0.0, 0.0)).x))
        out[7] = ps.dot(vec2(3e38, 1.0), vec2(10.0, 1.0))
        out[8] = math.exp(f32(1.0))         # finite: stays a constant expression


def isnan(x: f32) -> bool:
    """NaN test by self-comparison (a helper keeps the kernel readable)."""
    return x != x


def test_constant_expression_not_finite(dev: ps.Device) -> None:
    """An operation on literals whose result is not finite gives IEEE's value on every
    device: WGSL makes such a constant expression a shader-creation error (naga:
    "exp operation overflowed", "Float literal is infinite"), so the WGSL emitter passes
    an operand through ``ps_keep_f32`` (emit/wgsl_consts.py); the finite one stays
    constant."""
    out = dev.zeros(9, np.float32)
    constant_non_finite.launch(out, threads=1, device=dev)
    got = out.numpy().tolist()
    assert got[:8] == [math.inf, math.inf, math.inf, -math.inf, 1.0, 1.0, 1.0, math.inf]
    assert got[8] == pytest.approx(math.e, rel=1e-6)
    src = constant_non_finite.source("wgsl")
    assert "exp(ps_keep_f32(100.0f))" in src and "exp(1.0f)" in src
