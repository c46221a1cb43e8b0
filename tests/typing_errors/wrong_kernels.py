"""Deliberately wrong kernels and launches for the type checkers (tests/test_typing.py).

Every line marked ``# E: <why>`` must be reported by mypy (and by pyright), and no
other line: the unmarked lines next to them are the correct spellings. This file
is never run or translated.
"""

from typing import Literal, NewType

import numpy as np

import pyshade as ps
from pyshade import f32, math, u32, vec2, vec3

Stage = NewType("Stage", u32)
Pass = NewType("Pass", u32)


@ps.struct
class Step:
    stage: Stage
    pass_of_stage: Pass


@ps.struct
class Window:
    taps: ps.Array[f32, Literal[4]]
    gain: f32 = 1.0


@ps.kernel
def store_float(out: ps.Buffer[u32], x: f32) -> None:
    i = ps.global_id().x
    out[i] = x                                  # E: an f32 stored into a Buffer[u32]
    out[i] = u32(x)


@ps.kernel(workgroup_size=64)
def vec_to_scalar(out: ps.Buffer[f32], v: vec2) -> None:
    s: f32 = v                                  # E: a vec2 assigned to an f32
    t: f32 = v.x
    w: vec2 = v.yx
    out[ps.global_id().x] = s + t + w.x
    ps.atomic_or(out, 0, 1.5)                   # E: bit atomics need an integer buffer
    q = ps.global_id().xq                       # E: not a swizzle
    out[1] = f32(q)
    d: vec3 = math.sin(vec3(v, 1.0))
    e: vec3 = math.isnan(d)                     # E: isnan of a vec3 is a bvec3
    out[2] = f32(math.gcd(4, 6))                # E: math.gcd is not a kernel function
    out[3] = d.x + e.x


def first_pass(p: Pass) -> u32:
    return p


@ps.kernel
def newtypes(out: ps.Buffer[u32], stage: Stage) -> None:
    out[0] = first_pass(stage)                  # E: a Stage where a Pass is expected
    out[1] = first_pass(Pass(stage))


def launches(dev: ps.Device) -> None:
    out = dev.zeros(16, np.uint32)
    store_float.launch(out, 1.5, threads=16, device=dev)
    store_float.launch(out, 1.5, thread=16, device=dev)      # E: a misspelled keyword
    store_float.launch(out, threads=16, device=dev)          # E: a missing argument
    store_float.launch(out, 1.5, 2.0, threads=16)            # E: one argument too many
    vec_to_scalar.launch(out, 2.0, groups=1)                 # E: a float for a vec2
    vec_to_scalar.launch(out, vec2(1.0, 2.0), groups=(1, 1))
    Step(stage=Stage(1), pass_of_stage=Pass(2))
    Step(stage=Stage(1), pass_of_stage=Stage(2))             # E: a Stage for a Pass field
    Window(taps=ps.array(f32, 4))
    Window(gain=2.0)                                         # E: taps has no default
    Window(ps.array(vec2, 4))                                # E: vec2 taps for f32 ones
