#!/usr/bin/env bash
# One H200 call (device tool, kind nvidia-h200; carry .gl .whl .tools .dxc): the
# division/square-root probe on every NVIDIA route (bench/probes/vulkan_div_sqrt_probe.py),
# the radix sort's stage profile (bench/probes/radix_stage_profile.py), then
# `pyshade bench --only algorithms` at 2^24 on cuda, wgpu and vulkan. Everything under
# $OUT, the tables printed last.
#   run(command="bash bench/h200_probe_bench.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/h200_env.sh
timeout -k 5 90 python3 bench/probes/vulkan_div_sqrt_probe.py > "$OUT/div_sqrt.txt" 2>&1
timeout -k 5 150 python3 bench/probes/radix_stage_profile.py > "$OUT/radix_profile.txt" 2>&1
timeout -k 5 "${BENCH_TIMEOUT:-200}" python3 -m pyshade bench --device cuda wgpu vulkan \
    --only algorithms --sizes 16777216 --reps 5 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
echo "pyshade bench: exit status $?" >> "$OUT/bench.log"
tar -C "$OUT" -czf "$OUT/bench.tgz" bench 2>/dev/null && rm -rf "$OUT/bench"
cat "$OUT/div_sqrt.txt"; tail -5 "$OUT/radix_profile.txt"; tail -30 "$OUT/bench.log" | cut -c1-230
