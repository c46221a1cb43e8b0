"""Golden tests: every kernel of ``tests/golden/<case>.py`` against its reviewed output.

For each case file and each ``ps.Kernel`` defined at its module level, and for
each target of ``TARGETS``, the translation must equal
``tests/golden/<target>/<case>.<kernel>.<ext>`` byte for byte.
``pytest --update-golden`` rewrites those files (and deletes stale ones)
instead; review the diff before committing.

A case module may define ``SPECS = {"kernel_name": {"T": ps.u32, "n": 4}}``:
the TypeVar and Const bindings of its generic or ``Const`` kernels.

Every stored WGSL file is also validated by naga (wgpu-py), every stored GLSL
file is compiled by glslangValidator and validated by spirv-val, every stored
CUDA file is compiled by NVRTC to PTX, every stored MSL file is compiled by g++ against
the stand-in of tests/msl_host (no Mac here for Apple's compiler), every stored HLSL
file is compiled by DXC to SPIR-V (validated by spirv-val) and to DXIL (validated by DXC's validator) and by
glslang's HLSL front end, and every stored Python file is compiled with ``compile()``.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import require

import pyshade as ps

GOLDEN = Path(__file__).parent / "golden"
# target -> file extension, from the target registry (built-in targets only: a test may
# register a throwaway one while this module is imported)
TARGETS = {t: ps.targets.get(t).extension for t in ("wgsl", "glsl", "hlsl", "cuda", "msl",
                                                    "python")}


def _case_names() -> list[str]:
    return sorted(p.stem for p in GOLDEN.glob("*.py") if not p.name.startswith("_"))


_modules: dict[str, ModuleType] = {}


def load_case(case: str) -> ModuleType:
    """Import ``tests/golden/<case>.py`` as module ``golden_<case>`` (once)."""
    if case not in _modules:
        name = f"golden_{case}"
        spec = importlib.util.spec_from_file_location(name, GOLDEN / f"{case}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod          # dataclasses and typing look modules up here
        spec.loader.exec_module(mod)
        _modules[case] = mod
    return _modules[case]


def kernels_of(mod: ModuleType) -> list[str]:
    """Names of the ``ps.Kernel`` objects defined at the module's top level."""
    return [n for n, v in vars(mod).items() if isinstance(v, ps.Kernel)]


def golden_path(case: str, kernel: str, target: str) -> Path:
    return GOLDEN / target / f"{case}.{kernel}.{TARGETS[target]}"


def _all_kernels() -> list[tuple[str, str]]:
    return [(c, k) for c in _case_names() for k in kernels_of(load_case(c))]


KERNELS = _all_kernels()
IDS = [f"{c}.{k}" for c, k in KERNELS]


def translate(case: str, kernel: str, target: str) -> str:
    mod = load_case(case)
    bindings = getattr(mod, "SPECS", {}).get(kernel, {})
    return ps.translate(getattr(mod, kernel), target, **bindings)


def test_cases_exist() -> None:
    assert len(_case_names()) >= 16
    for case in _case_names():
        assert kernels_of(load_case(case)), f"{case}.py defines no kernel"
        specs = getattr(load_case(case), "SPECS", {})
        unknown = set(specs) - set(kernels_of(load_case(case)))
        assert not unknown, f"{case}.py: SPECS names no kernel {sorted(unknown)}"


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_golden(case: str, kernel: str, target: str, update_golden: bool) -> None:
    text = translate(case, kernel, target)
    path = golden_path(case, kernel, target)
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        return
    assert path.exists(), f"{path} is missing: run pytest --update-golden and review it"
    assert text == path.read_text(), (f"{target} output of {case}.{kernel} changed: run "
                                      f"pytest --update-golden and review the diff")


@pytest.mark.parametrize("target", list(TARGETS))
def test_no_stale_golden_files(target: str, update_golden: bool) -> None:
    expected = {golden_path(c, k, target).name for c, k in KERNELS}
    stale = [p for p in (GOLDEN / target).glob(f"*.{TARGETS[target]}")
             if p.name not in expected]
    if update_golden:
        for p in stale:
            p.unlink()
        return
    assert not stale, f"golden files without a kernel: {[p.name for p in stale]}"


@pytest.fixture(scope="module")
def wgpu_device() -> ps.Device:
    try:
        import wgpu  # noqa: F401
    except ImportError:
        require(False, "wgpu-py is not installed: naga cannot validate the WGSL goldens")
    try:
        return ps.device("wgpu")
    except ps.BackendUnavailable as e:
        require(False, f"no WebGPU adapter to validate WGSL with naga: {e}")


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_wgsl_golden_validates(case: str, kernel: str, wgpu_device: ps.Device) -> None:
    from pyshade.toolchains.naga import validate_wgsl

    path = golden_path(case, kernel, "wgsl")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    validate_wgsl(path.read_text(), wgpu_device)


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_python_golden_compiles(case: str, kernel: str) -> None:
    path = golden_path(case, kernel, "python")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    compile(path.read_text(), str(path), "exec")


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_glsl_golden_compiles(case: str, kernel: str) -> None:
    from pyshade.toolchains.glslang import compile_glsl

    path = golden_path(case, kernel, "glsl")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    try:
        binary = compile_glsl(path.read_text(), entry=kernel)   # spirv-val included
    except ps.BackendUnavailable as e:
        require(False, f"glslang/spirv-val missing: {e}")
    assert binary[:4] == b"\x03\x02\x23\x07"


