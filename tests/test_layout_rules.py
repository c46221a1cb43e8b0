"""Rules about the package's source layout that no linter checks."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pyshade"
MAX_LINES = 600


def line_counts() -> dict[str, int]:
    """{path relative to the repository: its number of lines} of every ``.py`` file under
    ``pyshade/`` (the generated ``.pyi`` stubs are not modules and are not counted)."""
    return {str(p.relative_to(PACKAGE.parent)): len(p.read_text(encoding="utf-8").splitlines())
            for p in sorted(PACKAGE.rglob("*.py"))}


def test_the_package_is_found() -> None:
    counts = line_counts()
    assert "pyshade/__init__.py" in counts and len(counts) > 10, sorted(counts)


def test_no_module_passes_600_lines() -> None:
    """A module past 600 lines is split (issue 14): every offender is named with its count."""
    too_long = {path: n for path, n in line_counts().items() if n > MAX_LINES}
    assert not too_long, (f"{len(too_long)} module(s) under pyshade/ past {MAX_LINES} lines: "
                          + ", ".join(f"{path} ({n} lines)" for path, n in too_long.items()))
