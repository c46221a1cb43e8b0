"""The record that translation hands downstream: ``Compiled``, with its ``Requirements``.

Data flows source -> frontend -> emit -> toolchains -> runtime. What leaves ``emit`` is
this plain record, never the emitter: the toolchain of the target reads the text, the
entry point, the source files and the line map from it and fills in ``binary``; a device
binds by its ``layout`` and checks its ``requirements`` before it makes a pipeline.
Toolchains and devices import nothing from ``emit`` (``tests/test_architecture.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import TranslationError
from .interface import Layout

__all__ = ["Compiled", "Location", "Requirements", "check_requirements"]


@dataclass(frozen=True)
class Location:
    """A span of Python source: where a requirement comes from (the caret of its error)."""

    filename: str | None
    lineno: int | None = None
    col_offset: int | None = None
    end_lineno: int | None = None
    end_col_offset: int | None = None

    @classmethod
    def of(cls, filename: str | None, node: Any) -> Location:
        """The span of an AST ``node`` of ``filename``."""
        return cls(filename, getattr(node, "lineno", None), getattr(node, "col_offset", None),
                   getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))

    def error(self, message: str, target: str | None = None) -> TranslationError:
        """A TranslationError at this span."""
        return TranslationError(message, self.filename, self.lineno, self.col_offset,
                                self.end_lineno, self.end_col_offset, target)


@dataclass(frozen=True)
class Requirements:
    """What a kernel needs of the device that runs it.

    ``features``: each device feature the code needs ("f16", "f64", "i64"), with the
    first Python span that needs it. ``shared``: the types of the kernel's shared arrays
    in declaration order (their bytes count against the device's shared memory, from
    ``shared_at``). ``ids``: the invocation ids the kernel reads ("global_id", ...).
    """

    features: tuple[tuple[str, Location], ...] = ()
    shared: tuple = ()
    shared_at: Location | None = None
    #: The shared arrays' Python names, in the order of ``shared`` (the cpu device's
    #: race reports name them).
    shared_names: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    @property
    def shared_bytes(self) -> int:
        """Bytes of workgroup-shared memory the kernel declares."""
        return sum(t.size for t in self.shared)


def check_requirements(req: Requirements, features: Any, limits: dict,
                       adapter: str = "this device", target: str | None = None) -> None:
    """Raise a TranslationError at the first Python span that needs what the device
    lacks: a shader feature not in ``features`` (SwiftShader runs f16 code without it,
    giving zeros), or more shared memory than ``limits["max_compute_shared_memory_size"]``
    (CPU drivers run it anyway). Every device calls this before it makes a pipeline;
    ``features=None`` checks the shared memory only (a device that has every feature)."""
    if features is not None:
        for feat, where in req.features:
            if feat not in features:
                raise where.error(f"{adapter} has no {feat} support in shaders "
                                  f"(device features: {', '.join(sorted(features)) or 'none'}): "
                                  "use another type or device", target)
    limit = limits.get("max_compute_shared_memory_size")
    total = req.shared_bytes
    if limit and total > limit:
        where = req.shared_at or Location(None)
        raise where.error(f"the shared arrays take {total} bytes, more than the {limit} "
                          f"bytes of shared memory {adapter} has", target)


@dataclass
class Compiled:
    """A kernel specialisation translated, and compiled for one target (``ps.compile``'s
    result): what passes from translation to toolchains and devices."""

    target: str
    binary: Any            # bytes (SPIR-V, PTX, DXIL), str (WGSL) or a Python code object
    source: str            # the generated text
    entry: str             # entry point name in ``source``
    layout: Layout
    key: tuple = ()        # (kernel id, specialisation, target): cache key for pipelines
    log: str = ""          # toolchain warnings
    # {base name: full path} of the Python files the code came from (``#line``
    # directives name files by base name; a caret needs the full path).
    files: dict = field(default_factory=dict)
    requirements: Requirements = field(default_factory=Requirements)
    # (name, pyshade type) of every kernel parameter in signature order (buffers as
    # BufferType): the cpu device calls the entry with them.
    params: tuple = ()
    # The Python name -> generated name of each struct (the cpu device builds them).
    names: dict = field(default_factory=dict)
    # Output line (0-based) -> Python line, for toolchains that map every line.
    line_map: tuple = ()
    filename: str = ""     # the kernel's Python file
    lineno: int = 0        # the kernel's ``def`` line
