"""Probe (bench/probes/constant_operands_probe.py, ``x / y`` [f32] with literal operands):
glslang 12 folds a float division by a constant zero to the infinity of the dividend's
sign, ignoring the zero's: ``1.0 / -0.0`` becomes +inf and ``-1.0 / -0.0`` -inf (IEEE:
-inf and +inf); ``0.0 / 0.0`` is a NaN. The GLSL emitter writes the literals of a
division by a constant zero as bits (``emit/glsl._zero_divisor``), which glslang does
not fold; spirv-opt and the drivers then divide as IEEE does (both CPU drivers checked
by ``test_exec_edge_cases::test_constant_edge_operands``). No driver is involved here:
the constants are read from the SPIR-V.

    python bench/probes/glslang_zero_divisor_probe.py
"""
from probe_kernels import print_float_folds

CASES = ["1.0 / -0.0", "-1.0 / -0.0", "1.0 / 0.0", "-1.0 / 0.0", "0.0 / 0.0",
         "(vec2(1.0) / vec2(-0.0)).x"]
if __name__ == "__main__":
    print_float_folds(CASES)
