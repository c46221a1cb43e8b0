#!/usr/bin/env bash
# Targeted H200 test run (device tool, kind nvidia-h200; carry .gl .whl .tools .dxc):
# the GPU devices (cuda, wgpu and vulkan from GLSL and HLSL on NVIDIA's driver) for the test
# files given as arguments, with pytest -n 8; the CPU-side parameters are deselected (CI runs
# them). Log: $OUT/h200_tests.txt; the summary and failures are printed last.
#   run(command="bash bench/h200_tests.sh tests/test_exec_ndim.py ...",
#       carry=[".gl", ".whl", ".tools", ".dxc"])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/h200_env.sh
python3 -c "import pyshade as ps; print([str(d) for d in ps.devices()])" 2>&1 | tail -2
K=${H200_TESTS_K:-not cpu and not tint and not swiftshader and not llvmpipe and not host}
timeout "${H200_TESTS_TIMEOUT:-400}" python3 -m pytest -n 8 -q -p no:cacheprovider -rs \
    -k "$K" "$@" > "$OUT/h200_tests.txt" 2>&1
rc=$?
grep -v PytestBenchmarkWarning "$OUT/h200_tests.txt" | grep -v "warner(" | grep -E "^(FAILED|ERROR|SKIPPED)" | head -40
tail -1 "$OUT/h200_tests.txt"
exit $rc
