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

__all__ = ["compile_source", "map_line", "source_files"]

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


def source_files(emitter: object) -> dict:
    """{base name: full path} of the Python files a kernel's code came from: ``#line``
    directives name files by base name, a caret needs the full path."""
    return {os.path.basename(f.src.filename): f.src.filename
            for f in [emitter.k, *emitter.prog.funcs]}  # type: ignore[attr-defined]


def compile_source(target: str, text: str, emitter: object, validate: object = True) -> tuple:
    """Compile generated ``text`` for ``target``: returns (binary, log).

    WGSL's binary is the text itself (naga compiles it inside wgpu when a
    pipeline is made). ``validate`` is the device whose toolchain checks the
    text first (WGSL: a ``WgpuDevice``, whose naga validates it), or False; a
    bare True asks for a check without naming a device, which a target whose
    toolchain lives in a device refuses. Python's binary is a code object
    whose lines are the user's. GLSL's binary is SPIR-V from glslang (entry point: the
    kernel's name), checked by spirv-val unless ``validate`` is false. CUDA's binary is
    PTX for compute_90 from NVRTC, or a CUBIN when ``validate`` names an architecture
    (``"sm_90"``: what the cuda device passes); NVRTC checks as it compiles. HLSL's is
    SPIR-V from DXC, likewise checked; with ``validate`` DXC's DXIL is made and
    validated too. MSL's is a metallib from ``xcrun metal`` (macOS only); unvalidated, the
    source bytes.
    """
    if target == "wgsl":
        if validate is True:
            raise ValueError("validating WGSL needs the wgpu device whose naga checks it: "
                             "pass it as validate= (ps.compile does)")
        if validate:
            from .naga import validate_wgsl
            validate_wgsl(text, validate)
        return text, ""
    if target == "python":
        return emitter.compile_code(), ""
    if target == "glsl":
        from .glslang import compile_glsl
        entry = emitter.global_name(emitter.k.name)
        return compile_glsl(text, entry=entry, validate=bool(validate)), ""
    if target == "cuda":
        from .nvrtc import compile_cuda
        entry = emitter.global_name(emitter.k.name)
        files = source_files(emitter)
        log: list[str] = []
        # validate "sm_90" (a cuda device's compile_with): a CUBIN for that GPU, which a
        # driver older than this NVRTC loads (it refuses newer PTX); else PTX.
        arch = validate if isinstance(validate, str) else "compute_90"
        return compile_cuda(text, name=f"{entry}.cu", files=files, log=log, arch=arch,
                            cubin=arch.startswith("sm_")), "".join(log)
    if target == "hlsl":
        # SPIR-V, what the vulkan device runs; a check also compiles the DXIL (D3D12's
        # form) and validates both. The d3d12 device compiles its DXIL itself.
        from .dxc import compile_hlsl
        entry = emitter.global_name(emitter.k.name)
        if validate:
            compile_hlsl(text, entry=entry, target="dxil")
        return compile_hlsl(text, entry=entry, target="spirv", validate=bool(validate)), ""
    if target == "msl":
        # A metallib from Apple's compiler: macOS only (BackendUnavailable elsewhere).
        # Without ``validate`` (a device whose runtime compiles MSL source itself, as
        # Metal's newLibraryWithSource does; the tests' stand-in) the binary is the text.
        if not validate:
            return text.encode(), ""
        from .metal import compile_msl
        files = source_files(emitter)
        return compile_msl(text, name=f"{emitter.global_name(emitter.k.name)}.metal",
                           files=files), ""
    from ..errors import BackendUnavailable
    raise BackendUnavailable(f"no toolchain for target {target!r} in this version")
