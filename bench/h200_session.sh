#!/usr/bin/env bash
# One H200 session (device tool, kind nvidia-h200; carry .gl .whl .tools, optionally .dxc):
#   a. the GPU and pyshade's devices;  b. the cuda half of the test suite (-n 8);
#   c. the wgpu + vulkan half on NVIDIA's Vulkan driver (-n 8);  d. pyshade bench --only coldstart
#   on cuda, vulkan and wgpu;  e. a table of step -> result, printed last.
#     run(command="bash bench/h200_session.sh", carry=[".gl", ".whl", ".tools"], timeout_s=600)
# Kit (all ignored by git, made on the developer machine):
#   .gl     Debian's libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 (amd64 .debs)
#   .whl    cp312 wheels: wgpu 0.32.0, rendercanvas, cffi, pycparser, vulkan 1.3.275.1,
#           cuda-bindings 13.4.4, cuda-pathfinder 1.9.1 (NVRTC itself is the machine's CUDA 13)
#   .tools  bin/glslangValidator, bin/spirv-val, bin/spirv-opt, bin/spirv-dis copied from Debian's
#           glslang-tools and spirv-tools (SPIRV-Tools linked in statically: libstdc++ only);
#           .tools/lib, if present, goes on LD_LIBRARY_PATH
#   .dxc    optional: as bench/h200_hlsl.sh says; carried, it adds the HLSL route to step c
# Logs in $OUT (five files): gpu.txt, cuda_suite.txt, vk_suite.txt, coldstart_h200.txt,
# summary.txt (the table). Every step has a timeout capped by a budget of
# $H200_SESSION_BUDGET seconds (480) for the whole script; a failed step is recorded and the
# script goes on. PYSHADE_SESSION_NO_ENV=1 skips h200_env.sh (a dry run off the H200).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
T0=$SECONDS
BUDGET=${H200_SESSION_BUDGET:-480}
ROWS=()
WORST=0

row() {   # step rc seconds result
    ROWS+=("$(printf '%-11s %-4s %5s  %s' "$1" "$2" "$3" "$4")")
    if [ "$2" != 0 ]; then WORST=1; fi
}
table() {
    {
        echo
        echo "== h200_session summary ($((SECONDS - T0)) s of a $BUDGET s budget)"
        printf '%-11s %-4s %5s  %s\n' step rc secs result
        for r in "${ROWS[@]}"; do echo "$r"; done
    } | tee "$OUT/summary.txt"
}
trap 'table; exit $WORST' EXIT
left() { echo $((BUDGET - (SECONDS - T0))); }
cap() {   # cap WANT RESERVE: WANT seconds, or what the budget leaves after RESERVE
    local l=$(( $(left) - $2 ))
    if [ "$l" -lt "$1" ]; then echo "$l"; else echo "$1"; fi
}
last_summary() {   # the pytest summary line of a log, or its last line
    local s
    s=$(grep -E "(passed|failed|errors?|skipped|deselected|no tests ran).* in [0-9.]+s" "$1" | tail -1 | tr -d '=')
    echo "${s:-$(tail -1 "$1" | cut -c1-150)}" | sed 's/^ *//;s/ *$//'
}

# ---- setup: loader, wheels, tools ----------------------------------------------------
t=$SECONDS
if [ "${PYSHADE_SESSION_NO_ENV:-}" != 1 ]; then
    row setup 1 "$((SECONDS - t))" "h200_env.sh failed (dpkg -x .gl or pip install .whl)"
    # shellcheck source=bench/h200_env.sh
    source bench/h200_env.sh      # exits on a failed pip install; the trap prints the table
    unset 'ROWS[${#ROWS[@]}-1]'; WORST=0
else
    export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 PATH=$PWD/.tools/bin:$PATH
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1 \
        || echo "no nvidia-smi" > "$OUT/gpu.txt"
fi
# A missing toolchain must skip, not fail: conftest.py fails on it only under CI=true.
unset CI PYSHADE_TEST_VK_DRIVERS
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -d .tools/lib ]; then export LD_LIBRARY_PATH=$PWD/.tools/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -f "$egl" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$egl; fi
note=""
if [ -f .dxc/compushady-dxc.tar.xz ] && [ -d /tmp/site ]; then
    tar -C /tmp/site -xJf .dxc/compushady-dxc.tar.xz && note=", DXC carried"
    if ! ldconfig -p | grep -q "libtinfo.so.6 "; then
        dpkg -x .dxc/libtinfo6_*.deb /tmp/tinfo
        export LD_LIBRARY_PATH=/tmp/tinfo/usr/lib/x86_64-linux-gnu:/tmp/tinfo/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
