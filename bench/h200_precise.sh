#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools .dxc, as bench/h200_hlsl.sh): issue 16
# item 1. WGSL's contraction on NVIDIA measured by bench/probes/wgsl_contraction.py (every
# device and route: wgpu, vulkan via GLSL and HLSL, cuda), then tests/test_precise.py on
# NVIDIA's Vulkan driver (both routes: the bits of 100,000 random triples). Outputs:
# $OUT/h200_wgsl_contraction.json/.txt, $OUT/h200_precise.txt.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
timeout 240 python3 bench/probes/wgsl_contraction.py "$OUT/h200_wgsl_contraction.json" 2>&1 \
    | grep -v XDG_RUNTIME | tee "$OUT/h200_wgsl_contraction.txt"
timeout 240 python3 -m pytest -q -p no:cacheprovider -rs -k "not cpu" tests/test_precise.py \
    > "$OUT/h200_precise.txt" 2>&1
tail -3 "$OUT/h200_precise.txt"; grep -E "^(FAILED|ERROR)" "$OUT/h200_precise.txt" | head -20
