"""Builtin spellings of MSL, where they differ from the ``clike`` family's.

The MSL emitter reuses the CUDA emitter's code but not its table: only this one and
the ``clike`` family's.
"""

from __future__ import annotations

from typing import Any

from ...lang import ATOMIC_OPS
from .cuda import FORMULAS
from .method import Method

SPELLINGS: dict[str, Any] = {
    # atomic_fetch_*_explicit; compare-exchange through a generated loop.
    **{f"atomic_{op}": Method("atomic_call") for op in (*ATOMIC_OPS, "compare_exchange")},
    "abs": Method("unsigned_abs"),
    "round": "rint({0})",
    **{name: Method("formula_call") for name in FORMULAS},
    "select": "select({0}, {1}, {2})",
    "bitcast": "as_type<{T}>({1})",
    "popcount": "popcount({0})",
    "reverse_bits": "reverse_bits({0})",
    "count_leading_zeros": "clz({0})",
    "prelude.bits": "as_type<{T}>({0})",
}
"""Builtin name -> MSL spelling (see ``pyshade.emit.spellings``)."""
