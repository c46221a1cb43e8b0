"""The one registry of targets.

Each target declares, in one entry, its emitter class, its keyword table, its toolchain
and the file extension of its text. Everything that lists targets reads this registry:
``ps.translate`` and ``ps.compile`` (emitter and toolchain), the Namer (every target's
keywords), ``ps.GPU_TARGETS``, the command line and the golden tests. Entries name their
parts by import path, so that importing pyshade imports no emitter or toolchain.

A new language is one emitter module (with its tables), one keyword module and one
``register(Target(...))`` call; ``tests/test_architecture.py`` adds a throwaway target
that way.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from .errors import PyshadeError

__all__ = ["GPU_TARGETS", "TARGETS", "Target", "UnknownTargetError", "get", "register",
           "unregister"]


class UnknownTargetError(PyshadeError, ValueError):
    """A target name that no registry entry has."""


def _load(path: str) -> Any:
    """The object at ``"package.module:attr"`` (or the module of ``"package.module"``)."""
    module, _, attr = path.partition(":")
    mod = importlib.import_module(module)
    return getattr(mod, attr) if attr else mod


@dataclass(frozen=True)
class Target:
    """One target language.

    ``emitter``: ``"module:Class"`` of its emitter; ``keywords``: the module of its
    reserved words (``KEYWORDS``, ``RESERVED_PREFIXES``, ``RESERVED_SUBSTRINGS``);
    ``toolchain``: ``"module:function"``, called as ``f(compiled, validate)`` with a
    ``Compiled`` whose ``binary`` is still None, returning ``(binary, log)``;
    ``extension``: the file extension of its text; ``gpu``: one of the GPU languages
    (``ps.translate_all``, ``ps.check``). What the frontend asks of a target:
    ``python_semantics``: its operators already mean what Python's do (the python
    target: nothing is routed to ``pyshade.prelude``); ``prints``: ``print()`` works;
    ``float_atomics``: the f32 atomics among add, sub, min and max that its emitter writes
    with the target's own instructions (the others are the prelude's compare-exchange
    loops; f32 exchange and compare-exchange are the emitter's on every target).
    """

    name: str
    emitter: str
    keywords: str
    toolchain: str
    extension: str
    gpu: bool = True
    python_semantics: bool = False
    prints: bool = False
    float_atomics: tuple[str, ...] = ()

    def emitter_class(self) -> type:
        """The emitter class (imported on first use)."""
        return _load(self.emitter)  # type: ignore[no-any-return]

    def keyword_module(self) -> ModuleType:
        """The keyword module (imported on first use)."""
        return _load(self.keywords)  # type: ignore[no-any-return]

    def compile(self) -> Callable[..., tuple]:
        """The toolchain function (imported on first use)."""
        return _load(self.toolchain)  # type: ignore[no-any-return]


_REGISTRY: dict[str, Target] = {}


def register(target: Target) -> Target:
    """Add (or replace) a target; returns it."""
    _REGISTRY[target.name.lower()] = target
    _refresh()
    return target


def unregister(name: str) -> None:
    """Remove a target (tests that register a throwaway one)."""
    _REGISTRY.pop(name.lower(), None)
    _refresh()


def get(name: Any) -> Target:
    """The registry entry of ``name`` (case-insensitive); UnknownTargetError otherwise."""
    t = _REGISTRY.get(name.lower()) if isinstance(name, str) else None
    if t is None:
        raise UnknownTargetError(f"unknown target {name!r}: choose one of {', '.join(TARGETS)}")
    return t


TARGETS: tuple[str, ...] = ()
GPU_TARGETS: tuple[str, ...] = ()


def _refresh() -> None:
    global TARGETS, GPU_TARGETS
    TARGETS = tuple(_REGISTRY)
    GPU_TARGETS = tuple(n for n, t in _REGISTRY.items() if t.gpu)


def _builtin(name: str, emitter: str, toolchain: str, extension: str, **caps: Any) -> None:
    register(Target(name, f"pyshade.emit.{name}:{emitter}", f"pyshade.emit.keywords.{name}",
                    f"pyshade.toolchains.{toolchain}", extension, **caps))


_builtin("wgsl", "WgslEmitter", "naga:compile_target", "wgsl")
_builtin("glsl", "GlslEmitter", "glslang:compile_target", "glsl")
_builtin("hlsl", "HlslEmitter", "dxc:compile_target", "hlsl")
_builtin("msl", "MslEmitter", "metal:compile_target", "metal")
_builtin("cuda", "CudaEmitter", "nvrtc:compile_target", "cu", prints=True,
         float_atomics=("add", "sub"))
_builtin("python", "PythonEmitter", "cpython:compile_target", "py", gpu=False,
         python_semantics=True, prints=True)
