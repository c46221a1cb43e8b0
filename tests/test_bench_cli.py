"""``pyshade bench``: the quick run on cpu, wgpu and vulkan (lavapipe), its JSON, markdown
and plot, ``--from``, the translate limit, and baselines free of pyshade code."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys

import pytest
from conftest import IN_CI, get_device

from pyshade import benchmarks
from pyshade.benchmarks import report, translate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINES = ("wgpu_direct", "vulkan_direct", "cuda_direct")
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def bench(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "pyshade", "bench", *args], capture_output=True,
                       text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict, subprocess.CompletedProcess]:
    """One quick run of every family; cuda is asked for too, to be skipped (no GPU here)."""
    get_device("wgpu")              # skip locally / fail in CI without a Vulkan driver
    get_device("vulkan")
    out = str(tmp_path_factory.mktemp("bench"))
    p = bench("--quick", "--device", "cpu", "wgpu", "vulkan", "cuda", "--out", out)
    with open(os.path.join(out, "bench.json")) as f:
        return out, json.load(f), p


def test_json_records_where_and_how(quick: tuple) -> None:
    _, rep, _ = quick
    assert rep["command"].startswith("pyshade bench --quick")
    for key in ("date", "machine", "versions", "devices", "settings", "results", "skipped"):
        assert key in rep, key
    assert rep["failed"] == []
    assert {"pyshade", "python", "numpy", "wgpu", "vulkan"} <= set(rep["versions"])
    assert {"cpu", "wgpu", "vulkan"} <= set(rep["devices"])


def test_every_family_measured_on_the_devices_here(quick: tuple) -> None:
    _, rep, _ = quick
    seen = {(r["family"], r["device"]) for r in rep["results"]}
    want = {("translate", "-")} | {(f, d) for f in ("launch", "kernels") for d in ("wgpu", "vulkan")} \
        | {(f, d) for f in ("algorithms", "coldstart") for d in ("cpu", "wgpu", "vulkan")}
    assert want <= seen, want - seen
    for r in rep["results"]:
        assert r["pyshade"] > 0 and (r["baseline"] is None or r["baseline"] > 0), r
        if r["family"] == "kernels":       # a size, and keys/s for the plot
            assert r["n"] == 4096 and r["keys_per_s"] > 0 and r["baseline_keys_per_s"] > 0


def test_absent_devices_are_listed_as_skipped_with_the_reason(quick: tuple) -> None:
    _, rep, _ = quick
    skipped = {(s["family"], s["device"]): s["reason"] for s in rep["skipped"]}
    assert "no raw binding" in skipped[("launch", "cpu")]
    if "cuda" not in rep["devices"]:        # no CuPy/GPU here: each family says why
        for fam in ("launch", "kernels", "algorithms", "coldstart"):
            assert skipped[(fam, "cuda")], fam
    md = open(os.path.join(quick[0], "bench.md")).read()
    assert "- skipped: launch on cpu: no raw binding" in md


def test_markdown_has_a_row_per_measurement_and_is_printed_last(quick: tuple) -> None:
    out, rep, p = quick
    md = open(os.path.join(out, "bench.md")).read()
    rows = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(rep["results"])
    for line, r in zip(rows, rep["results"]):
        assert line.startswith(f"| {r['family']} | {r['device']} | {r['name']} |")
    assert p.stdout.endswith(md)


@pytest.mark.skipif(not HAVE_MATPLOTLIB and not IN_CI, reason="matplotlib not installed")
def test_png_written(quick: tuple) -> None:
    png = os.path.join(quick[0], "bench.png")
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_from_re_renders_the_same_table(quick: tuple, tmp_path: str) -> None:
    out, _, _ = quick
    p = bench("--from", os.path.join(out, "bench.json"), "--out", str(tmp_path))
    again = open(os.path.join(tmp_path, "bench.md")).read()
    assert again == open(os.path.join(out, "bench.md")).read()
    assert p.stdout.endswith(again)
    assert not os.path.exists(os.path.join(tmp_path, "bench.json"))
    assert os.path.exists(os.path.join(tmp_path, "bench.png")) == HAVE_MATPLOTLIB


def test_translate_row_records_the_limit(quick: tuple) -> None:
    _, rep, _ = quick
    (row,) = [r for r in rep["results"] if r["family"] == "translate"]
    assert row["baseline"] == translate.LIMIT_MS == 50
    assert row["processes"] == translate.PROCESSES == len(row["all_ms"])
    assert set(row["per_target_ms"]) == {"wgsl", "glsl", "hlsl", "msl", "cuda"}
    assert row["within_limit"] == (row["pyshade"] < 50)


def pyshade_imports(source: str) -> list[str]:
    """The imports in ``source`` that reach pyshade: ``pyshade...`` or a relative one."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] == "pyshade"]
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] == "pyshade":
                bad.append("." * node.level + (node.module or ""))
    return bad


def test_the_import_check_finds_pyshade_imports() -> None:
    assert pyshade_imports("import pyshade as ps\nfrom pyshade.lang import x\n"
                           "def f():\n    from . import common\n    import pyshade.types\n") \
        == ["pyshade", "pyshade.lang", ".", "pyshade.types"]
    assert pyshade_imports("import numpy as np\nimport wgpu\n") == []


@pytest.mark.parametrize("name", BASELINES)
def test_baselines_import_nothing_from_pyshade(name: str) -> None:
    path = os.path.join(os.path.dirname(benchmarks.__file__), name + ".py")
    with open(path) as f:
        assert pyshade_imports(f.read()) == []


def test_load_json_refuses_other_files(tmp_path: str) -> None:
    p = os.path.join(tmp_path, "x.json")
    with open(p, "w") as f:
        f.write('{"a": 1}')
    with pytest.raises(SystemExit, match="not a pyshade bench report"):
        report.load_json(p)
