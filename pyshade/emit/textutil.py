"""Small text and type helpers of the brace emitters (``clike`` re-exports them)."""

from __future__ import annotations

import math
import struct

from .. import types as T


def any_float(*ts: T.Type) -> bool:
    """Whether any of the types is a float scalar or vector."""
    return any(getattr(t.elem if isinstance(t, T.VectorType) else t, "is_float", False)
               for t in ts)


def array_parts(t: T.Type) -> tuple[T.Type, str]:
    """The element type under every array level of ``t`` and the sizes as C writes them
    (outermost first): ``(f32, "[4][2]")``; ``(t, "")`` for a type that is no array."""
    dims = ""
    while isinstance(t, T.ArrayType):
        dims += f"[{t.n}]"
        t = t.elem
    return t, dims


def elem_type(t: T.Type) -> T.Type:
    """The scalar type of a scalar, vector or matrix type."""
    return t.elem if isinstance(t, (T.VectorType, T.MatrixType)) else t


def to_f32(v: float) -> float:
    """``v`` rounded to binary32; past the largest finite value, the infinity it rounds
    to (struct raises there: 3.403e38, a shorter decimal tried for the f32 maximum)."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def shortest_f32(v: float) -> str:
    """Shortest decimal that reads back as the same binary32 value."""
    f = to_f32(v)
    for digits in range(1, 18):
        s = f"{f:.{digits}g}"
        if to_f32(float(s)) == f:
            if "e" in s and "inf" not in s and "nan" not in s:
                s = repr(float(s))      # same digits, positional where Python's is (180.0)
            if "e" not in s and "." not in s and "inf" not in s and "nan" not in s:
                s += ".0"
            return s
    return repr(f)


def enclosed(s: str) -> bool:
    """Whether ``s`` is one parenthesised whole: its first ``(`` closes at its end (so
    ``(a < b)`` is, ``(a) < (b)`` is not)."""
    depth = 0
    for k, c in enumerate(s):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return k == len(s) - 1
    return False
