"""Builtin spellings of HLSL, where they differ from the ``clike`` family's."""

from __future__ import annotations

from typing import Any

from ...lang import ATOMIC_OPS
from .method import Method

SPELLINGS: dict[str, Any] = {
    # Interlocked* are statements: a generated function per (op, buffer) returns the old value.
    **{f"atomic_{op}": Method("atomic_call") for op in (*ATOMIC_OPS, "compare_exchange")},
    "abs": Method("unsigned_abs"),
    "round": Method("round_call"),
    "mix": "lerp({0}, {1}, {2})",
    "fma": Method("fma_call"),
    "select": Method("select_call"),
    "bitcast": Method("bitcast_call"),
    "popcount": Method("bit_call", "popcount"),
    "reverse_bits": Method("bit_call", "reverse"),
    "count_leading_zeros": Method("bit_call", "clz"),
    "prelude.bits": "asint({0})",
    "prelude.from_bits": "asfloat({0})",
    "prelude.convert": Method("convert_call"),
}
"""Builtin name -> HLSL spelling (see ``pyshade.emit.spellings``)."""
