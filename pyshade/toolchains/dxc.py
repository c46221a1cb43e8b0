"""DXC: HLSL compute shaders -> SPIR-V (Vulkan 1.1) or DXIL (Direct3D 12).

DXC is Microsoft's HLSL compiler. Debian has no package of it; the
``compushady`` package (``pip install 'pyshade[hlsl]'``) ships its library,
``compushady/backends/libdxcompiler_x86_64.so.3.7`` on Linux (DXC 1.7,
``dxcompiler.dll`` on Windows, a ``.dylib`` on macOS). compushady's own
``compile`` passes a fixed set of flags, so pyshade loads that library itself
(``ctypes``) and calls ``DxcCreateInstance`` / ``IDxcCompiler3::Compile`` with
its own: ``-E entry -T cs_6_0 -HV 2021`` (``cs_6_2 -enable-16bit-types`` where the
source uses 16-bit types), and for SPIR-V ``-spirv -fspv-target-env=vulkan1.1``.
Nothing of compushady is imported: it only has to be installed.

Errors name the Python line: generated HLSL carries ``#line N "file.py"``
directives, so DXC reports ``file.py:N:COL: error: ...``; for HLSL without them
the reported line of ``kernel.hlsl`` is mapped through the ``// file.py:LINE``
comments (``map_line``).

Validation:

* SPIR-V: ``spirv-val --target-env vulkan1.1`` (as for glslang's output).
* DXIL: DXC validates every module it writes, and ``validate_dxil`` runs the
  validator of ``libdxcompiler`` (``CLSID_DxcValidator``) on it once more. That
  validator is DXC's *internal* one (``IDxcVersionInfo`` flags 2): it checks
  but cannot sign. Signing (the container hash D3D12 checks) needs
  ``dxil.dll`` / ``libdxil.so``; compushady ships ``dxil.dll`` for Windows only,
  and no Linux package here has ``libdxil.so``. So on Linux DXIL is validated,
  unsigned (DXC warns "DXIL.dll not found"); on Windows ``dxcompiler.dll`` finds
  ``dxil.dll`` beside it and signs. ``dxil_signed`` tells which one a module is.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import platform
import re
import sys
import threading
import uuid
from collections.abc import Sequence
from typing import Any

from ..errors import BackendUnavailable, CompileError
from . import map_line

__all__ = ["compile_hlsl", "dxc_error", "dxc_version", "dxil_signed", "library_path",
           "validate_dxil"]

INSTALL = "pip install 'pyshade[hlsl]' (the compushady package, which ships DXC)"
SOURCE_NAME = "kernel.hlsl"
# Types whose use needs -enable-16bit-types and shader model 6.2.
_SIXTEEN_BIT = re.compile(r"\b(?:float16_t|u?int16_t)\d?(?:x\d)?\b")
# "FILE:LINE:COL: error: message"; FILE may hold colons (Windows paths).
_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (fatal error|error|warning): (.*)$", re.MULTILINE)
_UNSIGNED = "warning: DXIL.dll not found"

_CLSID_COMPILER = "73e22d93-e6ce-47f3-b5bf-f0664f39c1b0"
_CLSID_VALIDATOR = "8ca3e215-f728-4cf3-8cdd-88af917587a1"
_CLSID_UTILS = "6245d6af-66e0-48fd-80b4-4d271796748c"
_IID_COMPILER3 = "228b4687-5a6a-4730-900c-9702b2203f54"
_IID_RESULT = "58346cda-dde7-4497-9461-6f87af5e0659"
_IID_VALIDATOR = "a6e82bd2-1fd7-4826-9811-2857e797f49a"
_IID_UTILS = "4605c4cb-2019-492a-ada4-65f20bb7d67f"
_IID_VERSION = "b04f5b50-2059-4f12-a8ff-a1e0cde1cc7e"
# First method after IUnknown's in a vtable: outside Windows, DXC's IUnknown has a
# virtual destructor (two more slots, Itanium ABI).
_BASE = 3 if sys.platform == "win32" else 5
_RELEASE = 2
_lock = threading.Lock()      # one compile at a time: DXC keeps LLVM state per process
_lib: Any = None


class _Buffer(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("encoding", ctypes.c_uint32)]


def library_path() -> str:
    """The DXC library inside the installed compushady package (BackendUnavailable without)."""
    spec = importlib.util.find_spec("compushady")
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailable(f"DXC is not installed (it compiles HLSL): {INSTALL}")
    base = os.path.join(list(spec.submodule_search_locations)[0], "backends")
    system, machine = platform.system(), platform.machine().lower()
    if system == "Windows":
        name = "dxcompiler.dll"
    elif system == "Darwin":
        name = "libdxcompiler.3.7.dylib"
    else:
        name = {"aarch64": "libdxcompiler_aarch64.so.3.7", "armv7l": "libdxcompiler_armv7l.so.3.7"
                }.get(machine, "libdxcompiler_x86_64.so.3.7")
    path = os.path.join(base, name)
    if not os.path.exists(path):
        raise BackendUnavailable(f"compushady is installed but has no DXC library {name} "
                                 f"in {base}: reinstall it ({INSTALL})")
    return path


def _library() -> Any:
    global _lib
    if _lib is None:
        try:
            lib = ctypes.CDLL(library_path())
        except OSError as exc:
            raise BackendUnavailable(f"the DXC library could not be loaded ({exc}): "
                                     f"{INSTALL}") from None
        lib.DxcCreateInstance.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.POINTER(ctypes.c_void_p)]
        lib.DxcCreateInstance.restype = ctypes.c_int32
        _lib = lib
    return _lib


def _guid(text: str) -> Any:
    return (ctypes.c_ubyte * 16).from_buffer_copy(uuid.UUID(text).bytes_le)


def _slot(obj: int, slot: int, restype: Any, *argtypes: Any) -> Any:
    vtable = ctypes.cast(obj, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)))[0]
    fn = ctypes.CFUNCTYPE(restype, ctypes.c_void_p, *argtypes)(vtable[slot])
    return lambda *args: fn(obj, *args)


def _method(obj: int, index: int, restype: Any, *argtypes: Any) -> Any:
    """The ``index``-th method (counted after IUnknown's) of COM object ``obj``."""
    return _slot(obj, _BASE + index, restype, *argtypes)


class _Com:
    """COM objects made in one call, released at its end."""

    def __init__(self) -> None:
        self.objects: list[int] = []

    def __enter__(self) -> _Com:
        return self

    def __exit__(self, *exc: Any) -> None:
        for obj in reversed(self.objects):
            _slot(obj, _RELEASE, ctypes.c_uint32)()

    def keep(self, ptr: ctypes.c_void_p) -> int | None:
        if ptr.value:
            self.objects.append(ptr.value)
        return ptr.value

    def create(self, clsid: str, iid: str) -> int:
        out = ctypes.c_void_p()
        hr = _library().DxcCreateInstance(ctypes.byref(_guid(clsid)), ctypes.byref(_guid(iid)),
                                          ctypes.byref(out))
        if hr != 0 or not out.value:
            raise BackendUnavailable(f"DXC: DxcCreateInstance failed ({hr & 0xffffffff:#x})")
        return self.keep(out)

    def out(self, obj: int, index: int, *args: Any) -> int | None:
        """Call a method whose last parameter receives an object; keep that object."""
        ptr = ctypes.c_void_p()
        types = [type(a) if not isinstance(a, int) else ctypes.c_uint32 for a in args]
        _method(obj, index, ctypes.c_int32, *types, ctypes.POINTER(ctypes.c_void_p))(
            *args, ctypes.byref(ptr))
        return self.keep(ptr)


def _blob(obj: int | None) -> bytes:
    """The bytes of an ``IDxcBlob``."""
    if not obj:
        return b""
    ptr = _method(obj, 0, ctypes.c_void_p)()
    n = _method(obj, 1, ctypes.c_size_t)()
    return ctypes.string_at(ptr, n) if n else b""


def _status(com: _Com, result: int) -> tuple[int, str, bytes]:
    """(status, log, output) of an ``IDxcOperationResult``."""
    status = ctypes.c_int32()
    _method(result, 0, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32))(ctypes.byref(status))
    log = _blob(com.out(result, 2)).decode("utf-8", errors="replace")
    out = _blob(com.out(result, 1)) if status.value == 0 else b""
    return status.value, log, out


