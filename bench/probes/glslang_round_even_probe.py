"""Probe (fuzz seed 20261204 kernel 102): glslang 12 (Debian 12) folds ``roundEven`` of a
constant with the zero's sign flipped: ``roundEven(0.1)`` becomes ``-0.0`` and
``roundEven(-0.1)`` ``+0.0``; nonzero results (``roundEven(2.5)`` 2, ``roundEven(-0.6)``
-1), ``floor``, ``ceil`` and ``trunc`` of the same constants are right (``round(-0.1)``,
which pyshade never writes, is ``+0.0`` too). A
kernel's ``ps.bitcast(i32, round(0.1))`` was -2**31 on the GLSL route (both drivers) and
a loop over ``range(n, n + that % 7)`` ran 5 times instead of none. pyshade now folds
``round`` of a constant itself (``frontend/calls.py``, exactly, in the argument's
precision), and the GLSL emitter calls ``roundEven`` of any other constant expression
(``round(vec2(0.1).y)``: fuzz seed 8985045185412620368 kernel 22) in a function of its
own, which glslang does not fold (``test_exec_fuzz_fixes``'s
``test_round_of_a_constant_expression``). No driver is involved: the constants are read from the SPIR-V.

    python bench/probes/glslang_round_even_probe.py
"""
from probe_kernels import print_float_folds

CASES = ["roundEven(0.1)", "roundEven(-0.1)", "roundEven(2.5)", "roundEven(-0.6)",
         "round(0.1)", "round(-0.1)", "floor(0.1)", "ceil(-0.1)", "trunc(-0.1)",
         "roundEven(sqrt(abs(0.1)))", "roundEven(sqrt(abs(vec2(-0.2)))).y",
         "roundEven(vec2(0.1).y)"]
if __name__ == "__main__":
    print_float_folds(CASES)
