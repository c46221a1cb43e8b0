"""Builtin spellings of MSL, where they differ from the ``clike`` family's.

The MSL emitter reuses the CUDA emitter's code but not its table: only this one and
the ``clike`` family's.
"""

from __future__ import annotations

from typing import Any

from ...lang import ATOMIC_OPS
from ...prelude_math import PRELUDE
from .clike import HYPERBOLIC
from .cuda import FORMULAS
from .method import Method

SPELLINGS: dict[str, Any] = {
    # atomic_fetch_*_explicit; compare-exchange through a generated loop.
    **{f"atomic_{op}": Method("atomic_call") for op in (*ATOMIC_OPS, "compare_exchange")},
    "abs": Method("unsigned_abs"),
    # Metal has the hyperbolics, log10 and copysign; no degrees/radians (the prelude
    # multiplies), and its fmod is documented as x - y * trunc(x / y): the prelude's is
    # C's, exact.
    **{f"math.{name}": f"{name}({{0}})" for name in (*HYPERBOLIC, "log10")},
    "math.copysign": "copysign({0}, {1})",
    "math.pow": "pow({0}, {1})",
    "math.degrees": PRELUDE,
    "math.radians": PRELUDE,
    "round": "rint({0})",
    **{name: Method("formula_call") for name in FORMULAS},
    "select": "select({0}, {1}, {2})",
    "bitcast": "as_type<{T}>({1})",
    "popcount": "popcount({0})",
    "reverse_bits": "reverse_bits({0})",
    "count_leading_zeros": "clz({0})",
    "prelude.bits": "as_type<{T}>({0})",
    "prelude.from_bits": "as_type<{T}>({0})",
}
"""Builtin name -> MSL spelling (see ``pyshade.emit.spellings``)."""
