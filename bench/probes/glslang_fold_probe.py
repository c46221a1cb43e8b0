"""Probe (fuzz seed 3 kernel 5): glslang folds float arithmetic on constants in double
precision and rounds once to f32, where f32 arithmetic rounds each operand and each
operation: ``vec4(10.0) * vec4(-0.001)`` is 0xbc23d70a on the GLSL route (lavapipe and
SwiftShader alike, so the front end, not a driver) and 0xbc23d70b on the cpu device,
through wgpu and on the HLSL route (f32(10) * f32(-0.001), rounded). A constant operand
met with a runtime value is not folded: ``x * -0.001`` agrees everywhere.

glslang folds from each literal's decimal value, not from the f32 it denotes: the GLSL
emitter now writes a float literal inside an operation on constants with its float's
exact decimal (``-0.0010000000474974513``; ``emit/glsl.mark_folded``), and the fold
agrees (one operation of two f32 values, exact in double and rounded once, is the f32
operation). A chain of folded operations rounded once where f32 rounds each step (seed
20263119 kernel 57): its literals are written as bits now, which glslang does not fold
(and an f16 one's too: ``glslang_f16_literal_probe.py``). ``as-written`` shows the
literals as pyshade wrote them before (one process each: translations and pipelines are
cached).

    python bench/probes/glslang_fold_probe.py
"""
import subprocess
import sys

import numpy as np
from probe_kernels import devices, load

SRC = '''import pyshade as ps
from pyshade import f32, vec4


@ps.kernel(workgroup_size=4)
def folded(x: ps.Buffer[f32], out: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    out[i] = vec4(10.0) * vec4(-0.001)


@ps.kernel(workgroup_size=4)
def runtime(x: ps.Buffer[f32], out: ps.Buffer[vec4]) -> None:
    i = ps.global_id().x
    out[i] = vec4(x[i]) * vec4(-0.001)
'''


def main(mode: str) -> None:
    if mode == "as-written":
        from pyshade.emit import glsl
        glsl.mark_folded = lambda tree: None
    mod = load(SRC, "glslang_fold_kernels")
    x = np.full(4, 10.0, np.float32)
    for name, via, dev in devices((("cpu", None), ("wgpu", None), ("vulkan", None),
                                   ("vulkan", "hlsl"))):
        for kname in ("folded", "runtime"):
            k = getattr(mod, kname)
            out = dev.zeros((4, 4), np.float32)
            k.launch(dev.array(x), out, threads=4, device=dev)
            bits = int(out.numpy()[0, 0].view(np.uint32))
            print(f"{mode:10} {name:7} {via or 'glsl' if name == 'vulkan' else '':5} {kname:8} "
                  f"0x{bits:08x} {getattr(dev, 'adapter', '')}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        for arg in ("as-written", "exact"):
            subprocess.run([sys.executable, __file__, arg], check=True)
