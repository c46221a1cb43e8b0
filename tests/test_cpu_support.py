"""Tests of pyshade.runtime.cpu_support against numpy on random data."""

from __future__ import annotations

import ast
import importlib.util
import math
import pathlib
import struct
import sys

import numpy as np
import pytest

try:
    from pyshade.runtime import cpu_support as cs
except Exception:  # noqa: BLE001 -- the package may be in flux: load the file directly
    _path = pathlib.Path(__file__).parent.parent / "pyshade" / "runtime" / "cpu_support.py"
    _spec = importlib.util.spec_from_file_location("cpu_support", _path)
    cs = importlib.util.module_from_spec(_spec)
    sys.modules["cpu_support"] = cs
    _spec.loader.exec_module(cs)

N = 20000
F32_MAX = float(np.finfo(np.float32).max)
F32_OVF = 2.0 ** 128 * (1 - 2.0 ** -25)


@pytest.fixture
def rng():
    return np.random.default_rng()


def same(a, b):
    """Equal floats, same sign of zero, or both nan."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def random_doubles(rng, n):
    """Doubles with random bits plus values around the float32 range."""
    bits = rng.integers(0, 2**64, size=n, dtype=np.uint64).view(np.float64)
    mags = 2.0 ** rng.uniform(-160, 130, size=n) * rng.choice([-1, 1], size=n)
    return [float(x) for x in np.concatenate([bits, mags])]


# ------------------------------------------------------------------ module

def test_all_names_defined_and_documented():
    assert len(set(cs.__all__)) == len(cs.__all__)
    for name in cs.__all__:
        obj = getattr(cs, name)
        assert obj.__doc__, name
    assert cs.__doc__
    # stdlib only: no pyshade (nor numpy) import in the modules, apart from the
    # package's own cpu_scalars / cpu_vectors / cpu_math parts
    here = pathlib.Path(cs.__file__).parent
    for part in ("cpu_support.py", "cpu_scalars.py", "cpu_vectors.py", "cpu_math.py"):
        tree = ast.parse((here / part).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] not in ("pyshade", "numpy") for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level == 1:
                    assert node.module in ("cpu_scalars", "cpu_vectors", "cpu_math"), \
                        node.module
                else:
                    assert node.level == 0 and node.module.split(".")[0] not in ("pyshade", "numpy")


# ---------------------------------------------------------------- wrapping

@pytest.mark.parametrize("name,dtype", [("_i32", np.int32), ("_u32", np.uint32),
                                        ("_i64", np.int64), ("_u64", np.uint64)])
def test_wrap_vs_numpy(rng, name, dtype):
    wrap = getattr(cs, name)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=N, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=N, dtype=dtype, endpoint=True)
    with np.errstate(over="ignore"):
        s, d, p = a + b, a - b, a * b
    for i in range(N):
        x, y = int(a[i]), int(b[i])
        assert wrap(x + y) == int(s[i])
        assert wrap(x - y) == int(d[i])
        assert wrap(x * y) == int(p[i])
        assert info.min <= wrap(x * y) <= info.max
    assert wrap(info.max + 1) == info.min and wrap(info.min - 1) == info.max


# ---------------------------------------------------------------- rounding

def test_f32_random_vs_numpy(rng):
    with np.errstate(over="ignore"):
        for x in random_doubles(rng, N):
            assert same(cs._f32(x), float(np.float32(x))), x


def test_f32_edges():
    nxt = math.nextafter
    cases = [F32_MAX, nxt(F32_MAX, math.inf), nxt(F32_OVF, 0), F32_OVF,
             nxt(F32_OVF, math.inf), 1e39, 1e308, math.inf, 2.0 ** -149, 2.0 ** -150,
             nxt(2.0 ** -150, 1), 3 * 2.0 ** -151, 2.0 ** -126, 2.0 ** -127 * 3,
             1.0 + 2.0 ** -24, 1.0 + 3 * 2.0 ** -24, 0.1, 0.0, 5e-324]
    with np.errstate(over="ignore"):
        for x in cases:
            for v in (x, -x):
                assert same(cs._f32(v), float(np.float32(v))), v
    assert cs._f32(nxt(F32_OVF, 0)) == F32_MAX and cs._f32(F32_OVF) == math.inf
    assert cs._f32(-1e39) == -math.inf
    assert math.isnan(cs._f32(math.nan))
    assert math.copysign(1, cs._f32(-0.0)) == -1


def test_f32_of_ints_rounds_once(rng):
    # float(n) then float32 would round twice; the result must match exact rounding.
    assert cs._f32(2**60 + 2**36 + 1) == 2.0**60 + 2.0**37
    assert cs._f32(-(2**60 + 2**36 + 1)) == -(2.0**60 + 2.0**37)
    assert cs._f32(2**60 + 2**36) == 2.0**60           # exact tie: to even
    assert cs._f32(2**64 - 1) == 2.0**64
    assert cs._f32((1 << 128) - (1 << 103)) == math.inf
    assert cs._f32((1 << 128) - (1 << 103) - 1) == F32_MAX
    for n in rng.integers(-(2**63), 2**63 - 1, size=2000, dtype=np.int64):
        n = int(n)
        assert cs._f32(n) == float(np.float32(n))  # numpy converts int64 exactly
    for n in (3, -7, 2**24 + 1, True):
        assert cs._f32(n) == float(np.float32(int(n)))


def test_f16_vs_numpy(rng):
    xs = random_doubles(rng, N // 2)
    xs += [float(x) for x in rng.uniform(-70000, 70000, size=N // 2)]
    xs += [65504.0, 65519.99, 65520.0, 65536.0, 2.0 ** -24, 2.0 ** -25,
           3 * 2.0 ** -26, 2.0 ** -14, 1 + 2.0 ** -11, 1e300]
    with np.errstate(over="ignore"):
        for x in xs:
            for v in (x, -x):
                assert same(cs._f16(v), float(np.float16(v))), v
    assert cs._f64(3) == 3.0 and type(cs._f64(3)) is float


# ------------------------------------------------------------- conversions

def ftoi_ref(x, lo, hi):
    if math.isnan(x):
        return 0
    if x <= lo:
        return lo
    if x >= hi:
        return hi
    return math.trunc(x)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_ftoi(rng, dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    xs = random_doubles(rng, 2000) + [float(x) for x in rng.uniform(-1e10, 1e10, 2000)]
    xs += [math.nan, math.inf, -math.inf, -0.5, 0.9, -1.0, 2.0 ** 31, 2.0 ** 31 - 0.5,
           -(2.0 ** 31) - 0.5, 2.0 ** 32, 2.0 ** 63, 2.0 ** 64, -(2.0 ** 63)]
    from pyshade.types import float_to_int  # the frontend's fold: the same rule
    for x in xs:
        got = cs._ftoi(x, lo, hi)
        assert got == ftoi_ref(x, lo, hi) and type(got) is int, x
        assert float_to_int(x, lo, hi) == got, x
    # in range, it matches numpy's truncating cast
    inside = np.array([x for x in xs if lo < x < hi and not math.isnan(x)])
    for x, want in zip(inside, inside.astype(dtype)):
        assert cs._ftoi(float(x), lo, hi) == int(want)
    assert cs._ftoi(1e20, lo, hi) == hi and cs._ftoi(-1e20, lo, hi) == lo
    assert cs._btoi(True) == 1 and cs._btoi(False) == 0


# -------------------------------------------------------- float arithmetic

def f32_operands(rng, n):
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    b[::50] = 0.0
    b[1::50] = -0.0
    a[2::50] = np.inf
    b[3::50] = -np.inf
    a[4::50] = np.nan
    b[5::50] = 1.0
    return a, b


def test_fdiv():
    assert cs._fdiv(1.0, 0.0) == math.inf and cs._fdiv(1.0, -0.0) == -math.inf
    assert cs._fdiv(-1.0, 0.0) == -math.inf and cs._fdiv(-1.0, -0.0) == math.inf
    assert math.isnan(cs._fdiv(0.0, 0.0)) and math.isnan(cs._fdiv(math.nan, 0.0))
    assert cs._fdiv(math.inf, 0.0) == math.inf
    assert cs._fdiv(1e308, 1e-10) == math.inf
    assert cs._fdiv(6.0, 3.0) == 2.0


def _np_floordiv(a, b):
    """numpy reference of the targets' float floor division (every op rounds once)."""
    one = a.dtype.type(1)
    q = np.floor(a / b)
    r = a - q * b
    pos = b > 0
    dec = np.where(pos, r < 0, r > 0)
    inc = np.where(pos, r >= b, (b < 0) & (r <= b))
    return np.where(dec, q - one, np.where(inc, q + one, q))


