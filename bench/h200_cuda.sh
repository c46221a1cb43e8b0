#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools; .whl holds cuda-bindings and
# cuda-pathfinder for cp312, NVRTC and cuda_fp16.h come from the machine's CUDA 13): the
# cuda half of the test suite, the benchmarks against CuPy's RawKernel, and the
# differential test with $PYSHADE_DIFF_KERNELS kernels (1000) on cpu and cuda.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} PYSHADE_DIFF_KERNELS=${PYSHADE_DIFF_KERNELS:-1000}
python3 bench/probes/nvrtc_probe.py 2>&1 | tail -8
python3 -c "import pyshade as ps; print(ps.device('cuda'))"
timeout 240 python3 -m pytest -q -p no:cacheprovider -rs -k "cuda and not tint and not differential" \
    tests > "$OUT/h200_cuda_suite.txt" 2>&1
tail -3 "$OUT/h200_cuda_suite.txt"; grep -E "^(FAILED|ERROR)" "$OUT/h200_cuda_suite.txt" | head -30
timeout 150 python3 -m pyshade bench --only launch,kernels --device cuda --reps 7 \
    --sizes 65536 1048576 16777216 --out "$OUT/h200_cuda_bench" 2>&1 | tail -8 \
    | tee "$OUT/h200_cuda_bench.txt"
PYSHADE_DIFF_DEVICES=cpu,cuda timeout 330 python3 -m pytest -q -p no:cacheprovider \
    tests/test_differential.py > "$OUT/h200_cuda_diff.txt" 2>&1
tail -2 "$OUT/h200_cuda_diff.txt"; grep -E "^E " "$OUT/h200_cuda_diff.txt" | head -12
