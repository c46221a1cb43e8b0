"""Reduce the H200 differential failure on the vulkan route (bench/results/h200_gpu_suite.txt):
``-u32(abs(i32(2147483647)) ** 3)`` gave 2147483647 instead of 2147483649. Variants with a
constant or a run-time base, with and without abs and the negation, on every GPU device
found; prints what each gives against Python's wrapping result.

Seen on the H200 (bench/results/h200_vulkan_pow_probe.txt): only variant 0 differs, and
only through GLSL/glslang on NVIDIA's Vulkan driver (580.159.04): the negation of a
constant signed power that overflows gives 2147483647; the same with a run-time base,
without the negation, or through WGSL/naga is right, and writing the negation as
``uint(0) - x`` did not help. Suspected: the driver folds the constant loop assuming
signed multiplication does not overflow. Workaround (prelude.ps_pow_signed): powers of
signed integers are computed in the unsigned type of their width, which wraps by
definition; tests/test_prelude.py::test_signed_power_that_overflows_a_constant."""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32


@ps.kernel(workgroup_size=64)
def variants(a: ps.Buffer[u32], out: ps.Buffer[u32]):
    if ps.global_id().x == 0:
        x = i32(a[0])
        out[0] = -u32(abs(i32(2147483647)) ** 3)
        out[1] = u32(abs(i32(2147483647)) ** 3)
        out[2] = u32(i32(2147483647) ** 3)
        out[3] = -u32(abs(x) ** 3)
        out[4] = u32(abs(x) ** 3)
        out[5] = u32(x ** 3)
        out[6] = u32(x * x * x)
        out[7] = u32(abs(x))


def main() -> None:
    """Run the variants on each available GPU device and print them beside Python's."""
    v = 2147483647
    cube = (v ** 3) & 0xFFFFFFFF
    want = [(-cube) & 0xFFFFFFFF, cube, cube, (-cube) & 0xFFFFFFFF, cube, cube, cube, v]
    print("want   ", want)
    for d in ps.devices():
        if not d.available or d.name == "cpu":
            continue
        dev = ps.device(d.name)
        out = dev.zeros(8, np.uint32)
        try:
            variants.launch(dev.array(np.array([v], np.uint32)), out, threads=1, device=dev)
        except ps.PyshadeError as e:
            print(d.name, "error", str(e).splitlines()[0])
            continue
        got = out.numpy().tolist()
        print(f"{d.name:7}", got, "ok" if got == want else "DIFFERS at " +
              str([i for i, (g, w) in enumerate(zip(got, want)) if g != w]))


if __name__ == "__main__":
    main()
