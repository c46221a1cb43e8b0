"""The command line: pyshade translate | check | devices | demo (and python -m pyshade)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import get_device

import pyshade as ps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "bitonic_sort.py")


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "pyshade", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def test_translate_wgsl_with_bindings():
    p = run("translate", f"{EXAMPLE}:bitonic_step", "--target", "wgsl", "-D", "T=i32")
    assert "var<storage, read_write> data: array<i32>;" in p.stdout
    assert "// bitonic_sort.py:" in p.stdout


def test_translate_all_writes_every_target():
    p = run("translate", f"{EXAMPLE}:bitonic_step", "--target", "all", "-D", "T=f32")
    for t in ("wgsl", "glsl", "hlsl", "msl", "cuda", "python"):
        assert f"// ===== bitonic_step: {t} =====" in p.stdout
    assert "not implemented yet" not in p.stderr


def test_translate_glsl():
    p = run("translate", f"{EXAMPLE}:bitonic_step", "--target", "glsl", "-D", "T=i32")
    assert p.stdout.startswith("#version 450\n")
    assert "buffer ps_data_block { int data[]; };" in p.stdout
    assert '#line ' in p.stdout and '"bitonic_sort.py"' in p.stdout


def test_translate_reports_translation_errors(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import pyshade as ps\n\n@ps.kernel\ndef k(x: ps.Buffer[ps.u32]):\n"
                   "    x[0] = [1, 2]\n")
    p = run("translate", f"{bad}:k", ok=False)
    assert p.returncode == 1
    assert f"{bad}:5:12" in p.stderr and "a list literal is only supported" in p.stderr


def test_generic_kernel_needs_its_typevar():
    p = run("translate", f"{EXAMPLE}:bitonic_step", ok=False)
    # the hint in the command line's own spelling
    assert p.returncode == 2 and p.stderr.strip() == (
        "pyshade: kernel bitonic_step needs compile-time values: -D T=u32 "
        "(allowed: u32, i32, f32)")
    assert run("translate", f"{EXAMPLE}:bitonic_step", "-D", "T=u32").stdout.startswith("//")


def test_a_binding_outside_the_typevars_constraints_is_refused():
    p = run("translate", f"{EXAMPLE}:bitonic_step", "-D", "T=f64", ok=False)
    assert p.returncode == 1
    assert "T=f64 is not allowed (allowed: u32, i32, f32)" in p.stderr


def test_version_missing_file_and_unknown_kernel():
    assert run("--version").stdout.strip() == f"pyshade {ps.__version__}"
    p = run("translate", "no_such_file.py:k", ok=False)
    assert p.returncode == 1 and p.stderr.strip() == "pyshade: no such file: no_such_file.py"
    p = run("translate", f"{EXAMPLE}:nope", ok=False)
    assert p.stderr.strip().endswith("'nope' is not a @ps.kernel in "
                                     f"{os.path.abspath(EXAMPLE)}; its kernels: bitonic_step")


def test_check():
    get_device("wgpu")
    p = run("check", EXAMPLE)
    assert "bitonic_step" in p.stdout and "wgsl    ok" in p.stdout and "python  ok" in p.stdout


def test_devices():
    p = run("devices")
    lines = p.stdout.splitlines()
    assert lines[0].split()[:2] == ["device", "available"]
    assert any(line.startswith("cpu ") and " yes " in line for line in lines)


def test_demo_table():
    get_device("wgpu")
    p = run("demo", "--n", "300", "--device", "cpu", "--device", "wgpu")
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert {r[0] for r in rows} == {"cpu", "wgpu"}
    assert all(r[-1] == "ok" for r in rows) and len(rows) == 6
