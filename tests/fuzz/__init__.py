"""The differential fuzzer of the whole kernel language (docs/devices/testing.md).

``nodes`` holds the program tree (expressions and statements that print as kernel
source and that the shrinker edits in place), ``exprs`` and ``stmts`` generate random
well-typed kernels, ``ulp`` is the table of per-target accuracy bounds for the functions
that are not exact, ``harness`` writes, loads, launches and compares kernels on devices,
and ``shrink`` reduces a disagreeing kernel to a small regression kept in
``regressions/``. tests/test_fuzz.py and bench/fuzz_run.py drive it.
"""
