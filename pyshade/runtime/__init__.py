"""Devices: one module per backend behind one Device API (see ``base``)."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

from .. import targets
from ..errors import BackendUnavailable
from .base import Device

BACKENDS = ("cpu", "wgpu", "vulkan", "cuda", "metal", "d3d12")
_PREFERENCE = ("cuda", "wgpu", "vulkan", "metal", "d3d12", "cpu")
_devices: dict[str, Device] = {}
_failures: dict[str, str] = {}


@dataclass
class DeviceInfo:
    """What ``ps.devices()`` reports for one device (one adapter of a backend).

    ``note`` names a known limitation of the adapter's driver (e.g. llvmpipe's
    loop limit), or is "". ``via`` lists the languages the device can run kernels
    from (``ps.device(name, via=...)``), its default first: ``("glsl", "hlsl")``
    for a vulkan adapter where DXC is installed.
    """

    name: str
    backend: str
    adapter: str
    available: bool
    reason: str = ""
    note: str = ""
    via: tuple = ()


def _split(name: str) -> tuple[str, int]:
    """``"wgpu:1"`` -> ``("wgpu", 1)``; ``"wgpu"`` -> ``("wgpu", 0)``."""
    backend, sep, index = name.partition(":")
    if not sep:
        return name, 0
    if backend in BACKENDS and index.isdigit():
        return backend, int(index)
    raise BackendUnavailable(f"unknown device {name!r}: choose one of {', '.join(BACKENDS)}, "
                             "optionally with an adapter index (\"wgpu:1\")")


def _canonical(name: str) -> str:
    """The cache key and ``Device.name`` of a device name: index 0 is the bare backend."""
    backend, index = _split(name)
    return backend if index == 0 else f"{backend}:{index}"


# backend -> "module:class" of its device (imported when the first one is made)
_DEVICE_CLASSES = {"cpu": "cpu:CpuDevice", "wgpu": "wgpu:WgpuDevice",
                   "vulkan": "vulkan:VulkanDevice", "cuda": "cuda:CudaDevice",
                   "metal": "metal:MetalDevice", "d3d12": "d3d12:D3D12Device"}


def _make(name: str, via: str | None = None, races: bool = True) -> Device:
    backend, index = _split(name)
    if via is not None and backend != "vulkan":
        raise BackendUnavailable(f"via={via!r}: only the vulkan device compiles kernels from "
                                 "another language (glsl, hlsl)")
    if backend == "cpu" and index:
        raise BackendUnavailable(f"there is no device {name!r}: the cpu backend has one")
    path = _DEVICE_CLASSES.get(backend)
    if path is None:
        raise BackendUnavailable(f"unknown device {name!r}: choose one of {', '.join(BACKENDS)}")
    module, _, cls_name = path.partition(":")
    cls = getattr(importlib.import_module(f"{__name__}.{module}"), cls_name)
    if backend == "cpu":
        return cls(races=races)  # type: ignore[no-any-return]
    if backend == "vulkan":
        return cls(index=index, via=via or "glsl")  # type: ignore[no-any-return]
    return cls(index=index)  # type: ignore[no-any-return]


def device(name: str | None = None, *, via: str | None = None, races: bool | None = None,
           **options: Any) -> Device:
    """A device by name, or the best available one (``PYSHADE_DEVICE`` overrides).

    ``via`` picks the language the vulkan device compiles kernels from: "glsl"
    (glslang, the default) or "hlsl" (DXC). Each (name, via) is one device.

    ``races`` is the cpu device's data-race detector, on by default: a launch in
    which two invocations access one element, at least one writing, with no barrier
    (in one workgroup) or atomics ordering them raises ``LaunchError`` naming both.
    ``ps.device("cpu", races=False)`` is the cpu device without the check (faster);
    arrays of either cpu device work on the other.
    """
    if options:
        raise BackendUnavailable(f"device options {sorted(options)} are not supported by this "
                                 "version")
    if races is not None:
        if not isinstance(races, bool):
            raise BackendUnavailable(f"races={races!r}: expected True or False")
        if name is None or _split(name)[0] != "cpu" or via is not None:
            raise BackendUnavailable(f"races={races!r}: only the cpu device checks for data "
                                     "races (ps.device(\"cpu\", races=False))")
        if not races:
            return _cached("cpu races=False", lambda: _make(name, races=False), "cpu")
    if via is not None:
        if name is None:
            raise BackendUnavailable(f"via={via!r} needs a device name (\"vulkan\")")
        if via == "glsl" and _split(name)[0] == "vulkan":
            via = None                  # the default route: the same device
        key = f"{_canonical(name)} via {via}" if via is not None else _canonical(name)
        if via is not None:
            return _cached(key, lambda: _make(name, via), _split(name)[0])
    if name is None:
        name = os.environ.get("PYSHADE_DEVICE") or None
    if name is None:
        for cand in _PREFERENCE:
            try:
                dev = device(cand)
                # a device whose language has no target cannot run a kernel
                targets.get(dev.target)
                return dev
            except (BackendUnavailable, targets.UnknownTargetError):
                continue
    name = _canonical(name)
    return _cached(name, lambda: _make(name), _split(name)[0])


def _cached(key: str, make: Any, backend: str) -> Device:
    """The device cached under ``key``, else ``make()``'s (a failure is cached too)."""
    if key in _devices:
        return _devices[key]
    if key in _failures:
        raise BackendUnavailable(_failures[key])
    try:
        dev = make()
    except BackendUnavailable as e:
        if backend in BACKENDS:     # not arbitrary unknown names: the cache stays small
            _failures[key] = str(e)
        raise
    _devices[key] = dev
    return dev


