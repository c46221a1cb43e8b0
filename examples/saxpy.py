"""SAXPY, y = a*x + y over f32: the first kernel of the documentation.

    python examples/saxpy.py [--device cpu|wgpu|...] [--n 1000000] [--a 2.5]

Runs the kernel on the chosen device (default: the best available), checks
the result against numpy (exactly: one f32 multiply and one f32 add, each
rounded, as numpy does in float32) and exits non-zero on a mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import pyshade as ps
from pyshade import f32


@ps.kernel(workgroup_size=64)
def saxpy(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32) -> None:
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--device", default=None, help="device name (default: the best available)")
    ap.add_argument("--n", type=int, default=None,
                    help="number of elements (default: 2**20; 2**14 on the cpu device)")
    ap.add_argument("--a", type=float, default=2.5, help="the scalar a")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    dev = ps.device(args.device)
    n = args.n if args.n is not None else (2**14 if dev.name == "cpu" else 2**20)
    rng = np.random.default_rng(args.seed)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = f32(args.a)                  # an np.float32 at run time

    dx, dy = dev.array(x), dev.array(y)
    times = []
    for _ in range(2):               # the first launch also translates and compiles
        dy.write(y)
        dev.synchronize()
        t0 = time.perf_counter()
        saxpy.launch(dx, dy, a, threads=n, device=dev)
        dev.synchronize()
        times.append(time.perf_counter() - t0)
    got = dy.numpy()

    # Separate float32 multiply and add (no fused multiply-add), as in the kernel.
    want = (a * x).astype(np.float32) + y
    # A GPU compiler may contract a*x+y into an FMA, skipping the rounding of a*x:
    # allow that much there (one ulp of the larger term); the cpu device is exact.
    if dev.name == "cpu":
        bad = int(np.count_nonzero(got != want))
    else:
        tol = 2.0**-23 * (np.abs(a * x) + np.abs(y))
        bad = int(np.count_nonzero(~(np.abs(got - want) <= tol)))
    ok = bad == 0
    print(f"saxpy  device={dev.name}  adapter={dev.adapter}")
    print(f"n={n}  a={a}  time={times[1] * 1e3:.2f} ms "
          f"(first launch, with compilation: {times[0] * 1e3:.2f} ms)")
    print("ok" if ok else f"FAILED: {bad} of {n} elements differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
