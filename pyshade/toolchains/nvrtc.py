"""NVRTC: CUDA C++ -> PTX or CUBIN, in process, through cuda-python's bindings.

``cuda.bindings.nvrtc`` (the ``cuda-python`` package) loads ``libnvrtc`` itself:
``cuda.pathfinder`` finds the ``nvidia-cuda-nvrtc`` wheel's library in
site-packages (``nvidia/cu13/lib``), else a CUDA toolkit (``CUDA_PATH``/
``CUDA_HOME``, the system's). NVRTC has no standard headers; the one header
pyshade's code may include, ``cuda_fp16.h`` (f16 kernels only), comes from the
``nvidia-cuda-runtime`` wheel, found the same way. ``bench/probes/nvrtc_probe.py``
shows where each piece was found. No GPU is needed to compile.

Options (``OPTIONS``), each for Python's semantics or a stable result:

* ``--fmad=false``: no contraction of ``a * b + c`` into a fused multiply-add,
  which rounds once where numpy (and the CPU device) round twice; ``ps.fma``
  still fuses, being an explicit ``fma``.
* ``--prec-div=true --prec-sqrt=true --ftz=false``: IEEE division and square
  root, subnormals kept (NVRTC's defaults, spelled out so that no default
  change can flip them).
* ``-std=c++17``: the dialect the generated code is written in.

Errors name the Python line: generated CUDA carries ``#line N "file.py"``, so
NVRTC reports ``file.py(N): error: ...``; for CUDA without them the reported
line is mapped through the ``// file.py:LINE`` comments (``map_line``).

PTX or CUBIN: a ``compute_XX`` target gives PTX, which the driver compiles at
load time, but only a driver at least as new as this NVRTC reads its PTX ISA
version: NVRTC 13.5 writes ISA 9.5, and the H200's 580 driver (CUDA 13.0)
refuses it ("the provided PTX was compiled with an unsupported toolchain"),
while the ``sm_90`` CUBIN of the same source loads and runs
(``bench/probes/cuda_launch_probe.py``). A runtime should load ``cubin=True``
for the device's own architecture.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import BackendUnavailable, CompileError
from . import map_line

__all__ = ["OPTIONS", "compile_cuda", "nvrtc_error", "nvrtc_version"]

OPTIONS = ("--fmad=false", "--prec-div=true", "--prec-sqrt=true", "--ftz=false", "-std=c++17")
INSTALL = "pip install 'pyshade[cuda]' (cuda-python, nvidia-cuda-nvrtc, nvidia-cuda-runtime)"
# "FILE(LINE): error: message" (also "catastrophic error"); FILE may hold parentheses.
_ERROR = re.compile(r"^(.*)\((\d+)\): (?:catastrophic )?error: (.*)$", re.MULTILINE)
_ARCH = re.compile(r"^(compute|sm)_(\d+[a-z]?)$")


def _nvrtc() -> Any:
    """The ``cuda.bindings.nvrtc`` module with its library loaded, or BackendUnavailable."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        try:
            from cuda import nvrtc  # cuda-python 11.x/12.0 layout
        except ImportError:
            raise BackendUnavailable(f"NVRTC is not installed (it compiles CUDA C++ for the "
                                     f"cuda device): {INSTALL}") from None
    try:
        _check(nvrtc, nvrtc.nvrtcVersion())
    except BackendUnavailable:
        raise
    except Exception as exc:       # libnvrtc missing or of another major version
        raise BackendUnavailable(f"cuda-python found no usable libnvrtc ({exc}): {INSTALL}; "
                                 "the majors of cuda-python and the NVRTC wheel must "
                                 "match") from None
    return nvrtc


def _check(nvrtc: Any, result: tuple) -> tuple:
    """The values of an NVRTC call's result tuple; a failure raises RuntimeError."""
    err, *rest = result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, text = nvrtc.nvrtcGetErrorString(err)
        raise RuntimeError(text.decode() if isinstance(text, bytes) else str(text))
    return tuple(rest)


def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    nvrtc = _nvrtc()
    major, minor = _check(nvrtc, nvrtc.nvrtcVersion())
    return int(major), int(minor)


def include_dirs(source: str) -> list[str]:
    """The include directories ``source`` needs: the CUDA runtime headers (for
    ``cuda_fp16.h``) when it includes one."""
    if "#include" not in source:
        return []
    try:
        from cuda.pathfinder import find_nvidia_header_directory
        found = find_nvidia_header_directory("cudart")
    except ImportError:
        found = None
    if not found:
        raise BackendUnavailable(f"the CUDA runtime headers (cuda_fp16.h, for f16) are not "
                                 f"installed: {INSTALL}")
    return [found]


