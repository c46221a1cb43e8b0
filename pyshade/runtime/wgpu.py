"""The WebGPU device: runs WGSL kernels through wgpu-py (wgpu-native).

Any WebGPU adapter works: a discrete GPU through Vulkan/Metal/D3D12, or a
CPU implementation such as Mesa's lavapipe (``llvmpipe``), which is what CI
uses. ``wgpu`` is imported lazily, inside ``WgpuDevice()``, so that importing
this module never fails on machines without wgpu-py.

Design notes
------------
* Every array is one ``GPUBuffer`` with STORAGE|COPY_SRC|COPY_DST usage; its
  size is rounded up to a multiple of 4 (copies need it) and to at least 16
  bytes (WebGPU cannot bind a zero-sized buffer).
* Every launch gets its own small parameter buffer, created already filled
  (``create_buffer_with_data``): launches recorded in one batch thus keep their
  own values, and no ``queue.write_buffer`` is involved, which would be
  executed *before* the whole batch instead of in recording order.
* Pipelines use an explicit bind group layout built from ``Layout``: with
  ``layout="auto"`` naga drops bindings the shader does not use, and binding
  them would then fail.
* ``synchronize()`` reads back a 4-byte buffer: wgpu-py 0.32's
  ``queue.on_submitted_work_done_sync()`` is broken (cffi signature mismatch),
  while ``read_buffer`` maps a staging buffer and polls the device until the
  copy, which is queued after all earlier work, has finished.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import BackendUnavailable, CompileError, LaunchError
from .base import Compiled, Device, DeviceArray

__all__ = ["WgpuArray", "WgpuDevice", "adapter_label", "adapter_note", "list_adapters"]

# The adapter limits that are worth raising from WebGPU's conservative defaults
# (e.g. 8 storage buffers per stage, 128 MiB binding size).
_RAISED_LIMITS = (
    "max_storage_buffers_per_shader_stage",
    "max_storage_buffer_binding_size",
    "max_buffer_size",
    "max_compute_workgroups_per_dimension",
)


def _round_up(n: int, m: int) -> int:
    """``n`` rounded up to a multiple of ``m``."""
    return (n + m - 1) // m * m


def _limit_key(name: str) -> str:
    """wgpu-py spells limits with dashes; pyshade uses Python identifiers."""
    return name.replace("-", "_")


_array_ids = itertools.count()


class WgpuArray(DeviceArray):
    """A device array stored in one WebGPU storage buffer.

    The buffer holds the raw bytes of the C-contiguous host array, so any
    numpy dtype (structured dtypes included) round-trips unchanged.
    """

    def __init__(self, device: WgpuDevice, buffer: Any, dtype: np.dtype,
                 shape: tuple[int, ...]):
        self.device = device
        self.buffer = buffer          # the wgpu GPUBuffer
        self.uid = next(_array_ids)   # never reused, unlike id(): keys cached bind groups
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)

    def numpy(self) -> np.ndarray:
        """Download the array (after flushing any open batch) and return a copy."""
        dev = self.device
        dev._flush()
        n = self.nbytes
        if n == 0:
            return np.empty(self.shape, dtype=self.dtype)
        # Copies must be a multiple of 4 bytes; the buffer is padded to allow it.
        raw = dev.wgpu_device.queue.read_buffer(self.buffer, 0, _round_up(n, 4))
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

    A launch writes its block into the next free slot (on the host); the used
    part is uploaded with ``queue.write_buffer`` just before the submission that
    reads it, so every batched launch keeps its own values. Bind groups that
    reference the arena are cached per set of buffers: repeated launches of one
    kernel on the same arrays (a sort's network) reuse one bind group.
    """

    CAPACITY = 1 << 16

    def __init__(self, dev: "WgpuDevice", kind: str):
        U = dev._wgpu.BufferUsage
        key = "min_uniform_buffer_offset_alignment" if kind == "uniform" \
            else "min_storage_buffer_offset_alignment"
        self.align = int(dev.limits.get(key, 256))
        usage = (U.UNIFORM if kind == "uniform" else U.STORAGE) | U.COPY_DST
        self.buffer = dev.wgpu_device.create_buffer(label="pyshade.params",
                                                    size=self.CAPACITY, usage=usage)
        self.data = bytearray(self.CAPACITY)
        self.used = self.flushed = 0
        self.bind_groups: OrderedDict = OrderedDict()   # small LRU: holds its buffers alive

    def put(self, raw: bytes) -> int | None:
        """Store ``raw`` in a free slot; its offset, or None when the arena is full."""
        off = _round_up(self.used, self.align)
        if off + len(raw) > self.CAPACITY:
            return None
        self.data[off:off + len(raw)] = raw
        self.used = off + len(raw)
        return off

    def flush(self, queue: Any) -> None:
        """Upload the slots written since the last flush."""
        if self.used > self.flushed:
            start = self.flushed - self.flushed % 4
            end = _round_up(self.used, 4)
            queue.write_buffer(self.buffer, start, memoryview(self.data)[start:end])
            self.flushed = self.used


