"""glslang toolchain: GLSL -> SPIR-V, spirv-val, errors mapped to the Python line."""

from __future__ import annotations

import shutil

import pytest
from conftest import require, require_tools

from pyshade.errors import BackendUnavailable, CompileError
from pyshade.toolchains import glslang
from pyshade.toolchains.glslang import SPIRV_MAGIC, compile_glsl

GOOD = """#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B0 { uint data[]; } b0;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(b0.data.length())) { b0.data[i] *= SCALE; }
}
"""

WITH_LINES = """#version 450
#extension GL_GOOGLE_cpp_style_line_directive : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B0 { uint data[]; } b0;
void main() {
#line 40 "kernels/k.py"
    uint i = gl_GlobalInvocationID.x;
#line 42 "kernels/k.py"
    b0.data[i] = undefined_thing * 2u;
}
"""

WITH_COMMENTS = """#version 450
layout(local_size_x = 1) in;
void main() {  // k.py:40
    int x = 1;  // k.py:41
    x = x + vec2(1.0);  // k.py:42
}
"""


@pytest.fixture(autouse=True)
def _tools() -> None:
    require(shutil.which("glslangValidator") is not None and shutil.which("spirv-val") is not None,
            "glslangValidator and spirv-val (glslang-tools, spirv-tools) are not installed")


def test_compile_gives_spirv() -> None:
    spv = compile_glsl(GOOD, defines={"SCALE": "2u"})
    assert int.from_bytes(spv[:4], "little") == SPIRV_MAGIC
    assert len(spv) % 4 == 0
    named = compile_glsl(GOOD, defines={"SCALE": "3u"}, entry="double_it")
    assert b"double_it" in named and named != spv


def test_error_maps_to_python_line_directive() -> None:
    with pytest.raises(CompileError) as info:
        compile_glsl(WITH_LINES)
    err = info.value
    assert err.target == "glsl"
    assert (err.filename, err.lineno) == ("kernels/k.py", 42)
    assert "undeclared identifier" in str(err) and "undefined_thing" in err.log
    assert err.source == WITH_LINES


def test_error_maps_through_location_comments() -> None:
    with pytest.raises(CompileError) as info:
        compile_glsl(WITH_COMMENTS)
    assert (info.value.filename, info.value.lineno) == ("k.py", 42)
    assert "GLSL line 5" in str(info.value)
    assert "/tmp" not in info.value.log      # temp paths do not leak into messages


def test_missing_macro_is_compile_error() -> None:
    with pytest.raises(CompileError):
        compile_glsl(GOOD)                    # SCALE undefined


def test_bad_macro_name_and_stage() -> None:
    with pytest.raises(ValueError):
        compile_glsl(GOOD, defines={"A B": 1})
    with pytest.raises(ValueError):
        compile_glsl(GOOD, stage="frag")


def test_spirv_val_failure_is_compile_error() -> None:
    spv = bytearray(compile_glsl(GOOD, defines={"SCALE": "2u"}))
    spv[-8:] = b"\xff" * 8                    # corrupt the last instruction
    with pytest.raises(CompileError) as info:
        glslang.validate_spirv(bytes(spv))
    assert "spirv-val" in str(info.value)


@pytest.mark.parametrize("tool", ["glslangValidator", "spirv-val"])
def test_missing_tool_is_backend_unavailable(tool: str, monkeypatch: pytest.MonkeyPatch,
                                             tmp_path) -> None:
    # A PATH with only the other tool on it.
    other = "spirv-val" if tool == "glslangValidator" else "glslangValidator"
    (tmp_path / other).symlink_to(shutil.which(other))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BackendUnavailable) as info:
        compile_glsl(GOOD, defines={"SCALE": "2u"})
    assert glslang._PACKAGES[tool] in str(info.value)


def test_a_tool_that_runs_too_long_is_compile_error(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path) -> None:
    """A tool past ``TIMEOUT_S`` (spirv-opt's inlining of a huge kernel took 145 s) is a
    CompileError naming the tool and the time, not subprocess's TimeoutExpired."""
    require_tools("glslangValidator", "spirv-val")
    slow = tmp_path / "spirv-opt"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{__import__('os').environ['PATH']}")
    monkeypatch.setattr(glslang, "TIMEOUT_S", 1)
    spv = compile_glsl(GOOD, defines={"SCALE": "2u"})
    with pytest.raises(CompileError, match=r"spirv-opt did not finish within 1 s") as info:
        glslang.optimize_spirv(spv, source=GOOD, target="hlsl")
    assert info.value.target == "hlsl" and info.value.source == GOOD
