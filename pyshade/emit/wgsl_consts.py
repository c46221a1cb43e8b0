"""WGSL's constant expressions that must not be constant (a mixin of the WGSL emitter).

naga and Tint evaluate an expression of literals when the shader is created, and a
float result that is not finite there (``exp(100.0f)``, ``3e+38f * 10.0f``,
``sqrt(-1.0f)``, ``normalize(vec2<f32>(0.0f))``) is a shader-creation error, where
every other target computes inf or nan at run time, as the kernel's Python does. So the
emitter evaluates such an expression in the float type (numpy, the operations listed in
``_FUNCS``), and where an operation's result would not be finite, one operand goes
through ``ps_keep_<type>``, a function returning its argument: a call of a user
function is never a constant expression, so the operation is left to the device.
Integer overflow is no such error (naga wraps), and an operation not listed here is
left as it is.
"""

from __future__ import annotations

import ast
import math
from typing import Any, Callable

import numpy as np

from .. import types as T


def _normalize(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt(np.sum(v * v, dtype=v.dtype))


# builtin name -> numpy, on arrays of the operand's float type
_FUNCS: dict[str, Callable[..., Any]] = {
    "math.exp": np.exp, "math.exp2": np.exp2, "math.log": np.log, "math.log2": np.log2,
    "math.sqrt": np.sqrt, "math.asin": np.arcsin, "math.acos": np.arccos,
    "math.sin": np.sin, "math.cos": np.cos, "math.tan": np.tan, "math.atan": np.arctan,
    "math.degrees": np.degrees, "math.radians": np.radians, "math.floor": np.floor,
    "math.ceil": np.ceil, "math.trunc": np.trunc, "math.fabs": np.abs, "abs": np.abs,
    "normalize": _normalize,
    "length": lambda v: np.sqrt(np.sum(v * v, dtype=v.dtype)),
    "distance": lambda a, b: np.sqrt(np.sum((a - b) * (a - b), dtype=a.dtype)),
    "dot": lambda a, b: np.sum(a * b, dtype=a.dtype),
    "cross": np.cross,
    "fma": lambda a, b, c: a * b + c,
    "mix": lambda a, b, t: a * (1 - t) + b * t,
    "smoothstep": lambda e0, e1, x: _smoothstep(e0, e1, x),
}


def _smoothstep(e0: Any, e1: Any, x: Any) -> Any:
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.true_divide,
}
_FLOATS = {T.f32: np.float32, T.f16: np.float16}


def _float_dtype(t: Any) -> Any:
    """numpy's dtype of a float scalar or vector type, else None."""
    e = t.elem if isinstance(t, T.VectorType) else t
    return _FLOATS.get(e)


class WgslConstants:
    """The ``expr`` hook; the class using it provides ``helper``, ``type_name`` and
    ``Emitter.expr``."""

    def expr(self, node: ast.expr) -> str:
        """An expression; an operand of a constant operation whose result would not be
        finite is wrapped in ``ps_keep_<type>`` (module docstring)."""
        kept = self.__dict__.setdefault("_kept", set())
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)) and \
                _float_dtype(getattr(node, "ps_type", None)) is not None:
            self._const_value(node)
        s = super().expr(node)  # type: ignore[misc]
        if id(node) in kept:
            t = node.ps_type
            name = "keep_" + self.type_name(t).replace("<", "_").replace(">", "")  # type: ignore[attr-defined]
            tn = self.type_name(t)  # type: ignore[attr-defined]

            def make(fn: str) -> str:
                return ("// a user function's result is no constant expression: the device "
                        "computes inf or nan,\n// where naga would refuse the shader\n"
                        f"fn {fn}(x: {tn}) -> {tn} {{\n    return x;\n}}")
            s = f"{self.helper(name, make)}({s})"  # type: ignore[attr-defined]
        return s

    def _const_value(self, node: ast.expr) -> Any:
        """The value of ``node`` if it is a constant expression this module evaluates,
        else None; marks the operand to keep where a result would not be finite."""
        memo = self.__dict__.setdefault("_consts", {})
        if id(node) in memo:
            return memo[id(node)][1]
        v = self._evaluate(node)
        memo[id(node)] = (node, v)      # the node too: its id stays its own
        return v

    def _evaluate(self, node: ast.expr) -> Any:
        t = getattr(node, "ps_type", None)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                return None
            dt = _float_dtype(t)
            # an inf or nan literal is read at run time already (``special_float``)
            if dt is None or (isinstance(node.value, float) and not math.isfinite(node.value)):
                return None
            try:
                return np.asarray(node.value, dtype=dt)
            except OverflowError:
                return None
        dt = _float_dtype(t)
        if dt is None:
            return None
        operands: list[ast.expr]
        call = getattr(node, "ps_call", None)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            operands, fn = [node.left, node.right], _BINOPS[type(node.op)]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operands = [node.operand]
            fn = np.negative if isinstance(node.op, ast.USub) else np.positive
        elif isinstance(node, ast.Call) and call and call[0] in ("construct", "cast"):
            operands = list(node.args)
            n = t.n if isinstance(t, T.VectorType) else 1

            def fn(*xs: Any) -> Any:
                flat = np.concatenate([np.ravel(x).astype(dt) for x in xs]) if xs else \
                    np.zeros(1, dt)
                return flat[0] if n == 1 else np.resize(flat, n)
        elif isinstance(node, ast.Call) and call and call[0] == "builtin" and \
                getattr(call[1], "name", None) in _FUNCS:
            operands, fn = list(node.args), _FUNCS[call[1].name]
        else:
            return None
        values = [self._const_value(a) for a in operands]
        if any(v is None for v in values):
            return None
        with np.errstate(all="ignore"):
            try:
                r = np.asarray(fn(*values)).astype(dt)
            except (TypeError, ValueError):
                return None
        if np.all(np.isfinite(r)):
            return r
        keep = next((a for a in operands if _float_dtype(getattr(a, "ps_type", None))), None)
        if keep is not None:
            self._kept.add(id(keep))
        return None
