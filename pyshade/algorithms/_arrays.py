"""What the algorithms take and give back: one 1-D array on one device.

Every algorithm resolves its input to an ``Operand`` (the device, a 1-D device array
there, and whether the caller gave host data), records its launches on that device,
and hands back ``give(op, result)``: the device array itself, or its values as a
numpy array when the input was numpy (numpy in, numpy out). CuPy arrays and torch
CUDA tensors are adopted by the cuda device in place (no copy), so their results
stay on the GPU too.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

import pyshade as ps

#: The element types every algorithm takes.
DTYPES = (np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32))


@dataclass
class Operand:
    """A resolved input: ``array`` is a 1-D device array on ``device``; ``host`` says
    the caller passed host data and wants numpy back; ``given`` is what was passed."""

    device: ps.Device
    array: ps.DeviceArray
    host: bool
    given: Any

    @property
    def n(self) -> int:
        """Number of elements."""
        return int(self.array.size)

    @property
    def dtype(self) -> np.dtype:
        """Element dtype (one of ``DTYPES``)."""
        return np.dtype(self.array.dtype)


def resolve_device(device: Any) -> ps.Device:
    """``device`` as a Device: a Device, a name, or None for the best available."""
    return device if isinstance(device, ps.Device) else ps.device(device)


def operand(x: Any, device: Any, fn: str) -> Operand:
    """Resolve ``x`` for algorithm ``fn``.

    A device array stays where it is (``device``, if given, must be its device); a
    CuPy array or torch CUDA tensor is adopted by ``device`` (default ``"cuda"``)
    without a copy; anything else is taken as host data (``numpy.asarray``) and
    uploaded to ``device`` (default: the best available). TypeError unless the
    result is a 1-D uint32, int32 or float32 array; ValueError for a device that is
    not the array's."""
    from ..launch.binder import is_foreign_array
    if isinstance(x, ps.DeviceArray):
        dev = x.device
        if device is not None and resolve_device(device) is not dev:
            raise ValueError(f"{fn}(): the array lives on {dev.name!r}, device={device!r} "
                             f"was given (leave device out, or copy the array there)")
        op = Operand(dev, x, False, x)
    elif is_foreign_array(x):
        dev = device if isinstance(device, ps.Device) else ps.device(device or "cuda")
        adopt = getattr(dev, "adopt", None)
        if adopt is None:
            raise TypeError(f"{fn}(): a {type(x).__name__} lives on a GPU that {dev.name} "
                            f"cannot use in place: pass device='cuda'")
        op = Operand(dev, adopt(x), False, x)
    else:
        host = np.asarray(x)
        _check(fn, host.dtype, host.shape)
        dev = resolve_device(device)
        op = Operand(dev, dev.array(np.ascontiguousarray(host)), True, x)
    _check(fn, op.array.dtype, op.array.shape)
    return op


def _check(fn: str, dtype: Any, shape: tuple[int, ...]) -> None:
    if len(shape) != 1 or np.dtype(dtype) not in DTYPES:
        raise TypeError(f"{fn}() needs a 1-D uint32, int32 or float32 array, got "
                        f"{np.dtype(dtype)} with shape {tuple(shape)}")


def give(op: Operand, result: ps.DeviceArray) -> Any:
    """What an algorithm returns: ``result`` as numpy when the input was host data,
    else the device array itself."""
    return result.numpy() if op.host else result


def groups_for(n: int, per_group: int) -> int:
    """Workgroups needed to cover ``n`` items, ``per_group`` each (at least one)."""
    return max(1, -(-n // per_group))


# Intermediate arrays, per device: {(thread, tag): array}. See ``scratch``.
_SCRATCH: weakref.WeakKeyDictionary[ps.Device, dict[tuple[int, str], ps.DeviceArray]] = \
    weakref.WeakKeyDictionary()
_SCRATCH_LOCK = threading.Lock()


def scratch(dev: ps.Device, tag: str, n: int, dtype: Any, zeroed: bool = False) -> ps.DeviceArray:
    """An intermediate array of ``n`` elements of ``dtype`` (contents unspecified), the
    same one as the last call with this device, thread and ``tag`` when the length and
    type match. Why: a large allocation costs more than the work that uses it (a 64 MiB
    buffer takes milliseconds through wgpu on NVIDIA, where the whole radix sort of 2^24
    keys takes a few). Reuse is safe because every use is a launch recorded on the
    device's one queue, in order, by one thread; one array per tag and thread is kept,
    so what stays allocated is the last call's intermediates, freed with the device.
    ``zeroed``: a new array is made with ``dev.zeros`` (a caller that keeps it zero
    between calls drops it with ``drop_scratch`` when it cannot)."""
    key = (threading.get_ident(), tag)
    dt = np.dtype(dtype)
    with _SCRATCH_LOCK:
        held = _SCRATCH.setdefault(dev, {})
        a = held.get(key)
        if a is None or a.size != n or np.dtype(a.dtype) != dt:
            held.pop(key, None)                 # the old one goes before the new is made
            a = dev.zeros(n, dt) if zeroed else dev.empty(n, dt)
            held[key] = a
        return a


def drop_scratch(dev: ps.Device, tag: str) -> None:
    """Forget this thread's ``scratch`` array ``tag`` of ``dev``: the next call makes a new one."""
    with _SCRATCH_LOCK:
        _SCRATCH.get(dev, {}).pop((threading.get_ident(), tag), None)
