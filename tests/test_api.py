"""The public API of DESIGN.md section 6: translate, compile, check, devices."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import get_device

import pyshade as ps
from pyshade import f32, u32


@ps.kernel(workgroup_size=64)
def saxpy(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32):
    i = ps.global_id().x
    if i < len(x):
        y[i] = a * x[i] + y[i]


@ps.kernel
def broken(x: ps.Buffer[u32]):
    x[0] = undefined_name  # noqa: F821


def _body_lines() -> set[int]:
    lines, start = inspect.getsourcelines(saxpy.fn)
    return {start + 2, start + 3, start + 4}     # i = ..., if ..., y[i] = ...


def test_translate_and_source_agree():
    text = ps.translate(saxpy, "wgsl")
    assert text == saxpy.source("wgsl")
    assert "fn saxpy(" in text and "@workgroup_size(64, 1, 1)" in text
    assert f"// test_api.py:{max(_body_lines())}" in text      # the line of `y[i] = ...`
    assert "def saxpy(" in ps.translate(saxpy, "python")


def test_translate_all_gives_every_gpu_target():
    out = ps.translate_all(saxpy)
    assert set(out) == {"wgsl", "glsl", "hlsl", "msl", "cuda"}
    assert isinstance(out["wgsl"], str) and isinstance(out["glsl"], str)
    assert out["glsl"].startswith("#version 450\n")
    assert isinstance(out["cuda"], str) and 'extern "C" __global__' in out["cuda"]
    assert isinstance(out["hlsl"], str) and "[numthreads(" in out["hlsl"]
    assert isinstance(out["msl"], str) and "kernel void saxpy(" in out["msl"]


def test_unknown_target_is_a_value_error():
    with pytest.raises(ValueError, match="unknown target"):
        ps.translate(saxpy, "spirv")


def test_compile_validates_with_naga():
    get_device("wgpu")
    c = ps.compile(saxpy, "wgsl")
    assert isinstance(c, ps.Compiled)
    assert c.target == "wgsl" and c.entry == "saxpy" and c.source == c.binary
    assert [b.name for b in c.layout.buffers] == ["x", "y"]
    assert [b.writable for b in c.layout.buffers] == [False, True]
    assert c.layout.params is not None and c.layout.params.kind == "uniform"


def test_compile_python_gives_code_with_user_lines():
    c = ps.compile(saxpy, "python")
    lines = {ln for _, _, ln in _code_of(c.binary, "saxpy").co_lines() if ln}
    assert _body_lines() <= lines
    assert _code_of(c.binary, "saxpy").co_filename == __file__


def _code_of(module_code, name):
    for const in module_code.co_consts:
        if getattr(const, "co_name", None) == name:
            return const
    raise AssertionError(name)


def test_check_reports_each_target():
    get_device("wgpu")
    rep = ps.check(saxpy)
    assert rep.ok and rep.results["wgsl"] == "ok" and rep.results["python"] == "ok"
    # NVRTC is a pip extra: "ok" where it is installed (in CI), else skipped with the reason.
    assert rep.results["cuda"] == "ok" or rep.results["cuda"].startswith("skipped")
    bad = ps.check(broken)
    assert not bad.ok and bad.results["wgsl"].startswith("FAILED")
    assert isinstance(bad.errors["python"], ps.TranslationError)
    assert "unknown name 'undefined_name'" in str(bad.errors["python"])


def test_compile_error_maps_to_python_line():
    """A naga rejection is a CompileError that names the Python line."""
    get_device("wgpu")
    from pyshade.toolchains.naga import validate_wgsl
    bad = "@compute @workgroup_size(1)\nfn main() {\n    let y: u32 = 1.5f;  // kern.py:7\n}\n"
    with pytest.raises(ps.CompileError) as info:
        validate_wgsl(bad, get_device("wgpu"))
    assert info.value.lineno == 7 and info.value.filename == "kern.py"


def test_devices_lists_every_backend():
    infos = ps.devices()
    names = [d.name for d in infos]
    # one row per backend, plus "wgpu:N"/"vulkan:N" rows for a backend's further adapters
    assert [n for n in names if ":" not in n] == ["cpu", "wgpu", "vulkan", "cuda", "metal",
                                                  "d3d12"]
    assert all(n.startswith(("wgpu:", "vulkan:")) for n in names if ":" in n)
    cpu = infos[0]
    assert cpu.available and "CPython" in cpu.adapter
    for d in infos:
        assert d.available or d.reason


def test_device_objects():
    dev = ps.device("cpu")
    assert dev.name == "cpu" and dev.adapter.startswith("CPython")
    assert ps.device("cpu") is dev
    with pytest.raises(ps.BackendUnavailable, match="unknown device"):
        ps.device("tpu")


def test_pyshade_device_environment_variable():
    code = "import pyshade as ps; print(ps.device().name)"
    env = dict(os.environ, PYSHADE_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "cpu"


def test_kernel_is_not_called_directly():
    with pytest.raises(TypeError, match="launch"):
        saxpy(np.zeros(1, np.float32), np.zeros(1, np.float32), 1.0)


def test_launch_argument_errors():
    x = np.zeros(4, np.float32)
    with pytest.raises(ps.LaunchError, match="exactly one of threads"):
        saxpy.launch(x, x, 1.0, device="cpu")
    with pytest.raises(ps.LaunchError, match="missing argument 'a'"):
        saxpy.launch(x, x, threads=4, device="cpu")
    with pytest.raises(ps.LaunchError, match="no parameter 'b'"):
        saxpy.launch(x, x, 1.0, b=2, threads=4, device="cpu")


def test_arrays_of_another_device_are_refused():
    wg = get_device("wgpu")
    x = wg.array(np.zeros(4, np.float32))
    with pytest.raises(ps.LaunchError, match="is an array on wgpu, the launch is on cpu"):
        saxpy.launch(x, x, 1.0, threads=4, device="cpu")


def test_line_events_carry_the_users_file_and_lines(rng):
    """pdb and coverage see the kernel's own lines: they both use sys.settrace."""
    seen = set()

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == __file__ and frame.f_code.co_name == "saxpy":
            if event == "line":
                seen.add(frame.f_lineno)
        return tracer

    x = rng.standard_normal(3).astype(np.float32)
    y = np.zeros(3, np.float32)
    sys.settrace(tracer)
    try:
        saxpy.launch(x, y, 2.0, threads=3, device="cpu")
    finally:
        sys.settrace(None)
    assert seen == _body_lines()
    np.testing.assert_array_equal(y, 2 * x)
