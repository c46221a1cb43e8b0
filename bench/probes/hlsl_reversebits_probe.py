"""Probe (issue 8, CI seed 8428154407253166252): which piece of a differential kernel the
HLSL route computes differently from the CPU. Each column is one sub-expression of the
failing kernel; run on the vulkan device via HLSL and on the CPU, rows that differ printed.

    python bench/probes/hlsl_reversebits_probe.py
"""
import numpy as np

import pyshade as ps
from pyshade import i32, u32


@ps.kernel(workgroup_size=64)
def probe(a: ps.Buffer[i32], b: ps.Buffer[i32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        x = a[i]
        y = b[i]
        t1 = u32(y)
        out[i * 6 + 0] = ps.reverse_bits(i32(7)) << (t1 & 31)
        out[i * 6 + 1] = 1 if (ps.reverse_bits(i32(7)) << (t1 & 31)) <= x else 0
        out[i * 6 + 2] = ps.reverse_bits(x) // max(y, 1)
        out[i * 6 + 3] = ps.reverse_bits(x)
        out[i * 6 + 4] = 1 if ps.reverse_bits(x) < 0 else 0
        out[i * 6 + 5] = (ps.reverse_bits(x) // max(y, 1)) ** 1


def main() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(-2**31, 2**31, 256, dtype=np.int32)
    b = rng.integers(-2**31, 2**31, 256, dtype=np.int32)
    a[:4], b[:4] = [24, 32, 2265282, -5], [3, 6, 1, 4]
    res = {}
    for name, dev in (("cpu", ps.device("cpu")), ("hlsl", ps.device("vulkan", via="hlsl"))):
        out = dev.zeros(256 * 6, np.int32)
        probe.launch(dev.array(a), dev.array(b), out, threads=256, device=dev)
        res[name] = out.numpy().reshape(-1, 6)
    bad = np.nonzero(res["cpu"] != res["hlsl"])
    print("columns differing:", sorted(set(bad[1].tolist())), "rows:", len(set(bad[0].tolist())))
    for r, c in list(zip(*bad))[:8]:
        print(f"  x={a[r]} y={b[r]} col {c}: cpu {res['cpu'][r, c]} hlsl {res['hlsl'][r, c]}")


if __name__ == "__main__":
    main()