fi
glsl=$(glslangValidator --version 2>&1 | head -1)
sval=$(spirv-val --version 2>&1 | head -1 | cut -d' ' -f1-2)
icd="ICD ${VK_DRIVER_FILES:-unset}"; [ -f "${VK_DRIVER_FILES:-/nonexistent}" ] || icd="$icd (MISSING)"
vers=$(python3 - 2>&1 <<'EOF'
import importlib
out = []
for name, mod in (("wgpu", "wgpu"), ("vulkan", "vulkan"), ("cupy", "cupy"),
                  ("cuda-bindings", "cuda.bindings")):
    try:
        out.append(f"{name} {importlib.import_module(mod).__version__}")
    except Exception as e:
        out.append(f"{name} MISSING ({type(e).__name__})")
print(", ".join(out))
EOF
)
vers=$(echo "$vers" | tail -1)
rc=0; case "$glsl$sval" in *"not found"*|"") rc=1;; esac
echo "setup: $glsl; $sval; $icd$note"
echo "setup: $vers"
{ echo "$glsl; $sval; $icd$note"; echo "$vers"; } >> "$OUT/gpu.txt"
row setup "$rc" "$((SECONDS - t))" "$(echo "$glsl" | sed 's/Glslang Version: /glslang /'), ${vers}"

XDIST=""; if python3 -c "import xdist" 2>/dev/null; then XDIST="-n 8"; fi
PTO=""; if python3 -c "import pytest_timeout" 2>/dev/null; then PTO="--timeout=120"; fi

# ---- a. GPU and devices ----------------------------------------------------------------
t=$SECONDS
gpu=$(head -1 "$OUT/gpu.txt")
lim=$(cap 60 0); [ "$lim" -ge 5 ] || lim=5
timeout -k 5 "$lim" python3 -c "import pyshade as ps; print(ps.devices())" \
    > /tmp/devices.txt 2>&1
rc=$?
{ echo; cat /tmp/devices.txt; } >> "$OUT/gpu.txt"
avail=$(awk '$2 == "yes" || $2 == "no" {printf "%s=%s ", $1, $2}' /tmp/devices.txt)
echo "a. devices: $gpu"
echo "a. devices: ${avail:-$(tail -1 /tmp/devices.txt)}"
row devices "$rc" "$((SECONDS - t))" "$gpu; ${avail:-see gpu.txt}"

# ---- b, c. the test suite --------------------------------------------------------------
suite() {   # name log max_seconds reserve -k-expression
    local name=$1 log=$2 t=$SECONDS lim rc
    lim=$(cap "$3" "$4")
    if [ "$lim" -lt 30 ]; then
        echo "$name: skipped, ${lim}s of the budget left"; row "$name" skip 0 "no budget left"; return
    fi
    timeout -k 10 "$lim" python3 -m pytest -q -p no:cacheprovider $XDIST $PTO -rfEs \
        -k "$5" tests > "$log" 2>&1
    rc=$?
    local s; s=$(last_summary "$log")
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then s="TIMED OUT after ${lim}s; last: $s"; fi
    echo "$name: rc=$rc $s (${XDIST:-serial})"
    local bad; bad=$(grep -cE "^(FAILED|ERROR) " "$log")
    if [ "$bad" != 0 ]; then
        echo "$name: $bad failed/errors, first: $(grep -m1 -E "^(FAILED|ERROR) " "$log" | cut -c1-160)"
    fi
    row "$name" "$rc" "$((SECONDS - t))" "$s"
}
suite cuda_suite "$OUT/cuda_suite.txt" 150 260 "cuda and not tint"
suite vk_suite "$OUT/vk_suite.txt" 200 80 \
    "(wgpu or vulkan) and not tint and not swiftshader and not lavapipe and not llvmpipe"

# ---- d. cold and warm first launch -----------------------------------------------------
t=$SECONDS
lim=$(cap 150 5)
if [ "$lim" -lt 20 ]; then
    echo "coldstart: skipped, ${lim}s of the budget left"; row coldstart skip 0 "no budget left"
else
    # A device that fails is listed in bench.md (skipped or FAILED, with its reason).
    timeout -k 5 "$lim" python3 -m pyshade bench --only coldstart --device cuda vulkan wgpu \
        --reps 5 --out "$OUT/coldstart" > /tmp/coldstart.log 2>&1
    rc=$?
    res=$(awk -F' [|] ' '$1 == "| coldstart" {printf "%s %s/%s; ", $2, $5, $6}' \
        "$OUT/coldstart/bench.md" 2>/dev/null)
    echo "d. coldstart (cold/warm): ${res:-none}"
    row coldstart "$rc" "$((SECONDS - t))" "cold/warm ${res:-none, see coldstart/bench.md}"
fi
# e. the table: printed by the EXIT trap
