"""Narrow down the NVIDIA Vulkan constant-folding miscompile that survives the unsigned
``ps_pow_signed`` (tests/test_prelude.py::test_signed_power_that_overflows_a_constant):
``-u32(abs(i32(2147483647)) ** 3)`` still gave 2147483647 on the H200. Each variant is
a constant expression; prints the variants whose result differs from Python's."""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32

C = 2147483647


@ps.kernel(workgroup_size=64)
def variants(a: ps.Buffer[u32], out: ps.Buffer[u32]):
    if ps.global_id().x == 0:
        c = i32(2147483647)
        out[0] = -u32(abs(c) ** 3)
        out[1] = -u32(abs(c))
        out[2] = -u32(c ** 3)
        out[3] = -u32(ps.select(c, -c, c < 0))
        out[4] = -(u32(abs(c)) ** 3)
        out[5] = u32(0) - u32(abs(c) ** 3)
        out[6] = -u32(abs(c) * abs(c) * abs(c))
        out[7] = -u32(abs(c) ** 2)
        out[8] = -u32(abs(i32(5)) ** 3)
        out[9] = -u32(abs(i32(-5)) ** 3)
        out[10] = -u32(abs(i32(70000)) ** 2)
        out[11] = -u32(ps.select(c, -c, c < 0) * c)
        out[12] = -u32(c * c * c)
        out[13] = -(u32(c) * u32(c) * u32(c))
        out[14] = u32(-(abs(c) ** 3))
        out[15] = -u32(abs(i32(a[0])) ** 3)


def expected() -> list[int]:
    m = 0xFFFFFFFF

    def w(v: int) -> int:          # wrap to i32
        return ((v + 2**31) & m) - 2**31
    c = C
    return [(-(w(c ** 3))) & m, (-c) & m, (-(w(c ** 3))) & m, (-c) & m, (-(c ** 3)) & m,
            (-(w(c ** 3))) & m, (-(w(c ** 3))) & m, (-(w(c * c))) & m, (-125) & m, (-125) & m,
            (-(w(70000 ** 2))) & m, (-(w(c * c))) & m, (-(w(c ** 3))) & m, (-(c ** 3)) & m,
            (-(w(c ** 3))) & m, (-(w(c ** 3))) & m]


def main() -> None:
    """Run on every GPU device; print the variants that differ from Python."""
    want = expected()
    for d in ps.devices():
        if not d.available or d.name == "cpu":
            continue
        dev = ps.device(d.name)
        out = dev.zeros(len(want), np.uint32)
        variants.launch(dev.array(np.array([C], np.uint32)), out, threads=1, device=dev)
        got = out.numpy().tolist()
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
        print(f"{d.name:8} {'ok' if not bad else 'DIFFERS (variant, got, want): ' + str(bad)}")


if __name__ == "__main__":
    main()


# Candidate loop shapes for the prelude's integer power (run by ``--candidates``).
def pow_square_while(x: u32, n: u32) -> u32:
    r = u32(1)
    b = x
    e = n
    while e != u32(0):
        if (e & u32(1)) != u32(0):
            r = r * b
        b = b * b
        e = e >> u32(1)
    return r


def pow_square_fixed(x: u32, n: u32) -> u32:
    r = u32(1)
    b = x
    for i in range(7):              # n <= 64: 7 bits
        if ((n >> u32(i)) & u32(1)) != u32(0):
            r = r * b
        b = b * b
    return r


def pow_select_fixed(x: u32, n: u32) -> u32:
    r = u32(1)
    b = x
    for i in range(7):
        r = ps.select(r, r * b, ((n >> u32(i)) & u32(1)) != u32(0))
        b = b * b
    return r


@ps.kernel(workgroup_size=64)
def candidates(a: ps.Buffer[u32], out: ps.Buffer[u32]):
    if ps.global_id().x == 0:
        c = u32(2147483647)
        out[0] = -pow_square_while(c, u32(3))
        out[1] = -pow_square_fixed(c, u32(3))
        out[2] = -pow_select_fixed(c, u32(3))
        out[3] = -pow_square_while(c, u32(5))
        out[4] = -pow_square_fixed(c, u32(5))
        out[5] = -pow_select_fixed(c, u32(5))


def run_candidates() -> None:
    """The candidate shapes on every GPU device."""
    m = 0xFFFFFFFF
    want = [(-(C ** 3)) & m] * 3 + [(-(C ** 5)) & m] * 3
    for d in ps.devices():
        if not d.available or d.name == "cpu":
            continue
        dev = ps.device(d.name)
        out = dev.zeros(len(want), np.uint32)
        candidates.launch(dev.array(np.array([C], np.uint32)), out, threads=1, device=dev)
        got = out.numpy().tolist()
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
        print(f"{d.name:8} candidates {'ok' if not bad else 'DIFFER: ' + str(bad)}")


if __name__ == "__main__":
    import sys
    if "--candidates" in sys.argv:
        run_candidates()
