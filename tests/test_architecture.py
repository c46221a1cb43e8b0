"""The stages keep to their rooms (DESIGN.md section 2, issue 14).

* Toolchains and devices import nothing from ``pyshade.emit``, and nothing downstream
  reads an emitter: what passes from translation to them is the ``Compiled`` record.
* A new target is one emitter module (with its tables), one keyword module and one
  registry entry: ``tests/throwaway_target`` is such a target, registered here only.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, targets
from pyshade.runtime.cpu import CpuDevice

PKG = Path(ps.__file__).parent


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``."""
    package = path.relative_to(PKG.parent).parts[:-1]      # ("pyshade", "runtime")
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out += [(node.lineno, f"{mod}.{a.name}" if not node.module else mod)
                    for a in node.names]
    return out


@pytest.mark.parametrize("stage", ["runtime", "toolchains"])
def test_downstream_stages_import_nothing_from_emit(stage: str) -> None:
    bad = [f"{p.relative_to(PKG.parent)}:{line} imports {mod}"
           for p in sorted((PKG / stage).glob("*.py")) for line, mod in _imports(p)
           if mod == "pyshade.emit" or mod.startswith("pyshade.emit.")]
    assert not bad, "\n".join(bad)


def test_the_import_scan_sees_relative_imports() -> None:
    """The scan above resolves relative imports (it would pass vacuously if not)."""
    assert "pyshade.targets" in {m for _, m in _imports(PKG / "kernel.py")}
    assert "pyshade.emit.clike" in {m for _, m in _imports(PKG / "emit" / "glsl.py")}
    assert "pyshade.frontend.deep" in {m for _, m in _imports(PKG / "toolchains" / "cpython.py")}


def test_no_emitter_travels_in_the_record() -> None:
    hits = [f"{p.relative_to(PKG.parent)}:{i}" for p in PKG.rglob("*.py")
            for i, line in enumerate(p.read_text().splitlines(), 1)
            if 'extra["emitter"]' in line or "extra.get(\"emitter\")" in line]
    assert not hits, hits
    fields = {f for f in ps.Compiled.__dataclass_fields__}
    assert "extra" not in fields and {"files", "requirements", "layout", "entry"} <= fields


def test_devices_and_toolchains_load_without_emit() -> None:
    """In a fresh process, every device and toolchain module imports without importing a
    single emitter module."""
    mods = [f"pyshade.runtime.{p.stem}" for p in (PKG / "runtime").glob("*.py")] + \
           [f"pyshade.toolchains.{p.stem}" for p in (PKG / "toolchains").glob("*.py")]
    code = ("import importlib, sys\n"
            f"for m in {sorted(mods)!r}:\n"
            "    try:\n"
            "        importlib.import_module(m)\n"
            "    except ImportError as e:\n"
            "        if 'pyshade' in str(e): raise\n"
            "print(sorted(m for m in sys.modules if m.startswith('pyshade.emit')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PKG.parent)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# -- a sixth target: one emitter module, one keyword module, one registry entry ------------

@ps.kernel(workgroup_size=64)
def scale(x: ps.Buffer[f32], y: ps.Buffer[f32], a: f32) -> None:
    i = ps.global_id().x
    if i < len(x):
        pyx_reserved = a * x[i]
        y[i] = pyx_reserved


class PyxDevice(CpuDevice):
    """The cpu device, consuming the "pyx" target's code."""

    name = backend = "pyx-cpu"
    target = "pyx"


@pytest.fixture
def pyx():
    entry = targets.register(targets.Target(
        "pyx", emitter="throwaway_target.emitter:PyxEmitter",
        keywords="throwaway_target.keywords",
        toolchain="pyshade.toolchains.cpython:compile_target", extension="pyx", gpu=False,
        python_semantics=True, prints=True))
    try:
        yield entry
    finally:
        targets.unregister("pyx")


def _fresh() -> ps.Kernel:
    """``scale`` with empty caches: translations are cached per kernel object."""
    return ps.Kernel(scale.__wrapped__)


def test_a_sixth_target_takes_one_registry_entry(pyx, rng) -> None:
    assert "pyx" in targets.TARGETS and targets.get("PYX") is pyx
    text = ps.translate(_fresh(), "pyx")
    # the Python emission, whose header names the target it was made for
    assert "target pyx" in text
    assert text.replace("target pyx", "target python") == ps.translate(_fresh(), "python")
    # Its keyword file is every target's now: the local named like its keyword is renamed
    # in the Python of the new target and in WGSL alike.
    assert not re.search(r"\bpyx_reserved\b", text) and "pyx_reserved_" in text
    assert "pyx_reserved_" in ps.translate(_fresh(), "wgsl")
    c = ps.compile(scale, "pyx")
    assert c.target == "pyx" and c.entry == "scale" and c.binary.co_filename == __file__
    # the whole launch path runs it: binder, packer, the toolchain's code object
    dev = PyxDevice()
    x = rng.standard_normal(100).astype(np.float32)
    y = dev.zeros(100, np.float32)
    scale.launch(dev.array(x), y, 1.5, threads=100, device=dev)
    np.testing.assert_array_equal(y.numpy(), x * np.float32(1.5))


def test_without_the_entry_the_target_is_unknown() -> None:
    assert "pyx" not in targets.TARGETS
    with pytest.raises(ps.PyshadeError, match="unknown target 'pyx'"):
        ps.translate(_fresh(), "pyx")
    assert re.search(r"\bpyx_reserved\b", ps.translate(_fresh(), "wgsl"))
