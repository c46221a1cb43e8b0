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

The device to validate on is an argument: toolchains know no runtime (the
caller, ``ps.compile`` or the wgpu device itself, chooses it).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from ..errors import CompileError
from . import map_line


class WgpuDevice(Protocol):
    """What naga needs of the device it runs in (``pyshade.runtime.wgpu.WgpuDevice``):
    its ``GPUDevice`` and the ``wgpu`` module (for ``GPUError``)."""

    wgpu_device: Any
    _wgpu: Any

__all__ = ["create_shader_module", "naga_error", "validate_wgsl"]

# "┌─ wgsl:5:3": greedy ".*" so that a label containing ':' still yields the
# last LINE:COL pair.
_LOCATION = re.compile(r"┌─\s*.*:(\d+):(\d+)\s*$", re.MULTILINE)
_LOCATION_FALLBACK = re.compile(r":(\d+):(\d+)\b")

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


def create_shader_module(source: str, device: WgpuDevice, label: str = "pyshade",
                         checks: bool = True) -> Any:
    """Create a ``GPUShaderModule`` from WGSL ``source`` on ``device`` (a ``WgpuDevice``:
    naga runs inside it); naga errors raise ``CompileError``. With ``checks=False`` naga
    adds no runtime checks to the code it generates (index clamping, loop bounding):
    out-of-bounds indexing is then undefined, as on every other GPU device (where
    wgpu-py cannot make such a module, the checks stay)."""
    try:
        if not checks:
            module = _trusted_module(device.wgpu_device, source, label)
            if module is not None:
                return module
        return device.wgpu_device.create_shader_module(label=label, code=source)
    except device._wgpu.GPUError as exc:
        raise naga_error(str(exc), source) from None


def _trusted_module(gpu_device: Any, source: str, label: str) -> Any:
    """wgpu-native's ``wgpuDeviceCreateShaderModuleTrusted`` with no runtime checks, through
    wgpu-py's own FFI (wgpu-py has no method for it); None where that is missing. Same
    validation and errors as ``create_shader_module``."""
    try:
        from wgpu.backends.wgpu_native import _api
        ffi, lib, libf = _api.ffi, _api.lib, _api.libf
        create = libf.wgpuDeviceCreateShaderModuleTrusted
        internal = gpu_device._internal
    except (ImportError, AttributeError):
        return None
    code = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(source))
    code[0].chain.next = ffi.NULL
    code[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
    desc = _api.new_struct_p("WGPUShaderModuleDescriptor *",
                             nextInChain=ffi.cast("WGPUChainedStruct *", code),
                             label=_api.to_c_string_view(label))
    handle = create(internal, desc, 0)      # WGPUShaderRuntimeChecks_None
    if handle == ffi.NULL:
        raise RuntimeError("wgpuDeviceCreateShaderModuleTrusted failed")
    return _api.GPUShaderModule(label, handle, gpu_device)


def validate_wgsl(source: str, device: WgpuDevice) -> None:
    """Check WGSL ``source`` with the naga of ``device``; raise ``CompileError`` pointing at
    the Python line."""
    create_shader_module(source, device)


def compile_target(compiled: Any, validate: Any) -> tuple[str, str]:
    """The WGSL toolchain of the target registry: WGSL's binary is the text itself (naga
    compiles it inside wgpu when a pipeline is made). ``validate`` is the ``WgpuDevice``
    whose naga checks the text first, or False; a bare True asks for a check without
    naming a device, which is refused (ps.compile passes the device)."""
    if validate is True:
        raise ValueError("validating WGSL needs the wgpu device whose naga checks it: "
                         "pass it as validate= (ps.compile does)")
    if validate:
        validate_wgsl(compiled.source, validate)
    return compiled.source, ""


def toolchain_id() -> str:
    """wgpu-py's version (naga is inside it), for the persistent cache."""
    try:
        import wgpu
    except ImportError:
        return "no wgpu"
    return f"wgpu {wgpu.__version__}"
