# Sourced by the bench/h200_*.sh scripts on the lent H200 (device tool; carry .gl .whl,
# and .tools for glslangValidator/spirv-val): NVIDIA's Vulkan driver through the
# carried loader, Python packages from the carried wheels.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 PATH=$PWD/.tools/bin:$PATH
OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
