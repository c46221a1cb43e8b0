"""Probe: which step of a differential-test kernel differs on a real GPU.

The kernel below failed on the H200 (NVIDIA Vulkan through wgpu-py) in
tests/test_differential.py. Each variant writes one intermediate value; the
first one where wgpu and cpu disagree names the culprit operation.

Kept as the record of that finding: since then ``ps.clamp`` refuses lo > hi on
the CPU device (ValueError), so the variants from ``t2a`` on stop there.
"""

import importlib.util
import os
import sys
import tempfile

import numpy as np

import pyshade as ps

BODY = [
    ("t0", "i32", "((x % ((~i32(2147483647)) | 1)) - (-((i32((-1)) + (-2147483648)) << (y & 31))))"),
    ("m0", "i32", "(x % ((~i32(2147483647)) | 1))"),
    ("s0", "i32", "((i32((-1)) + (-2147483648)) << (y & 31))"),
    ("t1", "u32", "(abs(((u32(0) * 2147483648) >> (y & 31))) * u32(x))"),
    ("t2a", "u32", "ps.clamp(ps.clamp((t1 ** 0), (t1 + abs(t1)), (t1 | (u32(x) if (100 <= i32(t1)) "
                   "else u32(x)))), t1, (t1 + ((u32(1) << (y & 31)) | t1)))"),
    ("t2", "u32", "t2a >> ((t2a % (t2a | 1)) & 31)"),
    ("m2", "u32", "(t2a % (t2a | 1))"),
    ("t3", "i32", "(((i32(x) if (t0 == x) else (1 ^ y)) * ((x if (1 <= t2) else x) ** 0)) * "
                  "(min(i32(y), (t0 & x)) ^ y))"),
    ("sq", "i32", "(i32(t2) * i32(t2))"),
    ("cl", "i32", "ps.clamp(y, (i32(t2) * i32(t2)), (-y))"),
    ("res", "i32", "(min(t3, ps.clamp(y, (i32(t2) * i32(t2)), (-y))) - t3)"),
    # the same, subtracting in u32 (wrapping by definition) and converting back
    ("resu", "i32", "i32(u32(min(t3, ps.clamp(y, (i32(t2) * i32(t2)), (-y)))) - u32(t3))"),
    ("mn", "i32", "min(t3, ps.clamp(y, (i32(t2) * i32(t2)), (-y)))"),
]


def kernel_for(upto: int):
    lines = [f"        {n} = {e}" for n, _, e in BODY[:upto + 1]]
    name, t, _ = BODY[upto]
    src = (f"import pyshade as ps\nfrom pyshade import i32, u32\n\n\n"
           f"@ps.kernel(workgroup_size=64)\n"
           f"def k(a: ps.Buffer[i32], b: ps.Buffer[i32], out: ps.Buffer[{t}]):\n"
           f"    i = ps.global_id().x\n    if i < len(a):\n        x = a[i]\n        y = b[i]\n"
           + "\n".join(lines) + f"\n        out[i] = {name}\n")
    path = os.path.join(tempfile.mkdtemp(), f"probe_{name}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"probe_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.k, np.uint32 if t == "u32" else np.int32


def main() -> int:
    rng = np.random.default_rng()
    n = 256
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:4] = [32, 1, 1429022313, 1994616294]
    b[:4] = [695675768, 28, 15, 2]
    cpu, gpu = ps.device("cpu"), ps.device(sys.argv[1] if len(sys.argv) > 1 else "wgpu")
    print(gpu.adapter)
    for j, (name, _, _) in enumerate(BODY):
        k, dt = kernel_for(j)
        outs = []
        for dev in (cpu, gpu):
            o = np.zeros(n, dt)
            k.launch(a, b, o, threads=n, device=dev)
            outs.append(o)
        bad = np.flatnonzero(outs[0] != outs[1])
        print(f"{name:4} mismatches {bad.size:4}",
              [(int(a[i]), int(b[i]), int(outs[0][i]), int(outs[1][i])) for i in bad[:3]])
        if bad.size and name == "res":
            print(ps.translate(k, "wgsl"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
