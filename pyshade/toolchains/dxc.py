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

Outside Windows the library is loaded by a helper process (``toolchains/dxc_com.py``
as a script, one per process, started at the first call, talking over a pipe), not
here: at ``exit()`` DXC's ``DllShutdown`` can lock freed memory and never return, which
hung a CI run after its last test; the helper leaves with ``os._exit`` when the pipe
closes. ``PYSHADE_DXC_IN_PROCESS=1`` loads it here instead.

Errors name the Python line: generated HLSL carries ``#line N "file.py"``
directives, so DXC reports ``file.py:N:COL: error: ...``; for HLSL without them
the reported line of ``kernel.hlsl`` is mapped through the ``// file.py:LINE``
comments (``map_line``).

Validation:

* SPIR-V: ``spirv-val --target-env vulkan1.1`` (as for glslang's output). A kernel's
  module (``compile_target``) is compiled with ``-O0`` (spirv-opt's folding turns a
  division by a constant into a multiplication by its reciprocal wherever no ``precise``
  reaches it) and then gets ``NoContraction`` on every float operation
  (``spirv.no_contraction``) and spirv-opt's constant propagation
  (``glslang.optimize_spirv``), as glslang's does.
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

import atexit
import importlib.util
import os
import platform
import re
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import BackendUnavailable, CompileError
from . import dxc_com, map_line

__all__ = ["compile_hlsl", "dxc_error", "dxc_version", "dxil_signed", "library_path",
           "validate_dxil"]

INSTALL = "pip install 'pyshade[hlsl]' (the compushady package, which ships DXC)"
SOURCE_NAME = "kernel.hlsl"
# Types whose use needs -enable-16bit-types and shader model 6.2.
_SIXTEEN_BIT = re.compile(r"\b(?:float16_t|u?int16_t)\d?(?:x\d)?\b")
# "FILE:LINE:COL: error: message"; FILE may hold colons (Windows paths).
_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (fatal error|error|warning): (.*)$", re.MULTILINE)
_UNSIGNED = "warning: DXIL.dll not found"

_lock = threading.Lock()      # one call at a time: DXC keeps LLVM state per process
_helper: Any = None           # the helper process (Popen), started at the first call


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


def _in_process() -> bool:
    """Whether DXC runs in this process: on Windows (``dxcompiler.dll``; the exit problem
    below is the Linux library's) or with ``PYSHADE_DXC_IN_PROCESS=1``."""
    return sys.platform == "win32" or os.environ.get("PYSHADE_DXC_IN_PROCESS") == "1"


def _start_helper(path: str) -> Any:
    # -I: the helper needs the standard library only, and no user site or PYTHONPATH
    # entry may shadow it; stderr is shared (DXC's warnings reach the user as before).
    proc = subprocess.Popen([sys.executable, "-I", dxc_com.__file__, path],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    proc.owner = os.getpid()     # type: ignore[attr-defined]  (a fork starts its own)
    return proc


def _stop_helper() -> None:
    """Close the helper's pipe (it leaves with ``os._exit``) and reap it."""
    global _helper
    proc, _helper = _helper, None
    if proc is None or getattr(proc, "owner", None) != os.getpid():
        return
    try:
        proc.stdin.close()
        proc.wait(timeout=5)
    except Exception:  # noqa: BLE001  (at exit: never raise; the helper dies with its pipe)
        proc.kill()


def _call(op: str, *args: Any) -> Any:
    """Run DXC operation ``op`` of ``dxc_com`` (under ``_lock``): in the helper process
    (see ``dxc_com``: DXC's own exit code can hang a process on Linux), or here."""
    global _helper
    path = library_path()
    if _in_process():
        try:
            return dxc_com.OPS[op](path, *args)
        except dxc_com.DxcFailure as exc:
            raise BackendUnavailable(f"DXC: {exc}: {INSTALL}") from None
    for attempt in (0, 1):
        if _helper is None or _helper.poll() is not None or _helper.owner != os.getpid():
            _helper = _start_helper(path)
            atexit.register(_stop_helper)
        try:
            dxc_com.write_frame(_helper.stdin, (op, args))
            reply = dxc_com.read_frame(_helper.stdout)
        except (BrokenPipeError, OSError):
            reply = None
        if reply is not None:
            break
        code = _helper.wait()
        _helper = None
        if attempt:     # it died on this request twice: DXC crashed on the input
            raise CompileError(f"DXC's helper process died on this input (exit code "
                               f"{code}): DXC crashed", target="hlsl",
                               source=args[0] if op == "compile" else "")
    status, value = reply
    if status == "err":
        raise BackendUnavailable(f"DXC: {value}: {INSTALL}")
    return value


def dxc_version() -> tuple[int, int]:
    """(major, minor) of the DXC library."""
    with _lock:
        return tuple(_call("version"))  # type: ignore[return-value]


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
                 options: Sequence[str] = (), exact: bool = False) -> bytes:
    """Compile the HLSL compute shader ``source`` (entry point ``entry``) to SPIR-V
    (``target="spirv"``, checked by spirv-val) or DXIL (``"dxil"``, checked by DXC's
    validator); ``shader_model`` like "6_2" (default: 6.0, or 6.2 with 16-bit types);
    ``options``: more DXC flags (the d3d12 device's binding shifts); ``exact``: every float
    operation of the SPIR-V ``NoContraction`` (``spirv.no_contraction``), and DXC's SPIR-V
    optimiser off (``-O0``; legalisation still runs): spirv-opt's folding rewrites ``x /
    C`` as ``x * (1 / C)``, up to 1 ulp off, wherever the division reaches no ``precise``
    declaration (a helper-call argument, a condition, an index:
    ``bench/probes/dxc_reciprocal_probe.py``); the driver optimises the module anyway.

    Raises ``BackendUnavailable`` without DXC (or spirv-val, to validate SPIR-V),
    ``CompileError`` (``target="hlsl"``, DXC's log, the Python line) when it fails.
    """
    if exact and target == "spirv":
        options = ["-O0", *options]
    args = dxc_arguments(source, entry, target, shader_model, enable_16bit, target_env,
                         options)
    if validate and target == "spirv":
        from .glslang import _tool
        _tool("spirv-val")
    with _lock:
        status, log, binary = _call("compile", source, args)
    if status != 0 or not binary:
        raise dxc_error(log, source, target)
    if target == "spirv":
        if exact:
            from .glslang import optimize_spirv
            from .spirv import no_contraction
            binary = optimize_spirv(no_contraction(binary), target_env, source, "DXC", "hlsl")
        if validate:
            from .glslang import validate_spirv
            validate_spirv(binary, target_env, source, producer="DXC", target="hlsl")
    elif validate:
        validate_dxil(binary, source)
    return binary


def validate_dxil(binary: bytes, source: str = "") -> None:
    """Run DXC's validator on the DXIL container ``binary``; a failure is a CompileError."""
    with _lock:
        status, log = _call("validate", binary)
    if status != 0:
        raise CompileError("DXC's validator rejected the DXIL", target="hlsl", log=log,
                           source=source)


def dxil_signed(binary: bytes) -> bool:
    """True when the DXIL container carries a validator's hash (zero when unsigned)."""
    return binary[:4] == b"DXBC" and any(binary[4:20])


def compile_target(compiled: Any, validate: object) -> tuple[bytes, str]:
    """The HLSL toolchain of the target registry: SPIR-V from DXC (what the vulkan device
    runs), every float operation ``NoContraction``; a check (``validate``) also compiles
    the DXIL (D3D12's form) and validates both. The d3d12 device compiles its own DXIL
    from the source."""
    if validate:
        compile_hlsl(compiled.source, entry=compiled.entry, target="dxil")
    return compile_hlsl(compiled.source, entry=compiled.entry, target="spirv",
                        validate=bool(validate), exact=True), ""


def toolchain_id() -> str:
    """The DXC library's and spirv-opt's identity, for the persistent cache."""
    from . import file_identity
    from .glslang import _tool
    return file_identity(library_path(), _tool("spirv-opt"))
