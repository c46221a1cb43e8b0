#!/usr/bin/env bash
# On the lent H200 (device tool, carry .gl and .whl; see bench/README.md):
# NVIDIA's Vulkan driver through the carried loader, wgpu-py from carried wheels.
# Runs bench/launch_overhead.py and the wgpu half of the test suite; full results
# land in $OUT, a short table is printed last.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -m pytest -q -p no:cacheprovider -k "not cpu and not tint" \
    ${PYTEST_FILES:-tests} > "$OUT/h200_pytest.txt" 2>&1
tail -3 "$OUT/h200_pytest.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200_pytest.txt" | head -20
python3 bench/launch_overhead.py --sizes ${SIZES:-65536 1048576 16777216} --reps 7 \
    --json "$OUT/h200_launch.json" 2>&1 | grep -v XDG_RUNTIME | tee "$OUT/h200_launch.txt"
