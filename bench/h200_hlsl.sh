#!/usr/bin/env bash
# On the lent H200 (device tool; carry .gl .whl .tools .dxc): the HLSL route of the vulkan
# device on NVIDIA's driver. .dxc holds compushady-dxc.tar.xz (compushady's
# libdxcompiler_x86_64.so.3.7 in a package directory, since toolchains/dxc.py finds it
# through the compushady package; built from compushady's sdist on this Debian machine)
# and libtinfo6's .deb, which that library links and the H200 image may lack.
# Make .dxc here (ignored, like .gl and .whl; echo /.dxc/ >> .git/info/exclude):
#   d=$(python -c "import compushady, os; print(os.path.dirname(compushady.__file__))")
#   mkdir -p /tmp/dxcpkg/compushady/backends .dxc && touch /tmp/dxcpkg/compushady/__init__.py
#   cp $d/backends/libdxcompiler_x86_64.so.3.7 /tmp/dxcpkg/compushady/backends/
#   tar -C /tmp/dxcpkg -cJf .dxc/compushady-dxc.tar.xz compushady
#   (cd .dxc && apt-get download libtinfo6)
# Runs: the test suite's HLSL half (-k hlsl), bench/hlsl_route_bench.py up to 2^24 keys,
# and the differential test with $PYSHADE_DIFF_KERNELS kernels (1000) on cpu and vulkan-hlsl.
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
export PYSHADE_DIFF_KERNELS=${PYSHADE_DIFF_KERNELS:-1000}
python3 -c "import pyshade as ps; print(ps.device('vulkan', via='hlsl'))" || exit 1
timeout 240 python3 -m pytest -q -p no:cacheprovider -rs -k "hlsl and not cpu and not tint and not differential" \
    tests > "$OUT/h200_hlsl_suite.txt" 2>&1
tail -3 "$OUT/h200_hlsl_suite.txt"; grep -E "^(FAILED|ERROR)" "$OUT/h200_hlsl_suite.txt" | head -30
timeout 150 python3 bench/hlsl_route_bench.py --device vulkan --sizes 65536 1048576 16777216 \
    --json "$OUT/h200_hlsl_route.json" 2>&1 | tail -8 | tee "$OUT/h200_hlsl_route.txt"
PYSHADE_DIFF_DEVICES=cpu,vulkan-hlsl timeout 200 python3 -m pytest -q -p no:cacheprovider \
    tests/test_differential.py > "$OUT/h200_hlsl_diff.txt" 2>&1
tail -2 "$OUT/h200_hlsl_diff.txt"; grep -E "^E " "$OUT/h200_hlsl_diff.txt" | head -12
