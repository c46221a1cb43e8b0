#!/bin/bash
# On the lent NVIDIA GPU (device tool; carry .gl .whl .tools .dxc): are the fuzz kernels
# that disagree on NVIDIA's Vulkan routes and wgpu explained by what the specifications
# allow the driver: an f32 division or square root that is not correctly rounded (both
# Vulkan routes and wgpu), and on wgpu contraction, flushed subnormals and ignored zero
# signs? bench/probes/vulkan_exact_division_replay.py replays each kernel with the NVIDIA
# Vulkan rules removed, as emitted and with every f32 / and sqrt correctly rounded
# (--exact), and compares wgpu's outputs bit for bit with the Vulkan routes given WGSL's
# freedoms (--like-wgsl --pair). VK: kernels that disagreed on a Vulkan route; WGPU:
# kernels that disagreed on wgpu (bench/results/nvidia_fuzz_20261205_seed20262310.md).
#   VK="20262310:23 ..." WGPU="20262310:15 ..." [STEPS="selftest vk_exact ..."] \
#       bash bench/nvidia_exact_division.sh
source bench/h200_env.sh
P=bench/probes/vulkan_exact_division_replay.py
mkdir -p "$OUT/replay"
STEPS=${STEPS:-selftest vk_emitted vk_exact wgpu_exact wgpu_like pair_glsl pair_hlsl wgpu_nofm wgpu_noprec}
on() { [[ " $STEPS " == *" $1 "* ]]; }
on selftest && {
  python3 $P --devices cpu,vulkan,vulkan-hlsl,wgpu --selftest
  python3 $P --devices cpu,vulkan,vulkan-hlsl,wgpu --selftest --exact
} > "$OUT/replay/selftest.txt" 2>&1
run() {   # name, options, devices, kernels...: one process per kernel, 14 at a time
  local name=$1 opts=$2 devs=$3; shift 3
  on "$name" || return 0
  mkdir -p "/tmp/logs/$name"
  printf '%s\n' "$@" | xargs -P 14 -I{} sh -c \
    "python3 $P --devices $devs $opts {} > /tmp/logs/$name/{}.log 2>&1"
  cat /tmp/logs/"$name"/*.log | grep -E '^(RESULT|PAIR)' > "$OUT/replay/$name.txt"
}
run vk_emitted "--strict" cpu,vulkan,vulkan-hlsl,wgpu $VK
run vk_exact "--strict --exact" cpu,vulkan,vulkan-hlsl,wgpu $VK
run wgpu_exact "--strict --exact" cpu,wgpu $WGPU
run wgpu_like "--strict --exact --like-wgsl" cpu,vulkan,vulkan-hlsl $WGPU
run pair_glsl "--exact --like-wgsl --pair" cpu,wgpu,vulkan $WGPU
run pair_hlsl "--exact --like-wgsl --pair" cpu,wgpu,vulkan-hlsl $WGPU
run wgpu_nofm "--strict --exact --no-float-modes" cpu,vulkan $WGPU
run wgpu_noprec "--strict --exact --no-precise" cpu,vulkan $WGPU

grep SELFTEST "$OUT/replay/selftest.txt"
for f in vk_emitted vk_exact wgpu_exact wgpu_like wgpu_nofm wgpu_noprec; do
  on $f || continue
  echo "== $f: $(wc -l < "$OUT/replay/$f.txt") rows"
  awk '{print $3, $4}' "$OUT/replay/$f.txt" | sed 's/-nvidia[^ ]*//' | sort | uniq -c
done
for f in pair_glsl pair_hlsl; do
  on $f || continue
  echo "== $f: $(awk '{print $3}' "$OUT/replay/$f.txt" | sort | uniq -c | tr '\n' ' ')"
done
