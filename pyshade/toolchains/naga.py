"""naga, the WGSL front end inside wgpu: validates WGSL and maps its errors to Python.

naga runs inside wgpu-native, so "compiling" WGSL means creating a shader
module on a ``WgpuDevice``. A rejection comes back as a ``wgpu.GPUError``
whose text is naga's report, e.g.::

    Shader 'k' parsing error: automatic conversions cannot convert ...
      ┌─ wgsl:3:13
      │
    3 │   let y = f(1.0);

The ``┌─ NAME:LINE:COL`` location (NAME is ``wgsl`` for parse errors and the
module label for validation errors) is mapped back to the kernel's Python
line through the ``// file.py:LINE`` comments of the generated code.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import CompileError
from . import map_line

if TYPE_CHECKING:
    from ..runtime.wgpu import WgpuDevice

__all__ = ["create_shader_module", "naga_error", "validate_wgsl"]

# "┌─ wgsl:5:3": greedy ".*" so that a label containing ':' still yields the
# last LINE:COL pair.
_LOCATION = re.compile(r"┌─\s*.*:(\d+):(\d+)\s*$", re.MULTILINE)
_LOCATION_FALLBACK = re.compile(r":(\d+):(\d+)\b")

_default_device: WgpuDevice | None = None


def _default() -> WgpuDevice:
    """A WgpuDevice shared by every validation that is not given one."""
    global _default_device
    if _default_device is None:
        from ..runtime.wgpu import WgpuDevice

        _default_device = WgpuDevice()
    return _default_device


def _summary(log: str) -> str:
    """naga's headline ("Shader ... error: ...") plus its "= note" lines."""
    lines = [ln.strip() for ln in log.splitlines()]
    head = next((ln for ln in lines if ln.startswith("Shader")), None)
    if head is None:
        head = next((ln for ln in lines
                     if ln and ln not in ("Validation Error", "Caused by:")
                     and not ln.startswith("In wgpu")), "WGSL rejected")
    notes = [ln[1:].strip() for ln in lines if ln.startswith("= ")]
    return "; ".join([head, *notes])


def naga_error(log: str, source: str) -> CompileError:
    """Build the ``CompileError`` for naga's report ``log`` on WGSL ``source``."""
    m = _LOCATION.search(log) or _LOCATION_FALLBACK.search(log)
    wgsl_line = int(m.group(1)) if m else None
    filename, lineno = map_line(source, wgsl_line) if wgsl_line else (None, None)
    message = _summary(log)
    if wgsl_line:
        message += f" (WGSL line {wgsl_line})"
    return CompileError(message, target="wgsl", log=log, filename=filename, lineno=lineno,
                        source=source)


def create_shader_module(source: str, device: WgpuDevice | None = None,
                         label: str = "pyshade") -> Any:
    """Create a ``GPUShaderModule`` from WGSL ``source``; naga errors raise ``CompileError``."""
    dev = device if device is not None else _default()
    try:
        return dev.wgpu_device.create_shader_module(label=label, code=source)
    except dev._wgpu.GPUError as exc:
        raise naga_error(str(exc), source) from None


def validate_wgsl(source: str, device: WgpuDevice | None = None) -> None:
    """Check WGSL ``source`` with naga; raise ``CompileError`` pointing at the Python line."""
    create_shader_module(source, device)