def hlsl_entry(text: str) -> str:
    """The entry point of an HLSL golden: the function after ``[numthreads(...)]``."""
    return re.search(r"^\[numthreads\([^)]*\)\]\n(?:#line .*\n)?void (\w+)\(", text,
                     re.MULTILINE).group(1)


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_hlsl_golden_compiles(case: str, kernel: str) -> None:
    """DXC compiles every HLSL golden to SPIR-V (spirv-val) and to DXIL (DXC's validator)."""
    from pyshade.toolchains.dxc import compile_hlsl, library_path

    path = golden_path(case, kernel, "hlsl")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    text = path.read_text()
    try:
        library_path()
        spirv = compile_hlsl(text, entry=hlsl_entry(text), target="spirv")
    except ps.BackendUnavailable as e:
        require(False, f"DXC or spirv-val missing: {e}")
    assert spirv[:4] == b"\x03\x02\x23\x07"
    dxil = compile_hlsl(text, entry=hlsl_entry(text), target="dxil")
    assert dxil[:4] == b"DXBC"


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_hlsl_golden_glslang(case: str, kernel: str, tmp_path: Path) -> None:
    """glslang's HLSL front end, an independent compiler, accepts every HLSL golden."""
    tool = shutil.which("glslangValidator")
    require(tool is not None, "glslangValidator (glslang-tools) is not installed")
    path = golden_path(case, kernel, "hlsl")
    text = path.read_text()
    src = tmp_path / "kernel.hlsl"
    src.write_text(text)
    r = subprocess.run([tool, "-D", "-V", "--target-env", "vulkan1.1", "-e", hlsl_entry(text),
                        "-S", "comp", "-o", str(tmp_path / "kernel.spv"), str(src)],
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_glslang_error_names_the_python_line() -> None:
    """An error glslang reports inside a generated statement names the kernel's file and
    the statement's Python line (through the #line directives)."""
    from pyshade.toolchains.glslang import compile_glsl

    text = translate("saxpy", "saxpy", "glsl")
    lines = text.splitlines()
    i = next(n for n, ln in enumerate(lines) if "saxpy.py:" in ln and "=" in ln
             and not ln.lstrip().startswith("#"))
    pyline = int(lines[i].rsplit(":", 1)[1])
    lines[i] = lines[i].replace("=", "= no_such_name +", 1)
    try:
        compile_glsl("\n".join(lines) + "\n", entry="saxpy")
    except ps.BackendUnavailable as e:
        require(False, f"glslang missing: {e}")
    except ps.CompileError as e:
        assert e.filename is not None and e.filename.endswith("saxpy.py")
        assert e.lineno == pyline, (e.lineno, pyline, str(e))
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("glslang accepted an undefined name")


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_cuda_golden_compiles(case: str, kernel: str) -> None:
    from pyshade.toolchains.nvrtc import compile_cuda

    path = golden_path(case, kernel, "cuda")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    try:
        ptx = compile_cuda(path.read_text(), name=path.name)
    except ps.BackendUnavailable as e:
        require(False, f"NVRTC missing: {e}")
    assert b".entry " + kernel.encode() in ptx or b".entry " + kernel.encode() + b"_" in ptx


@pytest.mark.parametrize(("case", "kernel"), KERNELS, ids=IDS)
def test_msl_golden_compiles_on_the_stand_in(case: str, kernel: str) -> None:
    """Every MSL golden compiles as C++20 against tests/msl_host's metal_stdlib stand-in
    (not Apple's compiler, which needs a Mac): its syntax and layout static_asserts."""
    from msl_host import compiler, syntax_check

    path = golden_path(case, kernel, "msl")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    require(compiler() is not None, "g++ is not installed (Debian package g++)")
    assert syntax_check(path.read_text(), path.name) == ""


def test_nvrtc_error_names_the_python_line() -> None:
    """An error NVRTC reports inside a generated statement names the kernel's file and
    the statement's Python line (through the #line directives)."""
    from pyshade.toolchains.nvrtc import compile_cuda

    text = translate("saxpy", "saxpy", "cuda")
    lines = text.splitlines()
    i = next(n for n, ln in enumerate(lines) if "saxpy.py:" in ln and " = " in ln
             and not ln.lstrip().startswith("#") and "ps_global_id" not in ln)
    pyline = int(lines[i].rsplit(":", 1)[1])
    lines[i] = lines[i].replace(" = ", " = no_such_name + ", 1)
    try:
        compile_cuda("\n".join(lines) + "\n", name="saxpy.cu")
    except ps.BackendUnavailable as e:
        require(False, f"NVRTC missing: {e}")
    except ps.CompileError as e:
        assert e.filename is not None and e.filename.endswith("saxpy.py")
        assert e.lineno == pyline, (e.lineno, pyline, str(e))
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("NVRTC accepted an undefined name")
