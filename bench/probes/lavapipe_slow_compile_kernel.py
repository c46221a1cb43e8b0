"""lavapipe's LLVM at the first dispatch, over fresh fuzz seed 6579655493099019436 kernel
60 shrunk for compile time (bench/probes/lavapipe_slow_compile_shrink.py, 388 -> 104
lines; f16 replaced by f32, which is as slow): gdb showed LLVM 15's ScalarEvolution
(isKnownPredicate / isLoopBackedgeGuardedByCond, recursing) in llvmpipe's compile
thread. The table loop unrolls into one compare-exchange loop (the f32 atomic_min) per
entry behind the branches above it: measured on this 2-core machine (2026-12-05), one entry
4.5 s, two 5.3 s, three past 120 s (past 300 s in a longer try; the whole kernel 60 past
15 minutes); without the atomic 3.6 s.
Each run is a child process with a limit (a GPU cannot be interrupted).

    CI=true PYSHADE_TEST_VK_DRIVERS=lavapipe python bench/probes/lavapipe_slow_compile_kernel.py
"""
# ruff: noqa
import math
import os
import subprocess
import sys
import time

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32, vec2, vec3, vec4, uvec2, uvec3, uvec4, mat2

TABLE = tuple(float(x) for x in os.environ.get("PROBE_TABLE", "1.5,0.3,-2.5").split(","))


@ps.kernel(workgroup_size=16)
def fz60(xf: ps.Buffer[f32], xu: ps.Buffer[u32], xv: ps.Buffer[vec4], ot: ps.Buffer[f32], af: ps.Buffer[f32], s0: f32, s1: i32, s2: u32) -> None:
    i = ps.global_id().x
    x0 = xf[2 * i]
    x1 = xf[2 * i + 1]
    u0 = xu[i]
    v0 = xv[i]
    if math.isinf(x0):
        if (u32(1) == u0 != u32(1)):
            pass
        elif (1.0 != 1.0):
            pass
        elif (1.0 <= 1.0 == (-3.0)):
            v0.w = 1.0
        else:
            x0, x1 = x1, x0
            if (1.0 >= 1.0 > s0):
                x1 = f32(1.0)
                a19 = math.fmod(vec2(uvec2(u32(1), u0)), vec2(1.0))
                a20 = mat2()
                r21 = (a19 @ a20)
                ot[i * 75 + 11] = a19.x
                ot[i * 75 + 12] = a19.y
                ot[i * 75 + 13] = a20[0].x
                ot[i * 75 + 14] = a20[0].y
                ot[i * 75 + 15] = a20[1].x
                ot[i * 75 + 16] = a20[1].y
                ot[i * 75 + 17] = r21.x
                ot[i * 75 + 18] = r21.y
                a22 = ((abs(math.fmod(math.fmod(vec4(uvec4(uvec3((u32(1) % len(xu)), (u32(1) % len(xu)), s2), (u32(1) % len(xu)))), vec4(1.0)), vec4(1.0))) + 0.25) * vec4(-1.0, 1.0, 1.0, -1.0))
                r23 = ps.normalize(a22)
                ot[i * 75 + 19] = a22.x
                ot[i * 75 + 20] = a22.y
                ot[i * 75 + 21] = a22.z
                ot[i * 75 + 22] = a22.w
                ot[i * 75 + 23] = r23.x
                ot[i * 75 + 24] = r23.y
                ot[i * 75 + 25] = r23.z
                ot[i * 75 + 26] = r23.w
            elif (1.0 != s0):
                v24 = vec2(1.0)
                a25 = math.fmod(ps.clamp(float((i32(1) >> (s1 & i32(1)))), 1.0, 1.0), 40.0)
                r26 = math.expm1(a25)
                ot[i * 75 + 27] = a25
                ot[i * 75 + 28] = r26
            elif (u32(1) <= uvec4(u32(1), (u32(1) % len(xu)), uvec2(u32(1))).y):
                a27 = math.fmod(1.0, 1.0)
                r28 = math.acos(a27)
                ot[i * 75 + 29] = a27
                ot[i * 75 + 30] = r28
                v0 = vec4(1.0)
            else:
                v29 = vec3(1.0, 1.0, s0).zy
                a30 = math.fmod(v29[(100 % 2)], 1.0)
                r31 = math.tanh(a30)
                ot[i * 75 + 31] = a30
                ot[i * 75 + 32] = r31
            v32 = i32(1)
            v10 = vec2(1.0)
            v33 = vec3(1.0)
        x0 = f32(math.fmod((-1024.0), 1.0))
    else:
        if math.isinf(1.0):
            pass
        elif (xu[((s2 ** 1) % len(xu))] >= u0 == u32(1)):
            pass
        elif True:
            for j57 in TABLE:
                old58 = ps.atomic_min(af, 4 + i, 1.0)
    if (1.0 != 1.0):
        pass
    else:
        if (f32(1.0) > x0):
            pass
        else:
            a108 = vec2(1.0)
            a109 = math.fmod((vec2(1.0) * (vec2(1.0) + s0)), vec2(1.0))
            r110 = ps.distance(a108, a109)
            ot[i * 75 + 66] = a108.x
            ot[i * 75 + 67] = a108.y
            ot[i * 75 + 68] = a109.x
            ot[i * 75 + 69] = a109.y
            ot[i * 75 + 70] = r110


def child() -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
    from conftest import VULKAN_PARAMS, vulkan_device
    dev = vulkan_device(VULKAN_PARAMS[0])
    rng = np.random.default_rng(60)
    n = 16
    args = [dev.array(rng.standard_normal(2 * n).astype(np.float32)),
            dev.array(rng.integers(0, 2**32, n, dtype=np.uint32)),
            dev.array(rng.standard_normal((n, 4)).astype(np.float32)),
            dev.zeros(75 * n, np.float32), dev.zeros(n + 8, np.float32),
            0.5, 3, 7]
    t = time.perf_counter()
    fz60.launch(*args, threads=n, device=dev)
    args[3].numpy()
    print(f"{time.perf_counter() - t:.1f}")


def main() -> None:
    if sys.argv[1:] == ["--child"]:
        child()
        return
    limit = float(os.environ.get("PROBE_LIMIT", "120"))
    print(f"device: {os.environ.get('PYSHADE_TEST_VK_DRIVERS', 'first vulkan adapter')}")
    for table in ("1.5", "1.5,0.3", "1.5,0.3,-2.5"):
        # Mesa's disk cache would answer a kernel compiled by an earlier run at once
        env = dict(os.environ, PROBE_TABLE=table, PYSHADE_GPU_WAIT=str(limit + 60),
                   MESA_SHADER_CACHE_DISABLE="true")
        try:
            p = subprocess.run([sys.executable, __file__, "--child"], env=env, timeout=limit,
                               capture_output=True, text=True)
            got = p.stdout.strip() + " s" if p.returncode == 0 else "error: " + p.stderr[-300:]
        except subprocess.TimeoutExpired:
            got = f"past {limit:.0f} s (killed)"
        print(f"{len(table.split(','))} table entries (compare-exchange loops): first dispatch {got}")


if __name__ == "__main__":
    main()
