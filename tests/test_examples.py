"""Run each script in examples/ as a user would, on the cpu device and on wgpu.

Sizes stay small: the cpu device interprets every invocation in Python.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import get_device

ROOT = Path(__file__).resolve().parent.parent

# (script, small-size arguments)
EXAMPLES = {
    "bitonic_sort": ["--n", "1000", "--dtype", "f32", "--descending"],
    "saxpy": ["--n", "1000"],
    "mandelbrot": ["--n", "40", "--height", "24", "--max-iter", "32"],
    "particles": ["--n", "300", "--steps", "5"],
}


def run_example(name: str, device: str, *args: str) -> str:
    """Run examples/<name>.py on ``device``; assert success and the "ok" line."""
    get_device(device)  # skip locally, fail in CI, when the device is missing
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / f"{name}.py"),
                           "--device", device, *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{out}\n{proc.stderr}"
    lines = out.splitlines()
    assert "ok" in lines, out
    assert f"device={device}" in out, out
    return out


@pytest.mark.parametrize("device", ["cpu", "wgpu"])
def test_saxpy(device: str) -> None:
    run_example("saxpy", device, *EXAMPLES["saxpy"])


@pytest.mark.parametrize("device", ["cpu", "wgpu"])
def test_mandelbrot(device: str, tmp_path: Path) -> None:
    png = tmp_path / "m.png"
    out = run_example("mandelbrot", device, *EXAMPLES["mandelbrot"], "--out", str(png))
    if device == "cpu":
        assert "0 of 960 pixels differ" in out, out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (40, 24)
    assert data.endswith(b"IEND\xaeB`\x82")


@pytest.mark.parametrize("device", ["cpu", "wgpu"])
def test_particles(device: str) -> None:
    out = run_example("particles", device, *EXAMPLES["particles"])
    assert "age=5" in out, out


@pytest.mark.parametrize("device", ["cpu", "wgpu"])
def test_bitonic_sort(device: str) -> None:
    out = run_example("bitonic_sort", device, *EXAMPLES["bitonic_sort"])
    assert "n=1000  dtype=f32  order=descending" in out, out
