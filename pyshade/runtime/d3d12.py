"""The ``d3d12`` device: Direct3D 12 compute through compushady, DXIL from DXC.

On Windows this is D3D12: compushady's ``d3d12`` backend runs the kernel's HLSL compiled
to DXIL by ``pyshade.toolchains.dxc``. **It has never run there**: no Windows machine was
at hand. What runs in CI is the same device code on compushady's *Vulkan* backend
(lavapipe, SwiftShader) with DXC's SPIR-V of the same HLSL: the backend name and the
shader format are behind one seam (``_backend()``, ``d3d12_support.shader_binary``), which
tests set to "vulkan" together with ``_platform()``. Everything else (arrays, staging,
register binding, the parameter block as a constant buffer, group counts in the block,
pipeline caching, dispatch, read-back, the layout refusal) is the code Windows would run.

Written against compushady 0.17.5's generic API (``compushady/__init__.py`` and
``backends/{vulkan,d3d12}.cpp`` of that release):

- Devices are the backend module's ``get_discovered_devices()``, ordered as compushady's
  ``get_best_device`` ranks them (hardware, then discrete, then video memory): ``"d3d12"``
  is compushady's best device, ``"d3d12:N"`` the N-th. The device loads the backend module
  itself and passes ``device=`` to every object: compushady's own choice of backend
  (``compushady.config``, ``COMPUSHADY_BACKEND``) is process-wide and fixed at its first
  ``get_backend()``, so it is neither read nor changed here (a process may use compushady
  with another backend as well).
- Arrays are ``Buffer(size, HEAP_DEFAULT, stride=itemsize)`` (device-local; the stride
  makes D3D12's views structured, ``NumElements = size / stride``), at least one element
  (compushady refuses empty buffers). Uploads go through a ``HEAP_UPLOAD`` buffer of the
  array's size (``copy_to`` copies the whole source, which must not be larger than the
  destination), read-backs through a ``HEAP_READBACK`` buffer at least as large.
- ``Compute(shader, cbv=, srv=, uav=)`` binds its resources when it is made, so pipelines
  are cached per (kernel specialisation, arrays bound): a bounded LRU
  (``COMPUTE_CACHE_SIZE``) of Compute objects, each with its parameter block in a
  ``HEAP_UPLOAD`` buffer bound as the constant buffer ``b0`` (or, for a block over 128
  bytes, the next ``t`` register), rewritten before a dispatch whose parameters differ.
  A cached Compute keeps its arrays' GPU memory alive until it is evicted.
- ``dispatch`` (and ``copy_to``) submit and wait for the GPU in compushady 0.17.5 (D3D12:
  a fence; Vulkan: ``vkQueueWaitIdle``); it has no call that records several dispatches
  (the multi-dispatch and indirect calls of later versions are not in 0.17.5). So every
  launch has finished when ``launch`` returns: ``batch()`` runs its launches in order,
  each seeing the writes of those before it, ``flush()`` and ``synchronize()`` have
  nothing to wait for, and a launch costs one submission (slower than the recording
  devices for many small launches).
- A kernel whose fields D3D12 would place elsewhere than the canonical layout
  (``layout_problems``) is refused with a ``CompileError`` naming each field.

Without Windows ``ps.device("d3d12")`` says D3D12 is Windows-only; the same HLSL runs
here with ``ps.device("vulkan", via="hlsl")`` (pyshade's own Vulkan binding).
"""

from __future__ import annotations

import importlib
import itertools
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cache import LRU
from ..errors import BackendUnavailable, CompileError, LaunchError
from .base import (
    Compiled,
    Device,
    DeviceArray,
    check_requirements,
    check_target,
    choose_adapter,
    host_data,
    shape_bytes,
    shape_tuple,
    with_group_counts,
)
from .d3d12_support import Bindings, bindings, layout_problems, resource_lists, shader_binary

__all__ = ["Bindings", "D3D12Array", "D3D12Device", "available", "bindings",
           "layout_problems", "list_adapters"]

_ELSEWHERE = ("the d3d12 device needs Windows (Direct3D 12); on this system run the same "
              "HLSL with ps.device(\"vulkan\", via=\"hlsl\")")
_NO_COMPUSHADY = ("the d3d12 device needs compushady (Direct3D 12 from Python, with DXC): "
                  "pip install 'pyshade[hlsl]'")
PROGRAM_CACHE_SIZE = 256      # shader binaries per (kernel, specialisation)
COMPUTE_CACHE_SIZE = 256      # Compute objects per (specialisation, arrays bound)
STAGING_CACHE_SIZE = 8        # upload buffers, by size
# D3D12's groupshared limit (D3D12_CS_TGSM_REGISTER_COUNT 8192 registers of 4 bytes);
# compushady reports no limits or shader capabilities of its devices.
SHARED_MEMORY = 32768

_ids = itertools.count()


def _platform() -> str:
    """``sys.platform`` (a function so that a test can pretend to be on Windows)."""
    return sys.platform


def _backend() -> str:
    """The compushady backend the device runs on: "d3d12" (tests: "vulkan", see the
    module docstring)."""
    return "d3d12"


