"""DXC toolchain: HLSL -> SPIR-V (spirv-val) and DXIL (DXC's validator), errors mapped to
the Python line, 16-bit types detected, DXC missing reported with the install hint."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require, require_dxc

import pyshade as ps
from pyshade.errors import BackendUnavailable, CompileError
from pyshade.toolchains import dxc
from pyshade.toolchains.dxc import compile_hlsl, dxc_arguments, dxil_signed, validate_dxil

ROOT = Path(__file__).resolve().parent.parent
GOOD = """RWStructuredBuffer<uint> data : register(u0);
[numthreads(64, 1, 1)]
void double_it(uint3 id : SV_DispatchThreadID) {
    data[id.x] *= 2u;
}
"""

WITH_LINES = """RWStructuredBuffer<uint> data : register(u0);
[numthreads(64, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) {
#line 40 "kernels/k.py"
    uint i = id.x;
#line 42 "kernels/k.py"
    data[i] = undefined_thing * 2u;
}
"""

WITH_COMMENTS = """RWStructuredBuffer<uint> data : register(u0);
[numthreads(1, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) {  // k.py:40
    uint x = 1u;  // k.py:41
    x = x + float2(1.0f, 2.0f) + nope;  // k.py:42
}
"""

HALF = """RWStructuredBuffer<float16_t> h : register(u0);
[numthreads(64, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) {
    h[id.x] = h[id.x] * (float16_t)2.0;
}
"""


@pytest.fixture(autouse=True)
def _dxc() -> None:
    require_dxc()       # compushady's DXC library (its install hint) and spirv-val


def test_spirv_and_dxil() -> None:
    spv = compile_hlsl(GOOD, entry="double_it")
    assert spv[:4] == b"\x03\x02\x23\x07" and len(spv) % 4 == 0
    assert b"double_it" in spv                       # the SPIR-V entry point's name
    dxil = compile_hlsl(GOOD, entry="double_it", target="dxil")
    assert dxil[:4] == b"DXBC"
    assert dxc.dxc_version()[0] >= 1


@pytest.mark.skipif(sys.platform == "win32", reason="dxcompiler.dll signs with dxil.dll")
def test_dxil_is_validated_but_unsigned_outside_windows() -> None:
    """DXC validates DXIL with the validator inside libdxcompiler but cannot sign it:
    that needs dxil.dll / libdxil.so, which compushady ships for Windows only."""
    dxil = compile_hlsl(GOOD, entry="double_it", target="dxil")
    validate_dxil(dxil)
    assert not dxil_signed(dxil)


def test_error_maps_to_python_line_directive() -> None:
    with pytest.raises(CompileError) as info:
        compile_hlsl(WITH_LINES, entry="k")
    err = info.value
    assert err.target == "hlsl"
    assert (err.filename, err.lineno) == ("kernels/k.py", 42)
    assert "undefined_thing" in str(err) and "undeclared identifier" in err.log
    assert err.source == WITH_LINES


def test_error_maps_through_location_comments() -> None:
    with pytest.raises(CompileError) as info:
        compile_hlsl(WITH_COMMENTS, entry="k", target="dxil")
    assert (info.value.filename, info.value.lineno) == ("k.py", 42)
    assert "HLSL line 5" in str(info.value)


def test_missing_entry_point() -> None:
    with pytest.raises(CompileError, match="entry point"):
        compile_hlsl(GOOD, entry="nope")


def test_sixteen_bit_types_pick_shader_model_6_2() -> None:
    assert dxc_arguments(GOOD, "k", "dxil")[:6] == ["-E", "k", "-T", "cs_6_0", "-HV", "2021"]
    args = dxc_arguments(HALF, "k", "spirv")
    assert "cs_6_2" in args and "-enable-16bit-types" in args and "-spirv" in args
    assert compile_hlsl(HALF, entry="k", target="dxil")[:4] == b"DXBC"
    with pytest.raises(CompileError):          # without the flag float16_t is unknown
        compile_hlsl(HALF, entry="k", enable_16bit=False)
    with pytest.raises(ValueError):
        dxc_arguments(GOOD, "k", "dxbc")


def test_spirv_val_failure_is_compile_error() -> None:
    from pyshade.toolchains import glslang
    spv = bytearray(compile_hlsl(GOOD, entry="double_it", validate=False))
    spv[-8:] = b"\xff" * 8                     # corrupt the last instruction
    with pytest.raises(CompileError, match="spirv-val rejected the SPIR-V that DXC produced"):
        glslang.validate_spirv(bytes(spv), producer="DXC", target="hlsl")


def test_missing_compushady_is_backend_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "compushady" else real(name, *a))
    with pytest.raises(BackendUnavailable, match=re.escape("pyshade[hlsl]")):
        dxc.library_path()


@ps.kernel(workgroup_size=64)
def saxpy(x: ps.Buffer[ps.f32], y: ps.Buffer[ps.f32], a: ps.f32):
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


def test_dxc_error_names_the_kernels_python_line() -> None:
    """An error DXC reports inside a generated statement names the kernel's file and the
    statement's Python line (through the #line directives)."""
    text = ps.translate(saxpy, "hlsl")
    lines = text.splitlines()
    i = next(n for n, ln in enumerate(lines) if "y[i] =" in ln)
    pyline = int(lines[i].rsplit(":", 1)[1])
    lines[i] = lines[i].replace("=", "= no_such_name +", 1)
    for target in ("spirv", "dxil"):
        with pytest.raises(CompileError) as info:
            compile_hlsl("\n".join(lines) + "\n", entry="saxpy", target=target)
        assert info.value.filename.endswith("test_toolchain_dxc.py")
        assert info.value.lineno == pyline, (info.value.lineno, pyline, str(info.value))
        assert "no_such_name" in str(info.value)


def test_compile_and_check_route_hlsl() -> None:
    c = ps.compile(saxpy, "hlsl")
    assert c.target == "hlsl" and c.binary[:4] == b"\x03\x02\x23\x07" and c.entry == "saxpy"
    assert ps.check(saxpy).results["hlsl"] == "ok"


def test_glslang_reads_the_same_hlsl(tmp_path) -> None:
    tool = shutil.which("glslangValidator")
    require(tool is not None, "glslangValidator (glslang-tools) is not installed")
    src = tmp_path / "k.hlsl"
    src.write_text(ps.translate(saxpy, "hlsl"))
    r = subprocess.run([tool, "-D", "-V", "-e", "saxpy", "-S", "comp", "-o",
                        str(tmp_path / "k.spv"), str(src)], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def _dxc_or_skip() -> None:
    require_dxc(spirv_val=False)


@pytest.mark.skipif(sys.platform == "win32", reason="Windows runs DXC in process")
def test_dxc_runs_in_a_helper_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """DXC's library never enters this process (its exit code can hang one) and a helper
    that died is replaced by the next call."""
    _dxc_or_skip()
    monkeypatch.delenv("PYSHADE_DXC_IN_PROCESS", raising=False)
    assert compile_hlsl(GOOD, entry="double_it")[:4] == b"\x03\x02\x23\x07"
    with open("/proc/self/maps") as f:
        assert "dxcompiler" not in f.read()
    helper = dxc._helper
    assert helper is not None and helper.poll() is None
    helper.kill()
    helper.wait()
    assert compile_hlsl(GOOD, entry="double_it", target="dxil")[:4] == b"DXBC"
    assert dxc._helper is not helper and dxc._helper.poll() is None
    with pytest.raises(CompileError, match="undeclared identifier"):
        compile_hlsl(WITH_LINES, entry="k")      # errors still come back as before


def test_program_using_dxc_exits(tmp_path) -> None:
    """A program that compiled HLSL ends promptly with its own exit status."""
    _dxc_or_skip()
    script = tmp_path / "uses_dxc.py"
    script.write_text("import sys\nfrom pyshade.toolchains.dxc import compile_hlsl\n"
                      f"compile_hlsl({GOOD!r}, entry='double_it')\n"
                      f"compile_hlsl({GOOD!r}, entry='double_it', target='dxil')\n"
                      "sys.exit(3)\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=60, cwd=str(tmp_path),
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 3, r.stderr