def test_ffloordiv_fmod_vs_numpy_f32(rng):
    a, b = f32_operands(rng, N)
    with np.errstate(all="ignore"):
        fd = _np_floordiv(a, b)
        mod = a - b * fd
    for i in range(N):
        x, y = float(a[i]), float(b[i])
        assert same(cs._ffloordiv(x, y, cs._f32), float(fd[i])), (x, y)
        assert same(cs._fmod(x, y, cs._f32), float(mod[i])), (x, y)


def test_ffloordiv_fmod_exact_like_python(rng):
    """On values whose products are exact (quarters), // and % are Python's."""
    a = rng.integers(-4000, 4000, 3000) / 4
    b = rng.integers(1, 200, 3000) / 4 * rng.choice([-1, 1], 3000)
    for x, y in zip(a.tolist(), b.tolist()):
        assert cs._ffloordiv(x, y, cs._f32) == x // y, (x, y)
        assert cs._fmod(x, y, cs._f32) == x % y, (x, y)
    # where q * b rounds, the correction cannot see the remainder (README: 1.0 // 0.1)
    assert cs._ffloordiv(1.0, cs._f32(0.1), cs._f32) == 10.0


def test_fmod_f16_and_f64(rng):
    a = rng.standard_normal(2000).astype(np.float16)
    b = rng.standard_normal(2000).astype(np.float16)
    with np.errstate(all="ignore"):
        mod = a - b * _np_floordiv(a, b)
    for x, y, m in zip(a, b, mod):
        assert same(cs._fmod(float(x), float(y), cs._f16), float(m))
    for x, y in zip(rng.standard_normal(2000), rng.standard_normal(2000)):
        x, y = float(x), float(y)
        assert cs._fmod(x, y, cs._f64) == x - y * cs._ffloordiv(x, y, cs._f64)


