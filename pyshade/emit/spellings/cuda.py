"""Builtin spellings of CUDA C++, where they differ from the ``clike`` family's."""

from __future__ import annotations

from typing import Any

from ...lang import ATOMIC_OPS
from ...prelude_math import PRELUDE
from .clike import HYPERBOLIC
from .method import Method

# CUDA has no vector math library (without headers NVRTC lacks): the emitter writes these
# as functions that round each operation as the CPU device does. MSL uses them too: its
# library's mix/dot/... may fuse or reorder operations, numpy's result rounds each one.
FORMULAS = ("mix", "step", "smoothstep", "dot", "cross", "length", "normalize", "distance")

_WORDS = {"exchange": "Exch"}       # CUDA's own name where it is not the capitalised op

SPELLINGS: dict[str, Any] = {
    # CUDA's atomics take the element's address.
    **{f"atomic_{op}": f"atomic{_WORDS.get(op, op.capitalize())}(&{{0}}[{{1}}], {{2}})"
       for op in ATOMIC_OPS},
    # f32: sub adds the negation (CUDA has no f32 atomicSub); compare-exchange is the u32
    # one on the bits (atomicCAS takes integers); min and max are the prelude's loops.
    "atomic_sub": Method("atomic_by_elem", "atomicSub(&{0}[{1}], {2})",
                         "atomicAdd(&{0}[{1}], -({2}))"),
    "atomic_compare_exchange": Method(
        "atomic_by_elem", "atomicCAS(&{0}[{1}], {2}, {3})",
        "__uint_as_float(atomicCAS((uint*)&{0}[{1}], __float_as_uint({2}), "
        "__float_as_uint({3})))"),
    "abs": Method("abs_call"),
    # CUDA's math library has every Python math function but degrees/radians (the prelude
    # multiplies); its float overloads keep f32 in f32.
    **{f"math.{name}": f"{name}({{0}})" for name in (*HYPERBOLIC, "expm1", "log10", "log1p",
                                                      "erf", "erfc")},
    **{f"math.{name}": f"{name}({{0}}, {{1}})" for name in ("hypot", "copysign", "fmod")},
    "math.pow": "pow({0}, {1})",
    "math.degrees": PRELUDE,
    "math.radians": PRELUDE,
    "all": Method("bool_reduce", "&&"),
    "any": Method("bool_reduce", "||"),
    "round": "rint({0})",
    "print": Method("printf_call"),
    **{name: Method("formula_call") for name in FORMULAS},
    "select": Method("select_call"),
    "bitcast": Method("bitcast_call"),
    "popcount": Method("bit_call"),
    "reverse_bits": Method("bit_call"),
    "count_leading_zeros": Method("bit_call"),
    # Inline PTX the optimiser leaves alone (``prelude.smin`` in lang.py says why).
    "prelude.smin": Method("asm_minmax", "min"),
    "prelude.smax": Method("asm_minmax", "max"),
    "prelude.bits": "__float_as_int({0})",
    "prelude.from_bits": "__int_as_float({0})",
    "prelude.convert": Method("convert_call"),
}
"""Builtin name -> CUDA spelling (see ``pyshade.emit.spellings``)."""
