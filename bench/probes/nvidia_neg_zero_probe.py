"""Probe (fuzz seeds 20262310 kernel 31 and 20262313 kernel 35 on the H200, docs/devices/
testing.md): does NVIDIA's compiler lose the sign of ``-0.0`` in a negated select?

Both kernels store ``-ps.step(e, x)``, which is ``-0.0`` where ``x < e``; cuda and both
Vulkan routes stored ``+0.0`` there, while NVRTC's PTX is right (``selp.f32 %f,
0f80000000, 0fBF800000``), so the fault would be in the shared back end (ptxas). Part 1
is hand CUDA through CuPy's RawKernel (no pyshade), one variant a kernel, with the NVRTC
options pyshade uses; part 2 the SASS of the first variants (``cuobjdump -sass``, where
nvcc is on PATH); part 3 ``-ps.step`` and the same variants through pyshade on every GPU
device of the test suite. Prints, per variant and device, how many of 2^16 elements have
other bits than numpy's.

    python bench/probes/nvidia_neg_zero_probe.py
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import numpy as np  # noqa: E402

# the options pyshade's cuda target compiles with (the CUDA sources below are hand-written)
from pyshade.toolchains.nvrtc import OPTIONS  # noqa: E402

N = 1 << 16

# name: (CUDA expression of a, b, c, numpy reference)
VARIANTS = {
    "neg_select_consts": ("-(b < a ? 0.0f : 1.0f)",
                          lambda a, b, c: -np.where(b < a, np.float32(0), np.float32(1))),
    "select_neg_consts": ("b < a ? -0.0f : -1.0f",
                          lambda a, b, c: np.where(b < a, np.float32(-0.0), np.float32(-1))),
    "select_negzero_pos": ("b < a ? -0.0f : 2.0f",
                           lambda a, b, c: np.where(b < a, np.float32(-0.0), np.float32(2))),
    "select_negzero_var": ("b < a ? -0.0f : c",
                           lambda a, b, c: np.where(b < a, np.float32(-0.0), c)),
    "neg_select_var": ("-(b < a ? 0.0f : c)",
                       lambda a, b, c: -np.where(b < a, np.float32(0), c)),
    "neg_of_zero_times": ("-(c * 0.0f)", lambda a, b, c: -(c * np.float32(0))),
    "store_negzero": ("-0.0f", lambda a, b, c: np.full_like(a, -0.0)),
}


def source(name: str, expr: str) -> str:
    return (f'extern "C" __global__ void {name}(const float* a_, const float* b_, '
            f'const float* c_, float* o, int n) {{ int i = blockIdx.x * blockDim.x + '
            f'threadIdx.x; if (i >= n) return; float a = a_[i], b = b_[i], c = c_[i]; '
            f'o[i] = {expr}; }}')


def inputs(rng: np.random.Generator) -> tuple:
    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    c = rng.standard_normal(N).astype(np.float32)
    return a, b, c


def wrong(got: np.ndarray, want: np.ndarray) -> str:
    bad = got.view(np.uint32) != want.astype(np.float32).view(np.uint32)
    if not bad.any():
        return "0"
    k = int(np.argmax(bad))
    return f"{int(bad.sum())} (e.g. [{k}] {got[k]!r} want {want[k]!r})"


def part_cupy(rng: np.random.Generator, rows: list) -> None:
    try:
        import cupy as cp
    except ImportError as e:
        rows.append(("cupy", "-", f"skipped: {e}"))
        return
    a, b, c = inputs(rng)
    da, db, dc = (cp.asarray(x) for x in (a, b, c))
    for name, (expr, ref) in VARIANTS.items():
        k = cp.RawKernel(source(name, expr), name, options=OPTIONS)
        o = cp.empty(N, cp.float32)
        k(((N + 255) // 256,), (256,), (da, db, dc, o, np.int32(N)))
        rows.append((name, "cupy RawKernel", wrong(o.get(), ref(a, b, c))))


def part_sass() -> None:
    nvcc, objdump = shutil.which("nvcc"), shutil.which("cuobjdump")
    if not (nvcc and objdump):
        print("sass: no nvcc or cuobjdump")
        return
    tmp = Path(tempfile.mkdtemp())
    for name in ("neg_select_consts", "select_neg_consts", "select_negzero_var"):
        (tmp / f"{name}.cu").write_text(source(name, VARIANTS[name][0]))
        r = subprocess.run([nvcc, "-cubin", "-arch=sm_90", "--fmad=false", "-o",
                            f"{name}.cubin", f"{name}.cu"], cwd=tmp, capture_output=True,
                           text=True)
        if r.returncode:
            print(f"sass {name}: nvcc failed: {r.stderr[:300]}")
            continue
        dis = subprocess.run([objdump, "-sass", f"{name}.cubin"], cwd=tmp,
                             capture_output=True, text=True).stdout
        # every instruction from the compare to the store: the 2026-12-05 run's filter
        # (select, compare, store, move, logic) hid the one that turned SEL's integer
        # 0 / -1 into the stored word
        body = [ln.strip() for ln in dis.splitlines() if ln.strip().startswith("/*0")]
        start = next((i for i, ln in enumerate(body) if "SETP" in ln), 0)
        stop = next((i for i, ln in enumerate(body) if "STG" in ln and i >= start), len(body))
        print(f"--- sass {name}: {VARIANTS[name][0]}")
        print("\n".join(body[start:stop + 1][:20]))


def part_pyshade(rng: np.random.Generator, rows: list) -> None:
    from probe_kernels import suite_devices

    import pyshade as ps
    from pyshade import f32

    @ps.kernel(workgroup_size=64)
    def negstep(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32],
                o: ps.Buffer[f32]) -> None:
        i = ps.global_id().x
        o[i] = -ps.step(a[i], b[i])

    @ps.kernel(workgroup_size=64)
    def selneg(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32],
               o: ps.Buffer[f32]) -> None:
        i = ps.global_id().x
        o[i] = -0.0 if b[i] < a[i] else -1.0

    @ps.kernel(workgroup_size=64)
    def selvar(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32],
               o: ps.Buffer[f32]) -> None:
        i = ps.global_id().x
        o[i] = -0.0 if b[i] < a[i] else c[i]

    kernels = {
        "negstep (ps.step)": (negstep, VARIANTS["neg_select_consts"][1]),
        "select_neg_consts": (selneg, VARIANTS["select_neg_consts"][1]),
        "select_negzero_var": (selvar, VARIANTS["select_negzero_var"][1]),
    }
    a, b, c = inputs(rng)
    devs = [("cpu", ps.device("cpu"))] + suite_devices(cuda=True)
    for label, dev in devs:
        for name, (kern, ref) in kernels.items():
            try:
                arrs = [dev.array(x) for x in (a, b, c, np.zeros(N, np.float32))]
                kern.launch(*arrs, threads=N, device=dev)
                rows.append((name, label, wrong(arrs[3].numpy(), ref(a, b, c))))
            except Exception as e:  # a probe: report and go on
                rows.append((name, label, f"error: {type(e).__name__}: {str(e)[:120]}"))


def main() -> None:
    rng = np.random.default_rng()
    rows: list = []
    part_cupy(rng, rows)
    part_sass()
    part_pyshade(rng, rows)
    print(f"\n{'variant':22} {'device':40} wrong bits of {N}")
    for name, dev, w in rows:
        print(f"{name:22} {dev:40} {w}")


if __name__ == "__main__":
    main()
