"""The Vulkan device: runs SPIR-V compute shaders (GLSL compiled by glslang) on raw Vulkan.

Built on the PyPI package ``vulkan`` (a cffi binding of the loader), imported
lazily inside ``VulkanDevice()``. Any Vulkan 1.1 driver works: a GPU, or the
CPU drivers Mesa lavapipe and SwiftShader that CI uses.

Conventions with the GLSL emitter (``Compiled.layout``)
--------------------------------------------------------
* Every ``BufferSlot`` is a storage buffer at ``set = 0, binding =
  slot.binding`` (std430), bound whole; a read-only slot may be declared
  ``readonly``. ``len(buf)`` must come from the parameter block (the launch
  path packs the element counts at ``ParamBlock.lengths`` offsets when the
  emitter sets ``explicit_lengths``): the buffer is padded to at least 16
  bytes, so ``.length()`` would count padding.
* The parameter block (``Layout.params``) by ``ParamBlock.kind``:
  ``"push"``: ``layout(push_constant, std430) uniform Params {...}`` with the
  members at ``ParamBlock.fields`` offsets (std430 offsets); allowed when
  ``params.size <= dev.max_push_constants_size`` (Vulkan guarantees 128
  bytes everywhere; NVIDIA gives 256). ``"uniform"``: a uniform block
  ``layout(std140, set = 0, binding = params.binding)``; ``"storage"``: a
  ``readonly buffer`` (std430) at that binding. Both are bound at a dynamic
  offset in a per-submission parameter arena.
* The SPIR-V entry point is ``Compiled.entry``. Where the device reports
  ``shaderDenormPreserveFloat32``, the device adds ``DenormPreserve 32`` to the
  module, and ``SignedZeroInfNanPreserve`` for each float width whose
  ``shaderSignedZeroInfNanPreserveFloatN`` it reports (``FloatModes``): GLSL cannot
  ask for them, and without the latter a driver may treat ``-0.0`` as ``0.0``.

Design notes
------------
* Memory: one allocation per array. Where the best device-local memory type is
  also host-visible and coherent (CPU drivers, unified memory) arrays are
  mapped and copied with memcpy; otherwise (discrete GPUs) uploads, writes and
  read-backs go through host-visible staging buffers and recorded copies.
* Launches are recorded into one command buffer, submitted (with a fence) in
  chunks as on wgpu: after 32 launches (inside ``batch()`` the chunks grow to
  128, 512, ... 4096), when the outermost batch of the thread exits, at
  ``flush()``, and when a read-back or ``synchronize()`` needs it.
* A memory barrier (shader/transfer write -> read/write) goes between two
  commands only where the later one uses a buffer that an earlier one since the
  last barrier wrote, or writes one it read; every command buffer starts with
  one, for the submissions before it.
* Nothing is destroyed while the GPU may use it: arrays, pipelines, staging
  buffers and evicted descriptor sets are retired with the serial of the
  submission being recorded and destroyed once no submission up to it is
  pending.
"""

from __future__ import annotations

import itertools
import operator
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cache import LRU
from ..errors import BackendUnavailable, CompileError, LaunchError
from .base import (
    LLVMPIPE_NOTE,
    Compiled,
    Device,
    DeviceArray,
    check_requirements,
    shape_bytes,
    with_group_counts,
)
from .recording import SPIN_WAIT_S, Recording
from .vulkan_memory import BARRIER_STAGES, Memory, Slot
from .vulkan_support import binding, list_adapters, open_device

__all__ = ["VulkanArray", "VulkanDevice", "list_adapters"]

# Pipelines per device (each with its shader module and layouts), least recently
# used first out; descriptor sets per (pipeline layout, arrays), oldest first out.
PIPELINE_CACHE_SIZE = 256
DESCRIPTOR_SET_CACHE_SIZE = 256
# Submissions in flight before the host waits for the oldest (bounds memory when the
# GPU lags); recorded launches are submitted in chunks (``recording``).
MAX_IN_FLIGHT = 16

