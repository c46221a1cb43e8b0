"""Platform toolchains that check or compile generated code (naga, ...).

Generated code marks where each statement came from with a trailing comment,
``stmt;  // some/file.py:12`` (``# some/file.py:12`` in Python output), or
with such a comment on a line of its own just before the statement.
``map_line`` turns a line number that a toolchain reports back into the
Python ``(file, line)`` it was generated from.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["compile_source", "file_identity", "map_line"]

# A "//" or "#" comment, at line start or after whitespace, that ends in
# "FILE:LINE". FILE may contain spaces or colons (Windows drives); the last
# ":digits" is the line number.
_MARK = re.compile(r"(?:^|\s)(?://|#)\s*(\S(?:.*\S)?):(\d+)\s*$")


def map_line(source: str, target_line: int) -> tuple[str | None, int | None]:
    """Return the ``(file, line)`` of the nearest location comment at or above ``target_line``.

    ``target_line`` is 1-based, as toolchains report it; values past the end
    are clamped to the last line. Returns ``(None, None)`` when no line at or
    above carries a location comment.
    """
    lines = source.splitlines()
    if not lines or target_line is None or target_line < 1:
        return None, None
    for i in range(min(target_line, len(lines)) - 1, -1, -1):
        m = _MARK.search(lines[i])
        if m:
            return m.group(1), int(m.group(2))
    return None, None


def compile_source(compiled: Any, validate: object = True) -> tuple:
    """Compile the generated text of ``compiled`` (a ``Compiled`` whose ``binary`` is not
    set yet) with its target's toolchain, from the target registry: returns (binary, log).

    ``validate`` is what checks or builds the code: False (translate only), True (the
    toolchain's own checks), or what a device asks for (WGSL: the ``WgpuDevice`` whose
    naga validates the text; CUDA: an architecture such as ``"sm_90"`` for a CUBIN).
    Each target's toolchain function documents its binary.
    """
    from .. import targets
    return targets.get(compiled.target).compile()(compiled, validate)


def file_identity(*paths: str) -> str:
    """Path, size and modification time of each file: a toolchain's identity for the
    persistent cache (a reinstalled compiler is another toolchain)."""
    out = []
    for p in paths:
        st = os.stat(p)
        out.append(f"{p}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(out)
