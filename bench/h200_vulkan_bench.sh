#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools): the vulkan benchmarks. The
# per-dispatch probe (pyshade vs the binding directly), the section-7 sort against
# hand-written GLSL in one command buffer (2^16, 2^20, 2^24) and the wgpu route at 2^24,
# and the NVIDIA pow probe.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
for i in 1 2; do
    python3 bench/probes/vulkan_dispatch_probe.py --launches 2000 2>&1 | grep -v XDG_RUNTIME \
        | tee -a "$OUT/h200_vulkan_probe.txt" | tail -5
done
python3 -m pyshade bench --only kernels --device vulkan wgpu --sizes 65536 1048576 16777216 \
    --reps 5 --out "$OUT/h200_vulkan_sort" 2>&1 | grep -v XDG_RUNTIME | tee "$OUT/h200_vulkan_sort.txt"
python3 bench/probes/nvidia_vulkan_pow_probe.py 2>&1 | grep -v XDG_RUNTIME
