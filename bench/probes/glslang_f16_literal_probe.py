"""Probe (fuzz seeds 20263101 kernel 8, 20263113 kernel 39): glslang makes an f16
constant by rounding the literal's decimal to f32 and then truncating that f32 to f16
(``Builder::makeFloat16Constant``: ``castTo(f16Val, spvutils::kRoundToZero)``), so
``0.3hf`` is 0x34cc where f16(0.3) is 0x34cd, and ``-0.001hf`` 0x9418, not 0x9419: one
f16 ulp toward zero for about half of the values. The same truncation makes every f16
constant glslang folds: ``float16_t(0.3)`` and f16 arithmetic on constants. No driver is
involved (the constants are read from the SPIR-V); it showed on the GLSL route only (DXC
rounds to nearest). The GLSL emitter now writes an f16 literal from its f16's value, as
f32 (``0.30004883hf``; ``HALF_LITERAL``): rounding that decimal to f32 and truncating to
f16 are both exact. ``correct`` is numpy's f16 of the case's value (for a fold: the f16
operation).

    python bench/probes/glslang_f16_literal_probe.py
"""
import numpy as np
from probe_kernels import glslang_constants

h = np.float16
CASES = [  # (GLSL, the correctly rounded f16)
    ("0.3hf", h(0.3)), ("-0.001hf", h(-0.001)), ("0.1hf", h(0.1)), ("0.6hf", h(0.6)),
    ("0.30004883hf", h(0.3)), ("-0.0010004044hf", h(-0.001)),   # as pyshade writes them
    ("float16_t(0.3)", h(0.3)),
    ("0.0999755859375hf * 3.0hf", h(0.1) * h(3.0)),
    ("0.0999755859375hf + 0.6000976562hf", h(0.1) + h(0.6)),
]
GLSL = ("#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types : require\n"
        "#extension GL_EXT_shader_16bit_storage : require\nlayout(local_size_x = 1) in;\n"
        "layout(std430, binding = 0) buffer B { float16_t o[]; };\nvoid main() {\n" +
        "".join(f"    o[{k}] = {c};\n" for k, (c, _) in enumerate(CASES)) + "}\n")


def bits(v: float) -> int:
    return int(np.float16(v).view(np.uint16))


if __name__ == "__main__":
    version, consts, stores = glslang_constants(GLSL, "half")
    print(version)
    for (case, want), value in zip(CASES, stores):
        got = bits(float.fromhex(consts[value]))
        verdict = "ok" if got == bits(want) else "WRONG"
        print(f"{case:36} 0x{got:04x}  correct 0x{bits(want):04x}  {verdict}")