def _compushady(backend: str) -> tuple[Any, Any]:
    """compushady and its ``backend`` module; BackendUnavailable without them."""
    try:
        import compushady
        module = importlib.import_module(f"compushady.backends.{backend}")
    except ImportError as e:
        raise BackendUnavailable(f"{_NO_COMPUSHADY} ({e})") from None
    return compushady, module


def list_adapters() -> list[Any]:
    """compushady's devices on the device's backend, its best first; BackendUnavailable
    off Windows or without compushady."""
    if _platform() != "win32":
        raise BackendUnavailable(_ELSEWHERE)
    _, module = _compushady(_backend())
    found = list(module.get_discovered_devices())
    # compushady.get_best_device's ranking, best first (a stable sort keeps its order)
    found.sort(key=lambda d: (d.is_hardware, d.is_discrete, d.dedicated_video_memory),
               reverse=True)
    return found


def available() -> tuple[bool, str]:
    """(True, "") where the device can be made (Windows, compushady with DXC, a D3D12
    adapter), else (False, why not)."""
    if _platform() != "win32":
        return False, _ELSEWHERE
    try:
        from ..toolchains.dxc import library_path
        library_path()
        if not list_adapters():
            return False, "compushady found no Direct3D 12 adapter"
    except BackendUnavailable as e:
        return False, str(e)
    return True, ""


class D3D12Array(DeviceArray):
    """A 1-D array in one device-local compushady ``Buffer`` holding the raw C-order bytes."""

    def __init__(self, device: D3D12Device, buf: Any, dtype: np.dtype, shape: tuple[int, ...]):
        self.device = device
        self.buf = buf                    # compushady.Buffer (HEAP_DEFAULT)
        self.uid = next(_ids)             # never reused, unlike id(): keys cached Computes
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)

    def numpy(self) -> np.ndarray:
        """Copy the array to the host (every launch before it has finished)."""
        if self.nbytes == 0:
            return np.empty(self.shape, dtype=self.dtype)
        return self.device._read(self).view(self.dtype).reshape(self.shape)

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents with ``data`` (same dtype and number of elements)."""
        raw = self._writable(data)
        if raw.size:
            self.device._write(self, raw)


class _Program:
    """A kernel specialisation's shader on this device and how to bind it."""

    __slots__ = ("uid", "binary", "entry", "lists", "block", "groups_at")


class _Bound:
    """A Compute object of one program and set of arrays, with its parameter buffer."""

    __slots__ = ("compute", "params", "last")


