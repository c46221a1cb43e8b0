"""Execution tests of language features on every device against numpy: shared
memory and barriers, atomics, structs, vectors and matrices, math, Const and
TypeVar specialisation, batches, numpy arguments, big launches, names that are
keywords in some target."""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

import pyshade as ps
from pyshade import f32, i32, mat3, mat4, u32, vec2, vec3, vec4

WG = 64

# --------------------------------------------------------------------- shared memory


@ps.kernel(workgroup_size=WG)
def block_scan(a: ps.Buffer[u32], out: ps.Buffer[u32]):
    tmp = ps.shared_array(u32, WG)
    lid = ps.local_id().x
    gid = ps.global_id().x
    v = u32(0)
    if gid < len(a):
        v = a[gid]
    tmp[lid] = v
    ps.barrier()
    offset = u32(1)
    while offset < WG:                        # Hillis-Steele inclusive scan
        x = u32(0)
        if lid >= offset:
            x = tmp[lid - offset]
        ps.barrier()
        tmp[lid] += x
        ps.barrier()
        offset *= 2
    if gid < len(a):
        out[gid] = tmp[lid]


def test_shared_memory_block_scan(dev: ps.Device, rng: np.random.Generator) -> None:
    n = WG * 7 + int(rng.integers(1, WG))     # last block partial
    a = rng.integers(0, 2**32, n, dtype=np.uint32)
    out = dev.zeros(n, np.uint32)
    block_scan.launch(dev.array(a), out, threads=n, device=dev)
    padded = np.zeros(-(-n // WG) * WG, np.uint32)
    padded[:n] = a
    want = np.cumsum(padded.reshape(-1, WG), axis=1, dtype=np.uint32).reshape(-1)[:n]
    np.testing.assert_array_equal(out.numpy(), want)


# --------------------------------------------------------------------------- atomics


@ps.kernel
def histogram(x: ps.Buffer[u32], bins: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(x):
        ps.atomic_add(bins, x[i] % len(bins), 1)


@ps.kernel(workgroup_size=WG)
def shared_histogram(x: ps.Buffer[u32], bins: ps.Buffer[u32]):
    local = ps.shared_array(u32, 16)
    lid = ps.local_id().x
    if lid < 16:
        local[lid] = u32(0)
    ps.barrier()
    i = ps.global_id().x
    if i < len(x):
        ps.atomic_add(local, x[i] & 15, 1)
    ps.barrier()
    if lid < 16:
        ps.atomic_add(bins, lid, local[lid])


def test_atomic_histogram(dev: ps.Device, rng: np.random.Generator) -> None:
    n, nbins = 5000, 37
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    bins = dev.zeros(nbins, np.uint32)
    histogram.launch(dev.array(x), bins, threads=n, device=dev)
    np.testing.assert_array_equal(bins.numpy(), np.bincount(x % nbins, minlength=nbins))
    bins16 = dev.zeros(16, np.uint32)
    shared_histogram.launch(dev.array(x), bins16, threads=n, device=dev)
    np.testing.assert_array_equal(bins16.numpy(), np.bincount(x & 15, minlength=16))


@ps.kernel
def atomic_ops(x: ps.Buffer[i32], acc: ps.Buffer[i32], olds: ps.Buffer[i32],
               claims: ps.Buffer[i32], cas_old: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(x):
        v = x[i]
        ps.atomic_min(acc, 0, v)
        ps.atomic_max(acc, 1, v)
        ps.atomic_and(acc, 2, v)
        ps.atomic_or(acc, 3, v)
        ps.atomic_xor(acc, 4, v)
        ps.atomic_add(acc, 5, v)
        ps.atomic_sub(acc, 6, v)
        olds[i] = ps.atomic_exchange(acc, 7, int(i))
        cas_old[i] = ps.atomic_compare_exchange(claims, v & 7, -1, int(i))


@ps.kernel
def atomic_u32(x: ps.Buffer[u32], acc: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(x):
        ps.atomic_min(acc, 0, x[i])
        ps.atomic_max(acc, 1, x[i])
        ps.atomic_add(acc, 2, x[i])                # wraps modulo 2**32


def test_atomic_results(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 3000
    x = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    init = np.array([2**31 - 1, -2**31, -1, 0, 0, 0, 0, -1], np.int32)
    acc = dev.array(init)
    olds, cas_old = dev.zeros(n, np.int32), dev.zeros(n, np.int32)
    claims = dev.array(np.full(8, -1, np.int32))
    atomic_ops.launch(dev.array(x), acc, olds, claims, cas_old, threads=n, device=dev)
    got = acc.numpy()
    with np.errstate(over="ignore"):
        total = np.sum(x, dtype=np.int32)
    assert got[0] == x.min() and got[1] == x.max()
    assert got[2] == np.bitwise_and.reduce(x) and got[3] == np.bitwise_or.reduce(x)
    assert got[4] == np.bitwise_xor.reduce(x)
    assert got[5] == total and got[6] == np.int32(0) - total
    # exchange: the values seen plus the final one are the initial one plus every id
    seen = np.sort(np.concatenate([olds.numpy(), got[7:8]]))
    np.testing.assert_array_equal(seen, np.arange(-1, n))
    # compare-exchange: exactly one winner per used slot, the others saw the winner
    cl, co = claims.numpy(), cas_old.numpy()
    slot = x & 7
    for s in range(8):
        members = np.flatnonzero(slot == s)
        if members.size == 0:
            assert cl[s] == -1
            continue
        winners = members[co[members] == -1]
        assert winners.tolist() == [cl[s]]
        assert (co[members[members != cl[s]]] == cl[s]).all()

    xu = rng.integers(0, 2**32, n, dtype=np.uint32)
    accu = dev.array(np.array([2**32 - 1, 0, 0], np.uint32))
    atomic_u32.launch(dev.array(xu), accu, threads=n, device=dev)
    np.testing.assert_array_equal(accu.numpy(), [xu.min(), xu.max(), np.sum(xu, dtype=np.uint32)])


# --------------------------------------------------------------------------- structs


class Kind(IntEnum):
    IDLE = 0
    MOVING = 1
    DEAD = 2


@ps.struct
class Particle:
    pos: vec3
    kind: Kind
    vel: vec3
    mass: f32
    hits: u32
    tag: vec2


@ps.kernel
def step_particles(ps_in: ps.Buffer[Particle], dt: f32):
    i = ps.global_id().x
    if i >= len(ps_in):
        return
    p = ps_in[i]
    match p.kind:
        case Kind.IDLE:
            p.kind = Kind.MOVING
        case Kind.MOVING:
            p.pos = p.pos + p.vel * dt
            if p.pos.y < 0.0:
                p.kind = Kind.DEAD
        case Kind.DEAD:
            p.mass = 0.0
    p.hits += 1
    p.tag = p.tag.yx
    ps_in[i] = p
    ps_in[i].vel.z = -ps_in[i].vel.z


def test_struct_read_modify_write(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 500
    a = np.zeros(n, Particle.dtype)
    a["pos"] = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    a["vel"] = rng.uniform(-2, 2, (n, 3)).astype(np.float32)
    a["kind"] = rng.integers(0, 3, n)
    a["mass"] = rng.uniform(1, 5, n).astype(np.float32)
    a["hits"] = rng.integers(0, 2**32 - 1, n, dtype=np.uint32)
    a["tag"] = rng.uniform(0, 9, (n, 2)).astype(np.float32)
    buf = dev.array(a)
    dt = np.float32(0.25)
    step_particles.launch(buf, dt, threads=n, device=dev)
    got = buf.numpy()

    moving = a["kind"] == Kind.MOVING
    pos = a["pos"].copy()
    pos[moving] = a["pos"][moving] + a["vel"][moving] * dt
    kind = a["kind"].copy()
    kind[a["kind"] == Kind.IDLE] = Kind.MOVING
    kind[moving & (pos[:, 1] < 0)] = Kind.DEAD
    np.testing.assert_allclose(got["pos"], pos, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got["kind"], kind)
    np.testing.assert_array_equal(got["mass"], np.where(a["kind"] == Kind.DEAD, 0, a["mass"]))
    np.testing.assert_array_equal(got["hits"], a["hits"] + 1)
    np.testing.assert_array_equal(got["tag"], a["tag"][:, ::-1])
    vel = a["vel"].copy()
    vel[:, 2] *= -1
    np.testing.assert_array_equal(got["vel"], vel)
    back = Particle.from_numpy(got[:3])
    assert [p.kind for p in back] == [Kind(k) for k in kind[:3]]
    host = a.copy()                               # a numpy struct array is copied back
    step_particles.launch(host, dt, threads=n, device=dev)
    np.testing.assert_array_equal(host, got)


# ------------------------------------------------------------ vectors and matrices


@ps.kernel
def vec_mat(v: ps.Buffer[vec4], m: mat4, m3: mat3, out4: ps.Buffer[vec4],
            out3: ps.Buffer[vec4], outs: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(v):
        a = v[i]
        out4[i] = m @ a + a.wzyx * 2.0
        c = vec3(a.xy, a.z - a.w)
        d = m3 @ c
        d.y = d.y + 1.0
        out3[i] = vec4(d, ps.dot(a.xyz, c))
        w = ps.ivec2(i32(i), -3) * 2 + ps.ivec2(1, 1)
        outs[i] = ps.length(ps.cross(a.xyz, c)) + float(w.x + w.y) + (m @ m)[1][2]


def test_vectors_swizzles_matrices(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 300
    v = rng.uniform(-3, 3, (n, 4)).astype(np.float32)
    cols4 = rng.uniform(-1, 1, (4, 4)).astype(np.float32)   # the host passes columns
    cols3 = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    M4, M3 = cols4.T, cols3.T
    out4, out3, outs = dev.zeros((n, 4), np.float32), dev.zeros((n, 4), np.float32), \
        dev.zeros(n, np.float32)
    vec_mat.launch(dev.array(v), cols4, cols3, out4, out3, outs, threads=n, device=dev)
    np.testing.assert_allclose(out4.numpy(), v @ M4.T + v[:, ::-1] * 2, rtol=1e-5, atol=1e-5)
    c = np.stack([v[:, 0], v[:, 1], v[:, 2] - v[:, 3]], axis=1)
    d = c @ M3.T
    d[:, 1] += 1
    np.testing.assert_allclose(out3.numpy()[:, :3], d, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out3.numpy()[:, 3], np.sum(v[:, :3] * c, axis=1),
                               rtol=1e-5, atol=1e-5)
    w = 2 * np.arange(n) + 1 + (-6 + 1)
    want = np.linalg.norm(np.cross(v[:, :3], c), axis=1) + w + (M4 @ M4)[2, 1]
    np.testing.assert_allclose(outs.numpy(), want, rtol=1e-5, atol=1e-4)


# ------------------------------------------------------------------------------ math


@ps.kernel
def math_fns(x: ps.Buffer[f32], y: ps.Buffer[f32], out: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(x):
        a = x[i]
        b = y[i]
        k = i * 12
        out[k + 0] = math.sqrt(b)
        out[k + 1] = math.sin(a)
        out[k + 2] = math.cos(a)
        out[k + 3] = math.exp(a * 0.1)
        out[k + 4] = math.log(b)
        out[k + 5] = math.atan2(a, b)
        out[k + 6] = math.pow(b, 1.5)
        out[k + 7] = math.floor(a) + math.ceil(a) * 10.0
        out[k + 8] = ps.clamp(a, -1.0, 1.0)
        out[k + 9] = ps.mix(a, b, 0.25)
        out[k + 10] = abs(a) + min(a, b) + max(a, b)
        out[k + 11] = math.tan(a * 0.2)


def test_math_functions(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 400
    x = rng.uniform(-np.pi, np.pi, n).astype(np.float32)
    y = rng.uniform(0.01, 10, n).astype(np.float32)
    out = dev.zeros(n * 12, np.float32)
    math_fns.launch(dev.array(x), dev.array(y), out, threads=n, device=dev)
    got = out.numpy().reshape(n, 12)
    want = np.stack([np.sqrt(y), np.sin(x), np.cos(x), np.exp(x * 0.1), np.log(y),
                     np.arctan2(x, y), y ** 1.5, np.floor(x) + np.ceil(x) * 10,
                     np.clip(x, -1, 1), x * 0.75 + y * 0.25,
                     np.abs(x) + np.minimum(x, y) + np.maximum(x, y), np.tan(x * 0.2)], axis=1)
    trig = [1, 2, 11]
    rest = [c for c in range(12) if c not in trig]
    np.testing.assert_allclose(got[:, rest], want[:, rest].astype(np.float32), rtol=2e-5,
                               atol=2e-5)
    # WGSL's accuracy for sin and cos on [-pi, pi] is 2^-11 absolute (SwiftShader uses
    # it); tan(x) = sin(x) / cos(x) inherits it, with |cos(0.2 x)| > 0.8 here.
    np.testing.assert_allclose(got[:, trig[:2]], want[:, trig[:2]], rtol=0, atol=2**-11)
    np.testing.assert_allclose(got[:, 11], want[:, 11], rtol=0, atol=2**-11 * 3)


@ps.kernel
def math_more(x: ps.Buffer[vec4], out: ps.Buffer[vec4], flags: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(x):
        a = x[i]
        k = i * 4
        out[k + 0] = ps.normalize(a) * ps.distance(a, a.yxwz)
        out[k + 1] = ps.step(vec4(0.0), a) + ps.smoothstep(vec4(-2.0), vec4(2.0), a) * 10.0
        out[k + 2] = ps.fma(a, a.wzyx, vec4(1.0)) + ps.select(a, -a, a > vec4(0.0))
        out[k + 3] = ps.clamp(a * 3.0, vec4(-1.0), vec4(2.0)) + vec4(math.floor(a.x))
        f = u32(0)
        if math.isnan(a.x):           # (inf - inf may be folded by a GPU compiler)
            f |= 1
        if math.isinf(a.y * 1e38):
            f |= 2
        flags[i] = f


def test_vector_math(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 300
    x = rng.uniform(-4, 4, (n, 4)).astype(np.float32)
    x[0, 0] = np.inf
    x[2, 0] = np.nan
    x[1, 1] = 1e-10
    out, flags = dev.zeros((n * 4, 4), np.float32), dev.zeros(n, np.uint32)
    math_more.launch(dev.array(x), out, flags, threads=n, device=dev)
    got = out.numpy().reshape(n, 4, 4)
    ok = np.isfinite(x).all(axis=1)
    y = x[ok]
    norm = y / np.linalg.norm(y, axis=1, keepdims=True)
    dist = np.linalg.norm(y - y[:, [1, 0, 3, 2]], axis=1, keepdims=True)
    np.testing.assert_allclose(got[ok, 0], norm * dist, rtol=1e-5, atol=1e-5)
    t = np.clip((y + 2) / 4, 0, 1)
    np.testing.assert_allclose(got[ok, 1], (y >= 0) + t * t * (3 - 2 * t) * 10,
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[ok, 2], y * y[:, ::-1] + 1 + np.where(y > 0, -y, y),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[ok, 3], np.clip(y * 3, -1, 2) + np.floor(y[:, :1]),
                               rtol=1e-6, atol=1e-6)
    want_flags = np.isnan(x[:, 0]) * 1 + (np.abs(x[:, 1].astype(np.float64) * 1e38) >
                                           np.finfo(np.float32).max) * 2
    np.testing.assert_array_equal(flags.numpy(), want_flags)


@ps.kernel
def bit_ops(x: ps.Buffer[u32], y: ps.Buffer[i32], out: ps.Buffer[u32], fout: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(x):
        k = i * 4
        out[k + 0] = ps.popcount(x[i])
        out[k + 1] = ps.reverse_bits(x[i])
        out[k + 2] = ps.count_leading_zeros(x[i])
        out[k + 3] = ps.bitcast(u32, y[i])
        fout[i] = ps.bitcast(f32, x[i] & 0x3FFFFFFF)


@ps.kernel
def signed_reverse(y: ps.Buffer[i32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(y):
        r = ps.reverse_bits(y[i])
        # i32 stays signed: DXC's reversebits of an int gives a uint, which turned the
        # comparison and the floor division unsigned (the differential test found it)
        out[i * 3] = r // 3
        out[i * 3 + 1] = 1 if ps.reverse_bits(y[i]) < 0 else 0
        out[i * 3 + 2] = 1 if (ps.reverse_bits(i32(7)) << (u32(i) & 31)) <= y[i] else 0


def test_reverse_bits_of_i32_is_signed(dev: ps.Device, rng: np.random.Generator) -> None:
    y = rng.integers(-2**31, 2**31, 300, dtype=np.int32)
    y[:4] = [7, 1, -1, 0]
    out = dev.zeros(900, np.int32)
    signed_reverse.launch(dev.array(y), out, threads=len(y), device=dev)
    r = np.array([int(f"{v & 0xFFFFFFFF:032b}"[::-1], 2) for v in y.tolist()],
                 np.uint32).view(np.int32).astype(np.int64)
    ids = np.arange(len(y), dtype=np.uint32) & 31
    seven = (np.uint32(0xE0000000) << ids).view(np.int32)   # reverse_bits(7) << (i & 31)
    np.testing.assert_array_equal(out.numpy().reshape(-1, 3),
                                  np.stack([r // 3, r < 0, seven <= y], 1))


@ps.kernel
def negated_quotients(b: ps.Buffer[u32], out: ps.Buffer[u32]):
    i = ps.global_id().x
    if i < len(b):
        # DXC folded the unsigned -(x / C) into x / -C (differential test)
        out[i * 3] = -(b[i] // 1)
        out[i * 3 + 1] = -(b[i] // 3)
        out[i * 3 + 2] = -(b[i] // (b[(i + 1) % len(b)] | 1))


def test_negated_unsigned_quotients(dev: ps.Device, rng: np.random.Generator) -> None:
    b = rng.integers(0, 2**32, 200, dtype=np.uint32)
    b[:3] = [0, 1, 2**32 - 1]
    out = dev.zeros(600, np.uint32)
    negated_quotients.launch(dev.array(b), out, threads=len(b), device=dev)
    nxt = np.roll(b, -1) | 1
    want = np.stack([-b, -(b // 3), -(b // nxt)], 1).astype(np.uint32)
    np.testing.assert_array_equal(out.numpy().reshape(-1, 3), want)


def test_bit_builtins(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 500
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    x[:3] = [0, 1, 2**32 - 1]
    y = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    out, fout = dev.zeros(n * 4, np.uint32), dev.zeros(n, np.float32)
    bit_ops.launch(dev.array(x), dev.array(y), out, fout, threads=n, device=dev)
    got = out.numpy().reshape(n, 4)
    bits = [format(int(v), "032b") for v in x]
    np.testing.assert_array_equal(got[:, 0], [b.count("1") for b in bits])
    np.testing.assert_array_equal(got[:, 1], [int(b[::-1], 2) for b in bits])
    np.testing.assert_array_equal(got[:, 2], [32 - int(v).bit_length() for v in x])
    np.testing.assert_array_equal(got[:, 3], y.view(np.uint32))
    np.testing.assert_array_equal(fout.numpy().view(np.uint32), x & 0x3FFFFFFF)


# ------------------------------------------------------- struct field defaults


@ps.struct
class Emitter:
    seed: u32
    rate: f32 = 0.25            # defaults in the class body: omitted fields take them
    kind: Kind = Kind.MOVING
    on: bool = True
    burst: i32 = -7
    dir: vec2                   # no default: zero


@ps.kernel(workgroup_size=WG)
def make_emitters(seeds: ps.Buffer[u32], out: ps.Buffer[Emitter]):
    i = ps.global_id().x
    if i < len(out):
        e = Emitter(seeds[i], dir=vec2(1.0, f32(i)))
        if i % 2 == 1:
            e = Emitter(seeds[i], 2.0, Kind.DEAD, on=False)
        out[i] = e


def test_struct_field_defaults(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 130
    seeds = rng.integers(0, 2**32, n, dtype=np.uint32)
    out = dev.zeros(n, Emitter.dtype)
    make_emitters.launch(dev.array(seeds), out, threads=n, device=dev)
    got = out.numpy()
    odd = np.arange(n) % 2 == 1
    np.testing.assert_array_equal(got["seed"], seeds)
    np.testing.assert_array_equal(got["rate"], np.where(odd, 2.0, 0.25).astype(np.float32))
    np.testing.assert_array_equal(got["kind"], np.where(odd, Kind.DEAD, Kind.MOVING))
    np.testing.assert_array_equal(got["on"], np.where(odd, 0, 1))
    np.testing.assert_array_equal(got["burst"], np.full(n, -7))
    want_dir = np.stack([np.where(odd, 0.0, 1.0), np.where(odd, 0.0, np.arange(n))], 1)
    np.testing.assert_array_equal(got["dir"], want_dir.astype(np.float32))
    host = Emitter(seed=3)          # the host dataclass has the same defaults
    assert (host.rate, host.kind, host.on, host.burst) == (0.25, Kind.MOVING, True, -7)


# ------------------------------------------------------- local arrays, struct params


@ps.struct
class Window:
    origin: vec3
    width: u32
    scale: vec4
    flip: bool


@ps.kernel
def windowed(a: ps.Buffer[f32], out: ps.Buffer[f32], w: Window):
    i = ps.global_id().x
    if i >= len(out):
        return
    buf = ps.array(f32, 8)
    for j in range(w.width):
        src = i + j
        buf[j] = a[src] if src < len(a) else 0.0
    s = 0.0
    for j in range(w.width):
        k = w.width - 1 - j if w.flip else j
        s = s * w.scale.y + buf[k]
    out[i] = s + w.origin.z


def test_local_array_and_struct_param(dev: ps.Device, rng: np.random.Generator) -> None:
    n = 200
    a = rng.uniform(-1, 1, n).astype(np.float32)
    for flip in (False, True):
        width = int(rng.integers(1, 9))
        win = Window(origin=vec3(1.0, 2.0, 0.5), width=width,
                     scale=vec4(9.0, 0.5, 9.0, 9.0), flip=flip)
        out = dev.zeros(n, np.float32)
        windowed.launch(dev.array(a), out, win, threads=n, device=dev)
        ext = np.concatenate([a, np.zeros(8, np.float32)]).astype(np.float64)
        want = []
        for i in range(n):
            vals = ext[i:i + width]
            s = 0.0
            for v in (vals[::-1] if flip else vals):
                s = s * 0.5 + v
            want.append(s + 0.5)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------- 2-D launch with groups=

TILE = 8


@ps.kernel(workgroup_size=(TILE, TILE))
def transpose(a: ps.Buffer[f32], out: ps.Buffer[f32], ids: ps.Buffer[u32], rows: u32,
              cols: u32):
    tile = ps.shared_array(f32, TILE * (TILE + 1))
    g = ps.global_id()
    lid = ps.local_id()
    if g.y < rows and g.x < cols:
        tile[lid.y * (TILE + 1) + lid.x] = a[g.y * cols + g.x]
        flat = g.y * cols + g.x
        ids[flat * 3] = ps.local_index()
        ids[flat * 3 + 1] = ps.group_id().x + ps.group_id().y * 1000
        ids[flat * 3 + 2] = ps.num_groups().x * 1000 + ps.num_groups().y
    ps.barrier()
    ox = ps.group_id().y * TILE + lid.x          # transposed block
    oy = ps.group_id().x * TILE + lid.y
    if oy < cols and ox < rows:
        out[oy * rows + ox] = tile[lid.x * (TILE + 1) + lid.y]


def test_2d_groups_shared_transpose(dev: ps.Device, rng: np.random.Generator) -> None:
    rows, cols = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    a = rng.normal(size=(rows, cols)).astype(np.float32)
    out, ids = dev.zeros(rows * cols, np.float32), dev.zeros(rows * cols * 3, np.uint32)
    gx, gy = -(-cols // TILE), -(-rows // TILE)
    transpose.launch(dev.array(a.reshape(-1)), out, ids, rows, cols, groups=(gx, gy),
                     device=dev)
    np.testing.assert_array_equal(out.numpy().reshape(cols, rows), a.T)
    got = ids.numpy().reshape(rows, cols, 3)
    yy, xx = np.mgrid[0:rows, 0:cols]
    np.testing.assert_array_equal(got[..., 0], (yy % TILE) * TILE + xx % TILE)
    np.testing.assert_array_equal(got[..., 1], xx // TILE + (yy // TILE) * 1000)
    np.testing.assert_array_equal(got[..., 2], np.full((rows, cols), gx * 1000 + gy))
