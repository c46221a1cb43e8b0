#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools): the GPU half of the test suite
# on NVIDIA's driver (wgpu-py and the raw vulkan device), with the differential test at
# $PYSHADE_DIFF_KERNELS kernels (1000 by default). Summary: bench/results/h200_vulkan_suite.txt.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
export PYSHADE_DIFF_KERNELS=${PYSHADE_DIFF_KERNELS:-1000}
glslangValidator --version | head -1
python3 -m pytest -q -p no:cacheprovider -rs -k "not cpu and not tint" tests \
    > "$OUT/h200_vulkan_suite.txt" 2>&1
tail -3 "$OUT/h200_vulkan_suite.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200_vulkan_suite.txt" | head -30
python3 -m pytest -q -p no:cacheprovider --collect-only -k "vulkan and not cpu and not tint" tests \
    | tail -1
