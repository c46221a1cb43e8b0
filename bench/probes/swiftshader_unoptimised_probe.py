"""Probe (integer differential test, seed 869933548349354142 kernel 15, on CI):
SwiftShader computes wrong integer results from some SPIR-V modules that reach it
unoptimised, on both vulkan routes. ``x ** 2`` is a helper with a loop
(``ps_pow_unsigned_u32``); when its argument becomes a constant only after the driver's
own folding (``max(b[i] * 0, 3)``), SwiftShader returns 1, the loop's initial value; with
a loaded argument (``max(b[i], 3)``) it is right. glslang leaves every module unoptimised,
and DXC did too once the HLSL route compiled with ``-O0`` (for the reciprocal:
``dxc_reciprocal_probe.py``), which is how CI found it on the HLSL route first.

Running spirv-opt's inlining, SSA and constant propagation (``--ccp``) over the module
before the driver sees it (``toolchains.glslang.SPIRV_OPT_PASSES``) gives the right
results on SwiftShader and lavapipe; it keeps every float operation as written, since
``no_contraction`` marks them all ``NoContraction`` first and SPIRV-Tools folds no
decorated operation. ``spirv-opt -O`` would fix SwiftShader too, but SPIRV-Tools 2023.1
(Debian 12) folds ``-(c / x)`` of unsigned integers into ``(-c) / x``: the last case,
``-(1 // max(b[i], 1))``, gives ``0xFFFFFFFF // b`` on the GLSL route with ``-O``.

    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \
        python bench/probes/swiftshader_unoptimised_probe.py
"""
import subprocess
import sys

import numpy as np
from probe_kernels import devices, load

CASES = ["max(z, 3) ** 2", "max(z, 3) * max(z, 3)", "max(b[i], 3) ** 2", "min(z, 3) ** 2",
         "(4294967263 + max(z, 0)) ** 2", "-(1 // max(b[i], 1))"]
SRC = "import pyshade as ps\nfrom pyshade import u32\n\n\n" \
      "@ps.kernel(workgroup_size=4)\n" \
      "def k(b: ps.Buffer[u32], o: ps.Buffer[u32]) -> None:\n" \
      "    i = ps.global_id().x\n    z = b[i] * u32(0)\n" + \
      "".join(f"    o[i * {len(CASES)} + {k}] = {c}\n" for k, c in enumerate(CASES))


def run(mode: str) -> None:
    from pyshade.toolchains import glslang
    if mode == "as-is":     # the module as glslang / DXC -O0 write it
        glslang.optimize_spirv = lambda binary, *args, **kwargs: binary
    elif mode == "-O":
        glslang.SPIRV_OPT_PASSES = ("-O",)
    mod = load(SRC, "swiftshader_unoptimised_kernels")
    b = np.array([7, 25, 2147483647, 29], np.uint32)
    for name, via, dev in devices():
        o = dev.zeros(4 * len(CASES), np.uint32)
        mod.k.launch(dev.array(b), o, threads=4, device=dev)
        rows = o.numpy().reshape(4, len(CASES)).T
        label = f"{name} {via or ('glsl' if name == 'vulkan' else '')}"
        print(f"{mode:7} {label:12} "
              f"{' | '.join(' '.join(map(str, r)) for r in rows)}  {getattr(dev, 'adapter', '')}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        run(sys.argv[1])
    else:
        print("b =", [7, 25, 2147483647, 29], "z = b[i] * 0; cases:", " | ".join(CASES))
        for arg in ("as-is", "passes", "-O"):   # fresh processes: devices and pipelines are cached
            subprocess.run([sys.executable, __file__, arg], check=True)
