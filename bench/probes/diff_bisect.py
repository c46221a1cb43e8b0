"""Probe: bisect a differential-test kernel that disagrees between cpu and a GPU.

    python bench/probes/diff_bisect.py KERNEL.py [device]

Writes one variant per temporary ``tN`` (``out[i] = tN``, bit-cast to the
output type when needed) and reports, for each, how many of 256 random inputs
differ between the cpu device and the GPU device. The first temporary that
differs holds the culprit expression.
"""

import importlib.util
import os
import re
import sys
import tempfile

import numpy as np

import pyshade as ps


def load(src: str, name: str):
    path = os.path.join(tempfile.mkdtemp(), f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.k


def compare(name: str, k, a: np.ndarray, b: np.ndarray, out_dtype, cpu, gpu) -> None:
    """Run ``k(a, b, out)`` on both devices and print how many outputs differ."""
    outs = []
    for dev in (cpu, gpu):
        o = np.zeros(a.size, out_dtype)
        k.launch(a, b, o, threads=a.size, device=dev)
        outs.append(o)
    bad = np.flatnonzero(outs[0] != outs[1])
    print(f"{name:12} mismatches {bad.size:4}",
          [(int(a[i]), int(b[i]), int(outs[0][i]), int(outs[1][i])) for i in bad[:2]])


def main() -> int:
    src = open(sys.argv[1]).read()
    gpu = ps.device(sys.argv[2] if len(sys.argv) > 2 else "wgpu")
    cpu = ps.device("cpu")
    print(gpu.adapter)
    sig = re.search(r"def k\(a: ps.Buffer\[(\w+)\], b: ps.Buffer\[(\w+)\], out: ps.Buffer\[(\w+)\]",
                    src)
    ta, tb, tout = sig.groups()
    names = sorted(set(re.findall(r"^\s+(t\d+) (?:=|//=|\+=|-=|\*=|<<=|>>=|&=|\|=|\^=|%=)", src,
                                  re.M)), key=lambda s: int(s[1:]))
    lines = src.rstrip().splitlines()
    last = max(i for i, ln in enumerate(lines) if ln.strip().startswith("out[i] ="))
    rng = np.random.default_rng()
    n = 256
    dt = {"i32": np.int32, "u32": np.uint32}
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int64)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int64)
    a = (a % 2**32).astype(np.uint32).view(dt[ta]) if ta == "i32" else (a % 2**32).astype(np.uint32)
    b = (b % 2**32).astype(np.uint32).view(dt[tb]) if tb == "i32" else (b % 2**32).astype(np.uint32)
    for name in names + ["out"]:
        body = lines[:last] + ([lines[last]] if name == "out" else
                               [re.sub(r"out\[i\] = .*", f"out[i] = ps.bitcast({tout}, {name})",
                                       lines[last])])
        try:
            k = load("\n".join(body) + "\n", f"bisect_{name}")
            ps.translate(k, "wgsl")
        except ps.TranslationError:
            body[-1] = re.sub(r"out\[i\] = .*", f"out[i] = {name}", lines[last])
            k = load("\n".join(body) + "\n", f"bisect_{name}_plain")
        compare(name, k, a, b, dt[tout], cpu, gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
