"""``Method``: a spelling-table entry that names an emitter method instead of a format."""

from __future__ import annotations

import ast
from typing import Any


class Method:
    """The spelling of a builtin that needs code: the emitter method ``name``, called as
    ``name(node, *args)``. The entry itself is called as ``entry(emitter, node)``, so it
    reads like any callable spelling."""

    __slots__ = ("name", "args")

    def __init__(self, name: str, *args: Any):
        self.name = name
        self.args = args

    def __call__(self, em: Any, node: ast.Call) -> str:
        """The text of ``node`` as the emitter's method writes it."""
        return getattr(em, self.name)(node, *self.args)

    def __repr__(self) -> str:
        return f"Method({', '.join(repr(a) for a in (self.name, *self.args))})"
