"""Probe (fuzz seed 20263211 kernel 1): through wgpu, lavapipe reassociates a chain of
float additions of constants, so ``x - 0.1 - 0.1 - ...`` is not rounded step by step.
The kernel subtracted ``math.fmod(0.1, 1000.0)`` from x0 = 4.0 once per element of a
5-element constant tuple: the cpu device (IEEE, step by step) gives 3.5000005, lavapipe
3.5. The generated kernel then used ``ps.bitcast(u32, x)`` of that value as an index, so
the 1-ulp difference became a different element (of[48]: cpu 155.0, lavapipe 0.0).

One line per WGSL body over ``a`` (read from a buffer), the device's result beside the
step-by-step IEEE result (numpy, f32), and the distance in ulp. Seen with wgpu-py 0.32
(wgpu-native 29.0.1.1), Mesa 22.3.6's lavapipe and SwiftShader: both reassociate a
written-out chain (``a - 0.1f - 0.1f``: 1 ulp; five terms: 2 to 3 ulp), lavapipe also the
loop (unrolled), SwiftShader not; a product chain came out exact here. On lavapipe NIR's algebraic rules
(``~fadd(fadd(a, #b), #c) -> fadd(a, fadd(b, c))``, inexact ones) apply because naga's
SPIR-V marks nothing ``NoContraction``; WGSL allows it ('Floating Point Evaluation': an
implementation may reassociate, contract, and ignore a zero's sign), and a WGSL program
cannot forbid it: a target limitation, not an emitter fault. The fuzz generator now
bitcasts only inputs (tests/fuzz/exprs.py, ``fconv``), whose bits are exact.

    python bench/probes/wgsl_reassociation_probe.py
    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \\
        python bench/probes/wgsl_reassociation_probe.py
"""

from __future__ import annotations

import numpy as np
from wgsl_run import open_device, run_source

F = np.float32
BODIES = (
    ("a - 0.1f - 0.1f", lambda a: a - F(0.1) - F(0.1)),
    ("a - 0.1f - 0.1f - 0.1f - 0.1f - 0.1f",
     lambda a: a - F(0.1) - F(0.1) - F(0.1) - F(0.1) - F(0.1)),
    ("a + 0.1f + 0.2f", lambda a: a + F(0.1) + F(0.2)),
    ("(a * 3.0f) * 0.1f", lambda a: a * F(3.0) * F(0.1)),
    ("loop: x -= 0.1f five times", None),
)


def run(dev, body: str, a: np.ndarray) -> np.ndarray:
    if body.startswith("loop"):
        fn = ("fn f(a: f32) -> f32 { var x = a; for (var k = 0; k < 5; k++) "
              "{ x -= 0.1f; } return x; }\n")
    else:
        fn = f"fn f(a: f32) -> f32 {{ return {body}; }}\n"
    src = ("@group(0) @binding(0) var<storage, read> A: array<f32>;\n"
           "@group(0) @binding(1) var<storage, read_write> O: array<f32>;\n" + fn +
           "@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3<u32>) "
           "{ O[g.x] = f(A[g.x]); }\n")
    return run_source(dev, src, (a,), np.float32, 1)


def main() -> None:
    dev = open_device()
    a = np.array([4.0, -3.0, 1.0, 1000.0], np.float32)
    print(f"a = {a.tolist()}; columns: device, IEEE step by step (numpy), ulp apart")
    for body, ref in BODIES:
        want = (ref or BODIES[1][1])(a).astype(np.float32)
        got = run(dev, body, a)
        ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32))
        print(f"  {body:38} {got.tolist()}  {want.tolist()}  {ulps.tolist()}")


if __name__ == "__main__":
    main()
