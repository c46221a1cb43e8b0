"""Bisect a differential failure on the cuda device (H200, 2026-12-01,
PYSHADE_DIFF_SEED=3324786554212481793): each intermediate of the failing kernel is stored
and compared with the cpu device.

Seen with NVRTC 13.0 (before the fix): every intermediate of k2 agreed; in k3, ``lo``
and ``hi`` agreed but ``ps.clamp(max(-t1, t1), lo, hi)`` differed in 95 of 256 rows
(x=-1: 297851775 on the cpu, 0 on cuda). Signed min/max/abs on CUDA are now inline PTX
``min.s32``/``max.s32`` (prelude: ``lang.smin``/``smax``), which the optimiser cannot
rewrite."""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32


@ps.kernel(workgroup_size=64)
def k2(a: ps.Buffer[i32], b: ps.Buffer[u32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        x = a[i]
        y = b[i]
        t0 = (((abs(i32(1)) - abs(i32(32))) + x) ** 2)
        out[i * 12 + 0] = t0
        out[i * 12 + 1] = abs((i32(y) | t0)) ** 2
        out[i * 12 + 2] = (-i32(y)) % ((i32((-1)) & 5) | 1)
        t1 = ((abs((i32(y) | t0)) ** 2) - ((-i32(y)) % ((i32((-1)) & 5) | 1)))
        out[i * 12 + 3] = t1
        out[i * 12 + 4] = ps.bitcast(i32, ps.bitcast(u32, abs(t0)))
        out[i * 12 + 5] = max((-t1), (t1 ** 1))
        out[i * 12 + 6] = (i32(y) ** 2) % (i32(7) | 1)
        out[i * 12 + 7] = t1 % 7
        out[i * 12 + 8] = abs(x) % 7
        out[i * 12 + 9] = (-x) % 5
        out[i * 12 + 10] = x % 5
        out[i * 12 + 11] = x // 5


@ps.kernel(workgroup_size=64)
def k3(a: ps.Buffer[i32], b: ps.Buffer[u32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        x = a[i]
        y = b[i]
        t0 = (((abs(i32(1)) - abs(i32(32))) + x) ** 2)
        t1 = ((abs((i32(y) | t0)) ** 2) - ((-i32(y)) % ((i32((-1)) & 5) | 1)))
        lo = min(i32(max((31 * i32(y)), (x ^ t1))), i32(((t0 ** 4) ** 1)))
        hi = max(i32(max((31 * i32(y)), (x ^ t1))), i32(((t0 ** 4) ** 1)))
        out[i * 12 + 0] = lo
        out[i * 12 + 1] = hi
        c = ps.clamp(max((-t1), (t1 ** 1)), lo, hi)
        out[i * 12 + 2] = c
        t2 = c * ps.bitcast(i32, ps.bitcast(u32, abs(t0)))
        out[i * 12 + 3] = t2
        t2 *= ((i32(y) ** 2) % (i32(7) | 1))
        out[i * 12 + 4] = t2
        cond = (((~u32(7)) & (u32(x) - y)) <= y == ps.select((u32(t1) ** 4), (y - y), (y != y)))
        out[i * 12 + 5] = i32(cond)
        t3 = ps.select(i32((((-7) if (0 != x) else t1) if (u32(1) < 4294967295)
                           else (i32(32) ** 3))), abs(((x + x) ** 3)), cond)
        out[i * 12 + 6] = t3
        out[i * 12 + 7] = t1 % (t2 | 1)
        out[i * 12 + 8] = (t1 % (t2 | 1)) % (ps.reverse_bits(x) | 1)
        out[i * 12 + 9] = (((t1 % (t2 | 1)) % (ps.reverse_bits(x) | 1)) - t3)
        out[i * 12 + 10] = abs(t0)
        out[i * 12 + 11] = abs(((x + x) ** 3))


def main() -> None:
    rng = np.random.default_rng(5)
    n = 256
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:4] = [-2**31, -1, 1147672092, -20]
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b[:4] = [40, 3251959231, 40, 3251959231]
    res = {}
    for name in ("cpu", "cuda"):
        dev = ps.device(name)
        out = dev.zeros(n * 12, np.int32)
        k3.launch(dev.array(a), dev.array(b), out, threads=n, device=dev)
        res[name] = out.numpy().reshape(n, 12)
    bad = res["cpu"] != res["cuda"]
    print("mismatches per column:", bad.sum(axis=0).tolist())
    for col in range(12):
        rows = np.nonzero(bad[:, col])[0][:2]
        for r in rows:
            print(f"col {col} x={a[r]} y={b[r]} cpu={res['cpu'][r, col]} cuda={res['cuda'][r, col]}")


if __name__ == "__main__":
    main()
