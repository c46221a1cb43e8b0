#!/usr/bin/env bash
# One H200 call (device tool; carry .gl .whl .tools .dxc): the radix sort's stage profile
# with its variants side by side on cuda, vulkan and wgpu
# (bench/probes/radix_stage_profile.py --variants), then REPLAY kernels shrunk on the
# SHRINK_ON devices (bench/probes/fuzz_replay.py). Logs under $OUT, tables last.
#   run(command="REPLAY=20262212:13 bash bench/h200_variants.sh", carry=[...])
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/h200_env.sh
timeout -k 5 "${PROFILE_TIMEOUT:-200}" python3 bench/probes/radix_stage_profile.py --variants \
    > "$OUT/radix_variants.txt" 2>&1
if [ -n "${REPLAY:-}" ]; then
    timeout -k 5 "${REPLAY_TIMEOUT:-200}" python3 bench/probes/fuzz_replay.py $REPLAY \
        --devices "${REPLAY_DEVICES:-cpu,cuda}" --shrink "${SHRINK:-150}" \
        --shrink-on "${SHRINK_ON:-cuda}" > "$OUT/replay.txt" 2>&1
fi
tail -8 "$OUT/radix_variants.txt"; [ -f "$OUT/replay.txt" ] && tail -60 "$OUT/replay.txt"