def test_rounding_functions(rng):
    assert same(cs._round(-0.5), -0.0) and cs._round(2.5) == 2.0
    assert cs._round(3.5) == 4.0 and cs._round(-2.5) == -2.0
    assert same(cs._round(-0.4), -0.0) and same(cs._round(0.4), 0.0)
    assert same(cs._floor(-0.0), -0.0) and cs._floor(-0.5) == -1.0
    assert same(cs._ceil(-0.5), -0.0) and same(cs._trunc(-0.7), -0.0)
    for f in (cs._floor, cs._ceil, cs._trunc, cs._round):
        assert f(math.inf) == math.inf and f(-math.inf) == -math.inf
        assert math.isnan(f(math.nan)) and same(f(-0.0), -0.0)
        assert f(2.0 ** 60 + 2.0 ** 10) == 2.0 ** 60 + 2.0 ** 10
    xs = np.concatenate([rng.uniform(-10, 10, N), rng.integers(-20, 20, 200) / 2,
                         rng.standard_normal(200) * 1e17])
    for x, fl, ce, tr, ro in zip(xs, np.floor(xs), np.ceil(xs), np.trunc(xs), np.rint(xs)):
        x = float(x)
        assert same(cs._floor(x), float(fl)) and same(cs._ceil(x), float(ce))
        assert same(cs._trunc(x), float(tr)) and same(cs._round(x), float(ro)), x


def test_math_never_raises_but_where_python_does():
    nan, inf = math.nan, math.inf
    assert math.isnan(cs._sqrt(-1.0)) and same(cs._sqrt(-0.0), -0.0)
    assert math.isnan(cs._sin(inf)) and math.isnan(cs._cos(-inf)) and math.isnan(cs._tan(inf))
    assert math.isnan(cs._asin(2.0)) and math.isnan(cs._acos(-1.5))
    assert cs._atan(inf) == math.pi / 2 and cs._atan2(1.0, 0.0) == math.pi / 2
    assert cs._exp(1000.0) == inf and cs._exp(-inf) == 0.0
    assert cs._log(0.0) == -inf and math.isnan(cs._log(-1.0)) and math.isnan(cs._log(nan))
    assert cs._log2(-0.0) == -inf and math.isnan(cs._log2(-2.0)) and cs._log2(8.0) == 3.0
    assert cs._pow(0.0, -1.0) == inf and cs._pow(-0.0, -1.0) == -inf
    assert cs._pow(-0.0, -2.0) == inf
    with pytest.raises(ValueError, match=r"math\.pow\(-8\.0, 0\.333.*a GPU gives nan"):
        cs._pow(-8.0, 1 / 3)        # Python's math.pow raises there, so the cpu device does
    assert cs._pow(10.0, 400.0) == inf and cs._pow(-10.0, 401.0) == -inf
    assert cs._pow(-10.0, 400.0) == inf and cs._pow(2.0, 10.0) == 1024.0
    assert cs._fabs(-2.5) == 2.5
    assert cs._isnan(nan) and not cs._isnan(inf) and cs._isinf(-inf) and not cs._isinf(1.0)
    for x in (nan, inf, -inf, 0.0, -0.0, 1e308, -1e308, 5e-324):
        for f in (cs._sqrt, cs._sin, cs._cos, cs._tan, cs._asin, cs._acos, cs._atan,
                  cs._exp, cs._log, cs._log2, cs._fabs):
            assert isinstance(f(x), float)
        for y in (nan, inf, -inf, 0.0, -0.0, 0.5, -3.0, 1e308):
            assert isinstance(cs._atan2(x, y), float)
            if not (-inf < x < 0 and y == 0.5):     # the one domain error (Python's)
                assert isinstance(cs._pow(x, y), float)