# Preference when ordering adapters: "wgpu" ("wgpu:0") is the first one.
_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3}
_BACKEND_RANK = {"Vulkan": 0, "Metal": 0, "D3D12": 0}   # native APIs before OpenGL/D3D11

_LLVMPIPE_NOTE = ("Mesa's llvmpipe/lavapipe: Mesa 22.3 ends every shader loop after 65535 "
                  "iterations (kernels that loop longer give wrong results)")


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
    try:
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
        return _LLVMPIPE_NOTE
    return ""


class WgpuDevice(Device):
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
        # "wgpu" is "wgpu:0" (DESIGN section 6), so the name round-trips through ps.device().
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

        U = wgpu.BufferUsage
        self._array_usage = U.STORAGE | U.COPY_SRC | U.COPY_DST
        self._pipelines: dict[Any, tuple[Any, Any]] = {}  # key -> (pipeline, bind group layout)
        self._sync_buffer = self.wgpu_device.create_buffer(size=4, usage=U.COPY_SRC | U.COPY_DST)
        # Batch state: an open command encoder, its nesting depth, and the
        # transient objects (param buffers, staging buffers) it references.
        self._batch_depth = 0
        self._encoder: Any = None
        self._keepalive: list[Any] = []
        self._arenas: dict[str, _ParamArena] = {}   # "uniform"/"storage" -> current arena

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
        return WgpuArray(self, buf, arr.dtype, arr.shape)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> WgpuArray:
        """A zero-filled array (WebGPU zero-initialises every new buffer)."""
        dt = np.dtype(dtype)
        shp = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
        nbytes = int(np.prod(shp, dtype=np.int64)) * dt.itemsize
        size = self._buffer_size(nbytes, dt.itemsize)
        self._check_buffer_size(size)
        buf = self.wgpu_device.create_buffer(label="pyshade.array", size=size,
                                             usage=self._array_usage)
        return WgpuArray(self, buf, dt, shp)

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> WgpuArray:
        """An array with unspecified contents (zeros, in fact, on WebGPU)."""
        return self.zeros(shape, dtype)

    def _check_buffer_size(self, size: int) -> None:
        limit = self.limits.get("max_buffer_size")
        if limit is not None and size > limit:
            raise ValueError(f"array of {size} bytes exceeds this adapter's max_buffer_size "
                             f"({limit} bytes, {self.adapter})")

    def _write(self, buffer: Any, raw: np.ndarray) -> None:
        """Write ``raw`` bytes at offset 0 of ``buffer``, in order with the batch."""
        if self._encoder is None:
            self.wgpu_device.queue.write_buffer(buffer, 0, raw)
            return
        # queue.write_buffer would run before the whole batch: copy instead.
        staging = self.wgpu_device.create_buffer_with_data(
            data=raw, usage=self._wgpu.BufferUsage.COPY_SRC)
        self._encoder.copy_buffer_to_buffer(staging, 0, buffer, 0, raw.size)
        self._keepalive.append(staging)

    # ---- batches and synchronisation --------------------------------------

    @contextlib.contextmanager
    def batch(self) -> Iterator[WgpuDevice]:
        """Record the launches inside into one command buffer, submitted at exit.

        Each launch is its own compute pass; WebGPU orders them, so a launch
        sees the writes of the launches before it. Nested ``batch()`` blocks
        join the outermost one. If the block raises, the recorded work is
        discarded (nothing of it runs) and the exception propagates.
        ``DeviceArray.numpy()`` inside a batch submits what was recorded so far.
        """
        outer = self._batch_depth == 0
        if outer:
            self._encoder = self.wgpu_device.create_command_encoder(label="pyshade.batch")
            self._keepalive = []
        self._batch_depth += 1
        ok = False
        try:
            yield self
            ok = True
        finally:
            self._batch_depth -= 1
            if outer:
                encoder, self._encoder = self._encoder, None
                try:
                    if ok:
                        self._submit(encoder)
                finally:
                    self._keepalive = []

    def _flush(self) -> None:
        """Submit the open batch's work so far and continue it with a new encoder."""
        if self._encoder is None:
            return
        encoder = self._encoder
        self._encoder = self.wgpu_device.create_command_encoder(label="pyshade.batch")
        try:
            self._submit(encoder)
        finally:
            self._keepalive = []

    def _submit(self, encoder: Any, what: str = "a batch of launches") -> None:
        """Finish ``encoder`` and submit it; WebGPU validation errors become LaunchError."""
        for arena in self._arenas.values():
            arena.flush(self.wgpu_device.queue)
        try:
            self.wgpu_device.queue.submit([encoder.finish()])
        except self._wgpu.GPUError as exc:
            raise LaunchError(f"WebGPU rejected {what}: {exc}") from None

    def synchronize(self) -> None:
        """Wait until all submitted work has finished (an open batch is submitted first)."""
        self._flush()
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

        wgpu = self._wgpu
        module = create_shader_module(compiled.binary, self, label=compiled.entry or "pyshade")
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
        self._pipelines[key] = (pipeline, bgl)
        return pipeline, bgl

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Dispatch ``compiled`` over ``groups``: immediately, or into the open batch."""
        wgpu = self._wgpu
        layout = compiled.layout
        if len(buffers) != len(layout.buffers):
            raise LaunchError(f"'{compiled.entry}' binds {len(layout.buffers)} buffers, "
                              f"{len(buffers)} given")
        gx, gy, gz = (int(g) for g in groups)
        gmax = self.limits.get("max_compute_workgroups_per_dimension", 65535)
        if max(gx, gy, gz) > gmax:
            raise LaunchError(f"group counts {(gx, gy, gz)} exceed this adapter's limit of "
                              f"{gmax} per dimension")
        max_bind = self.limits.get("max_storage_buffer_binding_size")
        entries = []
        for slot, arr in zip(layout.buffers, buffers):
            if not isinstance(arr, WgpuArray) or arr.device is not self:
                raise LaunchError(f"argument '{slot.name}' is not an array on this device "
                                  f"({self!r}): got {arr!r}")
            if max_bind is not None and arr.buffer.size > max_bind:
                raise LaunchError(f"argument '{slot.name}' ({arr.buffer.size} bytes) exceeds "
                                  f"max_storage_buffer_binding_size ({max_bind} bytes)")
            entries.append({"binding": slot.binding,
                            "resource": {"buffer": arr.buffer, "offset": 0,
                                         "size": arr.buffer.size}})
        pipeline, bgl = self._pipeline(compiled)

        offsets: list[int] = []
        arena = None
        pb = layout.params
        if pb is not None:
            raw = bytes(params or b"")
            if len(raw) > pb.size:
                raise LaunchError(f"parameter block of {len(raw)} bytes exceeds its declared "
                                  f"size {pb.size}")
            # Zero-pad to the declared size: the shader's struct expects all of it.
            raw = raw + bytes(max(pb.size, 16) - len(raw))
            arena = self._arenas.get(pb.kind)
            off = arena.put(raw) if arena is not None else None
            if off is None:
                if arena is not None:
                    arena.flush(self.wgpu_device.queue)
                    self._keepalive.append(arena.buffer)
                arena = self._arenas[pb.kind] = _ParamArena(self, pb.kind)
                off = arena.put(raw)
                if off is None:
                    raise LaunchError(f"parameter block of {len(raw)} bytes is too large")
            offsets.append(off)
            entries.append({"binding": pb.binding,
                            "resource": {"buffer": arena.buffer, "offset": 0,
                                         "size": max(pb.size, 16)}})
        cache = arena.bind_groups if arena is not None else None
        bg_key = (id(bgl), tuple(arr.uid for arr in buffers))
        bind_group = cache.get(bg_key) if cache is not None else None
        if bind_group is not None:
            cache.move_to_end(bg_key)
        if bind_group is None:
            try:
                bind_group = self.wgpu_device.create_bind_group(layout=bgl, entries=entries)
            except wgpu.GPUError as exc:
                raise LaunchError(f"cannot bind the arguments of '{compiled.entry}': "
                                  f"{exc}") from None
            if cache is not None:
                cache[bg_key] = (bind_group, bgl)   # bgl kept: its id is in the key
                if len(cache) > 8:
                    cache.popitem(last=False)
        else:
            bind_group = bind_group[0]

        if gx == 0 or gy == 0 or gz == 0:
            return  # an empty grid: nothing to run
        encoder = self._encoder or self.wgpu_device.create_command_encoder(label="pyshade.launch")
        # One compute pass per launch: WebGPU makes each dispatch see the
        # writes of earlier dispatches either way, and separate passes let
        # batched ``write()`` copies sit between them.
        cpass = encoder.begin_compute_pass()
        cpass.set_pipeline(pipeline)
        cpass.set_bind_group(0, bind_group, offsets)
        cpass.dispatch_workgroups(gx, gy, gz)
        cpass.end()
        if self._encoder is None:
            self._submit(encoder, f"the launch of '{compiled.entry}'")
        else:
            self._keepalive.append(bind_group)
