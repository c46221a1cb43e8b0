#!/usr/bin/env bash
# One H200 call (device tool, kind nvidia-h200; carry .gl .whl .tools .dxc) to tune issue 17's
# algorithms: `pyshade bench --only algorithms` at 2^24 on cuda, wgpu and vulkan, the radix
# sort's per-target tunings side by side (bench/probes/radix_stage_profile.py --variants), the
# reduction's variants on cuda (bench/probes/reduce_profile.py), then the algorithms' tests on
# the GPU devices. Logs under $OUT; tables printed last.
#   run(command="bash bench/h200_algos_tune.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
# TUNE_STEPS picks the steps (default "negzero bench radix reduce tests"; negzero is
# bench/probes/nvidia_neg_zero_probe.py, issue 16's open NVIDIA zero sign), BENCH_SIZES the bench's
# sizes (default 16777216).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/h200_env.sh > /dev/null
STEPS=${TUNE_STEPS:-negzero bench radix reduce tests}
date -u +%FT%TZ | tee "$OUT/date.txt"
for step in $STEPS; do
    case $step in
    negzero) timeout -k 5 "${NEGZERO_TIMEOUT:-90}" python3 bench/probes/nvidia_neg_zero_probe.py \
            > "$OUT/negzero.txt" 2>&1 ;;
    bench) timeout -k 5 "${BENCH_TIMEOUT:-150}" python3 -m pyshade bench --only algorithms \
            --device cuda wgpu vulkan --sizes ${BENCH_SIZES:-16777216} --reps 5 --out "$OUT/h200_algorithms" \
            > "$OUT/bench.txt" 2>&1 ;;
    radix) timeout -k 5 "${RADIX_TIMEOUT:-150}" python3 bench/probes/radix_stage_profile.py \
            --variants --devices "${RADIX_DEVICES:-cuda,vulkan,wgpu}" > "$OUT/radix.txt" 2>&1 ;;
    reduce) timeout -k 5 "${REDUCE_TIMEOUT:-60}" python3 bench/probes/reduce_profile.py \
            --devices "${REDUCE_DEVICES:-cuda}" > "$OUT/reduce.txt" 2>&1 ;;
    tests) H200_TESTS_TIMEOUT=${TESTS_TIMEOUT:-150} bash bench/h200_tests.sh \
            tests/test_algorithms.py tests/test_exec_sort.py > "$OUT/tests_summary.txt" 2>&1
        cp "$OUT/h200_tests.txt" "$OUT/tests.txt" 2>/dev/null; rm -f "$OUT/h200_tests.txt" ;;
    esac
    echo "== $step done (rc $?) $(date -u +%T)"
done
for f in negzero tests_summary reduce radix bench; do
    [ -f "$OUT/$f.txt" ] && { echo "=== $f"; grep -vE "^\s*$" "$OUT/$f.txt" | tail -45 | cut -c1-200; }
done
exit 0