# --------------------------------------------------------------- int/bits

def test_shifts():
    assert cs._shl(1, 31, 32) == 2**31 and cs._shr(-8, 1, 32) == -4
    assert cs._i32(cs._shl(1, 31, 32)) == -(2**31)
    assert cs._shr(2**63, 63, 64) == 1
    for b in (-1, 32, 33, 100):
        with pytest.raises(ValueError, match=f"shift count out of range: {b} for a 32-bit value"):
            cs._shl(1, b, 32)
        with pytest.raises(ValueError, match="shift count out of range"):
            cs._shr(1, b, 32)
    with pytest.raises(ValueError, match="for a 64-bit value"):
        cs._shl(1, 64, 64)


def test_idx():
    assert cs._idx(0) == 0 and cs._idx(5) == 5
    with pytest.raises(IndexError, match="index -1 is negative"):
        cs._idx(-1)


@pytest.mark.parametrize("bits,dtype", [(32, np.int32), (32, np.uint32),
                                        (64, np.int64), (64, np.uint64)])
def test_bit_functions(rng, bits, dtype):
    info = np.iinfo(dtype)
    xs = [int(v) for v in rng.integers(info.min, info.max, 3000, dtype=dtype, endpoint=True)]
    xs += [0, info.min, info.max, 1, -1 if info.min else 1]
    for x in xs:
        pattern = format(x & ((1 << bits) - 1), f"0{bits}b")
        assert cs._popcount(x, bits) == pattern.count("1")
        assert cs._clz(x, bits) == len(pattern) - len(pattern.lstrip("0"))
        assert cs._reverse_bits(x, bits) == int(pattern[::-1], 2)
        wrap = cs._i32 if bits == 32 else cs._i64
        if info.min < 0:
            assert wrap(cs._reverse_bits(cs._reverse_bits(x, bits), bits)) == x
    assert cs._clz(0, 32) == 32 and cs._clz(-1, 32) == 0 and cs._clz(1, 64) == 63
    # numpy reference for popcount where available
    if hasattr(np, "bitwise_count"):
        # numpy counts the bits of |x| for signed types: use the unsigned view
        arr = np.array(xs[:1000], dtype=dtype).view(f"u{bits // 8}")
        for x, c in zip(xs[:1000], np.bitwise_count(arr)):
            assert cs._popcount(x, bits) == int(c)


def test_bitcast_vs_numpy_view(rng):
    pairs = [("u32", np.uint32, "f32", np.float32), ("i32", np.int32, "u32", np.uint32),
             ("u64", np.uint64, "f64", np.float64), ("i64", np.int64, "f64", np.float64),
             ("u16", np.uint16, "f16", np.float16), ("i16", np.int16, "u16", np.uint16),
             ("i32", np.int32, "f32", np.float32), ("u64", np.uint64, "i64", np.int64)]
    for src, sdt, dst, ddt in pairs:
        info = np.iinfo(sdt)
        arr = rng.integers(info.min, info.max, 3000, dtype=sdt, endpoint=True)
        for x, want in zip(arr, arr.view(ddt)):
            got = cs._bitcast(int(x), src, dst)
            if ddt in (np.float32, np.float64, np.float16):
                want = float(want)
                assert same(got, want), (src, dst, x)
                if not math.isnan(want):   # nan payloads are not kept by struct
                    assert cs._bitcast(got, dst, src) == int(x)
            else:
                assert got == int(want)
                assert cs._bitcast(got, dst, src) == int(x)
    assert cs._bitcast(1.0, "f32", "u32") == 0x3F800000
    assert cs._bitcast(-1, "i32", "u32") == 0xFFFFFFFF
    with pytest.raises(ValueError):
        cs._bitcast(1, "i32", "i64")


# ----------------------------------------------------------------- vectors

