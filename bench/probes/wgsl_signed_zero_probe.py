"""Probe (fuzz seed 20262312 kernels 25 and 39): through wgpu, lavapipe computes
``x * -0.0`` with a constant ``-0.0`` as ``+0.0``, so ``math.copysign(1.0, s0 * -0.0)``
is ``+1.0`` for ``s0 > 0`` where the cpu device (and lavapipe's vulkan routes, which
declare ``SignedZeroInfNanPreserve``) give ``-1.0``. pyshade's WGSL is right: the
product is written ``s0 * (-0.0f)`` and copysign copies the sign bit as bits.

One line per WGSL body, the sign bits (``+``/``-``) of the results for ``a = 0.0, -0.0,
1.0, -1.0`` and ``b = -0.0`` (read from a buffer), the cpu's (IEEE) signs beside them:

* the constant ``-0.0f`` stored as it is keeps its sign: naga writes it to SPIR-V intact;
* ``a * b`` with ``b = -0.0`` from a buffer is right: the multiply itself keeps signs;
* ``a * -0.0f``, ``-0.0f * a`` and ``a * bitcast<f32>(0x80000000u)`` give ``+0.0``
  for every ``a``: NIR's algebraic rule ``fmul(a, 0.0) -> 0.0`` (which also matches a
  constant -0.0), on because naga's SPIR-V declares no ``SignedZeroInfNanPreserve``;
* the same through the copysign that pyshade writes (``ps_copysign``), ``+1`` for
  every ``a`` where IEEE gives ``-1`` for ``a >= +0.0``.

* ``abs(vec2<f32>(a, -0.0f)).y`` is ``-0.0`` on lavapipe (the abs of a constant -0.0
  component is lost; of a run-time -0.0 kept), so ``copysign(10.0, abs(v))`` of such a
  vector is -10.0 (fuzz seed 20263116 kernel 57, ov[1]: cpu 10.0, wgpu-llvmpipe -10.0).

WGSL allows it ("Floating Point Evaluation": an implementation may ignore the sign of
a zero) and can declare no execution mode: a target limitation, not an emitter fault
(lavapipe_signed_zero_probe.py has the other cases, on every route). No spelling keeps
a constant zero from the driver's folding. SwiftShader (VK_DRIVER_FILES=
/usr/lib/chromium/vk_swiftshader_icd.json) shows what it does with the same WGSL.

    python bench/probes/wgsl_signed_zero_probe.py

Uses wgpu-py directly (the default adapter; VK_DRIVER_FILES picks the driver). Seen with
wgpu-py 0.32 (wgpu-native 29.0.1.1) and Mesa 22.3.6's lavapipe.
"""

from __future__ import annotations

import numpy as np
from wgsl_run import open_device, run_source

COPYSIGN = ("fn cs(x: f32, y: f32) -> f32 {\n    return bitcast<f32>((bitcast<i32>(x) & "
            "2147483647i) | (bitcast<i32>(y) & i32(-2147483647 - 1)));\n}\n")
# (WGSL body over a and b, numpy's result for the same)
BODIES = (
    ("-0.0f", lambda a, b: np.full_like(a, -0.0)),
    ("b", lambda a, b: b),
    ("a * b", lambda a, b: a * b),
    ("a * -0.0f", lambda a, b: a * np.float32(-0.0)),
    ("a * (-0.0f)", lambda a, b: a * np.float32(-0.0)),
    ("-0.0f * a", lambda a, b: np.float32(-0.0) * a),
    ("a * bitcast<f32>(0x80000000u)", lambda a, b: a * np.float32(-0.0)),
    ("-(a * 0.0f)", lambda a, b: -(a * np.float32(0.0))),
    ("cs(1.0f, a * b)", lambda a, b: np.copysign(np.float32(1.0), a * b)),
    ("cs(1.0f, a * (-0.0f))", lambda a, b: np.copysign(np.float32(1.0), a * np.float32(-0.0))),
    # seed 20263116 kernel 57: abs of a vector with a constant -0.0 component
    ("abs(vec2<f32>(a, -0.0f)).y", lambda a, b: np.full_like(a, 0.0)),
    ("cs(1.0f, abs(vec2<f32>(a, -0.0f)).y)", lambda a, b: np.full_like(a, 1.0)),
    ("abs(vec2<f32>(a, b)).y", lambda a, b: np.abs(b)),
)


def run(dev, body: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    src = ("@group(0) @binding(0) var<storage, read> A: array<f32>;\n"
           "@group(0) @binding(1) var<storage, read> B: array<f32>;\n"
           "@group(0) @binding(2) var<storage, read_write> O: array<f32>;\n" + COPYSIGN +
           f"fn f(a: f32, b: f32) -> f32 {{ return {body}; }}\n"
           "@compute @workgroup_size(4) fn main(@builtin(global_invocation_id) g: vec3<u32>) "
           "{ O[g.x] = f(A[g.x], B[g.x]); }\n")
    return run_source(dev, src, (a, b), np.float32, 1)


def signs(x: np.ndarray) -> str:
    return "".join("-" if s else "+" for s in np.signbit(x))


def main() -> None:
    dev = open_device()
    a = np.array([0.0, -0.0, 1.0, -1.0], np.float32)
    b = np.full(4, -0.0, np.float32)
    print(f"a = {a.tolist()}, b = {b.tolist()}; columns: device, IEEE (numpy)")
    for body, ref in BODIES:
        got, want = run(dev, body, a, b), ref(a, b).astype(np.float32)
        mark = "" if signs(got) == signs(want) else "   <- sign lost"
        print(f"  {body:32} {signs(got)}  {signs(want)}{mark}")


if __name__ == "__main__":
    main()
