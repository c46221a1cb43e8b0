#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools): the GPU half of the test
# suite on NVIDIA's driver through wgpu-py and through the raw Vulkan device (GLSL
# compiled by the carried glslangValidator), the differential test with
# $PYSHADE_DIFF_KERNELS kernels, then the launch benchmark and the vulkan probe.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
python3 -m pytest -q -p no:cacheprovider -k "not cpu and not tint" tests \
    > "$OUT/h200_gpu_suite.txt" 2>&1
tail -2 "$OUT/h200_gpu_suite.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200_gpu_suite.txt" | head -30
python3 -m pyshade bench --only launch,kernels --device wgpu --sizes 65536 1048576 16777216 \
    --reps 7 --out "$OUT/h200_launch" 2>&1 | grep -v XDG_RUNTIME | tail -8
python3 bench/probes/vulkan_dispatch_probe.py --launches 2000 2>&1 | tail -5
