"""The WebGPU device: runs WGSL kernels through wgpu-py (wgpu-native).

Any WebGPU adapter works: a discrete GPU through Vulkan/Metal/D3D12, or a
CPU implementation such as Mesa's lavapipe (``llvmpipe``), which is what CI
uses. ``wgpu`` is imported lazily, inside ``WgpuDevice()``, so that importing
this module never fails on machines without wgpu-py.

Design notes
------------
* Every array is one ``GPUBuffer`` with STORAGE|COPY_SRC|COPY_DST usage; its
  size is rounded up to a multiple of 4 (copies need it) and to at least 16
  bytes (WebGPU cannot bind a zero-sized buffer). A freed array's buffer is
  pooled (``pool.SizePool``) and given to the next array of its size at once:
  the queue orders every use.
* Parameter blocks live in one arena buffer per device, bound at dynamic
  offsets (``_ParamArena``); bind groups are cached per set of buffers, so a
  repeated launch on the same arrays records three calls: set_pipeline (only
  when it changes), set_bind_group and dispatch_workgroups.
* Launches are recorded into one command encoder and one compute pass, and
  submitted in chunks (``recording``: after 32 launches; inside ``batch()`` the
  first at once, then 4, 16, ...), at the end of a batch, at ``flush()``, and
  whenever the host needs a result (``numpy()``, ``synchronize()``, a numpy
  argument copied back). Recording is what a launch costs on the host; one
  submission per launch would cost more than the dispatch itself.
* One lock serialises recording, submission and read-back, so a device may
  be used from several Python threads; batch nesting is per thread.
* Pipelines use an explicit bind group layout built from ``Layout``: with
  ``layout="auto"`` naga drops bindings the shader does not use, and binding
  them would then fail. Shader modules carry no naga runtime checks unless
  ``PYSHADE_WGPU_CHECKS=1`` (``runtime_checks``).
* ``synchronize()`` submits an empty command list only when a ``queue.write_buffer``
  of ours is not submitted yet (the empty submission alone cost 40 us on an H100's
  host). On a GPU adapter it then polls wgpu-native until the queue's work-done
  callback has run, for up to ``recording.SPIN_WAIT_S`` (``wgpu_support.WorkDoneWaiter``;
  wgpu-py 0.32's ``queue.on_submitted_work_done_sync()`` is broken: a cffi signature
  mismatch), and otherwise blocks in wgpu-native's device poll; without that poll it
  reads back a 4-byte buffer.
* Finding and ordering adapters is ``wgpu_support``.
"""

from __future__ import annotations

import itertools
import operator
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cache import LRU
from ..errors import BackendUnavailable, CompileError, LaunchError
from .base import Compiled, Device, DeviceArray, check_requirements, shape_bytes, shape_tuple
from .pool import POOL_BYTES, SizePool
from .recording import SPIN_WAIT_S, Recording
from .wgpu_support import (
    WorkDoneWaiter,
    adapter_label,
    adapter_note,
    is_cpu_adapter,
    list_adapters,
)

__all__ = ["WgpuArray", "WgpuDevice", "adapter_label", "adapter_note", "list_adapters"]

# The adapter limits that are worth raising from WebGPU's conservative defaults
# (e.g. 8 storage buffers per stage, 128 MiB binding size).
_RAISED_LIMITS = (
    "max_storage_buffers_per_shader_stage",
    "max_storage_buffer_binding_size",
    "max_buffer_size",
    "max_compute_workgroups_per_dimension",
    "max_compute_invocations_per_workgroup",
    "max_compute_workgroup_size_x",
    "max_compute_workgroup_size_y",
    "max_compute_workgroup_size_z",
    "max_compute_workgroup_storage_size",
)
# Compiled pipelines kept per device, and bind groups (each holds its buffers alive
# until it is dropped), least recently used first out.
PIPELINE_CACHE_SIZE = 256
BIND_GROUP_CACHE_SIZE = 64


def _round_up(n: int, m: int) -> int:
    """``n`` rounded up to a multiple of ``m``."""
    return (n + m - 1) // m * m


def _limit_key(name: str) -> str:
    """wgpu-py spells limits with dashes; pyshade uses Python identifiers."""
    return name.replace("-", "_")


_storage_ids = itertools.count()


