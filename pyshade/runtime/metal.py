"""The ``metal`` device: MSL on Apple GPUs through PyObjC's Metal bindings. macOS only.

Written against PyObjC's Metal API (``pyobjc-framework-Metal``, import name ``Metal``;
``pip install 'pyshade[metal]'``). It has been exercised on Linux only, through the fake
Metal module of ``tests/fake_metal.py`` (whose library compile runs the MSL through the
C++ stand-in of ``tests/msl_host.py``); it has never run on Apple hardware, and Apple's
compiler has never seen its MSL. Every Metal call goes through the module that
``_metal_module()`` returns: that function is the seam a test replaces.

- ``ps.device("metal")`` is ``MTLCreateSystemDefaultDevice()``; ``"metal:N"`` the N-th of
  ``MTLCopyAllDevices()`` with the default first (``list_adapters``). One command queue
  per device.
- Arrays are ``MTLBuffer``\\ s in ``MTLResourceStorageModeShared`` memory (unified on
  Apple silicon), at least 16 bytes: the host reads and writes them through a numpy view
  of ``contents().as_buffer(length)``, after waiting for the GPU work recorded before.
- Kernels: the launch path asks for no toolchain check (``compile_with = False``), so the
  MSL text is compiled here, at run time, by ``newLibraryWithSource:options:error:`` with
  fast math off (``MTLCompileOptions.mathMode = MTLMathModeSafe`` where the SDK has it,
  else ``fastMathEnabled = NO``: Metal's default fast math reassociates and flushes what
  the kernel language rounds exactly). A compile failure is a ``CompileError`` whose
  Python line comes from the log (the MSL's ``#line`` directives), as with ``xcrun metal``
  (``toolchains/metal.compile_error``). Pipelines are cached per (kernel, specialisation).
- A launch binds buffer ``i`` with ``setBuffer:offset:atIndex:`` at Metal index ``i`` and
  the parameter block with ``setBytes:length:atIndex:`` at index ``len(buffers)``
  (``bindings``; a block over setBytes' 4 KiB limit travels in a buffer of its own), and
  dispatches ``dispatchThreadgroups:threadsPerThreadgroup:`` with the kernel's workgroup
  size. Group counts above 65535 fold into y and z as on the other devices.
- Launches are recorded into one command buffer with one serial compute encoder
  (``MTLDispatchTypeSerial``: each dispatch sees the writes of those before it), which is
  committed in chunks (``recording``), when the outermost ``batch()`` exits, at
  ``flush()``, and when the host needs a result; ``synchronize()`` commits and waits
  (``waitUntilCompleted``) for every committed command buffer. Command buffers of one
  queue run in order.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cache import LRU
from ..errors import BackendUnavailable, CompileError, LaunchError
from .base import (
    Compiled,
    Device,
    DeviceArray,
    Layout,
    check_requirements,
    check_target,
    choose_adapter,
    host_data,
    shape_bytes,
    shape_tuple,
    with_group_counts,
)
from .recording import Recording

__all__ = ["Bindings", "MetalArray", "MetalDevice", "available", "bindings", "list_adapters"]

_ELSEWHERE = ("Metal is macOS only: the 'metal' device needs a Mac (Apple GPU, PyObjC's "
              "Metal bindings); on this system ps.translate(kernel, \"msl\") still writes the MSL")
_NO_PYOBJC = ("the metal device needs PyObjC's Metal bindings: pip install 'pyshade[metal]' "
              "(the package pyobjc-framework-Metal)")
PIPELINE_CACHE_SIZE = 256
# Committed command buffers before the host waits for the oldest (bounds what the GPU
# lags behind); setBytes takes at most 4 KiB (Apple's documented limit).
MAX_IN_FLIGHT = 16
SET_BYTES_LIMIT = 4096


def _platform() -> str:
    """``sys.platform`` (a function so that a test can pretend to be on macOS)."""
    return sys.platform


def _metal_module() -> Any:
    """PyObjC's ``Metal`` module: every Metal call of this device goes through what this
    returns (the seam tests replace with ``tests/fake_metal``)."""
    try:
        import Metal  # type: ignore[import-not-found]
    except ImportError as e:
        raise BackendUnavailable(f"{_NO_PYOBJC}: {e}") from None
    return Metal


def list_adapters() -> list[Any]:
    """The Metal devices (``MTLDevice`` objects), the system default first;
    ``BackendUnavailable`` off macOS or without PyObjC."""
    if _platform() != "darwin":
        raise BackendUnavailable(_ELSEWHERE)
    M = _metal_module()
    default = M.MTLCreateSystemDefaultDevice()
    found = [default] if default is not None else []
    ids = {d.registryID() for d in found}
    for d in list(M.MTLCopyAllDevices() or ()):
        if d.registryID() not in ids:      # the default device is in the list too
            found.append(d)
            ids.add(d.registryID())
    return found


def available(platform: str | None = None) -> tuple[bool, str]:
    """(True, "") where the device can be made (macOS, PyObjC's Metal, a Metal device),
    else (False, why not)."""
    if (platform or _platform()) != "darwin":
        return False, _ELSEWHERE
    try:
        M = _metal_module()
    except BackendUnavailable as e:
        return False, str(e)
    if M.MTLCreateSystemDefaultDevice() is None and not list(M.MTLCopyAllDevices() or ()):
        return False, "Metal reports no GPU on this Mac (MTLCreateSystemDefaultDevice is nil)"
    return True, ""


@dataclass(frozen=True)
class Bindings:
    """Metal buffer indices: ``buffers[i]`` is the index of the kernel's buffer ``i``;
    ``params`` the index of the parameter block (``setBytes``), or None."""

    buffers: tuple[int, ...]
    params: int | None


def bindings(layout: Layout) -> Bindings:
    """The Metal buffer indices of ``layout``'s buffers and parameter block (the MSL
    emitter's convention, ``emit/msl.py``)."""
    n = len(layout.buffers)
    return Bindings(tuple(range(n)), n if layout.params is not None else None)


class MetalArray(DeviceArray):
    """A 1-D array in one shared-storage ``MTLBuffer`` holding the raw C-order bytes."""

    def __init__(self, device: MetalDevice, buf: Any, host: np.ndarray, dtype: np.dtype,
                 shape: tuple[int, ...]):
        self.device = device
        self.buf = buf          # the MTLBuffer
        self.host = host        # uint8 view of its contents (unified memory)
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)

    def numpy(self) -> np.ndarray:
        """Copy the array to the host (after the launches recorded before it)."""
        with self.device._lock:
            self.device._finish()
            raw = self.host[:self.nbytes].copy()
        return raw.view(self.dtype).reshape(self.shape)

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents (same dtype and size), after the launches recorded before
        it and before those recorded after it."""
        raw = self._writable(data)
        with self.device._lock:
            self.device._finish()        # no recorded or running launch may use it now
            self.host[:raw.size] = raw


class _Prepared:
    """A compute pipeline and what a dispatch of it needs."""

    __slots__ = ("pso", "entry", "threads", "buffers", "params", "groups_at")


class MetalDevice(Recording, Device):
    """An Apple GPU through PyObjC's Metal (see the module docstring)."""

    backend = "metal"
    target = "msl"

    def __init__(self, index: int = 0):
        ok, why = available()
        if not ok:
            raise BackendUnavailable(why)
        self.M = _metal_module()
        dev = self.mtl_device = choose_adapter(list_adapters(), index, "metal", "Metal device",
                                               lambda d: d.name())
        self.index = index
        self.name = "metal" if index == 0 else f"metal:{index}"
        self.unified_memory = bool(dev.hasUnifiedMemory())
        self.adapter = (f"{dev.name()} (Metal, "
                        f"{'unified' if self.unified_memory else 'discrete'} memory)")
        mt = dev.maxThreadsPerThreadgroup()
        self.max_workgroup_size = (int(mt.width), int(mt.height), int(mt.depth))
        # Per pipeline Metal may allow fewer (maxTotalThreadsPerThreadgroup, checked in
        # prepare); 1024 is every Apple GPU's device-wide limit.
        self.max_workgroup_invocations = 1024
        self.limits = {"max_compute_shared_memory_size": int(dev.maxThreadgroupMemoryLength()),
                       "max_buffer_length": int(dev.maxBufferLength())}
        self.features = {"f16", "i64"}    # MSL has half and long; no double
        self.queue = dev.newCommandQueue()
        if self.queue is None:
            raise BackendUnavailable(f"{self.adapter}: newCommandQueue returned nil")
        self._init_lock()
        self._pipelines = LRU(PIPELINE_CACHE_SIZE)
        self._cb: Any = None              # the command buffer being recorded
        self._enc: Any = None             # its compute encoder
        self._recorded = 0
        self._bound: Any = None           # the pipeline bound on the encoder
        self._keep: list[Any] = []        # parameter buffers of the recorded command buffer
        self._in_flight: deque[tuple[Any, list[Any]]] = deque()
        self._prepare_lock = threading.Lock()

    # ---- arrays ------------------------------------------------------------------------

    def _new(self, shape: tuple[int, ...], dtype: np.dtype) -> MetalArray:
        nbytes = shape_bytes(shape, dtype)
        length = max(16, nbytes)           # a zero-length MTLBuffer is nil
        if length > self.limits["max_buffer_length"]:
            raise LaunchError(f"an array of {nbytes} bytes exceeds {self.adapter}'s "
                              f"maxBufferLength ({self.limits['max_buffer_length']})")
        buf = self.mtl_device.newBufferWithLength_options_(length,
                                                           self.M.MTLResourceStorageModeShared)
        if buf is None:
            raise LaunchError(f"Metal could not allocate a buffer of {length} bytes on "
                              f"{self.adapter}")
        host = np.frombuffer(buf.contents().as_buffer(length), np.uint8)
        return MetalArray(self, buf, host, dtype, shape)

    def array(self, data: Any, dtype: Any = None) -> MetalArray:
        """Upload ``data`` (array-like) and return a ``MetalArray`` of the same shape."""
        host = host_data(data, dtype)
        out = self._new(host.shape, host.dtype)
        # a new buffer: no recorded launch uses it yet, so no wait
        out.host[:host.nbytes] = host.reshape(-1).view(np.uint8)
        return out

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> MetalArray:
        """An array with unspecified contents (Metal zero-fills new buffers)."""
        return self._new(shape_tuple(shape), np.dtype(dtype))

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> MetalArray:
        """A zero-filled array."""
        out = self.empty(shape, dtype)
        out.host[:] = 0        # newBufferWithLength zero-fills; not relied on
        return out

    # ---- kernels -----------------------------------------------------------------------

    def prepare(self, compiled: Compiled) -> _Prepared:
        """The compute pipeline of ``compiled`` (compiled from its MSL once per device)."""
        key = compiled.key or compiled.source
        return self._pipelines.get_or_make(key, lambda: self._make_prepared(compiled), self._prepare_lock)

    def _compile_options(self) -> Any:
        M = self.M
        opts = M.MTLCompileOptions.alloc().init()
        if hasattr(opts, "setMathMode_"):      # macOS 15 SDK: fastMathEnabled deprecated
            opts.setMathMode_(M.MTLMathModeSafe)
        else:
            opts.setFastMathEnabled_(False)
        return opts

    def _make_prepared(self, compiled: Compiled) -> _Prepared:
        from ..toolchains.metal import compile_error
        check_target(compiled, "msl", "metal")
        # shared memory over the device's, f16 where it lacks it
        check_requirements(compiled.requirements, self.features, self.limits, self.adapter,
                           "msl")
        files = compiled.files or None
        dev = self.mtl_device
        lib, err = dev.newLibraryWithSource_options_error_(compiled.source,
                                                           self._compile_options(), None)
        if lib is None:
            log = str(err.localizedDescription()) if err is not None else "(no log)"
            raise compile_error(f"Metal rejected the MSL of '{compiled.entry}' on "
                                f"{self.adapter}", log, compiled.source, files)
        fn = lib.newFunctionWithName_(compiled.entry)
        if fn is None:
            raise CompileError(f"the Metal library has no kernel '{compiled.entry}'",
                               target="msl", source=compiled.source)
        pso, err = dev.newComputePipelineStateWithFunction_error_(fn, None)
        if pso is None:
            log = str(err.localizedDescription()) if err is not None else "(no log)"
            raise compile_error(f"Metal could not make a pipeline of '{compiled.entry}'",
                                log, compiled.source, files)
        layout = compiled.layout
        bx, by, bz = layout.workgroup_size
        most = int(pso.maxTotalThreadsPerThreadgroup())
        if bx * by * bz > most:
            raise LaunchError(f"{compiled.entry}(): workgroup_size {layout.workgroup_size} has "
                              f"{bx * by * bz} invocations; this pipeline on {self.adapter} "
                              f"allows at most {most} (maxTotalThreadsPerThreadgroup)")
        prep = _Prepared()
        prep.pso = pso
        prep.entry = compiled.entry
        prep.threads = self.M.MTLSizeMake(bx, by, bz)
        b = bindings(layout)
        prep.buffers = b.buffers
        prep.params = b.params
        pb = layout.params
        prep.groups_at = pb.groups if pb is not None and pb.groups >= 0 else None
        return prep

    # The public entry point checks what the launch path would (prepare/run_prepared).
    launch_compiled = Device.checked_launch

    def run_prepared(self, prep: _Prepared, buffers: Sequence[DeviceArray],
                     params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Record one dispatch (arguments already checked by the launch path)."""
        if prep.groups_at is not None:
            params = with_group_counts(params or b"", prep.groups_at, groups)
        M = self.M
        with self._lock:
            enc = self._enc or self._begin()
            if self._bound is not prep.pso:
                enc.setComputePipelineState_(prep.pso)
                self._bound = prep.pso
            for i, arr in zip(prep.buffers, buffers):
                enc.setBuffer_offset_atIndex_(arr.buf, 0, i)  # type: ignore[attr-defined]
            if prep.params is not None:
                raw = bytes(params or b"")
                if len(raw) <= SET_BYTES_LIMIT:
                    enc.setBytes_length_atIndex_(raw, len(raw), prep.params)
                else:          # kept until the command buffer completes
                    block = self.array(np.frombuffer(raw, np.uint8))
                    self._keep.append(block)
                    enc.setBuffer_offset_atIndex_(block.buf, 0, prep.params)
            enc.dispatchThreadgroups_threadsPerThreadgroup_(M.MTLSizeMake(*groups), prep.threads)
            self._recorded += 1
            if self._recorded >= self._submit_at:
                self._submit_chunk()

    # ---- recording, submission, synchronisation -----------------------------------------

    def _begin(self) -> Any:
        """A new command buffer and its serial compute encoder (the caller holds the lock)."""
        self._cb = self.queue.commandBuffer()
        self._enc = self._cb.computeCommandEncoderWithDispatchType_(self.M.MTLDispatchTypeSerial)
        self._bound = None
        self._recorded = 0
        return self._enc

    def _submit(self) -> None:
        """Commit the command buffer being recorded, if any (the caller holds the lock)."""
        cb = self._cb
        if cb is None:
            return
        self._enc.endEncoding()
        cb.commit()
        self._in_flight.append((cb, self._keep))
        self._cb = self._enc = self._bound = None
        self._keep = []
        self._chunk_reset()
        if len(self._in_flight) > MAX_IN_FLIGHT:
            self._wait(*self._in_flight.popleft())

    def _wait(self, cb: Any, keep: list[Any]) -> None:
        cb.waitUntilCompleted()
        if cb.status() == self.M.MTLCommandBufferStatusError:
            err = cb.error()
            why = str(err.localizedDescription()) if err is not None else "no error given"
            raise LaunchError(f"a Metal command buffer failed on {self.adapter}: {why}")

    def _finish(self) -> None:
        """Commit what is recorded and wait for every committed command buffer (the caller
        holds the lock)."""
        self._submit()
        while self._in_flight:
            self._wait(*self._in_flight.popleft())

    def synchronize(self) -> None:
        """Commit the recorded launches and wait until all of them have run."""
        with self._lock:
            self._finish()