def get_device(dev: Any) -> Device:
    """A Device from a Device, a name or None (the default device)."""
    if isinstance(dev, Device):
        return dev
    return device(dev)


def _adapter_count(backend: str) -> int:
    """How many adapters a backend has (1 when it cannot tell, so that its row says why)."""
    if backend == "wgpu":
        from .wgpu import list_adapters
    elif backend == "vulkan":
        from .vulkan_support import list_adapters  # type: ignore[assignment]
    elif backend == "metal":
        from .metal import list_adapters  # type: ignore[assignment]
    elif backend == "cuda":
        from .cuda import device_count
        try:
            return max(1, device_count())
        except BackendUnavailable:
            return 1
    else:
        return 1
    try:
        return max(1, len(list_adapters()))
    except BackendUnavailable:
        return 1


class DeviceList(list):
    """``ps.devices()``'s list of ``DeviceInfo`` rows, shown as a table (``print``, the
    REPL and notebooks)."""

    _HEAD = ("device", "available", "adapter / reason", "via", "note")

    def _rows(self) -> list[tuple[str, ...]]:
        return [(d.name, "yes" if d.available else "no",
                 d.adapter if d.available else (d.reason.splitlines() or [""])[0],
                 ", ".join(d.via), d.note) for d in self]

    def __str__(self) -> str:
        rows = [self._HEAD, *self._rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(self._HEAD))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                         for r in rows)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        import html
        cells = lambda r, tag: "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in r)  # noqa: E731
        return ("<table><tr>" + cells(self._HEAD, "th") + "</tr>"
                + "".join(f"<tr>{cells(r, 'td')}</tr>" for r in self._rows()) + "</table>")


def devices() -> DeviceList:
    """One row per adapter of every backend (``"wgpu"``, ``"wgpu:1"``, ...), or why a
    backend is unavailable: a list of ``DeviceInfo`` that prints as a table."""
    out = DeviceList()
    for backend in BACKENDS:
        for index in range(_adapter_count(backend)):
            name = backend if index == 0 else f"{backend}:{index}"
            try:
                d = device(name)
                out.append(DeviceInfo(name, d.backend, d.adapter, True,
                                      note=getattr(d, "note", ""), via=_routes(d)))
            except BackendUnavailable as e:
                out.append(DeviceInfo(name, backend, "", False, str(e)))
    return out


def _routes(d: Device) -> tuple:
    """The languages device ``d`` runs kernels from: its own, and for vulkan HLSL where
    DXC is installed."""
    if d.backend != "vulkan":
        return (d.target,)
    try:
        from ..toolchains.dxc import library_path
        library_path()
    except BackendUnavailable:
        return ("glsl",)
    return ("glsl", "hlsl")
