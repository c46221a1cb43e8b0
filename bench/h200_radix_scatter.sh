#!/usr/bin/env bash
# One call on the lent GPU (device tool; carry .gl .whl .tools .dxc) for issue 17's radix sort:
# the radix sort's tunings side by side with an earlier radix.py (RADIX_BEFORE, default
# bench/probes/_radix_before.py when present) on cuda, vulkan and wgpu
# (bench/probes/radix_stage_profile.py --variants), Nsight Compute's view of one pass's
# radix_hist and radix_scatter on cuda (sections: speed of light, occupancy, launch, warp
# states, memory, scheduler), the algorithms' and sorts' tests on the GPU devices (tests),
# then `pyshade bench --only algorithms` at BENCH_SIZES (BENCH_REPS repetitions, 5).
#   run(command="bash bench/h200_radix_scatter.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
# RADIX_STEPS picks the steps (default "radix ncu bench"); also "stats" (the register counts
# NVIDIA's Vulkan driver gives the radix kernels, bench/probes/vulkan_pipeline_stats.py) and
# "tests" (TESTS_K, TESTS_FILES), "chunk" (bench/probes/submit_chunk_probe.py: a batch's
# first submission) and "mem" (bench/probes/memory_pattern_probe.py: copy, ALU, random
# writes and histogram layouts per device), "host" (bench/probes/record_host_probe.py: the
# host's timeline of one sort through Vulkan and wgpu) and "checks"
# (bench/probes/wgpu_checks_probe.py: naga's runtime checks on and off), "benchbefore" (the
# same bench with the pyshade package of BENCH_BEFORE_TREE, default bench/probes/_main_tree,
# made with `git archive main pyshade | tar -x -C bench/probes/_main_tree`), "ab" (RADIX_BEFORE
# against the current radix.py, interleaved: radix_stage_profile.py --ab) and "robust" (the
# stages through Vulkan with and without robustBufferAccess, twice) and "spin"
# (bench/probes/wgpu_spin_probe.py: the wgpu device's wait, polling against blocking),
# "fusedsizes" (bench/probes/radix_fused_sizes_probe.py: the fused count scan on and off by
# size, interleaved) and "overhead" (bench/probes/call_overhead_probe.py: a small call's
# time to sync and on the host alone, with cProfile's top functions). Logs under $OUT;
# tables printed last.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/h200_env.sh > /dev/null
date -u +%FT%TZ | tee "$OUT/date.txt"
before=${RADIX_BEFORE:-bench/probes/_radix_before.py}
[ -f "$before" ] && before_arg="--before $before" || before_arg=""
for step in ${RADIX_STEPS:-radix ncu bench}; do
    case $step in
    chunk) timeout -k 5 "${CHUNK_TIMEOUT:-120}" python3 bench/probes/submit_chunk_probe.py \
            > "$OUT/chunk.txt" 2>&1 ;;
    host) timeout -k 5 "${HOST_TIMEOUT:-90}" python3 bench/probes/record_host_probe.py \
            > "$OUT/host.txt" 2>&1 ;;
    checks) timeout -k 5 "${CHECKS_TIMEOUT:-150}" python3 bench/probes/wgpu_checks_probe.py \
            > "$OUT/checks.txt" 2>&1 ;;
    mem) timeout -k 5 60 python3 bench/probes/memory_pattern_probe.py > "$OUT/mem.txt" 2>&1 ;;
    stats) timeout -k 5 60 python3 bench/probes/vulkan_pipeline_stats.py > "$OUT/stats.txt" 2>&1 ;;
    radix) PYSHADE_CACHE=0 timeout -k 5 "${RADIX_TIMEOUT:-200}" python3 bench/probes/radix_stage_profile.py \
            --variants $before_arg --devices "${RADIX_DEVICES:-cuda,vulkan,wgpu}" \
            > "$OUT/radix.txt" 2>&1 ;;
    ab) PYSHADE_CACHE=0 timeout -k 5 "${RADIX_TIMEOUT:-200}" python3 bench/probes/radix_stage_profile.py \
            --ab $before_arg --devices "${RADIX_DEVICES:-cuda,vulkan,wgpu}" > "$OUT/ab.txt" 2>&1 ;;
    robust) for r in "" --robust "" --robust; do
            timeout -k 5 100 python3 bench/probes/radix_stage_profile.py --devices vulkan $r
        done > "$OUT/robust.txt" 2>&1 ;;
    spin) timeout -k 5 120 python3 bench/probes/wgpu_spin_probe.py > "$OUT/spin.txt" 2>&1 ;;
    fusedsizes) timeout -k 5 "${FUSED_TIMEOUT:-300}" python3 bench/probes/radix_fused_sizes_probe.py \
            --devices "${RADIX_DEVICES:-cuda,vulkan,wgpu}" > "$OUT/fusedsizes.txt" 2>&1 ;;
    overhead) timeout -k 5 150 python3 bench/probes/call_overhead_probe.py \
            --devices "${RADIX_DEVICES:-cuda,vulkan,wgpu}" --n "${OVERHEAD_N:-65536}" \
            > "$OUT/overhead.txt" 2>&1 ;;
    ncu) timeout -k 5 "${NCU_TIMEOUT:-60}" ncu --clock-control none -k regex:radix_ \
            --launch-skip 8 --launch-count 2 --section SpeedOfLight --section Occupancy \
            --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
            --section SchedulerStats python3 -c "
import numpy as np, pyshade as ps
from pyshade.algorithms.radix import record_radix
dev = ps.device('cuda')
keys = dev.array(np.random.default_rng(1).integers(0, 2**32, 1 << 24, dtype=np.uint32))
for _ in range(2):
    with dev.batch():
        record_radix(dev, keys, 1 << 24)
    dev.synchronize()
" > "$OUT/ncu.txt" 2>&1 ;;
    tests) timeout -k 5 "${TESTS_TIMEOUT:-120}" python3 -m pytest -q -p no:cacheprovider -n 8 \
            -k "${TESTS_K:-not cpu and not tint}" ${TESTS_FILES:-tests/test_algorithms.py tests/test_exec_sort.py} \
            > "$OUT/tests.txt" 2>&1 ;;
    bench) timeout -k 5 "${BENCH_TIMEOUT:-110}" python3 -m pyshade bench --only algorithms \
            --device cuda wgpu vulkan --sizes ${BENCH_SIZES:-16777216} --reps ${BENCH_REPS:-5} \
            --out "$OUT/algorithms" > "$OUT/bench.txt" 2>&1 ;;
    benchbefore) PYTHONPATH=/tmp/site:$PWD/${BENCH_BEFORE_TREE:-bench/probes/_main_tree} \
            timeout -k 5 "${BENCH_TIMEOUT:-110}" python3 -P -m pyshade bench --only algorithms \
            --device cuda wgpu vulkan --sizes ${BENCH_SIZES:-16777216} --reps ${BENCH_REPS:-5} \
            --out "$OUT/algorithms_before" > "$OUT/benchbefore.txt" 2>&1 ;;
    esac
    echo "== $step done (rc $?) $(date -u +%T)"
done
echo "=== ncu"
grep -iE "radix_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Issue Slot|No Eligible|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Stall|==PROF==|==ERROR==" \
    "$OUT/ncu.txt" | cut -c1-150 | head -70
for f in stats chunk mem host checks tests benchbefore bench radix ab robust spin overhead fusedsizes; do
    [ -f "$OUT/$f.txt" ] && { echo "=== $f"; grep -vE "^\s*$" "$OUT/$f.txt" | tail -60 | cut -c1-200; }
done
exit 0