# The languages a VulkanDevice compiles kernels from (SPIR-V by glslang or by DXC).
VIA = ("glsl", "hlsl")

_prep_ids = itertools.count()
_UID = operator.attrgetter("uid")


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


class VulkanArray(DeviceArray):
    """A device array in one Vulkan storage buffer holding the raw C-order bytes.

    Any numpy dtype, structured ones included, round-trips unchanged.
    """

    def __init__(self, device: VulkanDevice, buf: Any, dtype: np.dtype, shape: tuple[int, ...]):
        self.device = device
        self.buf = buf                 # vulkan_memory.Buffer; destroyed (deferred) with it
        # its buffer's: keys cached descriptor sets and the barrier checks (views share it)
        self.uid = buf.uid
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)

    def numpy(self) -> np.ndarray:
        """Download the array (after the launches recorded before) and return a copy."""
        n = self.nbytes
        if n == 0:
            return np.empty(self.shape, dtype=self.dtype)
        raw = self.device._read(self, n)
        return raw.view(self.dtype).reshape(self.shape)

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents with ``data`` (same dtype and number of elements).

        Ordered as the Python code reads: after the launches recorded before it
        and before those recorded after it, also inside a batch.
        """
        arr = np.ascontiguousarray(data)
        if arr.dtype != self.dtype:
            raise ValueError(f"write: dtype {arr.dtype} does not match the array's {self.dtype}")
        if arr.size != self.size:
            raise ValueError(f"write: {arr.size} elements given, the array has {self.size}")
        raw = arr.reshape(-1).view(np.uint8)
        if raw.size:
            self.device._write(self, raw)


class _Prepared:
    """A compiled kernel on one device: pipeline, layouts and how its parameters travel.

    Its Vulkan objects are retired when the last reference (pipeline cache,
    binders) goes.
    """

    __slots__ = ("dev", "uid", "module", "dsl", "playout", "pipeline", "entry", "slots",
                 "written", "pb", "push_size", "dyn", "groups_at", "__weakref__")

    def __del__(self) -> None:
        dev = getattr(self, "dev", None)
        if dev is not None:
            dev._mem.retire("pipeline", self.pipeline, self.playout, self.dsl, self.module)


class _DescriptorSet:
    """A descriptor set of one (kernel, buffers) and what the launch reads and writes
    (buffer uids), for the barrier check."""

    __slots__ = ("handle", "pool", "ptr", "arena", "reads", "writes", "touched")


class VulkanDevice(Recording, Device):
    """A Vulkan device (the ``vulkan`` package): consumes SPIR-V made from GLSL, or from
    HLSL by DXC (``via="hlsl"``).

    ``index`` picks ``list_adapters()[index]`` (0: the best); ``via`` the language
    kernels are translated to (``target``; bindings, push constants and lengths are
    the same either way). Attributes:
    ``name`` (``"vulkan"`` or ``"vulkan:N"``), ``adapter`` (label), ``kind``
    ("discrete GPU", ..., "CPU"), ``note`` (a known driver limitation, or ""),
    ``features`` (set: "f16", "i8", "i16", "i64", "f64",
    "float-controls-denorm-preserve", "float-controls-signed-zero"), ``limits`` (dict of a few
    VkPhysicalDeviceLimits, snake_case), ``max_push_constants_size`` and
    ``unified_memory`` (arrays are host-mapped device memory). ``staging=True``
    moves every array's data through staging buffers and recorded copies even
    where memory is unified, as on a discrete GPU (tests use it on CPU drivers).
    """

    name = "vulkan"
    backend = "vulkan"
    target = "glsl"

    def __init__(self, index: int = 0, staging: bool = False, via: str = "glsl"):
        if via not in VIA:
            raise BackendUnavailable(f"the vulkan device compiles kernels via {' or '.join(VIA)}, "
                                     f"not {via!r}")
        if via == "hlsl":
            from ..toolchains.dxc import library_path
            library_path()          # BackendUnavailable without DXC, naming pyshade[hlsl]
        self.via = self.target = via
        self.vk = binding()
        found = list_adapters()
        if not found:
            raise BackendUnavailable(
                "the Vulkan loader found no driver: install a GPU driver with Vulkan support, "
                "or Mesa's lavapipe for a CPU fallback (Debian: mesa-vulkan-drivers)")
        if not 0 <= index < len(found):
            names = ", ".join(f"vulkan:{i} ({a.label})" for i, a in enumerate(found))
            raise BackendUnavailable(f"there is no Vulkan adapter {index}: found {names}")
        ad = self.vk_adapter = found[index]
        self.name = "vulkan" if index == 0 else f"vulkan:{index}"
        self.adapter = ad.label
        self.kind = ad.kind
        #: seconds a wait for results polls the fence before it blocks
        #: (``recording.SPIN_WAIT_S``; 0 on CPU drivers)
        self.spin_wait = 0.0 if self.kind == "CPU" else SPIN_WAIT_S
        self.note = LLVMPIPE_NOTE if "llvmpipe" in ad.name.lower() else ""
        L = ad.limits
        self.limits = {
            "max_compute_work_group_count": tuple(L.maxComputeWorkGroupCount),
            "max_push_constants_size": int(L.maxPushConstantsSize),
            "max_storage_buffer_range": int(L.maxStorageBufferRange),
            "max_uniform_buffer_range": int(L.maxUniformBufferRange),
            "max_compute_shared_memory_size": int(L.maxComputeSharedMemorySize),
            "max_per_stage_descriptor_storage_buffers": int(L.maxPerStageDescriptorStorageBuffers),
            "min_uniform_buffer_offset_alignment": int(L.minUniformBufferOffsetAlignment),
            "min_storage_buffer_offset_alignment": int(L.minStorageBufferOffsetAlignment),
        }
        self.max_groups_per_dim = int(min(L.maxComputeWorkGroupCount))
        self.max_group_counts = tuple(int(c) for c in L.maxComputeWorkGroupCount)
        self.max_workgroup_size = tuple(int(s) for s in L.maxComputeWorkGroupSize)
        self.max_workgroup_invocations = int(L.maxComputeWorkGroupInvocations)
        self.max_push_constants_size = int(L.maxPushConstantsSize)
        self._open(ad, staging)

    # ---- device creation ---------------------------------------------------

    def _open(self, ad: Any, staging: bool) -> None:
        self.vk_device, self.queue, self.queue_family, self.features, \
            self.float_modes = open_device(self.vk, ad, self.adapter)
        self.denorm_preserve = self.float_modes.denorm
        self._mem = Memory(self, staging)
        self.unified_memory = self._mem.unified
        self._init_recording()

    # ---- arrays -------------------------------------------------------------

    def _buffer_size(self, nbytes: int, itemsize: int) -> int:
        # >= 16 bytes (zero-sized buffers are invalid), >= one element, whole words.
        return max(16, _round_up(max(nbytes, itemsize), 4))

    def _new_array(self, shape: tuple[int, ...], dtype: np.dtype) -> VulkanArray:
        nbytes = shape_bytes(shape, dtype)
        buf = self._mem.array_buffer(self._buffer_size(nbytes, dtype.itemsize))
        return VulkanArray(self, buf, dtype, shape)

    def array(self, data: Any, dtype: Any = None) -> VulkanArray:
        """Upload ``data`` (array-like) and return a ``VulkanArray`` of the same shape."""
        if isinstance(data, DeviceArray):
            data = data.numpy()
        arr = np.ascontiguousarray(data, dtype=dtype)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        out = self._new_array(arr.shape, arr.dtype)
        raw = arr.reshape(-1).view(np.uint8)
        if raw.size:
            if out.buf.view is not None:     # a new buffer: no command uses it yet
                out.buf.view[:raw.size] = raw
            else:
                self._write(out, raw)
        return out

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> VulkanArray:
        """An array with unspecified contents."""
        shp = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
        return self._new_array(shp, np.dtype(dtype))

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> VulkanArray:
        """A zero-filled array (Vulkan memory starts undefined: filled here)."""
        out = self.empty(shape, dtype)
        if out.buf.view is not None:
            np.frombuffer(out.buf.view, np.uint8)[:] = 0
        else:
            with self._lock:
                slot = self._slot or self._begin()
                self._hazard(slot, (), (out.uid,))
                self.vk.lib.vkCmdFillBuffer(slot.cmd, out.buf.handle, 0, out.buf.size, 0)
                self._after_command()
        return out

    def _write(self, arr: VulkanArray, raw: np.ndarray) -> None:
        """Write ``raw`` at offset 0 of ``arr``, in order with recorded launches."""
        with self._lock:
            if arr.buf.view is not None and self._slot is None:
                self._collect()
                if not self._in_flight:      # nothing can be using it: plain memcpy
                    arr.buf.view[:raw.size] = raw
                    return
            staging = self._mem.staging(raw.size)
            staging.view[:raw.size] = raw
            slot = self._slot or self._begin()
            slot.keep.append(staging)
            self._hazard(slot, (), (arr.uid,))
            self.vk.lib.vkCmdCopyBuffer(slot.cmd, staging.handle, arr.buf.handle, 1,
                                        self._mem.region(raw.size))
            self._after_command()

    def _read(self, arr: VulkanArray, nbytes: int) -> np.ndarray:
        """The first ``nbytes`` of ``arr`` after all recorded work, as a new uint8 array."""
        with self._lock:
            if arr.buf.view is not None:
                self._finish()
                return np.frombuffer(arr.buf.view, np.uint8, count=nbytes).copy()
            back = self._mem.readback(nbytes)
            slot = self._slot or self._begin()
            self._hazard(slot, (arr.uid,), ())
            self.vk.lib.vkCmdCopyBuffer(slot.cmd, arr.buf.handle, back.handle, 1,
                                        self._mem.region(nbytes))
            self._finish()
            return np.frombuffer(back.view, np.uint8, count=nbytes).copy()

    # ---- recording, submission and synchronisation ---------------------------

    def _init_recording(self) -> None:
        ffi = self.vk.ffi
        self._init_lock()
        self._slot: Slot | None = None      # the command buffer being recorded
        self._free: list[Slot] = []
        self._in_flight: deque[Slot] = deque()
        self._serial = 0                    # of the next submission
        self._pipelines = LRU(PIPELINE_CACHE_SIZE)
        self._sets: dict = {}               # FIFO-bounded; used under self._lock
        self._pools: list[Any] = []
        self._nullptr = ffi.NULL
        self._lib = self.vk.lib

    def _begin(self) -> Slot:
        """Start recording a command buffer (the caller holds the lock)."""
        self._collect()
        slot = self._free.pop() if self._free else Slot(self)
        slot.begin(self._serial)
        self._slot = slot
        self._bound_pipeline = None
        self._bound_set = None
        self._pushed: bytes | None = None   # the push-constant bytes recorded last
        self._writes: set[int] = set()      # buffers written since the last barrier
        self._reads: set[int] = set()
        return slot

    def _hazard(self, slot: Slot, reads: Sequence[int], writes: Sequence[int]) -> None:
        """Record a barrier if this command depends on one since the last barrier."""
        w, r = self._writes, self._reads
        if w or r:
            if any(u in w for u in reads) or any(u in w or u in r for u in writes):
                slot.barrier()
                w.clear()
                r.clear()
        r.update(reads)
        w.update(writes)

    def _after_command(self) -> None:
        self._slot.recorded += 1
        if self._slot.recorded >= self._submit_at:
            self._submit_chunk()

    def _submit(self) -> None:
        """Submit the command buffer being recorded, if any (the caller holds the lock)."""
        slot = self._slot
        if slot is None:
            return
        self._slot = None
        self._chunk_reset()
        slot.submit()
        self._serial += 1
        self._in_flight.append(slot)
        if len(self._in_flight) > MAX_IN_FLIGHT:
            self._in_flight[0].wait()
            self._collect()

    def _collect(self) -> None:
        """Recycle finished command buffers; destroy retired objects nothing pending uses."""
        fl = self._in_flight
        while fl and fl[0].done():
            self._free.append(fl.popleft().recycle())
        pending = fl[0].serial if fl else (self._slot.serial if self._slot else None)
        self._mem.destroy_retired(pending)

    def _finish(self) -> None:
        """Submit what is recorded and wait for every submission (the caller holds the lock)."""
        self._submit()
        for slot in self._in_flight:
            slot.wait(self.spin_wait)
        self._collect()

    def synchronize(self) -> None:
        """Wait until all submitted work has finished (recorded launches are submitted first)."""
        with self._lock:
            self._finish()

    # ---- pipelines -------------------------------------------------------------

    def prepare(self, compiled: Compiled) -> _Prepared:
        """The pipeline of ``compiled`` and what launching it needs (cached per device)."""
        key = compiled.key or compiled.binary
        return self._pipelines.get_or_make(key, lambda: self._make_prepared(compiled), self._lock)

    def _make_prepared(self, compiled: Compiled) -> _Prepared:
        from .vulkan_memory import make_pipeline
        binary = compiled.binary
        if not isinstance(binary, (bytes, bytearray)):
            raise CompileError(f"'{compiled.entry}': the vulkan device runs SPIR-V bytes, got "
                               f"{type(binary).__name__} (target {compiled.target!r})",
                               target=compiled.target, source=compiled.source)
        # Without the shader features and shared memory the kernel needs, a driver may
        # run it wrongly (SwiftShader: f16 results of 0).
        check_requirements(compiled.requirements, self.features, self.limits, self.adapter,
                           compiled.target)
        if self.float_modes:
            binary = self.float_modes.apply(bytes(binary), compiled.entry)
        layout = compiled.layout
        pb = layout.params
        prep = _Prepared()
        prep.uid = next(_prep_ids)
        prep.entry = compiled.entry
        prep.slots = layout.buffers
        prep.written = tuple(s.writable or s.atomic for s in layout.buffers)
        prep.pb = pb
        prep.push_size = 0
        prep.dyn = None
        # HLSL has no built-in for the group counts: they go in the block (ParamBlock.groups)
        prep.groups_at = pb.groups if pb is not None and pb.groups >= 0 else None
        if pb is not None:
            if pb.kind == "push":
                if pb.size > self.max_push_constants_size:
                    raise LaunchError(
                        f"'{compiled.entry}': a push-constant block of {pb.size} bytes exceeds "
                        f"this device's maxPushConstantsSize ({self.max_push_constants_size})")
                prep.push_size = pb.size
            elif pb.kind in ("uniform", "storage"):
                prep.dyn = pb.kind
            else:
                raise LaunchError(f"'{compiled.entry}': unknown parameter block kind {pb.kind!r}")
        prep.module, prep.dsl, prep.playout, prep.pipeline = make_pipeline(
            self, binary, compiled, prep.push_size)
        prep.dev = self
        return prep

    def __repr__(self) -> str:
        return f"<pyshade.Device {self.name} via={self.via!r}: {self.adapter}>"

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Dispatch ``compiled`` over ``groups`` (checked: this entry point is public)."""
        self.checked_launch(compiled, buffers, params, groups)

    def _descriptor_set(self, prep: _Prepared, buffers: Sequence[VulkanArray], key: tuple,
                        slot: Slot) -> _DescriptorSet:
        from .vulkan_memory import make_descriptor_set
        for s, arr in zip(prep.slots, buffers):
            if arr.buf.size > self.limits["max_storage_buffer_range"]:
                raise LaunchError(f"argument '{s.name}' ({arr.buf.size} bytes) exceeds "
                                  f"maxStorageBufferRange ({self.limits['max_storage_buffer_range']})")
        ds = _DescriptorSet()
        ds.handle, ds.pool = make_descriptor_set(self, prep, buffers,
                                                 slot.arena(prep.dyn) if prep.dyn else None)
        ds.ptr = self.vk.ffi.new("VkDescriptorSet[1]", [ds.handle])
        uids = [arr.uid for arr in buffers]
        ds.writes = frozenset(u for u, wr in zip(uids, prep.written) if wr)
        ds.reads = frozenset(uids) - ds.writes
        ds.touched = frozenset(uids)
        cache = self._sets
        cache[key] = ds
        while len(cache) > DESCRIPTOR_SET_CACHE_SIZE:
            old = cache.pop(next(iter(cache)))
            self._mem.retire("set", old.pool, old.handle)
        return ds

    def run_prepared(self, prep: _Prepared, buffers: Sequence[DeviceArray],
                     params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Record one dispatch (arguments already checked by the launch path); submitted
        in chunks (``_submit_chunk``), at batch end and when the host needs results.

        This is the per-launch hot path (bench/probes/vulkan_dispatch_probe.py): state the
        command buffer already has (pipeline, descriptor set, push-constant bytes) is not
        recorded again, and a barrier is recorded only before a dependent dispatch."""
        if prep.groups_at is not None:
            params = with_group_counts(params, prep.groups_at, groups)
        with self._lock:
            slot = self._slot or self._begin()
            uids = tuple(map(_UID, buffers))
            if prep.dyn is None:
                ds = self._sets.get((prep.uid, uids))
                if ds is None:
                    ds = self._descriptor_set(prep, buffers, (prep.uid, uids), slot)
                offsets = None
            else:
                ds, offsets = self._dynamic_set(prep, buffers, uids, params)
                slot = self._slot
            # Dependencies: a barrier when a buffer written since the last one is used
            # again, or a buffer read since then is written (set operations: this runs
            # once per launch).
            w, r = self._writes, self._reads
            cmd = slot.cmd
            lib = self._lib
            if (w and not w.isdisjoint(ds.touched)) or (r and not r.isdisjoint(ds.writes)):
                lib.vkCmdPipelineBarrier(cmd, BARRIER_STAGES, BARRIER_STAGES, 0, 1,
                                         slot.full, 0, self._nullptr, 0, self._nullptr)
                w.clear()
                r.clear()
            w.update(ds.writes)
            r.update(ds.reads)
            if self._bound_pipeline is not prep.pipeline:
                lib.vkCmdBindPipeline(cmd, 1, prep.pipeline)   # VK_PIPELINE_BIND_POINT_COMPUTE
                self._bound_pipeline = prep.pipeline
                self._bound_set = None      # another layout may disturb the bound set
                self._pushed = None         # and the push constants
            if offsets is not None or self._bound_set is not ds:
                lib.vkCmdBindDescriptorSets(cmd, 1, prep.playout, 0, 1, ds.ptr,
                                            0 if offsets is None else 1,
                                            offsets if offsets is not None else self._nullptr)
                self._bound_set = ds
            if prep.push_size and params != self._pushed:
                lib.vkCmdPushConstants(cmd, prep.playout, 0x20, 0, prep.push_size,
                                       params)                 # VK_SHADER_STAGE_COMPUTE_BIT
                self._pushed = params
            lib.vkCmdDispatch(cmd, groups[0], groups[1], groups[2])
            slot.recorded += 1
            if slot.recorded >= self._submit_at:
                self._submit_chunk()

    def _dynamic_set(self, prep: _Prepared, buffers: Sequence[DeviceArray], uids: tuple,
                     params: bytes | None) -> tuple[_DescriptorSet, Any]:
        """The descriptor set and dynamic offset of a launch whose parameters travel in the
        command buffer's arena (a uniform or storage block); a full arena starts another
        command buffer."""
        slot = self._slot
        arena = slot.arena(prep.dyn)
        off = arena.put(params)
        if off is None:                      # full: start another command buffer
            self._submit()
            slot = self._begin()
            arena = slot.arena(prep.dyn)
            off = arena.put(params)
        key = (prep.uid, arena.uid, uids)
        ds = self._sets.get(key)
        if ds is None:
            ds = self._descriptor_set(prep, buffers, key, slot)  # type: ignore[arg-type]
        return ds, arena.offset_ptr(off)
