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
    cells: dict = field(default_factory=dict)       # free variable name -> its cell
    # (container, name) -> value of every module global and closure value that
    # translation read (container: the globals dict, or the cell with name None): a
    # kernel compares them at launch and translates again when one changed.
    reads: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The function's name."""
        return self.tree.name

    @property
    def closure(self) -> dict:
        """The closure's values now (a cell may be rebound by ``nonlocal``)."""
        out = {}
        for name, cell in self.cells.items():
            try:
                out[name] = cell.cell_contents
            except ValueError:      # not bound yet
                pass
        return out

    def lookup(self, name: str) -> tuple[bool, Any]:
        """Resolve a free name: closure cell, then module global, then builtin; the value
        read is recorded in ``reads``."""
        cell = self.cells.get(name)
        if cell is not None:
            try:
                value = cell.cell_contents
            except ValueError:
                return False, None
            self.reads[(id(cell), None)] = (cell, None, value)
            return True, value
        if name in self.globals:
            value = self.globals[name]
            self.reads[(id(self.globals), name)] = (self.globals, name, value)
            return True, value
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
    lineno = getattr(node, "lineno", None)
    return TranslationError(message, filename, lineno,
                            getattr(node, "col_offset", None), getattr(node, "end_lineno", None),
                            getattr(node, "end_col_offset", None), target,
                            _snapshot_line(filename, lineno))


def _snapshot_line(filename: str | None, lineno: int | None) -> str | None:
    lines = _snapshots.get(filename or "")
    if lines is None or not lineno or lineno > len(lines):
        return None
    return lines[lineno - 1]


_cache: dict[Any, FunctionSource] = {}
# The source text of each function captured when it was decorated (``@ps.kernel``,
# ``@ps.func``): code object -> (lines, first line). Translation uses it instead of the
# file, which may have been edited since the module was imported.
_captured: dict[Any, tuple[list[str], int]] = {}
# The parse of a captured source that checked it, until the first ``get_source`` of its
# function uses it (instead of parsing the same lines again).
_unused_parse: dict[Any, ast.AST] = {}


def _function(fn: Any) -> Any:
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    if getattr(fn, "__code__", None) is None:
        raise TranslationError(f"{fn!r} is not a Python function with source code")
    return fn


def _read(fn: Any) -> tuple[list[str], int, ast.AST]:
    """The lines of ``fn``'s definition, checked against the function Python runs (its
    name and parameters must match, else its file was edited after it was imported and
    the lines are another function's), and their parse (``_parse``). From the snapshot of
    its file taken when a kernel or helper of that file was decorated, else from the file
    (or linecache) as it is now."""
    code = fn.__code__
    snapshot = _snapshots.get(code.co_filename)
    try:
        if snapshot is not None:
            start = code.co_firstlineno
            lines = inspect.getblock(snapshot[start - 1:])
        else:
            lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError, IndexError):
        raise TranslationError(
            f"cannot get the source of {fn.__qualname__} (defined in {code.co_filename}): "
            "define it in a file, a notebook cell or an IPython session, not in the plain "
            "REPL, python -c or exec() of a string") from None
    tree = _parse(lines, code.co_filename, start)
    a = tree.args if isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    names = [x.arg for x in (a.posonlyargs + a.args + a.kwonlyargs)] if a else None
    nargs = code.co_argcount + code.co_kwonlyargcount
    if a is None or tree.name != fn.__name__ or names != list(code.co_varnames[:nargs]):
        found = f"'{tree.name}'" if a is not None else "no function"
        raise TranslationError(
            f"the source of {fn.__qualname__} has changed since it was defined: line {start} "
            f"of {code.co_filename} now holds {found}. pyshade translates the function as "
            "Python defined it: reload its module (importlib.reload) or re-run its cell",
            code.co_filename, start)
    return list(lines), start, tree


def _parse(lines: list[str], filename: str, start: int) -> Any:
    """The first statement of the dedented ``lines`` (a def, if they are a function's),
    numbered from line ``start`` as in the file (the parse of blank lines before them,
    which costs less than renumbering every node)."""
    try:
        module = ast.parse("\n" * (max(start, 1) - 1) + textwrap.dedent("".join(lines)))
    except SyntaxError as e:
        raise TranslationError(f"the source of the function at {filename}:{start} does not "
                               f"parse ({e.msg}): was the file edited? reload its module",
                               filename, start) from None
    return module.body[0] if module.body else None


# filename -> its lines when the last kernel or helper defined in it was decorated (the
# file Python had just run): the source of every function of that file, helpers too, and
# the text an error's caret shows, also after the file was edited.
_snapshots: dict[str, list[str]] = {}


def capture_source(fn: Any) -> None:
    """Record ``fn``'s source now (at decoration, when the file is the one Python just
    ran), so that later edits of the file never change what is translated."""
    fn = _function(fn)
    filename = fn.__code__.co_filename
    # The file as it is now, which is what Python just ran (a module reloaded after an
    # edit takes a new snapshot; the functions captured before keep their own lines).
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, fn.__globals__)
    if lines:
        _snapshots[filename] = list(lines)
    lines, start, tree = _read(fn)
    _captured[fn.__code__] = lines, start
    _unused_parse[fn.__code__] = tree


def get_source(fn: Any) -> FunctionSource:
    """Parse ``fn`` (a plain function or staticmethod) into a FunctionSource: from the
    source captured when it was decorated, else from its file, checked to be its own."""
    fn = _function(fn)
    code = fn.__code__
    key = (code, id(fn.__globals__))
    hit = _cache.get(key)
    if hit is not None and hit.fn is fn:
        return hit
    filename = code.co_filename
    captured = _captured.get(code)
    if captured is None:            # parsed (and checked) from its file now
        lines, start, tree = _read(fn)
    else:                           # a function of its own: its checked source parses
        lines, start = captured
        tree = _unused_parse.pop(code, None) or _parse(lines, filename, start)
    text = "".join(lines)
    indent = _common_indent(text)
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
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    src = FunctionSource(fn, tree, filename, fn.__globals__, cells)
    _cache[key] = src
    return src


def _common_indent(text: str) -> int:
    widths = [len(line) - len(line.lstrip()) for line in text.splitlines() if line.strip()]
    return min(widths) if widths else 0
