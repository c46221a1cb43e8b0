"""The rest of Python's math for floats: tanh, sinh, cosh, asinh, acosh, atanh, exp2, expm1,
log10, log1p, degrees, radians, erf, erfc, hypot, copysign and fmod, on f32 scalars and
vectors (``math.fmod`` of vectors per component). Each target calls its own library where
it has the function with a stated accuracy, ``pyshade/prelude_math.py`` elsewhere (the
hyperbolics on WGSL, GLSL and HLSL, whose APIs leave them to formulas that fail). Every
function reads its own column of ``x`` (and ``y``), so that a test picks each one's domain
(tests/test_exec_math.py)."""

from typing import TypeVar

import pyshade as ps
from pyshade import f32, math, u32, vec4

FUNCS = 17      # columns: one per function, in the order below
F = TypeVar("F", f32, vec4)


@ps.func
def columns(x: ps.Buffer[F], y: ps.Buffer[F], out: ps.Buffer[F], j: u32) -> None:
    out[j] = math.tanh(x[j])
    out[j + 1] = math.sinh(x[j + 1])
    out[j + 2] = math.cosh(x[j + 2])
    out[j + 3] = math.asinh(x[j + 3])
    out[j + 4] = math.acosh(x[j + 4])
    out[j + 5] = math.atanh(x[j + 5])
    out[j + 6] = math.exp2(x[j + 6])
    out[j + 7] = math.expm1(x[j + 7])
    out[j + 8] = math.log10(x[j + 8])
    out[j + 9] = math.log1p(x[j + 9])
    out[j + 10] = math.degrees(x[j + 10])
    out[j + 11] = math.radians(x[j + 11])
    out[j + 12] = math.erf(x[j + 12])
    out[j + 13] = math.erfc(x[j + 13])
    out[j + 14] = math.hypot(x[j + 14], y[j + 14])
    out[j + 15] = math.copysign(x[j + 15], y[j + 15])
    out[j + 16] = math.fmod(x[j + 16], y[j + 16])


@ps.kernel(workgroup_size=64)
def scalars(x: ps.Buffer[f32], y: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x) // FUNCS:
        columns(x, y, out, i * FUNCS)


@ps.kernel(workgroup_size=64)
def vectors(x: ps.Buffer[vec4], y: ps.Buffer[vec4], out: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    if i < len(x) // FUNCS:
        columns(x, y, out, i * FUNCS)
