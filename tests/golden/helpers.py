"""Helper functions: @ps.func and plain functions, helpers calling helpers,
early returns, default arguments, parameters reassigned in the body, helpers
that take a Buffer, that use invocation ids, that return structs, and a
helper whose return type is inferred."""

import pyshade as ps
from pyshade import f32, u32, vec2


@ps.struct
class Hit:
    t: f32
    found: bool


@ps.func
def hash32(x: u32) -> u32:
    x ^= x >> 16
    x *= 0x7FEB352D
    x ^= x >> 15
    x *= 0x846CA68B
    x ^= x >> 16
    return x


def uniform01(seed: u32) -> f32:
    return f32(hash32(seed) >> 8) * (1.0 / 16777216.0)


def sign_of(x: f32, zero: f32 = 0.0) -> f32:
    if x > zero:
        return 1.0
    if x < zero:
        return -1.0
    return 0.0


@ps.func
def first_above(data: ps.Buffer[f32], start: u32, limit: f32) -> Hit:
    k = start
    while k < len(data):
        if data[k] > limit:
            return Hit(t=f32(k), found=True)
        k += 1
    return Hit(t=-1.0, found=False)


def my_lane() -> u32:
    return ps.global_id().x % 32


def jitter(p: vec2, seed: u32) -> vec2:
    return p + vec2(uniform01(seed), uniform01(seed + 1)) - 0.5


@ps.kernel(workgroup_size=64)
def scatter(points: ps.Buffer[vec2], noise: ps.Buffer[f32], seed: u32) -> None:
    i = ps.global_id().x
    if i >= len(points):
        return
    p = jitter(points[i], hash32(seed + i))
    h = first_above(noise, i, 0.9)
    if h.found:
        p.x += sign_of(h.t - 10.0) + sign_of(p.y, 1.0)
    points[i] = p
    noise[i] = f32(my_lane())
