"""Error classes of pyshade, each pointing at the Python source that caused it.

Every error that can be traced to a kernel line carries ``filename``,
``lineno`` and ``col_offset`` and renders the source line with a caret, the
way Python itself reports a ``SyntaxError``.
"""

from __future__ import annotations

import linecache
import os


class PyshadeError(Exception):
    """Base class of every error pyshade raises on purpose."""


def render_caret(filename: str | None, lineno: int | None, col: int | None,
                 end_col: int | None = None, source_line: str | None = None) -> str:
    """Return ``file:line:col`` plus the source line and a caret under ``col``."""
    if not filename or not lineno:
        return ""
    head = f"{filename}:{lineno}:{(col or 0) + 1}"
    line = source_line if source_line is not None else linecache.getline(filename, lineno)
    if not line:
        return head
    line = line.rstrip("\n")
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    c = max((col or 0) - indent, 0)
    width = 1
    if end_col is not None and end_col > (col or 0):
        width = min(end_col - (col or 0), max(len(stripped) - c, 1))
    return f"{head}\n    {stripped}\n    {' ' * c}{'^' * width}"


class TranslationError(PyshadeError, SyntaxError):
    """A kernel cannot be translated: unsupported construct, type error, etc.

    A subclass of ``SyntaxError`` so that tools show it like one; it carries
    ``filename lineno col_offset end_lineno end_col_offset target``.
    """

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 col_offset: int | None = None, end_lineno: int | None = None,
                 end_col_offset: int | None = None, target: str | None = None,
                 source_line: str | None = None):
        self.message = message
        self.col_offset = col_offset
        self.end_col_offset = end_col_offset
        self.target = target
        text = source_line if source_line is not None else (
            linecache.getline(filename, lineno) if filename and lineno else None)
        # SyntaxError's own fields: offsets there are 1-based.
        SyntaxError.__init__(self, message, (
            filename, lineno, None if col_offset is None else col_offset + 1, text,
            end_lineno, None if end_col_offset is None else end_col_offset + 1))
        self._source_line = text

    def __str__(self) -> str:
        where = render_caret(self.filename, self.lineno, self.col_offset,
                             self.end_col_offset if self.end_lineno == self.lineno else None,
                             self._source_line)
        tgt = f" [{self.target}]" if self.target else ""
        return f"{where}\nTranslationError{tgt}: {self.message}" if where else self.message

    def __reduce__(self):
        return (type(self), (self.message, self.filename, self.lineno, self.col_offset,
                             self.end_lineno, self.end_col_offset, self.target, self._source_line))


class CompileError(PyshadeError):
    """A platform toolchain rejected generated code; carries the log and the Python line."""

    def __init__(self, message: str, target: str | None = None, log: str = "",
                 filename: str | None = None, lineno: int | None = None, source: str = ""):
        self.target = target
        self.log = log
        self.filename = filename
        self.lineno = lineno
        self.source = source
        where = render_caret(filename, lineno, None)
        text = f"{where}\n{message}" if where else message
        if log:
            text += "\n--- toolchain log ---\n" + log.rstrip()
        super().__init__(text)


class LaunchError(PyshadeError):
    """A kernel launch was given arguments that do not fit its signature."""


class BackendUnavailable(PyshadeError):
    """A device, target or toolchain is not available here; says what to install."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_traceback(exc: BaseException) -> BaseException:
    """``exc`` with pyshade's own frames taken out of its traceback: what is left is the
    user's code (kernels run by the cpu device keep their lines). A public entry point
    re-raises with it, so an uncaught error shows the user's call, then the kernel's
    line or caret, instead of the frames of the frontend, emitters and launch path
    (PYSHADE_TRACEBACK=full keeps them all, for debugging pyshade itself)."""
    if os.environ.get("PYSHADE_TRACEBACK") == "full":
        return exc
    kept = []
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith((_PACKAGE, "<pyshade")):    # also its generated code
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:] + [None]):
        a.tb_next = b
    return exc.with_traceback(kept[0] if kept else None)
