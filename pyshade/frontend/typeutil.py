"""Small type predicates the expression rules share (``exprs`` re-exports them)."""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T


class CT(T.Type):
    """Type of a compile-time object: a module, class, function or type."""

    def __init__(self, obj: Any):
        self.obj = obj
        self.name = getattr(obj, "__name__", repr(obj))


def is_int(t: Any) -> bool:
    """Integer scalar (or enum, which decays to its integer base)."""
    return isinstance(t, T.ScalarType) and t.is_int or isinstance(t, T.EnumType)


def decay(t: Any) -> Any:
    """Enums behave as their base integer type in arithmetic."""
    return t.base if isinstance(t, T.EnumType) else t


def elem_of(t: Any) -> Any:
    """Scalar element type of a scalar, vector or matrix type."""
    return t.elem if isinstance(t, (T.VectorType, T.MatrixType)) else decay(t)


def call_at(name: str, args: list, like: ast.AST) -> ast.Call:
    """A new call ``name(*args)`` that the type checker writes, spanning ``like`` (its
    start and end: ``ast.copy_location`` copies both), for carets and line comments."""
    return ast.copy_location(ast.Call(ast.copy_location(ast.Name(name, ast.Load()), like),
                                      list(args), []), like)
