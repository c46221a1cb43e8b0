"""Probe (fuzz seed 8 kernels 15 and 26): lavapipe (Mesa 22.3.6) loses the sign of a zero
in exact f32 operations with a constant +0.0 operand, on both vulkan routes and through
wgpu. One letter per case and input, ``+``/``-`` the sign of the result (all results are
zeros or +-1), against the cpu device.

Two causes. NIR's algebraic rules (``fmul(a, 0.0) -> 0.0``, which also matches a constant
-0.0) are off under ``SignedZeroInfNanPreserve``, which lavapipe and SwiftShader report
(``shaderSignedZeroInfNanPreserveFloat32``) and the vulkan device declares since: that
fixes ``-0.0 * x`` on the GLSL route. gallivm, llvmpipe's LLVM IR builder, short-cuts every
operation with the constant +0.0 regardless of the mode (``lp_build_add``: ``if (b ==
bld->zero) return a``; ``lp_build_sub`` and ``lp_build_mul`` alike): ``x + 0.0`` is ``x``
(-0.0 stays -0.0), ``0.0 - x`` is ``-x`` (+0.0 becomes -0.0), ``x * 0.0`` is +0.0. On the
HLSL route ``-0.0 * x`` was -0.0 too while the HLSL emitter wrote ``-0.0f`` (DXC at -O0
writes ``OpFNegate 0.0``, NIR moves the negation out); it writes ``asfloat(0x80000000u)``
since (fuzz seed 4808303094374983443 kernel 89), and the two routes now print the same
line. No spelling keeps a constant +0.0 from reaching gallivm: a target limitation of
lavapipe. One case gets worse with the mode: ``abs(-0.0 * a)``, right by accident while NIR
folded the product to +0.0, gives -0.0 for a >= +0.0: lavapipe loses the ``abs``. The
``abs`` of a constant -0.0 is lost too (``math.sqrt(abs(vec3(-0.0)))`` and
``math.sqrt(abs(-0.0))`` are -0.0, so ``math.copysign(1.0, ...)`` of it is -1.0: fuzz seed
20263320 kernel 1, f16, of[92]: cpu 1.0, vulkan-hlsl-llvmpipe -1.0), though the SPIR-V is
``Sqrt(FAbs(Bitcast(0x80000000)))`` on both routes. The fuzz generator takes copysign's
sign from an input (``exprs.sign_arg``) for this reason.
SwiftShader's vulkan routes get every case right, with the mode or without; through wgpu
both drivers lose the sign in most cases (WGSL can declare no mode).

    python bench/probes/lavapipe_signed_zero_probe.py
    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \
        python bench/probes/lavapipe_signed_zero_probe.py
"""
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import pyshade as ps

CASES = ["a + 0.0", "0.0 + a", "a - 0.0", "0.0 - a", "a * 0.0", "a * -0.0", "-0.0 * a",
         "(a * 2.0) + 0.0", "a + (b - b)", "-a", "a if b > 0.0 else -0.0", "abs(-0.0 * a)",
         "math.sqrt(abs(ps.vec3(-0.0)))[0]", "math.copysign(1.0, math.sqrt(abs(ps.vec3(-0.0)))[0])",
         "math.sqrt(abs(-0.0))"]
SRC = "import math\n\nimport pyshade as ps\nfrom pyshade import f32\n\n\n" \
      "@ps.kernel(workgroup_size=4)\n" \
      "def zeros(x: ps.Buffer[f32], y: ps.Buffer[f32], o: ps.Buffer[f32]) -> None:\n" \
      "    i = ps.global_id().x\n    a = x[i]\n    b = y[i]\n" + \
      "".join(f"    o[i * {len(CASES)} + {k}] = {c}\n" for k, c in enumerate(CASES))


def run(modes: bool) -> None:
    if not modes:     # what the driver does without the execution modes
        from pyshade.runtime import vulkan_support
        vulkan_support.FloatModes.apply = lambda self, spirv, entry: spirv
    path = Path(tempfile.mkdtemp()) / "signed_zero_kernels.py"
    path.write_text(SRC)
    spec = importlib.util.spec_from_file_location("signed_zero_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = np.array([0.0, -0.0, 1.0, -1.0], np.float32)
    y = np.array([-0.0, 0.0, -0.0, 1.0], np.float32)
    for name, via in (("cpu", None), ("wgpu", None), ("vulkan", None), ("vulkan", "hlsl")):
        try:
            dev = ps.device(name, via=via) if via else ps.device(name)
        except ps.BackendUnavailable as e:
            print(f"{name} {via or ''}: unavailable ({e})")
            continue
        o = dev.zeros(4 * len(CASES), np.float32)
        mod.zeros.launch(dev.array(x), dev.array(y), o, threads=4, device=dev)
        signs = np.signbit(o.numpy().reshape(4, len(CASES))).T
        row = " ".join("".join("-" if s else "+" for s in case) for case in signs)
        label = f"{name} {via or ('glsl' if name == 'vulkan' else '')}"
        print(f"{'modes' if modes else 'none ':5} {label:12} {row}  {getattr(dev, 'adapter', '')}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        run(sys.argv[1] == "modes")
    else:
        print("a = 0.0, -0.0, 1.0, -1.0 and b = -0.0, 0.0, -0.0, 1.0; cases:",
              " | ".join(CASES))
        for arg in ("none", "modes"):   # fresh processes: devices and pipelines are cached
            subprocess.run([sys.executable, __file__, arg], check=True)
