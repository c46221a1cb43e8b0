"""Execution tests of Python semantics at fixed width (DESIGN.md section 1):
floor division and modulo, arithmetic shifts, wrapping, rounding, truncation,
short-circuit evaluation, loops. Each kernel runs on every device and is
compared with numpy (or plain Python) on fresh random data."""

from __future__ import annotations

from enum import IntEnum

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

# ---------------------------------------------------------------------------- integers


@ps.kernel
def i32_ops(a: ps.Buffer[i32], b: ps.Buffer[i32], fdiv: ps.Buffer[i32], mod: ps.Buffer[i32],
            shr: ps.Buffer[i32], mul: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        x = a[i]
        y = b[i]
        fdiv[i] = x // y
        mod[i] = x % y
        shr[i] = x >> (y & 31)
        mul[i] = x * y + x


def _run(dev: ps.Device, kernel: ps.Kernel, inputs: list, outputs: list, n: int,
         *scalars: object) -> list[np.ndarray]:
    """Launch ``kernel`` with device copies of ``inputs`` and zeroed ``outputs``
    (dtypes), then return the downloaded outputs."""
    ins = [dev.array(a) for a in inputs]
    outs = [dev.zeros(n, dt) for dt in outputs]
    kernel.launch(*ins, *outs, *scalars, threads=n, device=dev)
    return [o.numpy() for o in outs]


def test_i32_floor_div_mod_shift_wrap(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 2000
    a = rng.integers(-2**31 + 1, 2**31, n, dtype=np.int32)
    b = rng.integers(-2**31 + 1, 2**31, n, dtype=np.int32)
    small = rng.integers(-50, 51, n, dtype=np.int32)
    b[: n // 2] = small[: n // 2]                     # small divisors give big quotients
    a[:8] = [-7, 7, -7, 7, -1, 0, -2**31 + 1, 2**31 - 1]
    b[:8] = [2, -2, -2, 2, 3, -5, 7, -7]
    b[b == 0] = 1
    fdiv, mod, shr, mul = _run(dev, i32_ops, [a, b], [np.int32] * 4, n)
    np.testing.assert_array_equal(fdiv, np.floor_divide(a, b))
    np.testing.assert_array_equal(mod, np.mod(a, b))
    assert (np.sign(mod[mod != 0]) == np.sign(b[mod != 0])).all()
    np.testing.assert_array_equal(shr, np.right_shift(a, b & 31))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(mul, a * b + a)


@ps.kernel
def u32_ops(a: ps.Buffer[u32], b: ps.Buffer[u32], fdiv: ps.Buffer[u32], mod: ps.Buffer[u32],
            shr: ps.Buffer[u32], sub: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        fdiv[i] = a[i] // b[i]
        mod[i] = a[i] % b[i]
        shr[i] = a[i] >> (b[i] & 31)
        sub[i] = b[i] - a[i] - 1


def test_u32_div_mod_shift_sub(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 1500
    a = rng.integers(0, 2**32, n, dtype=np.uint32)
    b = rng.integers(1, 2**32, n, dtype=np.uint32)
    b[: n // 2] = rng.integers(1, 100, n // 2, dtype=np.uint32)
    fdiv, mod, shr, sub = _run(dev, u32_ops, [a, b], [np.uint32] * 4, n)
    np.testing.assert_array_equal(fdiv, a // b)
    np.testing.assert_array_equal(mod, a % b)
    np.testing.assert_array_equal(shr, a >> (b & 31))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(sub, b - a - np.uint32(1))


@ps.kernel
def hash_u32(x: ps.Buffer[u32], out: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(x):
        v = x[i]
        h = v * 2654435761 ^ (v >> 16)
        h = h + (h << 7) + 0xDEADBEEF
        out[i] = h


def test_u32_overflow_hash(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 3000
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    x[:3] = [0, 2**32 - 1, 2**31]
    (got,) = _run(dev, hash_u32, [x], [np.uint32], n)
    with np.errstate(over="ignore"):
        h = (x * np.uint32(2654435761)) ^ (x >> np.uint32(16))
        h = h + (h << np.uint32(7)) + np.uint32(0xDEADBEEF)
    np.testing.assert_array_equal(got, h)


# ---------------------------------------------------------------------------- floats


@ps.kernel
def float_conv(x: ps.Buffer[f32], y: ps.Buffer[f32], rnd: ps.Buffer[f32],
               trunc: ps.Buffer[i32], fdiv: ps.Buffer[f32], fmod: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(x):
        rnd[i] = round(x[i])
        trunc[i] = int(x[i])
        fdiv[i] = x[i] // y[i]
        fmod[i] = x[i] % y[i]


def test_round_int_floordiv_mod_f32(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 2000
    # quarters: exact in f32, half of them are x.5 ties, many negative
    x = (rng.integers(-4000, 4000, n) / 4).astype(np.float32)
    x[:10] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, -0.75, -1.25]
    y = (rng.integers(1, 200, n) / 4 * rng.choice([-1, 1], n)).astype(np.float32)
    rnd, trunc, fdiv, fmod = _run(dev, float_conv, [x, y],
                                  [np.float32, np.int32, np.float32, np.float32], n)
    np.testing.assert_array_equal(rnd, np.round(x))          # numpy rounds ties to even
    np.testing.assert_array_equal(rnd[:6], [-2, -2, -0, 0, 2, 2])
    np.testing.assert_array_equal(trunc, np.trunc(x).astype(np.int32))
    assert trunc[8] == 0 and trunc[9] == -1
    np.testing.assert_array_equal(fdiv, np.floor_divide(x, y))
    np.testing.assert_array_equal(fmod, np.mod(x, y))


def test_int_truncation_random_floats(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 1000
    x = rng.uniform(-1e6, 1e6, n).astype(np.float32)
    y = np.ones(n, np.float32)
    _, trunc, _, _ = _run(dev, float_conv, [x, y],
                          [np.float32, np.int32, np.float32, np.float32], n)
    np.testing.assert_array_equal(trunc, np.trunc(x).astype(np.int32))


# ---------------------------------------------------------------------- short-circuit


@ps.kernel
def guarded_reads(a: ps.Buffer[i32], out: ps.Buffer[i32], n: u32):
    i = ps.global_id().x
    if i < len(out):
        r = 0
        if i < len(a) and a[i] > 0:
            r = r | 1
        if i >= n or a[i] < 0:
            r = r | 2
        if not (i >= len(a) or a[i] != 0):
            r = r | 4
        r = r | (8 if i < n and a[i] % 2 == 0 else 0)
        out[i] = r


def test_short_circuit_guards_out_of_bounds(dev: ps.Device, rng: np.random.Generator) -> None:
    m, n = 300, 450                       # a has m elements, out has n > m
    a = rng.integers(-3, 4, m, dtype=np.int32)
    ain = dev.array(a)
    out = dev.zeros(n, np.int32)
    guarded_reads.launch(ain, out, m, threads=n, device=dev)
    got = out.numpy()
    ext = np.concatenate([a, np.zeros(n - m, np.int32)])
    inside = np.arange(n) < m
    want = ((inside & (ext > 0)) * 1 | (~inside | (ext < 0)) * 2
            | (inside & (ext == 0)) * 4 | (inside & (ext % 2 == 0)) * 8)
    np.testing.assert_array_equal(got, want)


@ps.kernel
def count_positive(a: ps.Buffer[i32], counter: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a) and a[i] > 0 and ps.atomic_add(counter, 0, 1) >= 0:
        ps.atomic_add(counter, 1, 1)
    if i < len(a) and (a[i] > 0 or ps.atomic_add(counter, 2, 1) > 0xFFFFFFFF):
        ps.atomic_add(counter, 3, 1)


def test_short_circuit_skips_side_effects(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 1000
    a = rng.integers(-5, 5, n, dtype=np.int32)
    counter = dev.zeros(4, np.uint32)
    count_positive.launch(dev.array(a), counter, threads=n, device=dev)
    pos = int((a > 0).sum())
    np.testing.assert_array_equal(counter.numpy(), [pos, pos, n - pos, pos])


# ------------------------------------------------------------------------------ loops


@ps.kernel
def collatz(x: ps.Buffer[u32], steps: ps.Buffer[u32], cap: u32):
    i = ps.global_id().x
    if i >= len(x):
        return
    v = x[i]
    s = u32(0)
    while True:
        if v <= 1:
            break
        if s >= cap:
            break
        if v % 2 == 0:
            v = v // 2
            s += 1
            continue
        v = 3 * v + 1
        s += 1
    steps[i] = s


def _collatz_ref(v: int, cap: int) -> int:
    s = 0
    while v > 1 and s < cap:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        s += 1
    return s


def test_divergent_while_break(dev: ps.Device, rng: np.random.Generator) -> None:
    n, cap = 500, 60
    x = rng.integers(0, 20000, n, dtype=np.uint32)
    x[:3] = [0, 1, 27]                     # 27 takes 111 steps: hits the cap
    (got,) = _run(dev, collatz, [x], [np.uint32], n, cap)
    want = np.array([_collatz_ref(int(v), cap) for v in x], dtype=np.uint32)
    np.testing.assert_array_equal(got, want)
    assert got[2] == cap and got[0] == got[1] == 0


@ps.kernel
def ranges(a: ps.Buffer[i32], out: ps.Buffer[i32], step: i32):
    i = ps.global_id().x
    if i < len(out):
        acc = 0
        for j in range(int(i), -1, -3):              # constant negative step
            acc = (acc * 7 + a[j]) & 0xFFFFF
        cnt = 0
        for _j in range(int(i), int(i) - 20, step):  # runtime negative step
            cnt += 1
        for _j in range(0, int(i), -1):              # no iterations
            cnt += 1000
        out[i] = acc * 64 + cnt


def test_range_negative_step(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 200
    a = rng.integers(-1000, 1000, n, dtype=np.int32)
    step = int(rng.integers(-7, -1))
    ain, out = dev.array(a), dev.zeros(n, np.int32)
    ranges.launch(ain, out, step, threads=n, device=dev)
    want = []
    for i in range(n):
        acc = 0
        for j in range(i, -1, -3):
            acc = (acc * 7 + int(a[j])) & 0xFFFFF
        cnt = len(range(i, i - 20, step)) + 1000 * len(range(0, i, -1))
        want.append(acc * 64 + cnt)
    np.testing.assert_array_equal(out.numpy(), np.array(want, dtype=np.int32))


# -------------------------------------------------------------------------- edge cases


@ps.kernel
def int_edges(a: ps.Buffer[i32], f: ps.Buffer[f32], out: ps.Buffer[i32], uout: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(a):
        k = i * 6
        out[k + 0] = a[i] // -1
        out[k + 1] = a[i] % -1
        out[k + 2] = abs(a[i])
        out[k + 3] = int(f[i])                   # saturates
        out[k + 4] = (a[i] | 1) << 31
        out[k + 5] = a[i] ** 3
        uout[i] = u32(f[i])


def test_integer_edge_cases(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 64
    a = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    a[:3] = [-2**31, -1, 2**31 - 1]
    f = rng.uniform(-1e10, 1e10, n).astype(np.float32)
    f[:6] = [3e9, -3e9, 2.5, -2.5, 4.5e9, -0.75]
    out, uout = dev.zeros(n * 6, np.int32), dev.zeros(n, np.uint32)
    int_edges.launch(dev.array(a), dev.array(f), out, uout, threads=n, device=dev)
    got = out.numpy().reshape(n, 6)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got[:, 0], -a)            # wraps: -(-2**31) == -2**31
        np.testing.assert_array_equal(got[:, 1], 0)
        np.testing.assert_array_equal(got[:, 2], np.abs(a))
        np.testing.assert_array_equal(got[:, 3], np.clip(np.trunc(f.astype(np.float64)),
                                                          -2**31, 2**31 - 1).astype(np.int32))
        np.testing.assert_array_equal(got[:, 4], np.full(n, -2**31, np.int32))
        np.testing.assert_array_equal(got[:, 5], a * a * a)
    np.testing.assert_array_equal(uout.numpy(), np.clip(np.trunc(f.astype(np.float64)),
                                                         0, 2**32 - 1).astype(np.uint32))


@ps.kernel
def chained_and_match(a: ps.Buffer[i32], calls: ps.Buffer[u32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        r = 0
        v = bump(calls, i, a[i])
        if -5 < v <= 5:
            r = 100
        match a[i] & 7:
            case 0 | 1:
                r += 1
            case 2:
                r += 2
            case 5 | 6 | 7:
                r += 5
            case _:
                r += 9
        out[i] = r


def bump(calls: ps.Buffer[u32], i: u32, v: i32) -> i32:
    calls[i] += 1
    return v


def test_chained_comparison_and_match(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 400
    a = rng.integers(-10, 11, n, dtype=np.int32)
    calls, out = dev.zeros(n, np.uint32), dev.zeros(n, np.int32)
    chained_and_match.launch(dev.array(a), calls, out, threads=n, device=dev)
    np.testing.assert_array_equal(calls.numpy(), np.ones(n))
    low = a & 7
    m = np.select([low <= 1, low == 2, low >= 5], [1, 2, 5], 9)
    np.testing.assert_array_equal(out.numpy(), np.where((-5 < a) & (a <= 5), 100, 0) + m)


@ps.kernel
def f32_exact(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        out[i] = (a[i] * b[i] + c[i]) / b[i] - a[i] * 0.1


def test_f32_rounding_per_operation(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 2000
    a, b, c = (rng.normal(0, 1e3, n).astype(np.float32) for _ in range(3))
    out = dev.zeros(n, np.float32)
    f32_exact.launch(dev.array(a), dev.array(b), dev.array(c), out, threads=n, device=dev)
    want = (a * b + c) / b - a * np.float32(0.1)          # numpy: every step in float32
    if dev.name == "cpu":
        np.testing.assert_array_equal(out.numpy(), want)   # the reference is bit-exact
    else:                                                  # a GPU may fuse a*b+c
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-3)


@ps.kernel
def f2i_vec(f: ps.Buffer[ps.vec4], iout: ps.Buffer[ps.ivec4], uout: ps.Buffer[ps.uvec4],
            sout: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(f):
        iout[i] = ps.ivec4(f[i])
        uout[i] = ps.uvec4(f[i])
        sout[i] = int(f[i].x)


def test_float_to_int_saturates_and_nan_is_zero(dev: ps.Device,
                                                rng: np.random.Generator) -> None:
    n = 50
    f = rng.uniform(-6e9, 6e9, (n, 4)).astype(np.float32)
    f[0] = [np.nan, np.inf, -np.inf, 2147483648.0]
    f[1] = [2147483520.0, -2147483648.0, 4294967040.0, -0.99]
    iout, uout, sout = dev.zeros((n, 4), np.int32), dev.zeros((n, 4), np.uint32), \
        dev.zeros(n, np.int32)
    f2i_vec.launch(dev.array(f), iout, uout, sout, threads=n, device=dev)
    t = np.nan_to_num(np.trunc(f.astype(np.float64)), nan=0.0, posinf=1e300, neginf=-1e300)
    want_i = np.clip(t, -2**31, 2**31 - 1).astype(np.int32)
    want_u = np.clip(t, 0, 2**32 - 1).astype(np.uint32)
    np.testing.assert_array_equal(iout.numpy(), want_i)
    np.testing.assert_array_equal(uout.numpy(), want_u)
    np.testing.assert_array_equal(sout.numpy(), want_i[:, 0])


@ps.kernel(workgroup_size=1)
def _range_extremes(o: ps.Buffer[u32], lo: u32, hi: u32, st: i32, a: i32, b: i32):
    n = u32(0)
    for i in range(lo, hi, 3):          # near u32's maximum: i += 3 would wrap
        o[n] = i
        n += 1
    for j in range(a, b, st):           # runtime negative step near i32's minimum
        o[n] = u32(j)
        n += 1
    for j in range(10, -10, -4):
        o[n] = u32(j)
        n += 1
    o[31] = n


def test_range_steps_near_type_limits(dev, rng):
    lo = int(rng.integers(2**32 - 12, 2**32 - 6))
    a = -2**31 + int(rng.integers(5, 12))
    o = np.zeros(32, np.uint32)
    _range_extremes.launch(o, lo, 2**32 - 1, -3, a, -2**31, threads=1, device=dev)
    want = list(range(lo, 2**32 - 1, 3)) + [x % 2**32 for x in range(a, -2**31, -3)] + \
        [x % 2**32 for x in range(10, -10, -4)]
    assert o[31] == len(want)
    assert o[:len(want)].tolist() == want


class _Pick(IntEnum):
    A = 3
    B = 5


@ps.kernel
def _enum_ifexp(o: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(o):
        c = _Pick.A if i % 2 == 0 else _Pick.B      # keeps the enum type
        match c:
            case _Pick.A:
                o[i] = (_Pick.A if i > 2 else _Pick.B).value
            case _Pick.B:
                o[i] = u32(c) * 10


def test_conditional_expression_keeps_enum_type(dev):
    o = np.zeros(7, np.uint32)
    _enum_ifexp.launch(o, threads=7, device=dev)
    assert o.tolist() == [5, 50, 5, 50, 3, 50, 3]
