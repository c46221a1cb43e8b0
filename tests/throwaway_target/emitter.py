"""The "pyx" target's emitter: the Python emission under another target name."""

from __future__ import annotations

from pyshade.emit.python import PythonEmitter


class PyxEmitter(PythonEmitter):
    """Writes a Program as Python, as the python target does, for target "pyx"."""

    target = "pyx"
