#!/bin/bash
# On the lent NVIDIA GPU (device tool; carry .gl .whl .tools .dxc): replay fuzz kernels
# under the current rules (wgsl-regroup included) and shrink each one that still
# disagrees, one process per kernel, in parallel; each kernel's log under $OUT.
#   KERNELS="20262312:1 20262323:14" DEVICES=cpu,wgpu SHRINK=240 bash bench/nvidia_fuzz_shrink.sh
source bench/h200_env.sh
KERNELS=${KERNELS:-"20262312:1 20262323:14"}
for k in $KERNELS; do
  timeout $(( ${SHRINK:-240} + 200 )) python3 bench/probes/fuzz_replay.py --devices "${DEVICES:-cpu,wgpu}" \
      "$k" --shrink "${SHRINK:-240}" > "$OUT/shrink_${k/:/_}.txt" 2>&1 &
done
wait
for k in $KERNELS; do echo "== $k"; grep -E "^ +(wgpu|vulkan|cuda)|^-- shrunk" "$OUT/shrink_${k/:/_}.txt"; done
