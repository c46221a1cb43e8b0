"""MSL -> metallib with Apple's Metal compiler (``xcrun -sdk macosx metal``), macOS only.

The compile runs ``metal -c`` (MSL to AIR) and ``metallib`` (AIR to a library the Metal
runtime loads) through subprocess. ``-fno-fast-math``: Metal compiles with fast math by
default, which would reassociate and flush what the kernel language rounds exactly.
Elsewhere (no Xcode command-line tools) compiling is a ``BackendUnavailable`` that says
so; translating (``ps.translate(k, "msl")``) needs no compiler and works everywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Any

from ..errors import BackendUnavailable, CompileError

__all__ = ["available", "compile_error", "compile_msl", "metal_command"]

ELSEWHERE = ("the Metal compiler (xcrun -sdk macosx metal) exists only on macOS with the "
             "Xcode command-line tools; ps.translate(kernel, \"msl\") works everywhere")
FLAGS = ("-std=metal3.0", "-fno-fast-math")


def available(platform: str | None = None, which: object = shutil.which) -> tuple[bool, str]:
    """(True, "") when the Metal compiler can run here, else (False, why not)."""
    platform = platform or sys.platform
    if platform != "darwin":
        return False, ELSEWHERE
    if which("xcrun") is None:
        return False, ("xcrun is not installed: install the Xcode command-line tools "
                       "(xcode-select --install) to compile MSL")
    return True, ""


def metal_command(src: str, air: str, lib: str) -> list[list[str]]:
    """The two commands: MSL source -> AIR object -> metallib."""
    return [["xcrun", "-sdk", "macosx", "metal", *FLAGS, "-c", src, "-o", air],
            ["xcrun", "-sdk", "macosx", "metallib", air, "-o", lib]]


def compile_msl(text: str, name: str = "kernel.metal", files: dict | None = None) -> bytes:
    """Compile MSL ``text`` to metallib bytes; a compiler error is a ``CompileError`` whose
    message names the Python line (the source's ``#line`` directives)."""
    ok, why = available()
    if not ok:
        raise BackendUnavailable(why)
    with tempfile.TemporaryDirectory() as d:
        src, air, lib = (os.path.join(d, name + ext) for ext in ("", ".air", ".metallib"))
        with open(src, "w") as f:
            f.write(text)
        for cmd in metal_command(src, air, lib):
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise compile_error("the Metal compiler rejected the MSL", res.stderr, text,
                                    files)
        with open(lib, "rb") as f:
            return f.read()


def compile_error(message: str, log: str, text: str, files: dict | None) -> CompileError:
    """The ``CompileError`` of a Metal compiler ``log`` for the MSL ``text``: its Python
    location is the first ``file.py:LINE`` in the log (the source's ``#line`` directives
    make the compiler name them), ``files`` mapping base names to full paths. Shared by
    this toolchain and the metal device's run-time compile (``newLibraryWithSource``)."""
    m = re.search(r"([\w.-]+\.py):(\d+)", log)
    filename = (files or {}).get(m.group(1), m.group(1)) if m else None
    return CompileError(message, target="msl", log=_python_lines(log, files),
                        filename=filename, lineno=int(m.group(2)) if m else None, source=text)


def _python_lines(log: str, files: dict | None) -> str:
    """The log with ``file.py:LINE`` locations expanded to the full paths in ``files``."""
    if not files:
        return log
    return re.sub(r"([\w.-]+\.py):(\d+)",
                  lambda m: f"{files.get(m.group(1), m.group(1))}:{m.group(2)}", log)


def compile_target(compiled: Any, validate: object) -> tuple[bytes, str]:
    """The MSL toolchain of the target registry: a metallib from ``xcrun metal`` (macOS
    only; BackendUnavailable elsewhere). Without ``validate`` (a device whose runtime
    compiles MSL source itself, as Metal's newLibraryWithSource does; the tests'
    stand-in) the binary is the text's bytes."""
    if not validate:
        return compiled.source.encode(), ""
    return compile_msl(compiled.source, name=f"{compiled.entry}.metal",
                       files=compiled.files), ""


def toolchain_id() -> str:
    """xcrun's identity (the Metal compiler), for the persistent cache."""
    from . import file_identity
    xcrun = shutil.which("xcrun")
    return file_identity(xcrun) if xcrun else "no xcrun"