def test_vec_basics():
    v = cs.Vec(1, 2, 3)
    assert v == (1, 2, 3) and cs.Vec([1, 2, 3]) == v and type(cs.Vec(x for x in v)) is cs.Vec
    assert repr(v) == "Vec(1, 2, 3)" and repr(cs.Vec(1.5, 0.0)) == "Vec(1.5, 0.0)"
    assert (v.x, v.y, v.z) == (1, 2, 3) and (v.r, v.g, v.b) == (1, 2, 3)
    w = v.zyx
    assert type(w) is cs.Vec and w == (3, 2, 1)
    assert v.xxyy == (1, 1, 2, 2) and v.bgr == (3, 2, 1) and v.xy == (1, 2)
    for bad in ("w", "a", "xw", "xg", "xyzwx", "q", "foo", "__array__"):
        with pytest.raises(AttributeError):
            getattr(v, bad)
        assert not hasattr(v, bad)
    assert cs.Vec(1, 2, 3, 4).wzyx == (4, 3, 2, 1)
    assert eval(repr(v), {"Vec": cs.Vec}) == v


def test_vec_has_no_arithmetic():
    v = cs.Vec(1.0, 2.0)
    for op in (lambda: v + v, lambda: v * 2, lambda: 2 * v, lambda: v * v,
               lambda: (1.0, 2.0) + v, lambda: v - v, lambda: v / 2.0, lambda: -v):
        with pytest.raises(TypeError):
            op()
    u = v
    with pytest.raises(TypeError):
        u += v


def test_vset_vmap():
    v = cs.Vec(1, 2, 3)
    assert cs._vset(v, "x", 9) == (9, 2, 3) and type(cs._vset(v, "x", 9)) is cs.Vec
    assert cs._vset(v, "zy", cs.Vec(7, 8)) == (1, 8, 7)
    assert cs._vset(v, "rgb", [4, 5, 6]) == (4, 5, 6)
    assert v == (1, 2, 3)
    for bad in ("w", "xx", "q"):
        with pytest.raises(AttributeError):
            cs._vset(v, bad, 0)
    with pytest.raises(ValueError):
        cs._vset(v, "xy", (1, 2, 3))
    r = cs._vmap(lambda a, b: a + b, v, cs.Vec(10, 20, 30))
    assert r == (11, 22, 33) and type(r) is cs.Vec
    assert cs._vmap(lambda a, b, c: a * b + c, v, 2, cs.Vec(0, 0, 1)) == (2, 4, 7)
    assert cs._vmap(cs._i32, cs.Vec(2**31, -(2**31) - 1)) == (-(2**31), 2**31 - 1)
    assert cs._vmap(max, 1, 2) == 2
    with pytest.raises(ValueError):
        cs._vmap(max, cs.Vec(1, 2), cs.Vec(1, 2, 3))
    assert cs._vall(cs.Vec(True, True)) and not cs._vall(cs.Vec(True, False))
    assert cs._vany(cs.Vec(False, True)) and not cs._vany(cs.Vec(False, False))


# ---------------------------------------------------------------- geometry

def rand_f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def dot_f32(a, b):
    """Left-to-right float32 dot product (each numpy float32 op rounds once)."""
    s = a[0] * b[0]
    for i in range(1, len(a)):
        s = s + a[i] * b[i]
    return s


def test_dot_cross_length_vs_numpy_f32(rng):
    f32 = cs._f32
    for _ in range(500):
        n = int(rng.integers(2, 5))
        a, b = rand_f32(rng, n), rand_f32(rng, n)
        want = dot_f32(a, b)
        va, vb = cs.Vec(map(float, a)), cs.Vec(map(float, b))
        assert cs._dot(va, vb, f32) == float(want)
        ln = np.sqrt(dot_f32(a, a))
        assert cs._length(va, f32) == float(ln)
        assert cs._normalize(va, f32) == tuple(float(x) for x in a / np.float32(ln))
        d = a - b
        dl = np.sqrt(dot_f32(d, d))
        assert cs._distance(va, vb, f32) == float(dl)
        if n == 3:
            c = cs._cross(va, vb, f32)
            want = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0])
            assert c == tuple(float(x) for x in want)
    assert cs._dot(cs.Vec(2**31 - 1, 2), cs.Vec(2, 3), cs._i32) == cs._i32(2**32 - 2 + 6)
    assert cs._length(-3.0, f32) == 3.0


