"""The python target's toolchain: CPython's own ``compile``, with every generated line
given the span of the user's line it came from, so that tracebacks of the cpu device
show the kernel's file and lines."""

from __future__ import annotations

import ast
import linecache
from typing import Any

from ..frontend.deep import recursion_headroom


def compile_python(text: str, filename: str, line_map: Any, fallback: int) -> Any:
    """A code object of the generated ``text`` whose lines are the user's: output line
    i (0-based) came from Python line ``line_map[i]`` of ``filename`` (None: the
    kernel's ``def`` line, ``fallback``)."""
    with recursion_headroom():       # deep expressions nest deep ASTs
        tree = ast.parse(text)
        # Every node of a generated line gets the span of the whole user line it came
        # from: the generated columns would make Python 3.11+ tracebacks draw carets
        # under an unrelated part of the user's line; a whole-line span draws none.
        widths: dict[int, int] = {}
        for node in ast.walk(tree):
            if hasattr(node, "lineno"):
                src = line_map[node.lineno - 1] if node.lineno - 1 < len(line_map) else None
                line = src or fallback
                if line not in widths:          # columns are UTF-8 byte offsets
                    widths[line] = len(linecache.getline(filename, line)
                                       .rstrip("\r\n").encode())
                node.lineno = node.end_lineno = line
                node.col_offset, node.end_col_offset = 0, widths[line]
        return compile(tree, filename, "exec")


def compile_target(compiled: Any, validate: object) -> tuple[Any, str]:
    """The python toolchain of the target registry: a code object of the source."""
    return compile_python(compiled.source, compiled.filename, compiled.line_map,
                          compiled.lineno), ""


def toolchain_id() -> str:
    """CPython's version, for the persistent cache."""
    import sys
    return sys.version
