"""The interactive loop (issue 15): device arrays on the host, notebook views, the API's
keyword forms, and a quiet wgpu on a headless machine."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import get_device

import pyshade as ps
from pyshade import f32


@ps.kernel(64)
def twice(x: ps.Buffer[f32], y: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        y[i] = x[i] * 2.0


def test_kernel_takes_its_workgroup_size_positionally() -> None:
    assert twice.workgroup_size == (64, 1, 1)
    assert ps.kernel((8, 8))(twice.__wrapped__).workgroup_size == (8, 8, 1)
    with pytest.raises(TypeError, match=r"@ps.kernel\(64\)"):
        ps.kernel("64")


def test_target_by_keyword_and_in_any_case() -> None:
    glsl = ps.translate(twice, "glsl")
    assert ps.translate(twice, target="glsl") == glsl == ps.translate(twice, "GLSL")
    assert twice.source(target="glsl") == glsl
    assert ps.compile(twice, target="python").target == "python"
    with pytest.raises(ps.PyshadeError, match="unknown target 'spir'"):
        ps.translate(twice, target="spir")


@pytest.mark.parametrize("name", ["cpu", "wgpu"])
def test_device_arrays_behave_like_arrays_on_the_host(name: str, rng) -> None:
    dev = get_device(name)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    a = dev.array(x)
    got = np.asarray(a)
    assert got.dtype == np.float32 and got.shape == (4, 3)
    np.testing.assert_array_equal(got, x)
    np.testing.assert_array_equal(np.asarray(a, dtype=np.float64), x.astype(np.float64))
    assert (a.size, a.nbytes, a.ndim, len(a)) == (12, 48, 2, 4)
    r = repr(a)
    assert r.startswith("DeviceArray([[") and r.endswith(f"dtype=float32, shape=(4, 3), "
                                                         f"device={dev.name!r})")
    assert np.array2string(x, separator=", ", prefix="DeviceArray(") in r
    big = repr(dev.zeros(10_000, np.uint32))
    assert "..." in big and len(big) < 200
    assert "<table>" in a._repr_html_() and "float32" in a._repr_html_()


def test_devices_print_as_a_table() -> None:
    rows = ps.devices()
    assert isinstance(rows, list) and all(isinstance(r, ps.DeviceInfo) for r in rows)
    text = str(rows)
    assert text.splitlines()[0].split() == ["device", "available", "adapter", "/", "reason",
                                            "via", "note"]
    assert any(line.startswith("cpu ") and " yes " in line for line in text.splitlines())
    assert rows._repr_html_().count("<tr>") == len(rows) + 1


def test_kernel_in_a_notebook_shows_every_target() -> None:
    h = twice._repr_html_()
    assert "twice(x: Buffer[f32], y: Buffer[f32]) -&gt; None" in h
    for t in ps.targets.TARGETS:
        assert f"<summary>{t}</summary>" in h
    # a target that cannot be produced says why instead of failing the view
    @ps.kernel
    def uses_f64(x: ps.Buffer[ps.f64]) -> None:
        x[0] = x[0]
    h = uses_f64._repr_html_()
    assert "<summary>wgsl</summary><pre>" in h and "f64" in h.split("<summary>wgsl")[1]


def test_wgpu_prints_nothing_on_a_headless_machine() -> None:
    get_device("wgpu")
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "WAYLAND_SOCKET")}
    code = ("import pyshade as ps, numpy as np\n"
            "d = ps.device('wgpu'); a = d.array(np.ones(4, np.float32))\n"
            "print(np.asarray(a).sum(), [r.name for r in ps.devices()][:2])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       check=True)
    assert "XDG_RUNTIME_DIR" not in p.stderr, p.stderr
    assert p.stdout.startswith("4.0 ['cpu', 'wgpu']")