def test_mix_clamp_step_smoothstep(rng):
    f32 = cs._f32
    a, b, t = rand_f32(rng, 1000), rand_f32(rng, 1000), rng.random(1000).astype(np.float32)
    one = np.float32(1)
    for x, y, s in zip(a, b, t):
        want = x * (one - s) + y * s
        assert cs._mix(float(x), float(y), float(s), f32) == float(want)
    v = cs._mix(cs.Vec(0.0, 10.0), cs.Vec(1.0, 20.0), 0.5, f32)
    assert v == (0.5, 15.0) and type(v) is cs.Vec
    assert cs._clamp(5, 0, 3) == 3 and cs._clamp(-1.5, 0.0, 1.0) == 0.0
    assert cs._clamp(cs.Vec(-1, 2, 9), 0, cs.Vec(5, 5, 5)) == (0, 2, 5)
    with pytest.raises(ValueError, match="lo > hi"):
        cs._clamp(1, 3, 2)
    with pytest.raises(ValueError, match="lo > hi"):
        cs._clamp(cs.Vec(1, 1), cs.Vec(0, 3), 2)
    assert cs._step(0.5, 0.4) == 0.0 and cs._step(0.5, 0.5) == 1.0
    assert cs._step(cs.Vec(0.5, 0.5), cs.Vec(0.0, 1.0)) == (0.0, 1.0)
    e0, e1 = np.float32(0.25), np.float32(1.75)
    for x in rand_f32(rng, 1000):
        tt = np.clip((x - e0) / (e1 - e0), np.float32(0), np.float32(1))
        want = tt * tt * (np.float32(3) - np.float32(2) * tt)
        assert cs._smoothstep(float(e0), float(e1), float(x), f32) == float(want)
    assert cs._smoothstep(0.0, 1.0, cs.Vec(-1.0, 0.5, 2.0), f32) == (0.0, 0.5, 1.0)
    assert cs._select(1, 2, True) == 2 and cs._select(1, 2, False) == 1
    assert cs._select(cs.Vec(1, 2), cs.Vec(3, 4), cs.Vec(True, False)) == (3, 2)


def test_fma_single_rounding(rng):
    f32, f16 = cs._f32, cs._f16
    # double rounding trap: exact 1 + 2^-11 + 2^-24 + 2^-80 must round up
    a = b = 1.0 + 2.0 ** -12
    assert cs._fma(a, b, 2.0 ** -80, f32) == 1.0 + 2.0 ** -11 + 2.0 ** -23
    assert cs._fma(a, b, -(2.0 ** -80), f32) == 1.0 + 2.0 ** -11
    assert cs._fma(0.1, 10.0, -1.0, float) == 5.551115123125783e-17
    assert cs._fma(1e308, 10.0, -math.inf, cs._f64) == -math.inf
    assert math.isnan(cs._fma(math.inf, 0.0, 1.0, f32))
    assert cs._fma(1e308, 10.0, 0.0, cs._f64) == math.inf
    assert same(cs._fma(-0.0, 1.0, -0.0, f32), -0.0)
    assert same(cs._fma(1.0, 1.0, -1.0, cs._f64), 0.0)
    from fractions import Fraction as Fr
    xs = rand_f32(rng, 3, 3000) * np.float32(2) ** rng.integers(-30, 30, (3, 3000)).astype(np.float32)
    for x, y, z in xs.T:
        x, y, z = float(x), float(y), float(z)
        exact = Fr(x) * Fr(y) + Fr(z)
        got = cs._fma(x, y, z, f32)
        # the result is the float32 nearest the exact value
        lo, hi = np.nextafter(np.float32(got), np.float32(-np.inf)), np.nextafter(
            np.float32(got), np.float32(np.inf))
        err = abs(Fr(got) - exact)
        assert err <= abs(Fr(float(lo)) - exact) and err <= abs(Fr(float(hi)) - exact)
        assert cs._fma(x, y, z, cs._f64) == float(exact)
    h = rng.standard_normal((3, 500)).astype(np.float16)
    for x, y, z in h.T:
        exact = Fr(float(x)) * Fr(float(y)) + Fr(float(z))
        got = cs._fma(float(x), float(y), float(z), f16)
        lo = float(np.nextafter(np.float16(got), np.float16(-np.inf)))
        hi = float(np.nextafter(np.float16(got), np.float16(np.inf)))
        err = abs(Fr(got) - exact)
        assert err <= abs(Fr(lo) - exact) and err <= abs(Fr(hi) - exact)
    assert cs._fma(cs.Vec(1.0, 2.0), 3.0, cs.Vec(1.0, 1.0), f32) == (4.0, 7.0)


# ---------------------------------------------------------------- matrices

def to_np(m):
    """Mat (columns) -> numpy array with rows and columns as in mathematics."""
    return np.array([list(c) for c in m], dtype=np.float64).T


