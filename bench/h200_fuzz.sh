#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools, as bench/h200_cuda.sh): the
# differential fuzzer (docs/devices/testing.md) on cpu, cuda and NVIDIA's Vulkan driver
# (GLSL and HLSL routes) and wgpu: tests/test_fuzz.py, then a bench/fuzz_run.py run of
# $PYSHADE_FUZZ_RUN kernels (default 1000) with shrinking, results and shrunk
# regressions under $OUT.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
DEVS=${PYSHADE_FUZZ_DEVICES:-cpu,cuda,vulkan,vulkan-hlsl,wgpu}
PYSHADE_FUZZ_DEVICES=$DEVS timeout 240 python3 -m pytest -q -p no:cacheprovider -s \
    tests/test_fuzz.py > "$OUT/h200_fuzz_tests.txt" 2>&1
grep -E "PYSHADE_FUZZ_SEED|kernels in" "$OUT/h200_fuzz_tests.txt" | head -6
tail -2 "$OUT/h200_fuzz_tests.txt"
mkdir -p "$OUT/regressions"
timeout 320 python3 bench/fuzz_run.py --kernels "${PYSHADE_FUZZ_RUN:-1000}" --seed 20261204 \
    --devices "$DEVS" --chunk 10 --chunk-timeout 60 --max-seconds 240 --shrink --keep "$OUT/regressions" \
    --json "$OUT/h200_fuzz_run.json" 2>&1 | tail -14 | tee "$OUT/h200_fuzz_run.txt"
