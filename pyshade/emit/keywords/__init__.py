"""Reserved identifiers of every target language pyshade emits.

Each submodule (``wgsl glsl hlsl msl cuda python``) defines

* ``KEYWORDS``: identifiers a user variable, function or struct may not be
  called in that language (keywords, reserved words, built-in type and
  function names, special names);
* ``RESERVED_PREFIXES``: an identifier starting with one of them is reserved;
* ``RESERVED_SUBSTRINGS``: an identifier containing one of them is reserved.

This package merges those of every target in the target registry
(``pyshade.targets``: each entry names its keyword module), so that a name chosen once
is valid in all targets: ``ALL_KEYWORDS``, ``ALL_PREFIXES`` (plus pyshade's own
prefix ``_ps`` for the names it generates), ``ALL_SUBSTRINGS``, and ``TARGETS``
(target name -> module). They are computed from the registry when read, so a target
registered later counts too.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

PYSHADE_PREFIX = "_ps"
"""Prefix of identifiers pyshade generates itself; kept away from user names."""

_merged: dict[tuple, dict[str, Any]] = {}


def _merge(seqs: Any) -> tuple[str, ...]:
    """Concatenate tuples of strings, dropping repeats, keeping first-seen order."""
    return tuple(dict.fromkeys(s for seq in seqs for s in seq))


def merged() -> dict[str, Any]:
    """``TARGETS``, ``ALL_KEYWORDS``, ``ALL_PREFIXES`` and ``ALL_SUBSTRINGS`` of the
    targets registered now (cached per registry state)."""
    from ... import targets
    key = tuple(targets.get(n) for n in targets.TARGETS)
    hit = _merged.get(key)
    if hit is None:
        mods: dict[str, ModuleType] = {t.name: t.keyword_module() for t in key}
        hit = _merged[key] = {
            "TARGETS": mods,
            "ALL_KEYWORDS": frozenset().union(*(m.KEYWORDS for m in mods.values())),
            "ALL_PREFIXES": _merge([*(m.RESERVED_PREFIXES for m in mods.values()),
                                    (PYSHADE_PREFIX,)]),
            "ALL_SUBSTRINGS": _merge(m.RESERVED_SUBSTRINGS for m in mods.values()),
        }
    return hit


def __getattr__(name: str) -> Any:
    # TARGETS: target name -> its keyword module; ALL_KEYWORDS: the union of their
    # KEYWORDS; ALL_PREFIXES: of their RESERVED_PREFIXES plus PYSHADE_PREFIX;
    # ALL_SUBSTRINGS: of their RESERVED_SUBSTRINGS.
    if name in ("TARGETS", "ALL_KEYWORDS", "ALL_PREFIXES", "ALL_SUBSTRINGS"):
        return merged()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ALL_KEYWORDS", "ALL_PREFIXES", "ALL_SUBSTRINGS", "PYSHADE_PREFIX", "TARGETS",
           "merged"]