def test_mat_construction():
    m = cs._mat(2, 1.0, 2.0, 3.0, 4.0)          # column-major: columns (1,2), (3,4)
    assert m[0] == (1.0, 2.0) and m[1] == (3.0, 4.0) and type(m[0]) is cs.Vec
    assert cs._mat(2, cs.Vec(1.0, 2.0), cs.Vec(3.0, 4.0)) == m
    assert cs._mat(3) == ((0.0,) * 3,) * 3 and type(cs._mat(3)) is cs.Mat
    assert repr(m) == "Mat(Vec(1.0, 2.0), Vec(3.0, 4.0))"
    m2 = cs._mset(m, 1, cs.Vec(5.0, 6.0))
    assert m2 == ((1.0, 2.0), (5.0, 6.0)) and m == ((1.0, 2.0), (3.0, 4.0))
    with pytest.raises(ValueError):
        cs._mat(2, 1.0, 2.0, 3.0)
    with pytest.raises(TypeError):
        m + m
    with pytest.raises(TypeError):
        m * 2.0


def test_matmul_vs_numpy(rng):
    for n in (2, 3, 4):
        for _ in range(100):
            # small integers: every result is exact, so numpy must agree exactly
            A = rng.integers(-50, 50, (n, n)).astype(np.float64)
            B = rng.integers(-50, 50, (n, n)).astype(np.float64)
            v = rng.integers(-50, 50, n).astype(np.float64)
            ma = cs._mat(n, *[float(x) for x in A.T.ravel()])   # column-major
            mb = cs._mat(n, *[float(x) for x in B.T.ravel()])
            vv = cs.Vec(map(float, v))
            assert np.array_equal(to_np(ma), A)
            mv = cs._matmul(ma, vv, cs._f32)
            assert type(mv) is cs.Vec and np.array_equal(np.array(mv), A @ v)
            mm = cs._matmul(ma, mb, cs._f32)
            assert type(mm) is cs.Mat and np.array_equal(to_np(mm), A @ B)
            vm = cs._matmul(vv, ma, cs._f32)
            assert type(vm) is cs.Vec and np.array_equal(np.array(vm), v @ A)
        # random float32: stepwise rounding as numpy float32 scalar code does it
        A, v = rand_f32(rng, n, n), rand_f32(rng, n)
        ma = cs._mat(n, *[float(x) for x in A.T.ravel()])
        want = []
        for i in range(n):
            s = A[i, 0] * v[0]
            for k in range(1, n):
                s = s + A[i, k] * v[k]
            want.append(float(s))
        assert cs._matmul(ma, cs.Vec(map(float, v)), cs._f32) == tuple(want)
        # numpy's @ sums in another order: compare with an error bound of the dot products
        # (absolute, since a result near zero after cancellation has no relative accuracy)
        bound = 4 * n * 2.0**-24 * (np.abs(A) @ np.abs(v))
        assert np.all(np.abs(np.array(cs._matmul(ma, cs.Vec(map(float, v)), cs._f32)) - A @ v)
                      <= bound)


# ----------------------------------------------------------------- structs

def test_struct_classes():
    Inner = cs.make_struct_class("Inner", ["v", "arr"], {"arr": [0, 0, 0]})
    Outer = cs.make_struct_class("Outer", ["a", "b", "inner"], {"inner": Inner()})
    assert issubclass(Inner, cs.Struct) and Inner.__slots__ == ("v", "arr")
    i = Inner(5)
    assert i.v == 5 and i.arr == [0, 0, 0]
    j = Inner()
    j.arr[0] = 9
    assert Inner().arr == [0, 0, 0]           # the default is copied each time
    o = Outer(1, b=2.5)
    assert (o.a, o.b, o.inner) == (1, 2.5, Inner(0, [0, 0, 0]))
    assert repr(o) == "Outer(a=1, b=2.5, inner=Inner(v=0, arr=[0, 0, 0]))"
    assert Outer(1, 2.5) == o and Outer(2, 2.5) != o and o != (1, 2.5)
    p = o._copy()
    p.inner.arr[1] = 7
    p.inner.v = 3
    assert o.inner == Inner(0, [0, 0, 0]) and p.inner.arr == [0, 7, 0]
    q = cs._copy(o)
    assert q == o and q is not o and q.inner is not o.inner
    arr = [0, 1]
    k = Inner(1, arr)                         # aggregate fields copy what they get
    arr[0] = 5
    assert k.arr == [0, 1]
    with pytest.raises(TypeError):
        Inner(1, [0], 3)
    with pytest.raises(TypeError):
        Inner(nope=1)
    with pytest.raises(AttributeError):
        i.nope = 1
    with pytest.raises(ValueError):
        cs.make_struct_class("Bad", ["a", "a"])
    with pytest.raises(ValueError):
        cs.make_struct_class("Bad", ["class"])
    S = cs.make_struct_class("S", ["self", "other", "new"])
    assert S(1, 2, 3).other == 2 and repr(S(1, 2, 3)) == "S(self=1, other=2, new=3)"
    E = cs.make_struct_class("E", [])
    assert E() == E() and repr(E()) == "E()"


