"""The ``metal`` device: MSL on Apple GPUs through metalcompute. macOS only.

What runs everywhere, and is tested here:

* ``available()``: whether this system can have the device, and why not;
* ``bindings(layout)``: the Metal buffer index of every buffer and of the parameter
  block, as the MSL emitter writes them (``emit/msl.py``: buffer ``i`` at index ``i``,
  the parameter block, when there is one, at index ``len(buffers)``, bound with
  ``setBytes``).

A device built on this must compile with fast math off (``MTLCompileOptions``
``fastMathEnabled = NO``, as ``toolchains/metal.py`` passes ``-fno-fast-math``): Metal's
default reassociates and flushes what the kernel language rounds exactly.

The device itself (arrays and dispatches through metalcompute) is not part of this
version: no Mac was at hand to test it, and the generated MSL is checked here only by
a C++ stand-in (tests/msl_host), not by Apple's compiler. On macOS ``ps.device("metal")``
says so; elsewhere it says Metal is macOS-only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..errors import BackendUnavailable
from .base import Device, Layout

__all__ = ["Bindings", "MetalDevice", "available", "bindings"]

_ELSEWHERE = ("Metal is macOS only: the 'metal' device needs a Mac (Apple GPU, metalcompute); "
              "on this system ps.translate(kernel, \"msl\") still writes the MSL")


def available(platform: str | None = None) -> tuple[bool, str]:
    """(True, "") where the device could exist, else (False, why not)."""
    if (platform or sys.platform) != "darwin":
        return False, _ELSEWHERE
    return False, ("the 'metal' device is not implemented in this version of pyshade (no Mac "
                   "was at hand to test it); the MSL compiles with "
                   "pyshade.toolchains.metal.compile_msl")


class MetalDevice(Device):
    """``ps.device("metal")``: refused with the reason (``available``)."""

    name = backend = "metal"
    target = "msl"

    def __init__(self, index: int = 0):
        ok, why = available()
        if not ok:
            raise BackendUnavailable(why)


@dataclass(frozen=True)
class Bindings:
    """Metal buffer indices: ``buffers[i]`` is the index of the kernel's buffer ``i``;
    ``params`` the index of the parameter block (``setBytes``), or None."""

    buffers: tuple[int, ...]
    params: int | None


def bindings(layout: Layout) -> Bindings:
    """The Metal buffer indices of ``layout``'s buffers and parameter block."""
    n = len(layout.buffers)
    return Bindings(tuple(range(n)), n if layout.params is not None else None)
