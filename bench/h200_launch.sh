#!/usr/bin/env bash
# On the lent H200 (device tool, carry .gl and .whl; see bench/README.md):
# NVIDIA's Vulkan driver through the carried loader, wgpu-py from carried wheels.
# Runs `pyshade bench --only launch,kernels` on wgpu and the wgpu half of the test suite; full results
# land in $OUT, a short table is printed last.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
python3 -m pytest -q -p no:cacheprovider -k "not cpu and not tint" \
    ${PYTEST_FILES:-tests} > "$OUT/h200_pytest.txt" 2>&1
tail -3 "$OUT/h200_pytest.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200_pytest.txt" | head -20
python3 -m pyshade bench --only launch,kernels --device wgpu \
    --sizes ${SIZES:-65536 1048576 16777216} --reps 7 --out "$OUT/h200_launch" 2>&1 \
    | grep -v XDG_RUNTIME | tee "$OUT/h200_launch.txt"
