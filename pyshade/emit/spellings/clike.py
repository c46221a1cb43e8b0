"""Builtin spellings shared by the brace languages (the ``clike`` family).

The default of WGSL, GLSL, HLSL, MSL and CUDA: a target's own table
(``wgsl.py``...) overrides an entry. Builtins missing here (atomics, ``round``,
``select``, ``bitcast``, the bit operations, ``prelude.bits``) differ in every
brace language, so each target's table has them.
"""

from __future__ import annotations

from typing import Any

from ...frontend.exprs import IDS
from ...prelude_math import PRELUDE

_MATH = ("sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "log2",
         "floor", "ceil", "trunc", "exp2", "degrees", "radians")
# Python math functions that most brace languages lack, or whose accuracy WebGPU and Vulkan
# leave to formulas that fail (the hyperbolics: prelude_math.py says how): the prelude
# (``pyshade.prelude_math``) computes them, as the frontend's routing reads here; a
# target's table overrides one it has natively.
_PRELUDE_MATH = ("tanh", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log10", "log1p",
                 "hypot", "copysign", "fmod", "erf", "erfc")
HYPERBOLIC = ("tanh", "sinh", "cosh", "asinh", "acosh", "atanh")
"""The hyperbolic functions: native in MSL and CUDA, whose libraries give ulp bounds."""

SPELLINGS: dict[str, Any] = {
    # The emitter's names of the invocation ids (``IdNames``).
    **{name: f"{{ids.{name}}}" for name in IDS},
    # The type checker rewrites tid() as i32(global_id().x): it never reaches an emitter.
    "tid": None,
    # A statement: ``CLikeEmitter.call_statement`` writes the target's ``BARRIER``.
    "barrier": None,
    "abs": "abs({0})",
    "min": "min({0}, {1})",
    "max": "max({0}, {1})",
    # Conversions: the type checker makes every ``int(x)`` a cast, never a builtin call.
    "int": None,
    "float": None,
    "bool": None,
    "len": "{len}",
    "all": "all({0})",
    "any": "any({0})",
    # Only CUDA has printf: the type checker refuses print() elsewhere (print_call).
    "print": None,
    **{f"math.{name}": f"{name}({{0}})" for name in _MATH},
    "math.fabs": "abs({0})",
    "math.atan2": "atan2({0}, {1})",
    # GLSL, WGSL and HLSL leave pow(x, y) undefined for x < 0 (and x == 0, y <= 0): the
    # prelude gives C's values (pow(-2.0, 3.0) is -8.0); CUDA and MSL have C's pow.
    "math.pow": PRELUDE,
    "prelude.pow": "pow({0}, {1})",
    **{f"math.{name}": PRELUDE for name in _PRELUDE_MATH},
    # The prelude's ps_isnan/ps_isinf replace them on GPU targets (frontend/prelude_calls).
    "math.isnan": None,
    "math.isinf": None,
    "clamp": "min(max({0}, {1}), {2})",
    "mix": "mix({0}, {1}, {2})",
    "step": "step({0}, {1})",
    "smoothstep": "smoothstep({0}, {1}, {2})",
    "dot": "dot({0}, {1})",
    "cross": "cross({0}, {1})",
    "length": "length({0})",
    "normalize": "normalize({0})",
    "distance": "distance({0}, {1})",
    "fma": "fma({0}, {1}, {2})",
    "prelude.smin": "min({0}, {1})",
    "prelude.smax": "max({0}, {1})",
    "prelude.tdiv": "({0} / {1})",
    "prelude.convert": "{T}({1})",
}
"""Builtin name -> brace-language spelling (see ``pyshade.emit.spellings``)."""
