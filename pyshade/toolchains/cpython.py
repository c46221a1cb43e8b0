"""The python target's toolchain: CPython's own ``compile``, with every generated line
given the span of the user's line it came from, and every function the file it came
from (a helper may live in another module than the kernel), so that tracebacks of the
cpu device, and its race reports, show the user's files and lines."""

from __future__ import annotations

import ast
import linecache
import os
import re
from types import CodeType
from typing import Any

from ..frontend.deep import recursion_headroom

# The location comment that ends a generated statement: ``# file.py:12``.
_MARK = re.compile(r"#\s*([^#\s][^#]*?):(\d+)\s*$")


def compile_python(text: str, filename: str, line_map: Any, fallback: int,
                   files: dict | None = None) -> Any:
    """A code object of the generated ``text`` whose lines are the user's: output line
    i (0-based) came from Python line ``line_map[i]`` of ``filename`` (None: the
    kernel's ``def`` line, ``fallback``), or of the file that its function's location
    comments name (``files``: base name -> path) where that is another."""
    with recursion_headroom():       # deep expressions nest deep ASTs
        tree = ast.parse(text)
        lines = text.splitlines()
        home = {}                       # output line (1-based) -> its function's file
        for fn in tree.body:
            if isinstance(fn, ast.FunctionDef):
                path = _function_file(lines[fn.lineno - 1:fn.end_lineno], files or {})
                if path is not None and path != filename:
                    home.update(dict.fromkeys(range(fn.lineno, fn.end_lineno + 1), path))
        # Every node of a generated line gets the span of the whole user line it came
        # from: the generated columns would make Python 3.11+ tracebacks draw carets
        # under an unrelated part of the user's line; a whole-line span draws none.
        widths: dict[tuple, int] = {}
        for node in ast.walk(tree):
            if hasattr(node, "lineno"):
                src = line_map[node.lineno - 1] if node.lineno - 1 < len(line_map) else None
                line = src or fallback
                where = (home.get(node.lineno, filename), line)
                if where not in widths:         # columns are UTF-8 byte offsets
                    widths[where] = len(linecache.getline(*where).rstrip("\r\n").encode())
                node.lineno = node.end_lineno = line
                node.col_offset, node.end_col_offset = 0, widths[where]
        code = compile(tree, filename, "exec")
    paths = {tree.body[i].name: home[tree.body[i].lineno] for i in range(len(tree.body))
             if isinstance(tree.body[i], ast.FunctionDef) and tree.body[i].lineno in home}
    return _refile(code, paths) if paths else code


def _function_file(lines: list[str], files: dict) -> str | None:
    """The path of the file that a generated function's location comments name."""
    for text in lines:
        m = _MARK.search(text)
        if m:
            base = m.group(1)
            return files.get(base) or files.get(os.path.basename(base))
    return None


def _refile(code: CodeType, paths: dict, path: str | None = None) -> CodeType:
    """``code`` with the functions named in ``paths`` (and the code nested in them, such
    as lambdas) given their own file."""
    consts = tuple(_refile(c, paths, path or paths.get(c.co_name))
                   if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_consts=consts, **({"co_filename": path} if path else {}))


def compile_target(compiled: Any, validate: object) -> tuple[Any, str]:
    """The python toolchain of the target registry: a code object of the source."""
    return compile_python(compiled.source, compiled.filename, compiled.line_map,
                          compiled.lineno, compiled.files), ""


def toolchain_id() -> str:
    """CPython's version, for the persistent cache."""
    import sys
    return sys.version
