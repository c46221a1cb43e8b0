#!/usr/bin/env bash
# Issue 17 on the lent H200 (device tool, kind nvidia-h200; carry .gl .whl .tools .dxc):
# the algorithms' tests on the GPU devices, then `pyshade bench --only algorithms` on cuda, wgpu
# and vulkan against CuPy (CUB) and numpy. Logs and JSON under $OUT; a table last.
#   run(command="bash bench/h200_algos.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
# H200_ALGOS_TESTS=0 skips the tests; H200_ALGOS_SIZES overrides the sizes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
rc=0
if [ "${H200_ALGOS_TESTS:-1}" = 1 ]; then
    H200_TESTS_TIMEOUT=${H200_TESTS_TIMEOUT:-300} bash bench/h200_tests.sh \
        tests/test_algorithms.py tests/test_cuda_interop.py tests/test_exec_sort.py || rc=1
    cp "$OUT/h200_tests.txt" "$OUT/h200_algos_tests.txt" 2>/dev/null
else
    source bench/h200_env.sh
fi
export PYTHONPATH=/tmp/site:$PWD PATH=$PWD/.tools/bin:$PATH
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
SIZES=${H200_ALGOS_SIZES:-65536 1048576 16777216}
timeout "${H200_BENCH_TIMEOUT:-400}" python3 -m pyshade bench --only algorithms \
    --device cuda wgpu vulkan --sizes $SIZES --reps 5 --out "$OUT/h200_algorithms" \
    > "$OUT/h200_algorithms.txt" 2>&1 || rc=1
cat "$OUT/h200_algorithms.txt" | cut -c1-160
exit $rc
