# Sourced by the bench/h200_*.sh scripts on the lent H200 (device tool; carry .gl .whl,
# and .tools for glslangValidator/spirv-val, .dxc for the HLSL route): NVIDIA's Vulkan
# driver through the carried loader, Python packages from the carried wheels, and, when
# .dxc is carried, DXC (compushady's library, which toolchains/dxc.py finds through the
# compushady package; bench/h200_hlsl.sh says how .dxc is made) with the libtinfo it
# links, which the H200 image may lack.
# Once per machine session: a script that runs another (bench/nvidia_issue16.sh runs
# nvidia_exact_division.sh) passes the exported environment on.
[ -n "${PYSHADE_DEVICE_ENV:-}" ] && return 0
export PYSHADE_DEVICE_ENV=1
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
if [ -d .dxc ]; then
    tar -C /tmp/site -xJf .dxc/compushady-dxc.tar.xz || exit 1
    if ! ldconfig -p | grep -q "libtinfo.so.6 "; then
        mkdir -p /tmp/tinfo && dpkg -x .dxc/libtinfo6_*.deb /tmp/tinfo
        export LD_LIBRARY_PATH=/tmp/tinfo/usr/lib/x86_64-linux-gnu:/tmp/tinfo/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
    fi
fi
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 PATH=$PWD/.tools/bin:$PATH
OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
