"""Devices: one module per backend behind one Device API (see ``base``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..errors import BackendUnavailable
from .base import Device

BACKENDS = ("cpu", "wgpu", "vulkan", "cuda", "metal", "d3d12")
_PREFERENCE = ("cuda", "wgpu", "vulkan", "metal", "d3d12", "cpu")
_devices: dict[str, Device] = {}
_failures: dict[str, str] = {}


@dataclass
class DeviceInfo:
    """What ``ps.devices()`` reports for one backend."""

    name: str
    backend: str
    adapter: str
    available: bool
    reason: str = ""


def _make(name: str) -> Device:
    if name == "cpu":
        from .cpu import CpuDevice
        return CpuDevice()
    if name == "wgpu":
        from .wgpu import WgpuDevice
        return WgpuDevice()
    if name in BACKENDS:
        raise BackendUnavailable(f"the {name!r} device is not implemented yet in this version "
                                 "of pyshade (available: cpu, wgpu)")
    raise BackendUnavailable(f"unknown device {name!r}: choose one of {', '.join(BACKENDS)}")


def device(name: str | None = None, **options: Any) -> Device:
    """A device by name, or the best available one (``PYSHADE_DEVICE`` overrides)."""
    if options:
        raise BackendUnavailable(f"device options {sorted(options)} are not supported by this "
                                 "version")
    if name is None:
        name = os.environ.get("PYSHADE_DEVICE") or None
    if name is None:
        for cand in _PREFERENCE:
            try:
                return device(cand)
            except BackendUnavailable:
                continue
    if name in _devices:
        return _devices[name]
    if name in _failures:
        raise BackendUnavailable(_failures[name])
    try:
        dev = _make(name)
    except BackendUnavailable as e:
        if name in BACKENDS:
            _failures[name] = str(e)
        raise
    _devices[name] = dev
    return dev


def get_device(dev: Any) -> Device:
    """A Device from a Device, a name or None (the default device)."""
    if isinstance(dev, Device):
        return dev
    return device(dev)


def devices() -> list[DeviceInfo]:
    """Every backend with its adapter, or why it is unavailable."""
    out = []
    for name in BACKENDS:
        try:
            d = device(name)
            out.append(DeviceInfo(name, d.backend, d.adapter, True))
        except BackendUnavailable as e:
            out.append(DeviceInfo(name, name, "", False, str(e)))
    return out
