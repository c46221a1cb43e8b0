#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools): NVIDIA's Vulkan driver through
# the carried loader, wgpu-py and the `vulkan` binding from carried wheels, and
# glslangValidator/spirv-val copied from Debian's glslang-tools/spirv-tools into
# .tools/bin. Runs the vulkan tests ($PYTEST_FILES) and the dispatch probe.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
glslangValidator --version | head -1
python3 -m pytest -q -p no:cacheprovider -k "not cpu and not tint" \
    ${PYTEST_FILES:-tests/test_runtime_vulkan.py tests/test_toolchain_glslang.py} \
    > "$OUT/h200_vulkan_pytest.txt" 2>&1
tail -3 "$OUT/h200_vulkan_pytest.txt"
grep -E "^(FAILED|ERROR)" "$OUT/h200_vulkan_pytest.txt" | head -20
python3 bench/probes/vulkan_dispatch_probe.py --launches 2000 2>&1 | tee "$OUT/h200_vulkan_probe.txt" | tail -12
${EXTRA:-true}
