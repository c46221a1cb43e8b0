"""Driver-specific behaviour: one device per WebGPU adapter, the drivers CI
must see, and known driver limits (Mesa 22.3 llvmpipe's 65535-iteration loops)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import VK_DRIVERS, WANTED_DRIVERS, GpuParam, get_device, gpu_device

import pyshade as ps
from pyshade import u32
from pyshade.cli import main as cli_main

LOOP_LIMIT_REASON = ("Mesa 22.3's llvmpipe (lavapipe) ends every shader loop after 65535 "
                     "iterations")


@ps.kernel(workgroup_size=1)
def count_and_hash(out: ps.Buffer[u32], limit: u32):
    """Loop ``limit`` times; store the count and an LCG hash that no compiler can fold."""
    c = u32(0)
    h = u32(1)
    while c < limit:
        h = h * 1664525 + 1013904223
        c += 1
    out[0] = c
    out[1] = h


def _lcg(n: int) -> int:
    h = 1
    for _ in range(n):
        h = (h * 1664525 + 1013904223) & 0xFFFFFFFF
    return h


@pytest.mark.parametrize("limit", [65535, 100_000])
def test_loop_beyond_65535_iterations(dev: ps.Device, request: pytest.FixtureRequest,
                                      limit: int) -> None:
    if limit > 65535 and "llvmpipe" in dev.adapter:
        # strict: once Mesa is fixed this XPASSes and the marker must go.
        request.applymarker(pytest.mark.xfail(reason=LOOP_LIMIT_REASON, strict=True))
    out = dev.zeros(2, np.uint32)
    count_and_hash.launch(out, limit, groups=1, device=dev)
    assert out.numpy().tolist() == [limit, _lcg(limit)]


@pytest.mark.parametrize("driver", WANTED_DRIVERS or ["(none asked)"])
def test_asked_drivers_are_present(driver: str) -> None:
    """In CI both CPU Vulkan drivers must be seen by wgpu (a missing one fails)."""
    if driver not in VK_DRIVERS:
        pytest.skip("no driver asked for: set PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader")
    d = gpu_device(GpuParam(f"wgpu-{driver}", driver=driver))
    assert VK_DRIVERS[driver][1] in d.adapter.lower() and d.adapter.endswith(" / Vulkan")


def test_fixture_ids_name_the_adapter(wgpu_dev: ps.Device, request: pytest.FixtureRequest) -> None:
    ident = request.node.callspec.id
    if ident == "wgpu":
        return                      # no adapter was found to name (the test skipped before)
    slug = ident.removeprefix("wgpu-")
    if slug in ("llvmpipe", "swiftshader"):
        assert slug in wgpu_dev.adapter.lower()


def test_devices_one_row_per_adapter() -> None:
    get_device("wgpu")
    from pyshade.runtime.wgpu import adapter_label, list_adapters
    labels = [adapter_label(a) for a in list_adapters()]
    rows = [d for d in ps.devices() if d.backend == "wgpu"]
    assert [r.name for r in rows] == ["wgpu"] + [f"wgpu:{i}" for i in range(1, len(labels))]
    assert [r.adapter for r in rows if r.available] == \
        [lab for lab, r in zip(labels, rows) if r.available]
    for r in rows:
        if r.available:
            d = ps.device(r.name)
            assert d.name == r.name and d.backend == "wgpu" and d.note == r.note
            assert ("65535" in r.note) == ("llvmpipe" in r.adapter)
    assert ps.device("wgpu:0") is ps.device("wgpu")


def test_device_names_with_an_index() -> None:
    assert ps.device("cpu:0") is ps.device("cpu")
    with pytest.raises(ps.BackendUnavailable, match="the cpu backend has one"):
        ps.device("cpu:1")
    with pytest.raises(ps.BackendUnavailable, match="unknown device 'wgpu:x'"):
        ps.device("wgpu:x")
    get_device("wgpu")
    with pytest.raises(ps.BackendUnavailable, match="there is no WebGPU adapter 99: found wgpu:0"):
        ps.device("wgpu:99")


def test_cli_devices_prints_the_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["devices"]) == 0
    out = capsys.readouterr().out
    notes = [d.note for d in ps.devices() if d.note]
    for note in notes:
        assert f"note: {note}" in out
    if any("llvmpipe" in d.adapter for d in ps.devices()):
        assert "65535" in out
