"""Get a function's source and AST, with the user's file, lines and columns.

Line numbers and column offsets of the parsed tree are those of the original
file, so every later error and every ``// file.py:LINE`` comment points at
the user's own source, even for methods and nested definitions.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass, field
from typing import Any

from ..errors import TranslationError


@dataclass
class FunctionSource:
    """A parsed function plus everything needed to resolve its names."""

    fn: Any
    tree: ast.FunctionDef
    filename: str
    globals: dict
    closure: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The function's name."""
        return self.tree.name

    def lookup(self, name: str) -> tuple[bool, Any]:
        """Resolve a free name: closure cell, then module global, then builtin."""
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        b = self.globals.get("__builtins__", __builtins__)
        b = b if isinstance(b, dict) else vars(b)
        if name in b:
            return True, b[name]
        return False, None

    def error(self, node: ast.AST | None, message: str, target: str | None = None) -> TranslationError:
        """A TranslationError located at ``node``."""
        return make_error(self.filename, node, message, target)


def make_error(filename: str, node: ast.AST | None, message: str,
               target: str | None = None) -> TranslationError:
    """A TranslationError at ``node`` of ``filename``."""
    return TranslationError(message, filename, getattr(node, "lineno", None),
                            getattr(node, "col_offset", None), getattr(node, "end_lineno", None),
                            getattr(node, "end_col_offset", None), target)


_cache: dict[Any, FunctionSource] = {}


def get_source(fn: Any) -> FunctionSource:
    """Parse ``fn`` (a plain function or staticmethod) into a FunctionSource."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    code = getattr(fn, "__code__", None)
    if code is None:
        raise TranslationError(f"{fn!r} is not a Python function with source code")
    key = (code, id(fn.__globals__))
    hit = _cache.get(key)
    if hit is not None and hit.fn is fn:
        return hit
    filename = code.co_filename
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise TranslationError(
            f"cannot get the source of {fn.__qualname__} (defined in {filename}): define it "
            "in a file, a notebook cell or an IPython session, not in the plain REPL") from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = _common_indent(text)
    try:
        module = ast.parse(dedented)
    except SyntaxError as e:  # pragma: no cover - Python already parsed it once
        raise TranslationError(str(e), filename, start) from None
    tree = next(n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    ast.increment_lineno(tree, max(start, 1) - 1)
    if indent:
        for node in ast.walk(tree):
            if hasattr(node, "col_offset"):
                node.col_offset += indent
                if getattr(node, "end_col_offset", None) is not None:
                    node.end_col_offset += indent
    if isinstance(tree, ast.AsyncFunctionDef):
        raise make_error(filename, tree, "async def is not supported: kernels and helpers "
                                         "cannot await; define them with a plain def")
    tree.decorator_list = []
    # Keep linecache alive for functions from notebooks and exec'd strings.
    if not linecache.getline(filename, start):
        linecache.cache[filename] = (len(text), None, [""] * (start - 1) + lines, filename)
    closure = {}
    if fn.__closure__:
        for name, cell in zip(code.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    src = FunctionSource(fn, tree, filename, fn.__globals__, closure)
    _cache[key] = src
    return src


def _common_indent(text: str) -> int:
    widths = [len(line) - len(line.lstrip()) for line in text.splitlines() if line.strip()]
    return min(widths) if widths else 0
