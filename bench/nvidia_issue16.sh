#!/bin/bash
# Issue 16's last device step in one call (device tool; carry .gl .whl .tools .dxc): the
# per-kernel replay of wgpu's 35 NVIDIA disagreements that exact division leaves
# (bench/results/nvidia_exact_division_20261205_h100_b.txt, wgpu_exact), with the Vulkan
# routes given WGSL's contraction (the probe's --no-precise now removes the toolchains'
# NoContraction too), then the conformance table on NVIDIA (cpu, cuda, wgpu, vulkan,
# vulkan-hlsl), its page saved under $OUT.
#   run(command="bash bench/nvidia_issue16.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
WGPU=${WGPU:-"20262310:15 20262312:1 20262312:21 20262312:25 20262312:39 20262312:56 \
20262312:5 20262313:11 20262314:31 20262314:46 20262314:4 20262315:36 20262315:43 \
20262316:27 20262316:4 20262316:9 20262318:47 20262319:27 20262319:51 20262319:7 \
20262320:22 20262320:29 20262320:42 20262320:46 20262321:52 20262321:57 20262321:5 \
20262322:12 20262322:35 20262322:8 20262323:14 20262323:39 20262324:15 20262324:39 \
20262325:38"}
source bench/h200_env.sh
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
t0=$(date +%s)
STEPS="wgpu_noprec pair_glsl pair_hlsl" VK="" WGPU="$WGPU" timeout 300 \
    bash bench/nvidia_exact_division.sh 2>&1 | tee "$OUT/replay_summary.txt"
echo "replay: $(( $(date +%s) - t0 )) s"
t1=$(date +%s)
timeout ${CONF_TIMEOUT:-240} python3 tools/conformance.py --write \
    --devices cpu,cuda,wgpu,vulkan,vulkan-hlsl > "$OUT/conformance.txt" 2>&1
echo "conformance rc=$? $(( $(date +%s) - t1 )) s"; cp docs/conformance.md "$OUT/conformance_nvidia.md"
tar -C "$OUT" -czf "$OUT/replay.tgz" replay && rm -rf "$OUT/replay"
grep -c FAIL "$OUT/conformance.txt"; tail -4 "$OUT/conformance.txt"
