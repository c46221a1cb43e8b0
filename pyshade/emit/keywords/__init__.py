"""Reserved identifiers of every target language pyshade emits.

Each submodule (``wgsl glsl hlsl msl cuda python``) defines

* ``KEYWORDS``: identifiers a user variable, function or struct may not be
  called in that language (keywords, reserved words, built-in type and
  function names, special names);
* ``RESERVED_PREFIXES``: an identifier starting with one of them is reserved;
* ``RESERVED_SUBSTRINGS``: an identifier containing one of them is reserved.

This package merges them, so that a name chosen once is valid in all targets:
``ALL_KEYWORDS``, ``ALL_PREFIXES`` (plus pyshade's own prefix ``_ps`` for the
names it generates), ``ALL_SUBSTRINGS``, and ``TARGETS`` (target name ->
module).
"""

from __future__ import annotations

from types import ModuleType

from . import cuda, glsl, hlsl, msl, python, wgsl

TARGETS: dict[str, ModuleType] = {
    "wgsl": wgsl,
    "glsl": glsl,
    "hlsl": hlsl,
    "msl": msl,
    "cuda": cuda,
    "python": python,
}
"""Target name -> module defining its ``KEYWORDS``, prefixes and substrings."""

PYSHADE_PREFIX = "_ps"
"""Prefix of identifiers pyshade generates itself; kept away from user names."""

ALL_KEYWORDS: frozenset[str] = frozenset().union(*(m.KEYWORDS for m in TARGETS.values()))
"""Union of every target's ``KEYWORDS``."""


def _merge(seqs) -> tuple[str, ...]:
    """Concatenate tuples of strings, dropping repeats, keeping first-seen order."""
    return tuple(dict.fromkeys(s for seq in seqs for s in seq))


ALL_PREFIXES: tuple[str, ...] = _merge(
    [*(m.RESERVED_PREFIXES for m in TARGETS.values()), (PYSHADE_PREFIX,)])
"""Union of every target's ``RESERVED_PREFIXES`` plus ``PYSHADE_PREFIX``."""

ALL_SUBSTRINGS: tuple[str, ...] = _merge(m.RESERVED_SUBSTRINGS for m in TARGETS.values())
"""Union of every target's ``RESERVED_SUBSTRINGS``."""

__all__ = ["ALL_KEYWORDS", "ALL_PREFIXES", "ALL_SUBSTRINGS", "PYSHADE_PREFIX", "TARGETS",
           "cuda", "glsl", "hlsl", "msl", "python", "wgsl"]
