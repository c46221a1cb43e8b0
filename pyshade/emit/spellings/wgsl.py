"""Builtin spellings of WGSL, where they differ from the ``clike`` family's."""

from __future__ import annotations

from typing import Any

from ...lang import ATOMIC_OPS

SPELLINGS: dict[str, Any] = {
    **{f"atomic_{op}": f"atomic{op.capitalize()}(&{{0}}[{{1}}], {{2}})" for op in ATOMIC_OPS},
    # A generated loop over atomicCompareExchangeWeak (``WgslEmitter.spell_extras``).
    "atomic_compare_exchange": "{cas}",
    "round": "round({0})",
    "select": "select({0}, {1}, {2})",
    "bitcast": "bitcast<{T}>({1})",
    "popcount": "countOneBits({0})",
    "reverse_bits": "reverseBits({0})",
    "count_leading_zeros": "countLeadingZeros({0})",
    "prelude.bits": "bitcast<{T}>({0})",
    "prelude.from_bits": "bitcast<{T}>({0})",
}
"""Builtin name -> WGSL spelling (see ``pyshade.emit.spellings``)."""
