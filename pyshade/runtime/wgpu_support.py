"""Finding WebGPU adapters for the wgpu device: wgpu-native's instance made quietly on a
headless machine, the adapters ordered best first, their labels and known driver
limitations. ``wgpu`` is imported lazily, inside ``list_adapters()``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any

from ..errors import BackendUnavailable
from .base import LLVMPIPE_NOTE

__all__ = ["WorkDoneWaiter", "adapter_label", "adapter_note", "is_cpu_adapter", "list_adapters"]

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


def is_cpu_adapter(adapter: Any) -> bool:
    """Whether ``adapter`` is a CPU implementation (lavapipe, SwiftShader)."""
    return getattr(adapter, "info", {}).get("adapter_type") == "CPU"


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


class WorkDoneWaiter:
    """Waits for a wgpu-native device's submitted work by polling, not blocking: asks the
    queue for a callback when everything submitted so far is done, then calls
    ``wgpuDevicePoll`` without waiting (about 1 us each) until the callback has run,
    for at most ``spin_s`` seconds before a blocking wait. Why: a blocking wait costs a
    wake-up and a cold core, as on the vulkan device (``recording.SPIN_WAIT_S``).
    The callback goes through wgpu-native's C API directly: wgpu-py's
    ``on_submitted_work_done`` declares the callback without its message argument.
    ``make()`` returns None where wgpu-native's API is not there to do this."""

    def __init__(self, libf: Any, ffi: Any, lib: Any, device: Any, spin_s: float):
        self._poll = libf.wgpuDevicePoll
        self._on_done = libf.wgpuQueueOnSubmittedWorkDone
        self._ffi = ffi
        self._device = device._internal
        self._queue = device.queue._internal
        self.spin_s = spin_s
        self._done = [0]
        done = self._done

        def work_done(status: Any, message: Any, u1: Any, u2: Any) -> None:
            done[0] += 1        # only a count: the device is not reachable from here

        self._callback = ffi.callback(
            "void(WGPUQueueWorkDoneStatus, WGPUStringView, void *, void *)", work_done)
        self._info = ffi.new("WGPUQueueWorkDoneCallbackInfo *", {
            "mode": lib.WGPUCallbackMode_AllowSpontaneous, "callback": self._callback})
        self._asked = 0

    @classmethod
    def make(cls, device: Any, spin_s: float) -> WorkDoneWaiter | None:
        """A waiter for the wgpu-py ``device``, or None (another wgpu-py, no C API)."""
        try:
            from wgpu.backends.wgpu_native._api import ffi, lib, libf
            return cls(libf, ffi, lib, device, spin_s)
        except Exception:       # noqa: BLE001 - any mismatch: the blocking wait serves
            return None

    def wait(self) -> bool:
        """Poll until the work submitted before this call is done; False when ``spin_s``
        passed first (the caller then waits blocking)."""
        self._asked += 1
        target = self._asked
        self._on_done(self._queue, self._info[0])
        poll, dev, null, done = self._poll, self._device, self._ffi.NULL, self._done
        deadline = time.perf_counter() + self.spin_s
        while done[0] < target:
            poll(dev, False, null)
            if time.perf_counter() > deadline:
                return False
        return True
