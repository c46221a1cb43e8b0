"""Builtin spellings of every target: one table per target, next to its emitter.

Each submodule (``clike wgsl glsl hlsl msl cuda python``) defines ``SPELLINGS``, a
dict from a builtin's registry name (``pyshade.lang.BY_NAME``: ``"dot"``,
``"math.sqrt"``, ``"prelude.tdiv"``...) to one of

* a format string over the emitted argument texts (``{0}``, ``{1}``...) and the
  named fields the emitter's ``spell_extras`` adds (``{T}`` is the target's name of
  the result type; ``{ids.global_id}``, ``{len}``...);
* a ``Method``: the emitter method that writes the call, for the few spellings
  that need code;
* ``PRELUDE`` (``pyshade.prelude_math``): a ``math`` function the target lacks, or
  whose accuracy its API leaves to formulas that fail; the frontend calls the math
  prelude's ``ps_<name>`` instead, emitted like a helper;
* ``None``: deliberately not available on that target (``print`` on WGSL: the
  type checker refuses it), or never reaching a spelling (``barrier()`` is a
  statement, ``int(x)`` a cast).

An emitter class names its own table (``Emitter.spellings``) and its families
(``Emitter.families``, here ``clike``: the defaults of every brace language, in
``FAMILIES``). ``Emitter.spelling`` looks in its own table first, then in its
families' tables; the first table that has the name decides, ``None`` included.
``tests/test_spellings.py`` checks that every builtin is in a table of every
target and that every ``Method`` exists on its emitter.
"""

from __future__ import annotations

from typing import Any

from . import clike
from .method import Method

FAMILIES: dict[str, dict[str, Any]] = {"clike": clike.SPELLINGS}
"""Family name (``Emitter.families``) -> its spelling table."""

__all__ = ["FAMILIES", "Method"]
