"""Every WGSL golden file is also validated by Tint: Chromium's WebGPU (DESIGN.md principle 3).

``tests/tint_check.mjs`` checks all files in one headless Chromium session
(WebGPU on SwiftShader, driven by playwright-core): shader module compilation
errors, then a compute pipeline with layout 'auto'. Needs node, a Chromium
binary (``$PYSHADE_CHROMIUM``, else ``chromium`` on PATH; Debian's package
``chromium``) and ``npm install --prefix tests`` (playwright-core, pinned in
``tests/package.json``). Missing pieces skip locally and fail in CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import require

TESTS = Path(__file__).parent
SCRIPT = TESTS / "tint_check.mjs"
WGSL_FILES = sorted((TESTS / "golden" / "wgsl").glob("*.wgsl"))


def _chromium() -> str | None:
    return (os.environ.get("PYSHADE_CHROMIUM") or shutil.which("chromium")
            or shutil.which("chromium-browser"))


@pytest.fixture(scope="module")
def tint_results() -> dict[str, list[str]]:
    node = shutil.which("node")
    require(node is not None, "node is not installed: Tint (Chromium) cannot validate WGSL")
    chromium = _chromium()
    require(chromium is not None,
            "chromium is not installed (apt-get install chromium): Tint cannot validate WGSL")
    found = subprocess.run([node, "-e", "require.resolve('playwright-core')"], cwd=TESTS,
                           capture_output=True, text=True)
    require(found.returncode == 0,
            "playwright-core is not installed: run `npm install --prefix tests`")
    env = dict(os.environ, PYSHADE_CHROMIUM=chromium)
    proc = subprocess.run([node, str(SCRIPT), *map(str, WGSL_FILES)], cwd=TESTS, env=env,
                          capture_output=True, text=True, timeout=300)
    require(proc.returncode != 3, f"no WebGPU in headless Chromium: {proc.stderr.strip()}")
    assert proc.returncode == 0, f"tint_check.mjs failed ({proc.returncode}):\n{proc.stderr}"
    return json.loads(proc.stdout)


def test_golden_wgsl_files_exist() -> None:
    assert WGSL_FILES, "no tests/golden/wgsl/*.wgsl"


@pytest.mark.parametrize("path", WGSL_FILES, ids=[p.stem for p in WGSL_FILES])
def test_tint_accepts(path: Path, tint_results: dict[str, list[str]]) -> None:
    assert str(path) in tint_results, f"tint_check.mjs reported nothing for {path.name}"
    errors = tint_results[str(path)]
    if errors:
        lines = path.read_text().splitlines()
        shown = []
        for e in errors:
            head = e.split(":", 1)[0]
            n = int(head) if head.isdigit() else 0
            shown.append(e + (f"\n    {lines[n - 1].strip()}" if 0 < n <= len(lines) else ""))
        pytest.fail(f"Tint rejects {path.name}:\n" + "\n".join(shown))
