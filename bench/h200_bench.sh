#!/usr/bin/env bash
# `pyshade bench` on the lent H200 (device tool, kind nvidia-h200; carry .gl .whl .tools):
# every family on cuda, wgpu and vulkan (NVIDIA's Vulkan driver), sorts and algorithms at
# 2^16, 2^20 and 2^24 keys. bench.json and bench.md under $OUT/bench, the log in
# $OUT/bench.log, the table printed last. The H200 has no matplotlib: draw the plot here
# with `pyshade bench --from bench.json --out DIR` (docs/benchmarks.md).
#   run(command="bash bench/h200_bench.sh", carry=[".gl", ".whl", ".tools"])
# H200_BENCH_TIMEOUT (seconds, default 330) bounds the benchmark itself.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/h200_env.sh || exit 1
export PYTHONPATH=/tmp/site:$PWD PATH=$PWD/.tools/bin:$PATH
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
timeout -k 10 "${H200_BENCH_TIMEOUT:-330}" python3 -m pyshade bench --device cuda wgpu vulkan \
    --sizes 65536 1048576 16777216 --reps 5 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
rc=$?
echo "pyshade bench: exit status $rc (124: stopped by the timeout)"
grep -v XDG_RUNTIME "$OUT/bench.log" | grep -E "^(Traceback|[A-Za-z]*Error)" | head -5
if [ -f "$OUT/bench/bench.md" ]; then
    cat "$OUT/bench/bench.md"
else
    grep -v XDG_RUNTIME "$OUT/bench.log" | tail -20
fi
exit $rc