class _Storage:
    """One GPUBuffer behind one or more arrays (views share it); returned to its device's
    pool when the last of them goes. Reusing it at once is safe: every use is a command
    on the device's one queue, in order (WebGPU orders them), and writes into it from the
    host go through the queue too."""

    __slots__ = ("dev", "buffer", "size", "uid")

    def __init__(self, dev: WgpuDevice, buffer: Any, size: int, uid: int | None = None):
        self.dev, self.buffer, self.size = dev, buffer, size
        # one per GPUBuffer, kept through the pool: keys the cached bind groups, so those
        # made for an array serve the next array on the same buffer (a sort's output)
        self.uid = next(_storage_ids) if uid is None else uid

    def __del__(self) -> None:
        try:
            self.dev._pool_put(self.buffer, self.size, self.uid)
        except Exception:       # interpreter shutdown: the process frees everything
            pass


class WgpuArray(DeviceArray):
    """A device array stored in one WebGPU storage buffer.

    The buffer holds the raw bytes of the C-contiguous host array, so any
    numpy dtype (structured dtypes included) round-trips unchanged.
    """

    def __init__(self, device: WgpuDevice, storage: _Storage, dtype: np.dtype,
                 shape: tuple[int, ...]):
        self.device = device
        self._storage = storage
        self.buffer = storage.buffer  # the wgpu GPUBuffer
        self.uid = storage.uid        # never another buffer's: keys cached bind groups
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)

    def numpy(self) -> np.ndarray:
        """Download the array (after submitting recorded launches) and return a copy."""
        n = self.nbytes
        if n == 0:
            return np.empty(self.shape, dtype=self.dtype)
        # Copies must be a multiple of 4 bytes; the buffer is padded to allow it.
        raw = self.device._read(self.buffer, _round_up(n, 4))
        data = np.frombuffer(raw, dtype=np.uint8, count=n)
        return data.view(self.dtype).reshape(self.shape).copy()

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents with ``data`` (same dtype and number of elements).

        Inside a batch the write is recorded as a copy in the batch's command
        encoder, so it happens after the launches recorded before it and
        before those recorded after it, as the Python code reads.
        """
        arr = np.ascontiguousarray(data)
        if arr.dtype != self.dtype:
            raise ValueError(f"write: dtype {arr.dtype} does not match the array's {self.dtype}")
        if arr.size != self.size:
            raise ValueError(f"write: {arr.size} elements given, the array has {self.size}")
        raw = arr.reshape(-1).view(np.uint8)
        if raw.size == 0:
            return
        if raw.size % 4:
            # WebGPU copies whole 4-byte words: pad, writing zeros into the tail
            # padding that the buffer already has.
            raw = np.concatenate([raw, np.zeros(4 - raw.size % 4, np.uint8)])
        self.device._write(self.buffer, raw)


class _ParamArena:
    """Parameter blocks of many launches in one buffer, bound at dynamic offsets.

    A launch writes its block into the next free slot on the host; the used part
    is uploaded with ``queue.write_buffer`` just before the submission that
    reads it. ``queue.write_buffer`` is ordered after every earlier submission,
    so after each submit the arena starts again at offset 0: one buffer per
    device and kind serves every launch, batched or not. A submission that
    would overflow the arena is split (``WgpuDevice._record``).
    """

    CAPACITY = 1 << 18

    def __init__(self, dev: "WgpuDevice", kind: str):
        self.capacity = self.CAPACITY
        U = dev._wgpu.BufferUsage
        key = "min_uniform_buffer_offset_alignment" if kind == "uniform" \
            else "min_storage_buffer_offset_alignment"
        self.align = int(dev.limits.get(key, 256))
        usage = (U.UNIFORM if kind == "uniform" else U.STORAGE) | U.COPY_DST
        self.buffer = dev.wgpu_device.create_buffer(label="pyshade.params",
                                                    size=self.CAPACITY, usage=usage)
        self.data = bytearray(self.CAPACITY)
        self.used = 0

    def flush(self, queue: Any) -> None:
        """Upload the slots written since the last submission, and start again at 0."""
        if self.used:
            queue.write_buffer(self.buffer, 0, memoryview(self.data)[:_round_up(self.used, 4)])
            self.used = 0


class _Prepared:
    """What a binder keeps per compiled kernel: pipeline, layout and bind-group key."""

    __slots__ = ("pipeline", "bgl", "layout", "entry", "slots", "pb", "pb_size", "bgl_id")

    def __init__(self, pipeline: Any, bgl: Any, compiled: Compiled):
        self.pipeline = pipeline
        self.bgl = bgl
        self.bgl_id = id(bgl)
        self.layout = compiled.layout
        self.entry = compiled.entry
        self.slots = compiled.layout.buffers
        self.pb = compiled.layout.params
        self.pb_size = max(self.pb.size, 16) if self.pb is not None else 0


class WgpuDevice(Recording, Device):
    """A WebGPU device (wgpu-py): consumes WGSL.

    ``adapter`` may be a ``wgpu.GPUAdapter`` to use; by default it is
    ``list_adapters()[index]`` (index 0: the best one). Attributes: ``name``
    (``"wgpu"`` or ``"wgpu:N"``), ``note`` (a known driver limitation, or ""), ``wgpu_adapter``,
    ``wgpu_device``, ``limits`` (dict with ``snake_case`` keys, e.g.
    ``limits["max_compute_workgroups_per_dimension"]``) and ``features``
    (set of WebGPU feature names, e.g. ``"shader-f16"``).
    """

    name = "wgpu"
    backend = "wgpu"
    target = "wgsl"

    def __init__(self, adapter: Any = None, index: int = 0):
        try:
            import wgpu
        except ImportError as exc:
            raise BackendUnavailable(
                "wgpu-py is not installed: pip install 'pyshade[wgpu]'") from exc
        self._wgpu = wgpu
        #: whether naga adds its runtime checks (index clamping, loop bounding) to the code
        #: it generates: off unless PYSHADE_WGPU_CHECKS=1, as no other GPU device checks
        #: (out-of-bounds indexing is undefined, docs/devices/wgpu.md); the checks made the
        #: radix sort's kernels slower on an H100 (bench/probes/wgpu_checks_probe.py)
        self.runtime_checks = os.environ.get("PYSHADE_WGPU_CHECKS") == "1"
        if adapter is None:
            found = list_adapters()
            if not found:
                raise BackendUnavailable(
                    "wgpu found no WebGPU adapter; install a GPU driver with "
                    "Vulkan/Metal/D3D12 support, or Mesa's lavapipe for a CPU fallback")
            if not 0 <= index < len(found):
                names = ", ".join(f"wgpu:{i} ({adapter_label(a)})" for i, a in enumerate(found))
                raise BackendUnavailable(f"there is no WebGPU adapter {index}: found {names}")
            adapter = found[index]
        # "wgpu" is "wgpu:0" (the bare backend name is adapter 0), so the name
        # round-trips through ps.device().
        self.name = "wgpu" if index == 0 else f"wgpu:{index}"
        self.wgpu_adapter = adapter
        self.adapter = adapter_label(adapter)
        self.note = adapter_note(adapter)

        adapter_limits = {_limit_key(k): v for k, v in dict(adapter.limits).items()}
        required_limits = {k: adapter_limits[k] for k in _RAISED_LIMITS if k in adapter_limits}
        required_features = ["shader-f16"] if "shader-f16" in adapter.features else []
        try:
            self.wgpu_device = adapter.request_device_sync(
                label="pyshade", required_features=required_features,
                required_limits=required_limits)
        except Exception as exc:
            raise BackendUnavailable(f"wgpu could not open a device on {self.adapter}: {exc}") from exc
        self.limits: dict[str, int] = {
            _limit_key(k): v for k, v in dict(self.wgpu_device.limits).items()}
        self.features: set[str] = set(self.wgpu_device.features)
        lim = self.limits
        self.max_groups_per_dim = int(lim.get("max_compute_workgroups_per_dimension", 65535))
        self.max_workgroup_size = tuple(int(lim.get(f"max_compute_workgroup_size_{a}", d))
                                        for a, d in zip("xyz", (256, 256, 64)))
        self.max_workgroup_invocations = int(lim.get("max_compute_invocations_per_workgroup",
                                                     256))

        U = wgpu.BufferUsage
        self._array_usage = U.STORAGE | U.COPY_SRC | U.COPY_DST
        self._sync_buffer = self.wgpu_device.create_buffer(size=4, usage=U.COPY_SRC | U.COPY_DST)
        self._pool = SizePool(POOL_BYTES)         # freed arrays' (GPUBuffer, uid) by size
        # synchronize() polls for the work's end on a GPU; a CPU adapter needs the core
        self._waiter = None if is_cpu_adapter(adapter) else \
            WorkDoneWaiter.make(self.wgpu_device, SPIN_WAIT_S)
        self._init_recording()

    # ---- arrays -----------------------------------------------------------

    def _buffer_size(self, nbytes: int, itemsize: int) -> int:
        # >= 16 bytes because zero-sized bindings are invalid, >= one element so
        # that a runtime-sized array of large structs still has a valid size.
        return max(16, _round_up(max(nbytes, itemsize), 4))

    def array(self, data: Any, dtype: Any = None) -> WgpuArray:
        """Upload ``data`` (array-like) and return a ``WgpuArray`` of the same shape."""
        if isinstance(data, DeviceArray):
            data = data.numpy()
        arr = np.ascontiguousarray(data, dtype=dtype)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        raw = arr.reshape(-1).view(np.uint8)
        size = self._buffer_size(raw.size, arr.dtype.itemsize)
        self._check_buffer_size(size)
        buf = self.wgpu_device.create_buffer(
            label="pyshade.array", size=size, usage=self._array_usage, mapped_at_creation=True)
        if raw.size:
            # Mapped at creation: the bytes are in place before any queued work,
            # with no staging copy; padding stays zero.
            buf.write_mapped(raw, 0)
        buf.unmap()
        return WgpuArray(self, _Storage(self, buf, size), arr.dtype, arr.shape)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> WgpuArray:
        """A zero-filled array: a new buffer (WebGPU zero-initialises it), or a freed
        array's buffer cleared in order with the recorded launches."""
        return self._new_array(shape, dtype, clear=True)

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> WgpuArray:
        """An array with unspecified contents: a freed array's buffer of the same size when
        there is one (its old bytes), else a new buffer (zeros)."""
        return self._new_array(shape, dtype, clear=False)

    def _new_array(self, shape: int | Sequence[int], dtype: Any, clear: bool) -> WgpuArray:
        dt = np.dtype(dtype)
        shp = shape_tuple(shape)
        size = self._buffer_size(shape_bytes(shp, dt), dt.itemsize)
        self._check_buffer_size(size)
        with self._lock:
            while (hit := self._pool.take(size)) is not None:
                buf, uid = hit
                if getattr(buf, "_internal", True) is None:
                    # released by its own finalizer: garbage collected in a cycle with
                    # the array, when ours put it in the pool
                    continue
                if clear:
                    # after what is recorded, before what follows (the encoder goes
                    # with the next submission)
                    self._end_pass()
                    if self._encoder is None:
                        self._encoder = self.wgpu_device.create_command_encoder()
                    self._encoder.clear_buffer(buf, 0, size)
                return WgpuArray(self, _Storage(self, buf, size, uid), dt, shp)
        buf = self.wgpu_device.create_buffer(label="pyshade.array", size=size,
                                             usage=self._array_usage)
        return WgpuArray(self, _Storage(self, buf, size), dt, shp)

    def _pool_put(self, buffer: Any, size: int, uid: int) -> None:
        """Keep a freed array's buffer for ``empty`` and ``zeros`` (dropped beyond the
        pool's limit)."""
        with self._lock:
            self._pool.put(size, (buffer, uid))

    def _check_buffer_size(self, size: int) -> None:
        limit = self.limits.get("max_buffer_size")
        if limit is not None and size > limit:
            raise ValueError(f"array of {size} bytes exceeds this adapter's max_buffer_size "
                             f"({limit} bytes, {self.adapter})")

    def _write(self, buffer: Any, raw: np.ndarray) -> None:
        """Write ``raw`` bytes at offset 0 of ``buffer``, in order with recorded launches."""
        with self._lock:
            if self._encoder is None:
                self.wgpu_device.queue.write_buffer(buffer, 0, raw)
                self._unsubmitted_write = True
                return
            # queue.write_buffer would run before the recorded launches: copy instead.
            staging = self.wgpu_device.create_buffer_with_data(
                data=raw, usage=self._wgpu.BufferUsage.COPY_SRC)
            self._end_pass()
            self._encoder.copy_buffer_to_buffer(staging, 0, buffer, 0, raw.size)
            self._keepalive.append(staging)

    def _read(self, buffer: Any, nbytes: int) -> memoryview:
        """The first ``nbytes`` (a multiple of 4) of ``buffer``, after all recorded work."""
        with self._lock:
            self._submit()
            return self.wgpu_device.queue.read_buffer(buffer, 0, nbytes)

    # ---- recording, batches and synchronisation ---------------------------

    def _init_recording(self) -> None:
        # Launches are recorded into one command encoder and, while nothing else
        # comes between them, one compute pass. The lock serialises every thread's
        # recording, submission and read-back; batch depth is per thread.
        self._init_lock()
        self._encoder: Any = None
        self._pass: Any = None
        self._pass_pipeline: Any = None
        self._keepalive: list[Any] = []
        # a queue.write_buffer waits for the next submission; synchronize must make one
        self._unsubmitted_write = False
        self._recorded = 0
        self._last_bind: tuple = (None, None, None, None)  # (prep, arena, uids, group)
        self._arenas: dict[str, _ParamArena] = {}
        self._pipelines = LRU(PIPELINE_CACHE_SIZE)
        self._bind_groups: dict = {}          # FIFO-bounded; used under self._lock

    def _end_pass(self) -> None:
        if self._pass is not None:
            self._pass.end()
            self._pass = None
            self._pass_pipeline = None

    def _submit(self) -> None:
        """Submit everything recorded so far (the caller holds the lock)."""
        encoder = self._encoder
        if encoder is None:
            return
        self._end_pass()
        self._encoder = None
        keep, self._keepalive = self._keepalive, []
        self._recorded = 0
        self._chunk_reset()
        last = self._last_bind
        if last[3] is not None:
            # the next encoder must hold the last bind group alive too
            self._keepalive.append(last[3])
        for arena in self._arenas.values():
            arena.flush(self.wgpu_device.queue)
        try:
            self.wgpu_device.queue.submit([encoder.finish()])
        except self._wgpu.GPUError as exc:
            raise LaunchError(f"WebGPU rejected the recorded launches: {exc}") from None
        self._unsubmitted_write = False
        del keep   # staging buffers may go once the submission holds them

    def synchronize(self) -> None:
        """Wait until all submitted work has finished (recorded launches are submitted first)."""
        with self._lock:
            self._submit()
            wait = getattr(self.wgpu_device, "_poll_wait", None)
            if wait is not None:
                # wgpu-native's wgpuDevicePoll(wait=true): blocks until every submission
                # is done; 0.19 ms less per call than the read-back below on an H100's
                # host (bench/results/h100_submit_chunk_20261206.txt, 'sync only'). A
                # queue write not yet submitted needs a submission (an empty one) first.
                if self._unsubmitted_write:
                    self.wgpu_device.queue.submit([])
                    self._unsubmitted_write = False
                if self._waiter is None or not self._waiter.wait():
                    wait()
                return
            # read_buffer queues a copy after all earlier work and blocks until the
            # staging buffer is mapped, i.e. until the queue has drained up to it.
            self.wgpu_device.queue.read_buffer(self._sync_buffer, 0, 4)

    # ---- launching ---------------------------------------------------------

    def _pipeline(self, compiled: Compiled) -> tuple[Any, Any]:
        """The (compute pipeline, bind group layout) for ``compiled``, cached."""
        key = compiled.key or compiled.binary
        hit = self._pipelines.get(key)
        if hit is not None:
            return hit
        from ..toolchains.naga import create_shader_module

        # WebGPU's names: f16 is the "shader-f16" feature, shared memory the workgroup
        # storage size (naga would refuse the first and a driver may run the second).
        check_requirements(compiled.requirements,
                           {"f16"} if "shader-f16" in self.features else set(),
                           {"max_compute_shared_memory_size":
                            self.limits.get("max_compute_workgroup_storage_size")},
                           self.adapter, compiled.target)
        wgpu = self._wgpu
        module = create_shader_module(compiled.binary, self, label=compiled.entry or "pyshade",
                                      checks=self.runtime_checks)
        entries = []
        for slot in compiled.layout.buffers:
            kind = "storage" if slot.writable or slot.atomic else "read-only-storage"
            entries.append({"binding": slot.binding, "visibility": wgpu.ShaderStage.COMPUTE,
                            "buffer": {"type": kind}})
        pb = compiled.layout.params
        if pb is not None:
            kind = "uniform" if pb.kind == "uniform" else "read-only-storage"
            entries.append({"binding": pb.binding, "visibility": wgpu.ShaderStage.COMPUTE,
                            "buffer": {"type": kind, "has_dynamic_offset": True}})
        try:
            bgl = self.wgpu_device.create_bind_group_layout(entries=entries)
            pl = self.wgpu_device.create_pipeline_layout(bind_group_layouts=[bgl])
            pipeline = self.wgpu_device.create_compute_pipeline(
                label=compiled.entry, layout=pl,
                compute={"module": module, "entry_point": compiled.entry})
        except wgpu.GPUError as exc:
            # The WGSL was valid but does not match the declared layout: a
            # code-generation bug, reported like any toolchain rejection.
            raise CompileError(f"WebGPU rejected the compute pipeline for '{compiled.entry}'",
                               target="wgsl", log=str(exc), source=compiled.source) from None
        return self._pipelines.put(key, (pipeline, bgl))

    def prepare(self, compiled: Compiled) -> _Prepared:
        """The pipeline of ``compiled`` and what launching it needs, for the launch path."""
        pipeline, bgl = self._pipeline(compiled)
        return _Prepared(pipeline, bgl, compiled)

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Dispatch ``compiled`` over ``groups`` (checked: this entry point is public)."""
        self.checked_launch(compiled, buffers, params, groups)

    def _bind_group(self, prep: _Prepared, buffers: Sequence[WgpuArray], arena: Any,
                    key: tuple) -> Any:
        """Create (and cache under ``key``) the bind group of ``buffers`` and the arena."""
        max_bind = self.limits.get("max_storage_buffer_binding_size")
        entries = []
        for slot, arr in zip(prep.slots, buffers):
            if max_bind is not None and arr.buffer.size > max_bind:
                raise LaunchError(f"argument '{slot.name}' ({arr.buffer.size} bytes) exceeds "
                                  f"max_storage_buffer_binding_size ({max_bind} bytes)")
            entries.append({"binding": slot.binding,
                            "resource": {"buffer": arr.buffer, "offset": 0,
                                         "size": arr.buffer.size}})
        if arena is not None:
            entries.append({"binding": prep.pb.binding,
                            "resource": {"buffer": arena.buffer, "offset": 0,
                                         "size": prep.pb_size}})
        try:
            bg = self.wgpu_device.create_bind_group(layout=prep.bgl, entries=entries)
        except self._wgpu.GPUError as exc:
            raise LaunchError(f"cannot bind the arguments of '{prep.entry}': {exc}") from None
        # The bgl is kept alive with the bind group: its id is part of the key.
        cache = self._bind_groups
        cache[key] = (bg, prep.bgl)
        while len(cache) > BIND_GROUP_CACHE_SIZE:
            del cache[next(iter(cache))]
        return bg

    def run_prepared(self, prep: _Prepared, buffers: Sequence[DeviceArray],
                     params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Record one dispatch (arguments already checked by the launch path). Recorded
        work is submitted in chunks (see ``_submit_chunk``), at the end of a batch,
        and whenever the host needs a result."""
        with self._lock:
            pb = prep.pb
            if pb is not None:
                arena = self._arenas.get(pb.kind) or self._new_arena(pb.kind)
                off = -(-arena.used // arena.align) * arena.align
                end = off + prep.pb_size
                if end > arena.capacity:       # full: submit what uses it, start at 0
                    self._submit()
                    off, end = 0, prep.pb_size
                if len(params) != prep.pb_size:    # a short block from launch_compiled
                    params = bytes(params) + bytes(prep.pb_size - len(params))
                arena.data[off:end] = params
                arena.used = end
                offsets = [off]
            else:
                arena = None
                offsets = _NO_OFFSETS
            # Repeated launches on the same arrays (a sort's network) reuse the last
            # bind group without building its cache key.
            # (uids, not the arrays: holding the last arrays would keep them from the pool)
            last = self._last_bind
            uids = tuple(map(_UID, buffers))
            if last[0] is prep and last[1] is arena and last[2] == uids:
                bind_group = last[3]
            else:
                key = (prep.bgl_id, arena, *uids)
                hit = self._bind_groups.get(key)
                bind_group = hit[0] if hit is not None else \
                    self._bind_group(prep, buffers, arena, key)
                self._last_bind = (prep, arena, uids, bind_group)
                self._keepalive.append(bind_group)
            cpass = self._pass
            if cpass is None:
                if self._encoder is None:
                    self._encoder = self.wgpu_device.create_command_encoder()
                cpass = self._pass = self._encoder.begin_compute_pass()
            if self._pass_pipeline is not prep.pipeline:
                cpass.set_pipeline(prep.pipeline)
                self._pass_pipeline = prep.pipeline
            cpass.set_bind_group(0, bind_group, offsets)
            cpass.dispatch_workgroups(*groups)
            self._recorded += 1
            if self._recorded >= self._submit_at:
                self._submit_chunk()

    def _new_arena(self, kind: str) -> _ParamArena:
        arena = self._arenas[kind] = _ParamArena(self, kind)
        return arena

_NO_OFFSETS: list[int] = []
_UID = operator.attrgetter("uid")