def dxc_version() -> tuple[int, int]:
    """(major, minor) of the DXC library."""
    with _lock, _Com() as com:
        info = com.create(_CLSID_COMPILER, _IID_VERSION)
        major, minor = ctypes.c_uint32(), ctypes.c_uint32()
        _method(info, 0, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.byref(major), ctypes.byref(minor))
        return major.value, minor.value


def dxc_error(log: str, source: str, target: str = "spirv") -> CompileError:
    """The ``CompileError`` for DXC's report ``log`` on HLSL ``source``.

    The first error names the place: a Python file through the ``#line``
    directives, else ``kernel.hlsl``, whose line is mapped through the
    ``// file.py:LINE`` comments.
    """
    errors = [m for m in _DIAG.finditer(log) if m.group(4) != "warning"]
    filename = lineno = None
    message = f"DXC rejected the HLSL ({target})"
    if errors:
        where, line, text = errors[0].group(1), int(errors[0].group(2)), errors[0].group(5)
        message = f"DXC: {text.strip()}"
        if os.path.basename(where) == SOURCE_NAME:
            filename, lineno = map_line(source, line)
            message += f" (HLSL line {line})"
        else:
            filename, lineno = where, line
    elif log.strip():
        message = f"DXC: {log.strip().splitlines()[0]}"
    return CompileError(message, target="hlsl", log=log, filename=filename, lineno=lineno,
                        source=source)


