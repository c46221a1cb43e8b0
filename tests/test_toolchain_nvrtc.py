"""NVRTC toolchain: CUDA C++ -> PTX and CUBIN, errors mapped to the Python line."""

from __future__ import annotations

import pytest
from conftest import require

import pyshade as ps
from pyshade import f16, f32, u32, vec3
from pyshade.errors import BackendUnavailable, CompileError
from pyshade.toolchains import nvrtc
from pyshade.toolchains.nvrtc import compile_cuda

GOOD = """extern "C" __global__ void scale(float* x, unsigned int n, float a) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { x[i] = x[i] * a + 1.0f; }
}
"""

WITH_LINES = """extern "C" __global__ void k(unsigned int* out) {
#line 40 "kernels/k.py"
    unsigned int i = threadIdx.x;
#line 42 "kernels/k.py"
    out[i] = undefined_thing * 2u;
}
"""

WITH_COMMENTS = """extern "C" __global__ void k(unsigned int* out) {  // k.py:40
    unsigned int i = threadIdx.x;  // k.py:41
    out[i] = i + struct_nope;  // k.py:42
}
"""


@pytest.fixture(autouse=True)
def _nvrtc() -> None:
    try:
        nvrtc.nvrtc_version()
    except BackendUnavailable as e:
        require(False, f"NVRTC is not installed: {e}")


def test_compile_gives_ptx_without_fused_multiply_add() -> None:
    ptx = compile_cuda(GOOD)
    assert ptx.startswith(b"//") and b".entry scale" in ptx and b".target sm_90" in ptx
    assert b"\0" not in ptx
    # --fmad=false: x * a + 1 is a rounded multiply and a rounded add, never an fma.
    assert b"mul.rn.f32" in ptx and b"fma" not in ptx
    assert b".target sm_80" in compile_cuda(GOOD, arch="compute_80")


def test_empty_log_leaves_python_objects_alone() -> None:
    """NVRTC writes its log into the buffer it is given: never into a shared bytes object
    (CPython's one-byte b" " once came back as a NUL, and print() separated by NULs)."""
    log: list = []
    compile_cuda(GOOD, log=log)
    assert log == [""]
    assert b" " == bytes([32]) and b" " * 1 == b"\x20"


def test_compile_gives_cubin() -> None:
    cubin = compile_cuda(GOOD, arch="sm_90", cubin=True)
    assert cubin[:4] == b"\x7fELF"
    assert compile_cuda(GOOD, cubin=True)[:4] == b"\x7fELF"      # compute_90 -> sm_90


def test_bad_arch_is_value_error() -> None:
    with pytest.raises(ValueError, match="compute_XX"):
        compile_cuda(GOOD, arch="hopper")


def test_error_is_compile_error_with_log() -> None:
    with pytest.raises(CompileError) as info:
        compile_cuda("this is not C++;\n", name="bad.cu")
    err = info.value
    assert err.target == "cuda" and "error" in err.log and err.source.startswith("this")


def test_error_maps_to_python_line_directive() -> None:
    log: list = []
    with pytest.raises(CompileError) as info:
        compile_cuda(WITH_LINES, log=log)
    err = info.value
    assert (err.filename, err.lineno) == ("kernels/k.py", 42)
    assert "undefined_thing" in str(err) and "undefined_thing" in err.log
    assert log and "undefined_thing" in log[0]


def test_error_maps_through_location_comments() -> None:
    with pytest.raises(CompileError) as info:
        compile_cuda(WITH_COMMENTS, name="k.cu")
    assert (info.value.filename, info.value.lineno) == ("k.py", 42)
    assert "CUDA line 3" in str(info.value)


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins
    real = builtins.__import__

    def no_cuda(name, *args, **kwargs):
        if name.startswith("cuda"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cuda)
    with pytest.raises(BackendUnavailable, match=r"pyshade\[cuda\]"):
        compile_cuda(GOOD)


@ps.kernel(workgroup_size=64)
def halves(x: ps.Buffer[f16], y: ps.Buffer[f32], n: u32):
    i = ps.global_id().x
    if i < n:
        y[i] = f32(x[i] * f16(0.5)) + 1.0
        if i == 0:
            print("n =", n, y[i] > 0.5)


def test_kernel_compiles_with_fp16_header_and_print() -> None:
    c = ps.compile(halves, "cuda")
    assert c.target == "cuda" and c.entry == "halves" and b".entry halves" in c.binary
    assert "#include <cuda_fp16.h>" in c.source and "printf(" in c.source
    assert "vprintf" in c.binary.decode()          # printf reaches the device runtime
    assert [b.writable for b in c.layout.buffers] == [False, True]
    assert c.layout.params is not None and c.layout.params.size == 16


@ps.kernel(workgroup_size=64)
def uses_fma(x: ps.Buffer[f32]):
    i = ps.global_id().x
    x[i] = x[i] * 3.0 + ps.fma(x[i], 2.0, 1.0)


def test_only_explicit_fma_fuses() -> None:
    ptx = ps.compile(uses_fma, "cuda").binary.decode()
    assert ptx.count("fma.rn.f32") == 1 and "mul.rn.f32" in ptx


@ps.struct
class Shifted:
    a: f32
    b: vec3                 # canonical offset 16: padding after a


@ps.kernel(workgroup_size=32)
def writes_shifted(s: ps.Buffer[Shifted]):
    s[ps.global_id().x].a = 1.0


def test_struct_layout_is_checked_by_static_assert() -> None:
    """The static_asserts of a struct fail to compile when the layout differs."""
    text = ps.translate(writes_shifted, "cuda")
    assert "static_assert(PS_OFFSETOF(Shifted, b) == 16" in text
    assert f"static_assert(sizeof(Shifted) == {Shifted.dtype.itemsize}" in text
    assert Shifted.dtype.fields["b"][1] == 16
    compile_cuda(text)
    broken = text.replace("unsigned char _ps_pad0[12];", "unsigned char _ps_pad0[8];")
    assert broken != text
    with pytest.raises(CompileError, match="offset of Shifted.b"):
        compile_cuda(broken)


@ps.kernel(workgroup_size=64)
def signed_minmax(a: ps.Buffer[ps.i32], b: ps.Buffer[ps.i32], out: ps.Buffer[ps.i32]):
    i = ps.global_id().x
    if i < len(a):
        x, y = a[i], b[i]
        out[i] = max(x | 1, abs(y)) + ps.clamp(max(-x, x), min(y, 7), max(y, 7))


def _nvdisasm() -> str | None:
    import shutil
    import sysconfig
    from pathlib import Path
    found = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "bin" / "nvdisasm"
    return str(found) if found.exists() else shutil.which("nvdisasm")


def test_signed_min_max_avoid_the_min_max_instruction() -> None:
    """ptxas turns a compare and select (and PTX min/max.s32) into VIMNMX, and the H200's
    ptxas computed a max of an abs-like max unsigned that way (bench/README.md): the
    prelude's signed min/max/abs/clamp on CUDA must leave no IMNMX in the SASS."""
    import subprocess
    import tempfile
    tool = _nvdisasm()
    require(tool is not None, "nvdisasm (pip package nvidia-cuda-nvdisasm) is not installed")
    cubin = compile_cuda(ps.translate(signed_minmax, "cuda"), arch="sm_90", cubin=True)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([tool, f.name], capture_output=True, text=True, check=True).stdout
    assert "ISETP" in sass                                 # it is SASS, with comparisons
    assert [ln for ln in sass.splitlines() if "IMNMX" in ln] == []