class D3D12Device(Device):
    """A Direct3D 12 adapter through compushady (see the module docstring).

    Attributes: ``name`` ("d3d12" or "d3d12:N"), ``adapter`` (label), ``via`` (the
    compushady backend: "d3d12", or "vulkan" on the test route), ``kind`` ("discrete
    GPU", "GPU" or "software"), ``limits``.
    """

    backend = "d3d12"
    target = "hlsl"

    def __init__(self, index: int = 0):
        ok, why = available()
        if not ok:
            raise BackendUnavailable(why)
        self.via = _backend()
        self.cs, _ = _compushady(self.via)
        d = self.cs_device = choose_adapter(list_adapters(), index, "d3d12", "D3D12 adapter",
                                            lambda a: a.name)
        self.index = index
        self.name = "d3d12" if index == 0 else f"d3d12:{index}"
        self.kind = "discrete GPU" if d.is_discrete else "GPU" if d.is_hardware else "software"
        api = "Direct3D 12" if self.via == "d3d12" else f"compushady's {self.via} backend"
        self.adapter = f"{d.name} ({self.kind}, {api})"
        # D3D12's fixed compute limits (D3D12_CS_*): the base class's defaults, which are
        # CUDA's, are the same numbers.
        self.limits = {"max_compute_shared_memory_size": SHARED_MEMORY}
        self._lock = threading.RLock()    # compushady's device has one command list
        self._programs = LRU(PROGRAM_CACHE_SIZE)
        self._computes = LRU(COMPUTE_CACHE_SIZE)
        self._uploads = LRU(STAGING_CACHE_SIZE)
        self._readback: Any = None

    # ---- arrays ------------------------------------------------------------------------

    def _buffer(self, size: int, heap: int, stride: int = 0) -> Any:
        try:
            return self.cs.Buffer(size, heap, stride=stride, device=self.cs_device)
        except Exception as e:            # compushady.BufferException, a driver's failure
            raise LaunchError(f"compushady could not allocate a buffer of {size} bytes on "
                              f"{self.adapter}: {e}") from None

    def _new(self, shape: tuple[int, ...], dtype: np.dtype) -> D3D12Array:
        buf = self._buffer(max(shape_bytes(shape, dtype), dtype.itemsize), self.cs.HEAP_DEFAULT,
                           dtype.itemsize)
        return D3D12Array(self, buf, dtype, shape)

    def array(self, data: Any, dtype: Any = None) -> D3D12Array:
        """Upload ``data`` (array-like) and return a ``D3D12Array`` of the same shape."""
        host = host_data(data, dtype)
        out = self._new(host.shape, host.dtype)
        if host.size:
            self._write(out, host.reshape(-1).view(np.uint8))
        return out

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> D3D12Array:
        """An array with unspecified contents."""
        return self._new(shape_tuple(shape), np.dtype(dtype))

    def _write(self, arr: D3D12Array, raw: np.ndarray) -> None:
        """Write ``raw`` at the start of ``arr`` (an upload buffer of its size, copied)."""
        size = arr.buf.size
        with self._lock:
            up = self._uploads.get_or_make(
                size, lambda: self._buffer(size, self.cs.HEAP_UPLOAD), self._lock)
            up.upload(raw.tobytes())
            up.copy_to(arr.buf)           # submits and waits

    def _read(self, arr: D3D12Array) -> np.ndarray:
        """The first ``arr.nbytes`` bytes of ``arr``, as a new uint8 array."""
        size = arr.buf.size
        with self._lock:
            rb = self._readback
            if rb is None or rb.size < size:
                rb = self._readback = self._buffer(max(size, 2 * (rb.size if rb else 0)),
                                                   self.cs.HEAP_READBACK)
            arr.buf.copy_to(rb)           # submits and waits
            return np.frombuffer(rb.readback(arr.nbytes), np.uint8).copy()

    # ---- kernels -----------------------------------------------------------------------

    def prepare(self, compiled: Compiled) -> _Program:
        """The shader of ``compiled`` for this device (compiled by DXC once per device)."""
        key = compiled.key or compiled.source
        return self._programs.get_or_make(key, lambda: self._make_program(compiled),
                                          self._lock)

    def _make_program(self, compiled: Compiled) -> _Program:
        check_target(compiled, "hlsl", "d3d12")
        # Refused, not run with shifted fields: D3D12 would read them elsewhere.
        problems = layout_problems(compiled.layout)
        if problems:
            raise CompileError(
                f"'{compiled.entry}' cannot run on the d3d12 device: D3D12 lays out "
                "these fields otherwise than every other target (pad the struct, use "
                "vec4 instead of vec3 or mat3, or another device):\n  "
                + "\n  ".join(problems), target="hlsl", filename=compiled.filename or None,
                lineno=compiled.lineno or None, source=compiled.source)
        # The shared memory limit only: compushady reports no shader capabilities (a
        # kernel the driver cannot run fails there, as a LaunchError).
        check_requirements(compiled.requirements, None, self.limits, self.adapter, "hlsl")
        layout = compiled.layout
        b = bindings(layout)
        prog = _Program()
        prog.uid = next(_ids)
        prog.binary = shader_binary(compiled.source, compiled.entry, b, self.via)
        prog.entry = compiled.entry
        prog.lists = resource_lists(b, len(layout.buffers), self.via)
        pb = layout.params
        prog.block = pb.size if pb is not None else 0
        prog.groups_at = pb.groups if pb is not None and pb.groups >= 0 else None
        return prog

    # The public entry point checks what the launch path would (prepare/run_prepared).
    launch_compiled = Device.checked_launch

    def _bind(self, prog: _Program, buffers: Sequence[Any], key: tuple) -> _Bound:
        """A Compute of ``prog`` over ``buffers`` (and a new parameter buffer), cached."""
        res = [arr.buf for arr in buffers]
        bound = _Bound()
        bound.params = bound.last = None
        if prog.block:
            # stride: a storage-form block is a structured buffer of one element
            bound.params = self._buffer(prog.block, self.cs.HEAP_UPLOAD, prog.block)
            res.append(bound.params)
        cbv, srv, uav = ([res[i] for i in lst] for lst in prog.lists)
        try:
            bound.compute = self.cs.Compute(prog.binary, cbv=cbv, srv=srv, uav=uav,
                                            device=self.cs_device)
        except Exception as e:            # compushady raises plain Exceptions here
            raise LaunchError(f"compushady could not make a pipeline of '{prog.entry}' on "
                              f"{self.adapter}: {e}") from None
        return self._computes.put(key, bound)

    def run_prepared(self, prog: _Program, buffers: Sequence[DeviceArray],
                     params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Dispatch once and wait for it (arguments already checked by the launch path)."""
        if prog.groups_at is not None:
            params = with_group_counts(params or b"", prog.groups_at, groups)
        key = (prog.uid, *(arr.uid for arr in buffers))  # type: ignore[attr-defined]
        with self._lock:
            bound = self._computes.get(key) or self._bind(prog, buffers, key)
            if bound.params is not None:
                raw = bytes(params or b"")    # a copy: the binder may reuse its buffer
                if raw != bound.last:
                    bound.params.upload(raw)
                    bound.last = raw
            try:
                bound.compute.dispatch(*groups)
            except Exception as e:
                raise LaunchError(f"compushady could not dispatch '{prog.entry}' on "
                                  f"{self.adapter}: {e}") from None

    def synchronize(self) -> None:
        """Nothing to wait for: compushady's ``dispatch`` returns when the GPU is done."""

    def __repr__(self) -> str:
        return f"<pyshade.Device {self.name} via={self.via!r}: {self.adapter}>"
