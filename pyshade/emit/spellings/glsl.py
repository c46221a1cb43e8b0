"""Builtin spellings of GLSL, where they differ from the ``clike`` family's."""

from __future__ import annotations

from typing import Any

from ...lang import ATOMIC_OPS
from .method import Method

SPELLINGS: dict[str, Any] = {
    **{f"atomic_{op}": f"atomic{op.capitalize()}({{0}}[{{1}}], {{2}})" for op in ATOMIC_OPS},
    "atomic_sub": "atomicAdd({0}[{1}], -({2}))",      # GLSL has no atomicSub
    "atomic_compare_exchange": "atomicCompSwap({0}[{1}], {2}, {3})",
    "abs": Method("unsigned_abs"),
    "round": Method("round_call"),
    "math.trunc": Method("trunc_call"),
    "math.atan2": "atan({0}, {1})",
    "select": Method("select_call"),
    "bitcast": Method("bitcast_call"),
    "popcount": "{T}(bitCount({0}))",
    "reverse_bits": "bitfieldReverse({0})",
    "count_leading_zeros": Method("clz_call"),
    "prelude.bits": "floatBitsToInt({0})",
    "prelude.from_bits": "intBitsToFloat({0})",
}
"""Builtin name -> GLSL spelling (see ``pyshade.emit.spellings``)."""
