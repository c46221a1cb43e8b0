"""Is the Vulkan radix sort's gap to cuda in the kernels or in how each device meets
memory? (issue 17) The same pyshade kernels, timed side by side on each GPU device:

- ``copy``: n u32 read and written in order (bandwidth);
- ``copy k a thread``: the same, k loads an invocation issued before the first store;
- ``alu``: a long f32 multiply-add chain per invocation (the SM clock);
- ``permute``: out[(i * odd) mod n] = i, a write to a random place per key (the radix
  scatter's pattern at its worst: TLB reach and write combining);
- ``hist per/major``: radix_hist's work (per group ``per`` tiles of 1024 keys) with the
  256 counts of a group written digit-major (``counts[d * groups + g]``: the scan's
  order, a stride of ``groups`` words between a group's writes) or group-major
  (``counts[g * 256 + d]``: consecutive).

Milliseconds per launch: median of 5 batches of 10 launches, each batch timed to
``dev.synchronize()``.

    python bench/probes/memory_pattern_probe.py [--n 16777216] [--devices cuda,vulkan,wgpu]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyshade as ps
from pyshade import f32, u32
from pyshade.benchmarks.common import median_ms


@ps.kernel(workgroup_size=256)
def copy(src: ps.Buffer[u32], dst: ps.Buffer[u32], n: u32) -> None:
    """dst[i] = src[i]."""
    i = ps.global_id().x
    if i < n:
        dst[i] = src[i]


@ps.kernel(workgroup_size=256)
def copy_many(src: ps.Buffer[u32], dst: ps.Buffer[u32], n: u32, per: ps.Const[int]) -> None:
    """A group copies ``per * 256`` consecutive words, ``per`` loads issued before the
    first store."""
    lx = ps.local_index()
    base = ps.global_id().x // 256 * (256 * per)
    got = ps.array(u32, per)
    for k in ps.unroll(range(per)):
        i = base + k * 256 + lx
        got[k] = src[i] if i < n else u32(0)
    for k in ps.unroll(range(per)):
        i = base + k * 256 + lx
        if i < n:
            dst[i] = got[k]


@ps.kernel(workgroup_size=256)
def alu(dst: ps.Buffer[f32], reps: u32) -> None:
    """reps dependent multiply-adds of 4 independent chains per invocation."""
    i = ps.global_id().x
    a = f32(i) * 1e-9
    b = a + 0.25
    c = a + 0.5
    d = a + 0.75
    for _ in range(reps):
        a = a * 0.999 + 0.001
        b = b * 0.999 + 0.001
        c = c * 0.999 + 0.001
        d = d * 0.999 + 0.001
    dst[i] = a + b + c + d


@ps.kernel(workgroup_size=256)
def permute(dst: ps.Buffer[u32], n: u32) -> None:
    """dst[(i * 2654435761) & (n - 1)] = i (n a power of two: a permutation)."""
    i = ps.global_id().x
    if i < n:
        dst[(i * u32(2654435761)) & (n - 1)] = i


@ps.kernel(workgroup_size=256)
def hist(keys: ps.Buffer[u32], counts: ps.Buffer[u32], n: u32, shift: u32,
         per: ps.Const[int], major: ps.Const[bool]) -> None:
    """radix_hist's work over ``per`` tiles of 1024 keys a group; counts digit-major
    (``major``) or group-major."""
    h = ps.shared_array(u32, 256)
    lx = ps.local_index()
    g = ps.global_id().x // 256
    h[lx] = 0
    ps.barrier()
    base = g * (1024 * per)
    got = ps.array(u32, 4)
    for t in range(u32(per)):
        for k in ps.unroll(range(4)):
            i = base + (t * 4 + k) * 256 + lx
            got[k] = keys[i] if i < n else u32(0)
        for k in ps.unroll(range(4)):
            i = base + (t * 4 + k) * 256 + lx
            if i < n:
                ps.atomic_add(h, (got[k] >> shift) & 255, 1)
    ps.barrier()
    groups = len(counts) // 256
    if major:
        counts[lx * groups + g] = h[lx]
    else:
        counts[g * 256 + lx] = h[lx]


def timed(dev: ps.Device, body, reps: int = 10) -> float:
    """Milliseconds per ``body()``: median of 5 batches of ``reps`` recorded calls."""
    def batch() -> None:
        with dev.batch():
            for _ in range(reps):
                body()
    batch()
    dev.synchronize()
    return median_ms(batch, dev.synchronize, 5) / reps


def profile(name: str, n: int) -> dict[str, float]:
    """Each measurement's milliseconds on device ``name``."""
    dev = ps.device(name)
    keys = dev.array(np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32))
    out = dev.empty(n, np.uint32)
    fout = dev.empty(1 << 20, np.float32)
    res = {
        "copy": timed(dev, lambda: copy.launch(keys, out, n, threads=n, device=dev)),
        "copy 4 a thread": timed(dev, lambda: copy_many.launch(keys, out, n, 4,
                                                               threads=n // 4, device=dev)),
        "copy 16 a thread": timed(dev, lambda: copy_many.launch(keys, out, n, 16,
                                                                threads=n // 16, device=dev)),
        "alu (2^20 x 4096)": timed(dev, lambda: alu.launch(fout, 4096, threads=1 << 20,
                                                           device=dev)),
        "permute": timed(dev, lambda: permute.launch(out, n, threads=n, device=dev)),
    }
    for per in (1, 16):
        groups = -(-n // (1024 * per))
        counts = dev.empty(256 * groups, np.uint32)
        for major in (True, False):
            res[f"hist {per} {'digit' if major else 'group'}-major"] = timed(
                dev, lambda c=counts, p=per, m=major: hist.launch(
                    keys, c, n, 8, p, m, threads=groups * 256, device=dev))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--devices", default="cuda,vulkan,wgpu")
    a = ap.parse_args()
    names = a.devices.split(",")
    cols = {}
    for name in names:
        try:
            cols[name] = profile(name, a.n)
        except Exception as e:         # a device missing here: report, go on
            print(f"{name}: {type(e).__name__}: {e}")
    rows = list(next(iter(cols.values())).keys()) if cols else []
    print(f"n = {a.n}, ms per launch")
    print("| measurement | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for r in rows:
        print(f"| {r} | " + " | ".join(f"{cols[c][r]:.4f}" for c in cols) + " |")


if __name__ == "__main__":
    main()