def dxc_arguments(source: str, entry: str, target: str, shader_model: str | None = None,
                  enable_16bit: bool | None = None,
                  target_env: str = "vulkan1.1", options: Sequence[str] = ()) -> list[str]:
    """DXC's command line for ``source``: 16-bit types (and shader model 6.2) where the
    source uses them unless told, HLSL 2021, SPIR-V for ``target_env`` or DXIL, then
    ``options`` (more DXC flags, e.g. ``-fvk-t-shift``)."""
    if target not in ("spirv", "dxil"):
        raise ValueError(f"target {target!r}: choose 'spirv' or 'dxil'")
    if enable_16bit is None:
        enable_16bit = _SIXTEEN_BIT.search(source) is not None
    model = shader_model or ("6_2" if enable_16bit else "6_0")
    args = ["-E", entry, "-T", f"cs_{model}", "-HV", "2021"]
    if enable_16bit:
        args.append("-enable-16bit-types")
    if target == "spirv":
        args += ["-spirv", f"-fspv-target-env={target_env}"]
    return args + list(options) + [SOURCE_NAME]


def compile_hlsl(source: str, *, entry: str, target: str = "spirv",
                 shader_model: str | None = None, enable_16bit: bool | None = None,
                 target_env: str = "vulkan1.1", validate: bool = True,
                 options: Sequence[str] = ()) -> bytes:
    """Compile the HLSL compute shader ``source`` (entry point ``entry``) to SPIR-V
    (``target="spirv"``, checked by spirv-val) or DXIL (``"dxil"``, checked by DXC's
    validator); ``shader_model`` like "6_2" (default: 6.0, or 6.2 with 16-bit types);
    ``options``: more DXC flags (the d3d12 device's binding shifts).

    Raises ``BackendUnavailable`` without DXC (or spirv-val, to validate SPIR-V),
    ``CompileError`` (``target="hlsl"``, DXC's log, the Python line) when it fails.
    """
    args = dxc_arguments(source, entry, target, shader_model, enable_16bit, target_env,
                         options)
    if validate and target == "spirv":
        from .glslang import _tool
        _tool("spirv-val")
    data = source.encode("utf-8")
    buf = _Buffer(ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data), 65001)
    argv = (ctypes.c_wchar_p * len(args))(*args)
    with _lock, _Com() as com:
        compiler = com.create(_CLSID_COMPILER, _IID_COMPILER3)
        result = ctypes.c_void_p()
        hr = _method(compiler, 0, ctypes.c_int32, ctypes.POINTER(_Buffer), ctypes.c_void_p,
                     ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p,
                     ctypes.POINTER(ctypes.c_void_p))(
            ctypes.byref(buf), argv, len(args), None, ctypes.byref(_guid(_IID_RESULT)),
            ctypes.byref(result))
        if hr != 0 or not com.keep(result):
            raise CompileError(f"DXC could not run ({hr & 0xffffffff:#x})", target="hlsl",
                               source=source)
        status, log, binary = _status(com, result.value)
    if status != 0 or not binary:
        raise dxc_error(log, source, target)
    if target == "spirv":
        if validate:
            from .glslang import validate_spirv
            validate_spirv(binary, target_env, source, producer="DXC", target="hlsl")
    elif validate:
        validate_dxil(binary, source)
    return binary


def validate_dxil(binary: bytes, source: str = "") -> None:
    """Run DXC's validator on the DXIL container ``binary``; a failure is a CompileError."""
    with _lock, _Com() as com:
        validator = com.create(_CLSID_VALIDATOR, _IID_VALIDATOR)
        utils = com.create(_CLSID_UTILS, _IID_UTILS)
        blob = ctypes.c_void_p()
        # IDxcUtils::CreateBlob(data, size, codepage, out): the 4th method
        _method(utils, 3, ctypes.c_int32, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                ctypes.POINTER(ctypes.c_void_p))(binary, len(binary), 0, ctypes.byref(blob))
        if not com.keep(blob):
            raise CompileError("DXC could not wrap the DXIL for its validator", target="hlsl",
                               source=source)
        result = com.out(validator, 0, ctypes.c_void_p(blob.value), 0)
        status, log, _ = _status(com, result)
    if status != 0:
        raise CompileError("DXC's validator rejected the DXIL", target="hlsl", log=log,
                           source=source)


def dxil_signed(binary: bytes) -> bool:
    """True when the DXIL container carries a validator's hash (zero when unsigned)."""
    return binary[:4] == b"DXBC" and any(binary[4:20])
