#!/usr/bin/env bash
# One H200 call (device tool; carry .gl .whl .tools .dxc) at a session's end for issue 17:
# the algorithms' tests on the GPU devices, `pyshade bench --only algorithms` at 2^24 on
# cuda, wgpu and vulkan (bench/h200_algos.sh), then the radix sort's variants side by
# side (bench/probes/radix_stage_profile.py --variants). Tables printed last.
#   run(command="bash bench/h200_algos_final.sh", carry=[".gl", ".whl", ".tools", ".dxc"])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
H200_ALGOS_SIZES=${H200_ALGOS_SIZES:-16777216} H200_TESTS_TIMEOUT=${H200_TESTS_TIMEOUT:-150} \
    bash bench/h200_algos.sh > "$OUT/algos.txt" 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 PATH=$PWD/.tools/bin:$PATH
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
timeout -k 5 "${PROFILE_TIMEOUT:-170}" python3 bench/probes/radix_stage_profile.py --variants \
    > "$OUT/radix_variants.txt" 2>&1
grep -E "passed|failed|FAILED|ERROR" "$OUT/h200_algos_tests.txt" 2>/dev/null | tail -8
tail -25 "$OUT/algos.txt" | cut -c1-220
tail -6 "$OUT/radix_variants.txt"
