#!/usr/bin/env bash
# Issue 16's long fuzz run in one device call, on the host's CPU cores and its GPUs:
#  - CPU drivers: lavapipe and SwiftShader (the drivers CI uses), carried, run on the
#    host's cores: LONG_PROCS processes of LONG_KERNELS / LONG_PROCS kernels each on
#    cpu, wgpu, vulkan and vulkan-hlsl;
#  - NVIDIA: GPU_PROCS processes of GPU_KERNELS / GPU_PROCS kernels each on cpu, cuda,
#    wgpu, vulkan and vulkan-hlsl.
# Consecutive seeds from SEED; each process writes bench/fuzz_run.py's JSON; the summary
# (bench/fuzz_merge.py) is printed last and saved under $OUT.
#
# The kit (here, once; all ignored through .git/info/exclude):
#   .gl .whl .dxc       as for bench/h200_env.sh (cuda_bindings may stay out of .whl: the
#                       image has cuda-bindings)
#   .lvp/lvp.tar.xz     lib/: libvulkan_lvp.so, libvk_swiftshader.so and lavapipe's
#                       shared libraries (ldd) from this machine, with a stub
#                       libicudata.so.72 (`const char icudt72_dat[64];`: ICU's 31 MB
#                       of data, which lavapipe never reads, would not fit the 64 MiB)
#   .lvp/tools.tar.xz   .tools (glslangValidator, spirv-val, spirv-dis)
#   run(command="bash bench/h200_longrun.sh", carry=[".gl", ".whl", ".dxc", ".lvp"],
#       kind="nvidia-h200-x8")
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/lvp /tmp/res
LONG_KERNELS=${LONG_KERNELS:-5000}; LONG_PROCS=${LONG_PROCS:-100}
if [ -d .lvp ]; then                        # without .lvp: the NVIDIA half only
    tar xJf .lvp/lvp.tar.xz -C /tmp/lvp && tar xJf .lvp/tools.tar.xz -C "$PWD" || exit 1
else
    LONG_PROCS=0
fi
# tests/conftest.py finds the CPU drivers at Debian's paths
mkdir -p /usr/share/vulkan/icd.d /usr/lib/chromium
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || \
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.1.230"}}\n' \
    /tmp/lvp/lib/libvulkan_lvp.so > /usr/share/vulkan/icd.d/lvp_icd.x86_64.json
[ -e /usr/lib/chromium/vk_swiftshader_icd.json ] || \
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.0.5"}}\n' \
    /tmp/lvp/lib/libvk_swiftshader.so > /usr/lib/chromium/vk_swiftshader_icd.json
source bench/h200_env.sh
SEED=${SEED:-20261210}
GPU_KERNELS=${GPU_KERNELS:-1000}; GPU_PROCS=${GPU_PROCS:-16}
LIMIT=${LIMIT:-480}                        # seconds: each process starts no chunk after
# PROFILE=1: the radix sort's stages on cuda, vulkan and wgpu first (issue 17), on an
# idle machine
if [ "${PROFILE:-0}" = 1 ]; then
    timeout -k 5 150 python3 bench/probes/radix_stage_profile.py > /tmp/res/radix_profile.txt 2>&1
    cp /tmp/res/radix_profile.txt "$OUT/"
fi
RES=/tmp/res
mkdir -p "$RES/cpu_drivers" "$RES/nvidia"
# REPLAY="SEED:INDEX ...": those kernels replayed on the NVIDIA routes and shrunk where
# they disagree (bench/probes/fuzz_replay.py), alongside the run
if [ -n "${REPLAY:-}" ]; then
    timeout -k 5 $((LIMIT + 30)) python3 bench/probes/fuzz_replay.py $REPLAY \
        --devices cpu,cuda,wgpu,vulkan,vulkan-hlsl --shrink "${SHRINK:-90}" > "$RES/replay.txt" 2>&1 &
fi
for i in $(seq 0 $((LONG_PROCS - 1))); do
    [ "$LONG_PROCS" -gt 0 ] || break
    LD_LIBRARY_PATH=/tmp/lvp/lib:${LD_LIBRARY_PATH:-} LP_NUM_THREADS=1 \
    PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader VK_DRIVER_FILES= \
    timeout -k 5 $((LIMIT + 60)) python3 bench/fuzz_run.py --kernels $((LONG_KERNELS / LONG_PROCS)) \
        --seed $((SEED + i)) --devices cpu,wgpu,vulkan,vulkan-hlsl --jobs 1 --kernel-timeout 120 --max-seconds "$LIMIT" \
        --json "$RES/cpu_drivers/fuzz_$i.json" > /tmp/fuzz_cpu_$i.txt 2>&1 &
done
for i in $(seq 0 $((GPU_PROCS - 1))); do
    CUDA_VISIBLE_DEVICES=$((i % $(nvidia-smi -L | wc -l))) \
    timeout -k 5 $((LIMIT + 60)) python3 bench/fuzz_run.py --kernels $((GPU_KERNELS / GPU_PROCS)) \
        --seed $((SEED + 1000 + i)) --devices cpu,cuda,wgpu,vulkan,vulkan-hlsl --jobs 1 --kernel-timeout 120 --max-seconds "$LIMIT" \
        --json "$RES/nvidia/fuzz_$i.json" > /tmp/fuzz_gpu_$i.txt 2>&1 &
done
wait
tail -n 5 /tmp/fuzz_*.txt > "$RES/fuzz_logs_tail.txt"
python3 bench/fuzz_merge.py "$RES/cpu_drivers" "$RES/nvidia" > "$RES/summary.md"
# one archive: the tool brings back only a few files
tar -C "$RES" -czf "$OUT/longrun.tgz" . && cp "$RES/summary.md" "$OUT/"
[ -f "$RES/radix_profile.txt" ] && tail -6 "$RES/radix_profile.txt"
tail -c 6000 "$RES/summary.md"
