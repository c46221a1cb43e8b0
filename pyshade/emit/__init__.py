"""Emitters: one ``ast.NodeVisitor`` per target writes a Program as source text.

Which class emits which target is the target registry's (``pyshade.targets``).
"""

from __future__ import annotations

from .. import targets


def emitter_class(target: str) -> type:
    """The emitter class of ``target`` (from the target registry)."""
    return targets.get(target).emitter_class()
