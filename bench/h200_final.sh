#!/usr/bin/env bash
# One H200 call for a session's end (device tool, kind nvidia-h200; carry .gl .whl .tools
# .dxc): the algorithms' and the vulkan memory pool's tests on the GPU devices, then
# `pyshade bench` (algorithms, launch, kernels) at 2^24 on cuda, wgpu and vulkan, then the
# differential fuzzer (bench/fuzz_run.py) on cpu, cuda, wgpu, vulkan and vulkan-hlsl in
# FUZZ_PROCS processes of FUZZ_KERNELS / FUZZ_PROCS kernels each (consecutive seeds).
# Logs, bench.json and fuzz JSON under $OUT; the summaries printed last.
#   run(command="bash bench/h200_final.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
H200_TESTS_TIMEOUT=${H200_TESTS_TIMEOUT:-90} bash bench/h200_tests.sh \
    tests/test_algorithms.py tests/test_runtime_vulkan.py > "$OUT/tests_summary.txt" 2>&1
export PYTHONPATH=/tmp/site:$PWD PATH=$PWD/.tools/bin:$PATH
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! ldconfig -p | grep -q "libtinfo.so.6 "; then
    export LD_LIBRARY_PATH=/tmp/tinfo/usr/lib/x86_64-linux-gnu:/tmp/tinfo/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
timeout -k 5 "${BENCH_TIMEOUT:-120}" python3 -m pyshade bench --device cuda wgpu vulkan \
    --only "${BENCH_ONLY:-algorithms,launch,kernels}" --sizes 16777216 --reps 3 --out "$OUT/bench" \
    > "$OUT/bench.log" 2>&1
echo "pyshade bench: exit status $?" >> "$OUT/bench.log"
if [ -f bench/fuzz_run.py ]; then
    N=${FUZZ_KERNELS:-1000}; P=${FUZZ_PROCS:-10}; SEED=${FUZZ_SEED:-20261204}
    for i in $(seq 0 $((P - 1))); do
        timeout -k 5 "${FUZZ_TIMEOUT:-150}" python3 bench/fuzz_run.py --kernels $((N / P)) \
            --seed $((SEED + i)) --devices cpu,cuda,wgpu,vulkan,vulkan-hlsl \
            --json "$OUT/fuzz_$i.json" > "$OUT/fuzz_$i.txt" 2>&1 &
    done
    wait
    for i in $(seq 0 $((P - 1))); do tail -12 "$OUT/fuzz_$i.txt"; done > "$OUT/fuzz_summary.txt"
fi
cat "$OUT/tests_summary.txt"
tail -3 "$OUT/bench.log"
[ -f "$OUT/bench/bench.md" ] && cat "$OUT/bench/bench.md"
[ -f "$OUT/fuzz_summary.txt" ] && tail -40 "$OUT/fuzz_summary.txt"