def nvrtc_error(log: str, source: str, program: str,
                files: Mapping[str, str] | None = None) -> CompileError:
    """The ``CompileError`` for NVRTC's ``log`` on ``source`` (compiled as ``program``).

    The first error names the place: a Python file through the ``#line``
    directives (``files`` maps a base name to its full path), else the program
    itself, whose line is mapped through the ``// file.py:LINE`` comments.
    """
    first = _ERROR.search(log)
    filename = lineno = None
    message = "NVRTC rejected the CUDA C++"
    if first is not None:
        where, line, text = first.group(1), int(first.group(2)), first.group(3).strip()
        message = f"nvrtc: {text}"
        if os.path.basename(where) == os.path.basename(program):
            filename, lineno = map_line(source, line)
            message += f" (CUDA line {line})"
        else:
            filename, lineno = (files or {}).get(where, where), line
    return CompileError(message, target="cuda", log=log, filename=filename, lineno=lineno,
                        source=source)


def compile_cuda(source: str, *, arch: str = "compute_90", cubin: bool = False,
                 name: str = "kernel.cu", options: Iterable[str] = (),
                 files: Mapping[str, str] | None = None, log: list | None = None) -> bytes:
    """Compile CUDA C++ ``source`` with NVRTC: PTX text (as bytes, NUL removed) for
    ``arch`` ``compute_XX``, or with ``cubin=True`` an ELF CUBIN for ``sm_XX`` (a
    ``compute_XX`` arch is taken as its ``sm_XX``).

    ``name`` is the program's file name in NVRTC's messages, ``options`` extra NVRTC
    options after ``OPTIONS``, ``files`` maps the base names of ``#line`` directives to
    full paths for the error; ``log``, a list, receives NVRTC's log (warnings). Raises
    ``BackendUnavailable`` when NVRTC is missing, ``CompileError`` (``target="cuda"``,
    NVRTC's log, the Python ``filename``/``lineno``) when it rejects the code.
    """
    m = _ARCH.match(arch)
    if m is None:
        raise ValueError(f"arch {arch!r}: expected compute_XX (PTX) or sm_XX (CUBIN)")
    gpu = f"{'sm' if cubin else 'compute'}_{m.group(2)}"
    nvrtc = _nvrtc()
    opts = [f"--gpu-architecture={gpu}", *OPTIONS, *(f"-I{d}" for d in include_dirs(source)),
            *options]
    (prog,) = _check(nvrtc, nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []))
    try:
        result = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        # NVRTC writes into the buffer: a bytearray, never bytes (``b" " * 1`` is CPython's
        # shared one-byte object, and an empty log would overwrite it with a NUL).
        (size,) = _check(nvrtc, nvrtc.nvrtcGetProgramLogSize(prog))
        buf = bytearray(max(size, 1))
        _check(nvrtc, nvrtc.nvrtcGetProgramLog(prog, buf))
        text = bytes(buf).rstrip(b"\0").decode(errors="replace")
        if log is not None:
            log.append(text)
        if result[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise nvrtc_error(text, source, name, files)
        get_size, get = ((nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if cubin else
                         (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX))
        (size,) = _check(nvrtc, get_size(prog))
        out = bytearray(max(size, 1))
        _check(nvrtc, get(prog, out))
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return bytes(out).rstrip(b"\0") if not cubin else bytes(out)


def compile_target(compiled: Any, validate: object) -> tuple[bytes, str]:
    """The CUDA toolchain of the target registry: PTX for compute_90 from NVRTC, or a
    CUBIN when ``validate`` names an architecture (``"sm_90"``: what the cuda device
    passes, so that a driver older than this NVRTC loads it; it refuses newer PTX).
    NVRTC checks as it compiles; its warnings are the log."""
    log: list[str] = []
    arch = validate if isinstance(validate, str) else "compute_90"
    binary = compile_cuda(compiled.source, name=f"{compiled.entry}.cu", files=compiled.files,
                          log=log, arch=arch, cubin=arch.startswith("sm_"))
    return binary, "".join(log)


def toolchain_id() -> str:
    """NVRTC's identity for the persistent cache, found without loading NVRTC (loading
    it took most of a warm start's time): the files of cuda-python's NVRTC binding and
    of the NVRTC wheel, and the variables that point the binding at a CUDA toolkit. An
    NVRTC replaced in place where none of those change is not noticed: clear the cache
    directory (or set ``PYSHADE_CACHE=0``) after such an upgrade."""
    import glob
    import importlib.util

    from . import file_identity
    parts = []
    # Top-level packages only: find_spec of a submodule would import its parents (the
    # binding's __init__ costs as much as loading NVRTC).
    for top, pattern in (("cuda", "bindings/nvrtc*"), ("nvidia", "cuda_nvrtc/lib/*nvrtc*")):
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        for loc in (spec.submodule_search_locations or []) if spec else []:
            parts += [file_identity(f) for f in sorted(glob.glob(os.path.join(loc, pattern)))]
    env = [f"{v}={os.environ.get(v, '')}" for v in ("CUDA_HOME", "CUDA_PATH",
                                                    "LD_LIBRARY_PATH")]
    return "nvrtc " + " ".join(parts + env)
