"""The math module (functions and constants pi, e, inf, nan), Python's abs,
min, max and round, on scalars and float vectors. ``pyshade.math`` is the standard
module's functions typed for vectors too (mypy and pyright check this file)."""

import pyshade as ps
from pyshade import f32, i32, math, vec2, vec3, vec4


@ps.kernel(workgroup_size=64)
def trig(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i >= len(x):
        return
    t = x[i]
    a = math.sin(t) * math.cos(t) + math.tan(t * 0.5)
    b = math.asin(math.fabs(t) % 1.0) + math.acos(0.5) + math.atan(t)
    c = math.atan2(t, 2.0) * 180.0 / math.pi
    d = math.sqrt(abs(t)) + math.exp(-t) + math.log(1.0 + t * t) + math.log2(8.0 + t)
    e = math.pow(abs(t), 1.5) + math.e
    out[i] = a + b + c + d + e


@ps.kernel(workgroup_size=64)
def rounding(x: ps.Buffer[f32], ints: ps.Buffer[i32], fracs: ps.Buffer[vec2]) -> None:
    i = ps.global_id().x
    if i >= len(x):
        return
    t = x[i]
    fl = math.floor(t)                  # floats, as on every GPU
    frac = t - fl
    r = round(t)                        # ties to even
    ints[i] = int(math.ceil(t)) + int(math.trunc(t)) + int(r) + min(int(fl), 10)
    fracs[i] = vec2(frac, max(r, -1.0))


@ps.kernel(workgroup_size=64)
def specials(x: ps.Buffer[f32], out: ps.Buffer[f32], v: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    if i >= len(x):
        return
    t = x[i]
    lo = -math.inf
    hi = math.inf
    if math.isnan(t):
        t = 0.0
    elif math.isinf(t):
        t = hi if t > 0.0 else lo
        t = min(max(t, -1e30), 1e30)
    q = math.nan if t < -100.0 else t
    w = v[i].xyz
    w = vec3(math.sqrt(abs(w.x)), math.floor(w.y), round(w.z)) + math.fabs(q)
    w = vec3(math.sin(w.xy), 1.0) * math.exp(w)
    nan_mask = math.isnan(w)
    if nan_mask.x or math.isinf(w).y:
        w = max(w, vec3(0.0))
    v[i] = vec4(w, q)
    out[i] = q
