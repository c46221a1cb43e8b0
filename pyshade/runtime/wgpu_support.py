"""Finding WebGPU adapters for the wgpu device: wgpu-native's instance made quietly on a
headless machine, the adapters ordered best first, their labels and known driver
limitations. ``wgpu`` is imported lazily, inside ``list_adapters()``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from ..errors import BackendUnavailable
from .base import LLVMPIPE_NOTE

__all__ = ["adapter_label", "adapter_note", "list_adapters"]

# Preference when ordering adapters: "wgpu" ("wgpu:0") is the first one.
_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3}
_BACKEND_RANK = {"Vulkan": 0, "Metal": 0, "D3D12": 0}   # native APIs before OpenGL/D3D11

_backends_chosen = False


def _choose_backends() -> None:
    """Ask wgpu-native for its native backends only (Vulkan, Metal, DX12) before it makes
    its instance: enumerating its OpenGL backend printed EGL's "XDG_RUNTIME_DIR is
    invalid" on every use on a headless Linux machine. ``PYSHADE_WGPU_GL=1`` keeps
    OpenGL. An instance the program already made keeps its own backends."""
    global _backends_chosen
    if _backends_chosen:
        return
    _backends_chosen = True
    backends = ["All"] if os.environ.get("PYSHADE_WGPU_GL") == "1" else \
        ["Vulkan", "Metal", "DX12"]
    try:
        from wgpu.backends.wgpu_native.extras import set_instance_extras
        set_instance_extras(backends=backends)
    except (ImportError, RuntimeError, KeyError):   # older wgpu-py, or an instance exists
        pass


@contextlib.contextmanager
def _no_wayland_probe() -> Iterator[None]:
    """On a machine with no Wayland session, wgpu's Vulkan instance still asks
    libwayland for a display, which prints "error: XDG_RUNTIME_DIR is invalid or not set"
    on every use. An absolute WAYLAND_DISPLAY that does not exist makes that probe fail
    quietly; it is set only while the instance is made, and only when no Wayland
    variable is set (then no display could be found anyway)."""
    quiet = not any(os.environ.get(v) for v in
                    ("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"))
    if quiet:
        os.environ["WAYLAND_DISPLAY"] = "/nonexistent/pyshade-no-wayland"
    try:
        yield
    finally:
        if quiet:
            os.environ.pop("WAYLAND_DISPLAY", None)


def list_adapters() -> list[Any]:
    """Every WebGPU adapter that wgpu-native finds, best first; index N is device ``"wgpu:N"``.

    Order: discrete, integrated, virtual, then CPU adapters; within each, native
    APIs (Vulkan, Metal, D3D12) before OpenGL; ties keep wgpu-native's order,
    which is stable for a given set of drivers. Each call enumerates afresh, so
    every device gets its own adapter object. Raises ``BackendUnavailable``
    without wgpu-py; returns [] when there is no adapter.
    """
    try:
        import wgpu
    except ImportError as exc:
        raise BackendUnavailable("wgpu-py is not installed: pip install 'pyshade[wgpu]'") from exc
    _choose_backends()
    try:
        with _no_wayland_probe():
            found = list(wgpu.gpu.enumerate_adapters_sync())
    except Exception as exc:  # wgpu-native raises plain RuntimeErrors here
        raise BackendUnavailable(f"wgpu could not enumerate adapters ({exc})") from exc

    def rank(adapter: Any) -> tuple[int, int]:
        info = adapter.info
        return (_TYPE_RANK.get(info.get("adapter_type", ""), 4),
                _BACKEND_RANK.get(info.get("backend_type", ""), 1))

    return sorted(found, key=rank)


def adapter_label(adapter: Any) -> str:
    """``"<device> / <backend>"``, e.g. ``"llvmpipe (LLVM 15.0.6, 256 bits) / Vulkan"``."""
    info = adapter.info
    desc = info.get("device") or info.get("description") or info.get("vendor") or "?"
    return f"{desc} / {info.get('backend_type', '?')}"


def adapter_note(adapter: Any) -> str:
    """A known limitation of the adapter's driver that users should know about, or ""."""
    info = adapter.info
    text = " ".join(str(info.get(k, "")) for k in ("device", "description", "vendor")).lower()
    if "llvmpipe" in text:
        return LLVMPIPE_NOTE
    return ""
