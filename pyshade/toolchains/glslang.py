"""glslang: GLSL compute shaders -> SPIR-V for Vulkan, checked by spirv-val.

The tools are run as subprocesses with an argument list (never a shell), on
files in a temporary directory that is removed afterwards:

* ``glslangValidator -V --target-env vulkan1.1 -S comp`` compiles;
* ``spirv-val --target-env vulkan1.1`` validates its output.

A kernel's module (``compile_target``) first gets ``NoContraction`` on every float
operation (``spirv.no_contraction``): Vulkan drivers may not fuse a * b + c; then
``spirv-opt`` inlines, promotes and propagates constants (``optimize_spirv``): SwiftShader
gets some unfolded modules wrong.

Errors name the Python line. Generated GLSL carries
``#extension GL_GOOGLE_cpp_style_line_directive : require`` and
``#line LINE "file.py"`` directives, so glslang itself reports
``ERROR: file.py:LINE: message``; for GLSL without them, the reported GLSL
line is mapped through the ``// file.py:LINE`` comments (``map_line``).

The SPIR-V entry point is named ``entry``; the GLSL source always defines
``void main()`` (GLSL requires it), renamed with ``--source-entrypoint``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from typing import Any

from ..errors import BackendUnavailable, CompileError
from . import map_line
from .spirv import no_contraction

__all__ = ["SPIRV_MAGIC", "compile_glsl", "glslang_error", "validate_spirv"]

SPIRV_MAGIC = 0x07230203
# Debian packages that provide each tool, for the BackendUnavailable message.
_PACKAGES = {"glslangValidator": "glslang-tools", "spirv-val": "spirv-tools",
             "spirv-opt": "spirv-tools"}
_STAGES = ("comp",)
# Tools time out rather than hang a launch forever on a pathological input.
TIMEOUT_S = 120

# "ERROR: FILE:LINE: message". FILE may hold colons (Windows paths): the last
# ":digits:" before the message is the line. glslang also writes "ERROR: N
# compilation errors." summaries, which do not match (no ":LINE:").
_ERROR = re.compile(r"^(ERROR|WARNING): (.*?):(\d+): (.*)$", re.MULTILINE)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackendUnavailable(
            f"{name} is not installed (it compiles GLSL for the vulkan device): "
            f"apt-get install {_PACKAGES[name]}")
    return path


def _run(args: list[str], cwd: str, target: str = "glsl",
         source: str = "") -> subprocess.CompletedProcess:
    try:
        return subprocess.run(args, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
    except FileNotFoundError as exc:        # removed between which() and run()
        raise BackendUnavailable(f"{args[0]} could not be run: {exc}") from None
    except subprocess.TimeoutExpired:
        # spirv-opt inlines every call: a kernel of thousands of GLSL lines whose helper
        # and prelude calls grow it twentyfold took 145 s (a fuzzer kernel)
        raise CompileError(f"{os.path.basename(args[0])} did not finish within "
                           f"{TIMEOUT_S} s on this {target} kernel (too large once its "
                           f"helper calls are inlined? split it into smaller kernels)",
                           target=target, source=source) from None


def glslang_error(log: str, source: str, shader_file: str = "") -> CompileError:
    """The ``CompileError`` for glslang's report ``log`` on GLSL ``source``.

    The first ``ERROR: FILE:LINE:`` names the place: a Python file when the
    source has ``#line`` directives, else the shader file itself, whose line is
    mapped through the ``// file.py:LINE`` comments.
    """
    errors = [m for m in _ERROR.finditer(log) if m.group(1) == "ERROR"]
    # glslang ends with "'' : compilation terminated" at the same place: skip it.
    first = next((m for m in errors if "compilation terminated" not in m.group(4)),
                 errors[0] if errors else None)
    filename = lineno = None
    message = "glslang rejected the GLSL"
    if first is not None:
        where, line, text = first.group(2), int(first.group(3)), first.group(4).strip()
        message = f"glslang: {text}"
        if shader_file and os.path.basename(where) == os.path.basename(shader_file) \
                or where in ("", "0"):
            filename, lineno = map_line(source, line)
            message += f" (GLSL line {line})"
        else:
            filename, lineno = where, line
    return CompileError(message, target="glsl", log=log, filename=filename, lineno=lineno,
                        source=source)


def validate_spirv(binary: bytes, target_env: str = "vulkan1.1", source: str = "",
                   producer: str = "glslang", target: str = "glsl") -> None:
    """Run spirv-val on ``binary`` (made by ``producer`` from ``target`` code); a failure
    is a ``CompileError`` with its log."""
    val = _tool("spirv-val")
    with tempfile.TemporaryDirectory(prefix="pyshade-spv-") as tmp:
        path = os.path.join(tmp, "kernel.spv")
        with open(path, "wb") as f:
            f.write(binary)
        r = _run([val, "--target-env", target_env, path], tmp, target, source)
    if r.returncode != 0:
        log = (r.stdout + r.stderr).replace(path, "kernel.spv")
        raise CompileError(f"spirv-val rejected the SPIR-V that {producer} produced",
                           target=target, log=log, source=source)


# The spirv-opt passes run on every vulkan module (``optimize_spirv``): inline every call,
# promote locals to SSA values, propagate constants, remove what is dead. Not ``-O``: its
# instruction folding in SPIRV-Tools 2023.1 (Debian 12) rewrites ``-(c / x)`` of unsigned
# integers as ``(-c) / x`` (``-(1 // x)`` of a u32 gave ``0xFFFFFFFF // x``), and
# ``--ccp`` folds only to constants, which is what SwiftShader needs.
SPIRV_OPT_PASSES = ("--inline-entry-points-exhaustive", "--eliminate-dead-functions",
                    "--eliminate-local-single-block", "--eliminate-local-single-store",
                    "--ssa-rewrite", "--ccp", "--eliminate-dead-code-aggressive")


def optimize_spirv(binary: bytes, target_env: str = "vulkan1.1", source: str = "",
                   producer: str = "glslang", target: str = "glsl") -> bytes:
    """``binary`` through spirv-opt's ``SPIRV_OPT_PASSES``, after ``no_contraction``
    (the decorations keep every float operation as written: SPIRV-Tools folds no float
    operation decorated ``NoContraction``). Why: SwiftShader (Chromium 156's, Subzero)
    computes wrong integer results from some modules whose constants it only finds by its
    own folding (``max(b[i] * 0, 3) ** 2``, a helper with a loop, gave 1), on both routes;
    glslang's modules and DXC's ``-O0`` ones reach it unfolded otherwise
    (``bench/probes/swiftshader_unoptimised_probe.py``)."""
    opt = _tool("spirv-opt")
    with tempfile.TemporaryDirectory(prefix="pyshade-spv-") as tmp:
        src, out = os.path.join(tmp, "in.spv"), os.path.join(tmp, "out.spv")
        with open(src, "wb") as f:
            f.write(binary)
        r = _run([opt, *SPIRV_OPT_PASSES, f"--target-env={target_env}", src, "-o", out], tmp,
                 target, source)
        if r.returncode != 0 or not os.path.exists(out):
            raise CompileError(f"spirv-opt rejected the SPIR-V that {producer} produced",
                               target=target, log=r.stdout + r.stderr, source=source)
        with open(out, "rb") as f:
            return f.read()


def compile_glsl(source: str, stage: str = "comp", target_env: str = "vulkan1.1",
                 defines: Mapping[str, object] | None = None, entry: str = "main",
                 validate: bool = True, exact: bool = False) -> bytes:
    """Compile GLSL ``source`` to SPIR-V bytes (entry point ``entry``), validated by spirv-val;
    ``exact``: every float operation ``NoContraction`` (``spirv.no_contraction``).

    ``defines`` become ``-DNAME=VALUE`` preprocessor macros (``None`` values:
    ``-DNAME``). Raises ``BackendUnavailable`` when glslangValidator or
    spirv-val is missing, ``CompileError`` (``target="glsl"``, the tool's log,
    ``filename``/``lineno`` of the Python line) when either rejects the code.
    """
    if stage not in _STAGES:
        raise ValueError(f"stage {stage!r}: only compute shaders ({_STAGES}) are supported")
    glslang = _tool("glslangValidator")
    if validate:
        _tool("spirv-val")
    args = [glslang, "-V", "--target-env", target_env, "-S", stage]
    for name, value in (defines or {}).items():
        if not re.fullmatch(r"[A-Za-z_]\w*", str(name)):
            raise ValueError(f"invalid macro name {name!r}")
        args.append(f"-D{name}" if value is None else f"-D{name}={value}")
    if entry != "main":
        args += ["-e", entry, "--source-entrypoint", "main"]
    with tempfile.TemporaryDirectory(prefix="pyshade-glsl-") as tmp:
        src = os.path.join(tmp, f"kernel.{stage}")
        out = os.path.join(tmp, "kernel.spv")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        r = _run(args + ["-o", out, src], tmp, "glsl", source)
        log = (r.stdout + r.stderr).replace(src, f"kernel.{stage}")
        if r.returncode != 0 or not os.path.exists(out):
            raise glslang_error(log, source, f"kernel.{stage}")
        with open(out, "rb") as f:
            binary = f.read()
    if len(binary) < 20 or int.from_bytes(binary[:4], "little") != SPIRV_MAGIC:
        raise CompileError("glslang wrote no SPIR-V module", target="glsl", log=log,
                           source=source)
    if exact:
        binary = optimize_spirv(no_contraction(binary), target_env, source)
    if validate:
        validate_spirv(binary, target_env, source)
    return binary


def compile_target(compiled: Any, validate: object) -> tuple[bytes, str]:
    """The GLSL toolchain of the target registry: SPIR-V from glslang (entry point: the
    kernel's) with every float operation ``NoContraction``, checked by spirv-val unless
    ``validate`` is false."""
    return compile_glsl(compiled.source, entry=compiled.entry, validate=bool(validate),
                        exact=True), ""


def toolchain_id() -> str:
    """glslangValidator's, spirv-val's and spirv-opt's identity, for the persistent cache."""
    from . import file_identity
    return file_identity(_tool("glslangValidator"), _tool("spirv-val"), _tool("spirv-opt"))
