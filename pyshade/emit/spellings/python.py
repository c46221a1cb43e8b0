"""Builtin spellings of the generated Python (the CPU device's target).

Besides the positional arguments, the format strings use the fields that
``PythonEmitter.call_builtin`` fills in: ``{r}`` (the rounding of the result type),
``{wrap}`` (its integer wrap), ``{bits}``, ``{src}``/``{T}`` (``bitcast``) and
``{ids}``; ``{map}(f)``/``{pred}(f)`` apply ``f`` per component (rounded, or not),
``{abs}``/``{min}``/``{max}``, ``print`` and ``{convert}`` are written by the emitter itself.
The names called (``_clamp``, ``_atomic``...) are those the generated module imports.
"""

from __future__ import annotations

from typing import Any

from ...frontend.exprs import IDS
from ...lang import ATOMIC_OPS, MATH_MORE_1

_MATH = ("sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "log2", "fabs",
         "floor", "ceil", "trunc", "atan2", "pow", *MATH_MORE_1, "hypot", "copysign")

SPELLINGS: dict[str, Any] = {
    **{name: f"{{ids.{name}}}" for name in IDS},
    # A statement: ``PythonEmitter.call_statement`` writes ``yield`` (the kernel becomes a
    # generator).
    "barrier": "yield",
    **{f"atomic_{op}": f"_atomic('{op}', {{0}}, {{1}}, {{2}}, {{wrap}})" for op in ATOMIC_OPS},
    "atomic_compare_exchange": "_atomic_cas({0}, {1}, {2}, {3})",
    "abs": "{abs}",
    "min": "{min}",
    "max": "{max}",
    "round": "{map}(_round)",
    # Conversions: the type checker makes every ``int(x)`` a cast, never a builtin call.
    "tid": None,      # rewritten as i32(global_id().x) by the type checker
    "int": None,
    "float": None,
    "bool": None,
    "len": "len({0})",
    "all": "_vall({0})",
    "any": "_vany({0})",
    "print": "print({args})",
    **{f"math.{name}": f"{{map}}(_{name})" for name in _MATH},
    "math.fmod": "{map}(_cfmod)",       # C's fmod (``_fmod`` is the float ``%``)
    "math.isnan": "{pred}(_isnan)",
    "math.isinf": "{pred}(_isinf)",
    "clamp": "_clamp({0}, {1}, {2})",
    "mix": "_mix({0}, {1}, {2}, {r})",
    "step": "{map}(_step)",
    "smoothstep": "_smoothstep({0}, {1}, {2}, {r})",
    "dot": "_dot({0}, {1}, {r})",
    "cross": "_cross({0}, {1}, {r})",
    "length": "_length({0}, {r})",
    "normalize": "_normalize({0}, {r})",
    "distance": "_distance({0}, {1}, {r})",
    "fma": "_fma({0}, {1}, {2}, {r})",
    "select": "_select({0}, {1}, {2})",
    "bitcast": "_bitcast({1}, '{src}', '{T}')",
    "popcount": "_popcount({0}, {bits})",
    "reverse_bits": "{wrap}(_reverse_bits({0}, {bits}))",
    "count_leading_zeros": "_clz({0}, {bits})",
    # Only the prelude's cuda branch calls them.
    "prelude.smin": None,
    "prelude.smax": None,
    "prelude.tdiv": "{pred}(_tdiv)",
    "prelude.pow": None,                # only prelude_math calls it: GPU targets
    "prelude.bits": "{pred}(_f32_bits)",
    "prelude.from_bits": "{pred}(_f32_of_bits)",
    "prelude.convert": "{convert}",
}
"""Builtin name -> Python spelling (see ``pyshade.emit.spellings``)."""
