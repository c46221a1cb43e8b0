"""Emitters: one ``ast.NodeVisitor`` per target writes a Program as source text."""

from __future__ import annotations

from ..errors import BackendUnavailable

TARGETS = ("wgsl", "glsl", "hlsl", "msl", "cuda", "python")
GPU_TARGETS = ("wgsl", "glsl", "hlsl", "msl", "cuda")


def emitter_class(target: str) -> type:
    """The emitter class of ``target``; a clear error for targets not built yet."""
    if target == "wgsl":
        from .wgsl import WgslEmitter
        return WgslEmitter
    if target == "glsl":
        from .glsl import GlslEmitter
        return GlslEmitter
    if target == "cuda":
        from .cuda import CudaEmitter
        return CudaEmitter
    if target == "hlsl":
        from .hlsl import HlslEmitter
        return HlslEmitter
    if target == "msl":
        from .msl import MslEmitter
        return MslEmitter
    if target == "python":
        from .python import PythonEmitter
        return PythonEmitter
    if target in TARGETS:
        raise BackendUnavailable(f"the {target!r} emitter is not implemented yet in this version "
                                 "of pyshade (available: wgsl, glsl, hlsl, msl, cuda, python)")
    raise ValueError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
