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


# -- the kernel you edited is the kernel that runs -----------------------------------------

MODULE = '''\
import pyshade as ps
from pyshade import u32

SCALE = 2


def bump(v: u32) -> u32:
    return v + 1


@ps.kernel
def scale(x: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        x[i] = bump(x[i]) * SCALE


@ps.kernel
def ten(x: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        x[i] = x[i] * 10
'''


def _import(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_module_edited_on_disk_still_runs_what_it_defined(tmp_path) -> None:
    """Six lines added at the top of the file, no reload: each kernel still runs its own
    body (pyshade once read the edited file at the old line and ran another function)."""
    path = tmp_path / "edited_kernels.py"
    path.write_text(MODULE)
    mod = _import(path)
    path.write_text("# six new lines\n" * 6 + MODULE.replace("* 10", "* 99"))
    os.utime(path, (1, 1))          # a different mtime for linecache, whatever the clock
    cpu = ps.device("cpu")
    for k, want in ((mod.ten, 10), (mod.scale, 4)):
        x = cpu.array(np.ones(3, np.uint32))
        k.launch(x, threads=3, device=cpu)
        assert np.asarray(x).tolist() == [want] * 3, k
    assert "* 10" in ps.translate(mod.ten, "python") and "99" not in ps.translate(mod.ten, "wgsl")


def test_a_helper_whose_source_moved_says_to_reload(tmp_path) -> None:
    """A plain helper of another module is read when first translated: if its file changed
    so that its line holds another function, that is an error saying to reload."""
    helpers = tmp_path / "moved_helpers.py"
    helpers.write_text("from pyshade import u32\n\n\ndef inc(v: u32) -> u32:\n    return v + 1\n")
    hmod = _import(helpers)
    helpers.write_text("from pyshade import u32\n\n\ndef other(v: u32) -> u32:\n    return v\n")
    os.utime(helpers, (1, 1))
    import linecache
    linecache.checkcache(str(helpers))

    def uses(x: ps.Buffer[ps.u32]) -> None:
        x[0] = hmod.inc(x[0])
    k = ps.kernel(uses)
    with pytest.raises(ps.TranslationError, match="the source of inc has changed since it "
                                                  "was defined: line 4 .* now holds 'other'.*"
                                                  "reload its module"):
        ps.translate(k, "wgsl")


# -- module-level names and closure values are taken at launch, on every device -----------

FACTOR = 2


@ps.kernel
def by_factor(x: ps.Buffer[ps.u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        x[i] = x[i] * FACTOR


@pytest.mark.parametrize("name", ["cpu", "wgpu"])
def test_a_changed_global_is_used_by_the_next_launch(name: str) -> None:
    global FACTOR
    dev = get_device(name)
    try:
        for factor in (2, 10, 10, 3):
            FACTOR = factor
            x = dev.array(np.ones(4, np.uint32))
            by_factor.launch(x, threads=4, device=dev)
            assert np.asarray(x).tolist() == [factor] * 4
            assert f"* {factor}u" in ps.translate(by_factor, "wgsl") or \
                f"{factor}u" in ps.translate(by_factor, "wgsl")
    finally:
        FACTOR = 2


def test_the_same_kernel_gives_the_same_result_on_cpu_and_wgpu_after_a_change() -> None:
    global FACTOR
    cpu, gpu = get_device("cpu"), get_device("wgpu")
    try:
        out = {}
        for dev in (cpu, gpu):
            x = dev.array(np.ones(4, np.uint32))
            by_factor.launch(x, threads=4, device=dev)
        FACTOR = 7
        for dev in (cpu, gpu):
            x = dev.array(np.ones(4, np.uint32))
            by_factor.launch(x, threads=4, device=dev)
            out[dev.name] = np.asarray(x).tolist()
        assert out == {"cpu": [7] * 4, "wgpu": [7] * 4}
    finally:
        FACTOR = 2


def test_a_changed_closure_value_is_used_by_the_next_launch() -> None:
    def make():
        k = 3

        @ps.kernel
        def add_k(x: ps.Buffer[ps.u32]) -> None:
            i = ps.global_id().x
            if i < len(x):
                x[i] = x[i] + k

        def set_k(v: int) -> None:
            nonlocal k
            k = v
        return add_k, set_k
    add_k, set_k = make()
    cpu = ps.device("cpu")
    for v in (3, 5):
        set_k(v)
        x = cpu.array(np.zeros(2, np.uint32))
        add_k.launch(x, threads=2, device=cpu)
        assert np.asarray(x).tolist() == [v, v]


def test_an_unchanged_value_of_a_new_object_does_not_translate_again() -> None:
    global FACTOR
    cpu = ps.device("cpu")
    by_factor.launch(cpu.zeros(1, np.uint32), threads=1, device=cpu)
    gen = by_factor.generation
    FACTOR = int("2")            # equal value: no new translation
    by_factor.launch(cpu.zeros(1, np.uint32), threads=1, device=cpu)
    assert by_factor.generation == gen and not by_factor.refresh()


# -- the cpu device is thread-safe ----------------------------------------------------------

@ps.kernel
def count(c: ps.Buffer[ps.u32]) -> None:
    ps.atomic_add(c, 0, ps.u32(1))


def test_concurrent_launches_on_the_cpu_device_lose_no_write() -> None:
    """8 threads each launching 20 counting kernels of 256 invocations on one shared
    counter: 40,960, as in any serial order (two launches at once lost each other's
    writes: 166,000-181,000 of 400,000 before)."""
    import threading
    cpu = ps.device("cpu")
    counter = cpu.zeros(1, np.uint32)
    count.launch(counter, threads=1, device=cpu)          # translate once, outside
    counter.write(np.zeros(1, np.uint32))
    errors = []

    def work() -> None:
        try:
            for _ in range(20):
                count.launch(counter, threads=256, device=cpu)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and int(np.asarray(counter)[0]) == 8 * 20 * 256


# -- an uncaught error shows the user's call and the kernel, not pyshade's frames ----------

@ps.kernel
def reads_past_the_end(x: ps.Buffer[ps.u32], y: ps.Buffer[ps.u32]) -> None:
    # y, not x: x[i] = x[i + 1] would be a data race (invocation i + 1 writes what i reads)
    i = ps.global_id().x
    y[i] = x[i + 1]


def _frames(exc: BaseException) -> list[str]:
    import traceback
    return [f"{os.path.basename(f.filename)}:{f.name}" for f in traceback.extract_tb(exc.__traceback__)]


def test_launch_errors_carry_no_internal_frames() -> None:
    cpu = ps.device("cpu")
    with pytest.raises(ps.LaunchError) as info:
        twice.launch(cpu.zeros(4, np.float32), threads=4, device=cpu)      # y missing
    frames = _frames(info.value)
    assert frames[0].startswith("test_interactive.py:") and frames[1:] == ["kernel.py:launch"]


def test_a_kernel_error_on_the_cpu_shows_the_kernel_line() -> None:
    cpu = ps.device("cpu")
    with pytest.raises(IndexError) as info:
        reads_past_the_end.launch(cpu.zeros(4, np.uint32), cpu.zeros(4, np.uint32), threads=4,
                                  device=cpu)
    frames = _frames(info.value)
    pyshade_frames = [f for f in frames if not f.startswith("test_interactive.py")]
    assert pyshade_frames == ["kernel.py:launch"], frames
    assert frames[-1] == "test_interactive.py:reads_past_the_end"
    assert "global_id=(3, 0, 0)" in str(info.value.__notes__)


def test_translation_errors_carry_no_internal_frames() -> None:
    @ps.kernel
    def bad(x: ps.Buffer[ps.u32]) -> None:
        x[0] = undefined_name  # noqa: F821
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(bad, "glsl")
    assert _frames(info.value)[1:] == ["__init__.py:translate"]
    with pytest.raises(ps.TranslationError) as info:
        bad.source("wgsl")
    assert _frames(info.value)[1:] == ["kernel.py:source"]


def test_a_kernel_without_source_is_an_error_at_decoration() -> None:
    code = ("import pyshade as ps\n"
            "try:\n"
            "    @ps.kernel\n"
            "    def k(x: ps.Buffer[ps.u32]) -> None:\n"
            "        x[0] = 1\n"
            "except ps.TranslationError as e:\n"
            "    print('ERROR', e)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert p.stdout.startswith("ERROR cannot get the source of k (defined in <string>): "
                               "define it in a file, a notebook cell or an IPython session")


def test_demo_sizes_apply_to_gpu_devices_only() -> None:
    p = subprocess.run([sys.executable, "-m", "pyshade", "demo", "--device", "cpu", "--n",
                        str(1 << 24), "--cpu-n", "256"], capture_output=True, text=True,
                       check=True, timeout=120)
    rows = [line.split() for line in p.stdout.splitlines() if line.startswith("cpu ")]
    assert rows and all("256" in r and "ok" in r for r in rows), p.stdout
