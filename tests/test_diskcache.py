"""The persistent compile cache (``pyshade.diskcache``): warm starts skip the toolchain,
corrupted entries are rebuilt, several processes at once are safe, and an entry is used
only while what the kernel depended on is unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyshade as ps
from pyshade import diskcache

KERNELS = '''\
import numpy as np
import pyshade as ps
from pyshade import u32

GAIN = 3


def bump(v: u32) -> u32:
    return v + 1


@ps.kernel
def gain(x: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        x[i] = bump(x[i]) * GAIN
'''

# Runs in a fresh process: the first launch of ``gain`` on DEVICE, counting the calls
# of every toolchain, then prints JSON of the counts, the cache stats and the result.
DRIVER = '''\
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import pyshade as ps
from pyshade import diskcache, toolchains

calls = []
real = toolchains.compile_source
def counting(compiled, validate=True):
    calls.append(compiled.target)
    return real(compiled, validate)
toolchains.compile_source = counting

import cached_kernels as m
if len(sys.argv) > 3:
    m.GAIN = int(sys.argv[3])
dev = ps.device(sys.argv[2])
x = dev.array(np.ones(8, np.uint32))
t0 = time.perf_counter()
m.gain.launch(x, threads=8, device=dev)
dev.synchronize()
dt = time.perf_counter() - t0
print(json.dumps({"calls": calls, "stats": diskcache.stats, "result": np.asarray(x).tolist(),
                  "seconds": dt}))
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cached_kernels.py").write_text(KERNELS)
    (tmp_path / "driver.py").write_text(DRIVER)
    return tmp_path


def _run(project: Path, device: str, *extra: str, cache: str = "1") -> dict:
    env = dict(os.environ, PYSHADE_CACHE=cache, PYSHADE_CACHE_DIR=str(project / "cache"))
    p = subprocess.run([sys.executable, str(project / "driver.py"), str(project), device,
                        *extra], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _device_params() -> list:
    return ["cpu", "vulkan"]


@pytest.mark.parametrize("device", _device_params())
def test_a_warm_start_calls_no_toolchain(project: Path, device: str) -> None:
    if device == "vulkan":
        from conftest import get_device
        get_device("vulkan")
    cold = _run(project, device)
    assert cold["calls"] and cold["stats"]["stores"] == 1 and cold["stats"]["hits"] == 0
    assert cold["result"] == [6] * 8
    warm = _run(project, device)
    assert warm["calls"] == [] and warm["stats"]["hits"] == 1
    assert warm["result"] == [6] * 8


def test_a_changed_global_or_helper_file_is_not_served_from_the_cache(project: Path) -> None:
    _run(project, "cpu")
    changed = _run(project, "cpu", "5")               # GAIN = 5 in the new process
    assert changed["calls"] == ["python"] and changed["result"] == [10] * 8
    # the helper's file edited: a new translation, not the old entry
    text = (project / "cached_kernels.py").read_text()
    (project / "cached_kernels.py").write_text(text.replace("return v + 1", "return v + 2"))
    edited = _run(project, "cpu")
    assert edited["calls"] == ["python"] and edited["result"] == [9] * 8
    assert _run(project, "cpu")["calls"] == []          # and that is cached in turn


def test_the_cache_is_off_with_pyshade_cache_0(project: Path) -> None:
    _run(project, "cpu", cache="0")
    assert not (project / "cache").exists()
    assert _run(project, "cpu", cache="0")["calls"] == ["python"]


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_a_corrupted_entry_is_detected_and_rebuilt(project: Path, damage: str) -> None:
    _run(project, "cpu")
    [entry] = (project / "cache").rglob("*.bin")
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[:len(data) // 2])
    elif damage == "flip":
        entry.write_bytes(data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:])
    else:
        entry.write_bytes(b"not a cache entry")
    again = _run(project, "cpu")
    assert again["stats"]["corrupt"] == 1 and again["calls"] == ["python"]
    assert again["result"] == [6] * 8
    assert _run(project, "cpu")["calls"] == []           # rebuilt


def test_several_processes_at_once(project: Path) -> None:
    env = dict(os.environ, PYSHADE_CACHE="1", PYSHADE_CACHE_DIR=str(project / "cache"))
    procs = [subprocess.Popen([sys.executable, str(project / "driver.py"), str(project),
                               "cpu"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert all(json.loads(o.splitlines()[-1])["result"] == [6] * 8 for o, _ in outs)
    entries = list((project / "cache").rglob("*.bin"))
    leftovers = list((project / "cache").rglob(".tmp-*"))
    assert len(entries) == 1 and not leftovers
    assert _run(project, "cpu")["calls"] == []


def test_cache_dir_defaults(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PYSHADE_CACHE_DIR", raising=False)
    monkeypatch.setenv("PYSHADE_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert str(diskcache.cache_dir()) == str(tmp_path / "pyshade")
    monkeypatch.setenv("PYSHADE_CACHE_DIR", str(tmp_path / "here"))
    assert str(diskcache.cache_dir()) == str(tmp_path / "here")
    monkeypatch.setenv("PYSHADE_CACHE", "0")
    assert diskcache.cache_dir() is None


def test_a_closure_value_makes_a_kernel_uncacheable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PYSHADE_CACHE", "1")
    monkeypatch.setenv("PYSHADE_CACHE_DIR", str(tmp_path))
    step = 4

    @ps.kernel
    def add_step(x: ps.Buffer[ps.u32]) -> None:
        if ps.global_id().x == 0:
            x[0] = x[0] + step
    before = dict(diskcache.stats)
    cpu = ps.device("cpu")
    x = cpu.zeros(1, np.uint32)
    add_step.launch(x, threads=1, device=cpu)
    assert np.asarray(x)[0] == 4
    assert diskcache.stats["uncacheable"] == before["uncacheable"] + 1
    assert not list(tmp_path.rglob("*.bin"))


def test_an_edited_pyshade_module_changes_the_key() -> None:
    """A developer's edit to an emitter must not be answered with an entry the old emitter
    translated: pyshade's own modules (size, mtime) are part of every key."""
    from pyshade import diskcache
    from pyshade.emit import wgsl
    before = diskcache._pyshade_fp()
    st = os.stat(wgsl.__file__)
    try:
        os.utime(wgsl.__file__, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        diskcache._SELF.clear()
        assert diskcache._pyshade_fp() != before
    finally:
        os.utime(wgsl.__file__, ns=(st.st_atime_ns, st.st_mtime_ns))
        diskcache._SELF.clear()
    assert diskcache._pyshade_fp() == before