def test_copy_function():
    lst = [[1, 2], [3, 4]]
    c = cs._copy(lst)
    c[0][0] = 9
    assert lst == [[1, 2], [3, 4]]
    v = cs.Vec(1, 2)
    assert cs._copy(v) is v and cs._copy(3) == 3


# ----------------------------------------------------------------- atomics

def test_atomics():
    buf = [10, 0xFFFFFFFF, 5]
    assert cs._atomic("add", buf, 0, 5, cs._u32) == 10 and buf[0] == 15
    assert cs._atomic("add", buf, 1, 1, cs._u32) == 0xFFFFFFFF and buf[1] == 0
    assert cs._atomic("sub", buf, 1, 1, cs._u32) == 0 and buf[1] == 0xFFFFFFFF
    assert cs._atomic("min", buf, 2, 3, cs._u32) == 5 and buf[2] == 3
    assert cs._atomic("max", buf, 2, 8, cs._u32) == 3 and buf[2] == 8
    assert cs._atomic("and", buf, 2, 12, cs._u32) == 8 and buf[2] == 8
    assert cs._atomic("or", buf, 2, 3, cs._u32) == 8 and buf[2] == 11
    assert cs._atomic("xor", buf, 2, 1, cs._u32) == 11 and buf[2] == 10
    assert cs._atomic("exchange", buf, 2, 42, cs._u32) == 10 and buf[2] == 42
    ibuf = [2**31 - 1]
    assert cs._atomic("add", ibuf, 0, 1, cs._i32) == 2**31 - 1 and ibuf[0] == -(2**31)
    with pytest.raises(IndexError):
        cs._atomic("add", buf, -1, 1, cs._u32)
    with pytest.raises(IndexError):
        cs._atomic("add", buf, 3, 1, cs._u32)
    with pytest.raises(ValueError):
        cs._atomic("nand", buf, 0, 1, cs._u32)
    assert cs._atomic_cas(buf, 0, 15, 99) == 15 and buf[0] == 99
    assert cs._atomic_cas(buf, 0, 15, 7) == 99 and buf[0] == 99
    with pytest.raises(IndexError):
        cs._atomic_cas(buf, -1, 0, 0)


def test_float_atomics():
    """f32 elements: results rounded to f32, min/max as Python's (NaN and -0.0 keep the
    element), compare-exchange on the bits."""
    def bits(x: float) -> int:
        return struct.unpack("<I", struct.pack("<f", x))[0]

    nan = struct.unpack("<f", struct.pack("<I", 0x7FC01234))[0]
    buf = [0.1, 0.0, -0.0, nan, 1.5]
    assert cs._atomic("add", buf, 0, 0.2, cs._f32) == 0.1 and buf[0] == cs._f32(0.1 + 0.2)
    assert cs._atomic("sub", buf, 4, 0.25, cs._f32) == 1.5 and buf[4] == 1.25
    assert cs._atomic("min", buf, 1, -0.0, cs._f32) == 0.0
    assert math.copysign(1, buf[1]) == 1                    # 0.0 stays 0.0
    assert cs._atomic("max", buf, 2, 0.0, cs._f32) == 0.0
    assert math.copysign(1, buf[2]) == -1                   # -0.0 stays -0.0
    cs._atomic("min", buf, 3, -5.0, cs._f32)
    cs._atomic("max", buf, 3, 5.0, cs._f32)
    assert bits(buf[3]) == 0x7FC01234            # a NaN element stays
    assert cs._atomic("min", buf, 4, math.nan, cs._f32) == 1.25 and buf[4] == 1.25
    assert cs._atomic("exchange", buf, 4, nan, cs._f32) == 1.25
    assert bits(buf[4]) == 0x7FC01234
    # compare-exchange compares bits: the same NaN matches, 0.0 does not match -0.0
    assert bits(cs._atomic_cas(buf, 4, nan, 2.0)) == 0x7FC01234 and buf[4] == 2.0
    assert cs._atomic_cas(buf, 2, 0.0, 3.0) == 0.0 and math.copysign(1, buf[2]) == -1
    assert cs._atomic_cas(buf, 2, -0.0, 3.0) == 0.0 and buf[2] == 3.0
    assert bits(cs._atomic_cas(buf, 3, math.nan, 4.0)) == bits(buf[3]) == 0x7FC01234
    # (math.nan has other bits: no match)


def test_f32_matches_struct_roundtrip_speed_path():
    # the fast path and the pack format agree on ordinary values
    for x in (1.1, -2.5e-40, 3.0e38):
        assert cs._f32(x) == struct.unpack("<f", struct.pack("<f", x))[0]
