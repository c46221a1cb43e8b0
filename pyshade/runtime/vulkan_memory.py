"""Buffers, command buffers, pipelines and descriptor sets of the ``vulkan`` device.

Everything here runs under the device's lock, except ``Buffer.__del__`` and
``Memory.retire``, which only append to a deque (safe from any thread and from
the garbage collector): the device destroys retired objects at its next
collection, once no pending submission can use them.
"""

from __future__ import annotations

import itertools
import os
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from ..errors import CompileError, LaunchError
from .pool import POOL_BYTES, SizePool
from .vulkan_support import check

if TYPE_CHECKING:
    from .vulkan import VulkanDevice

__all__ = ["Buffer", "Memory", "Slot", "make_descriptor_set", "make_pipeline"]

# Vulkan constants used here (spelled out: the hot path avoids module lookups).
_DEVICE_LOCAL, _HOST_VISIBLE, _HOST_COHERENT, _HOST_CACHED = 1, 2, 4, 8
_USAGE_TRANSFER_SRC, _USAGE_TRANSFER_DST = 0x1, 0x2
_USAGE_UNIFORM, _USAGE_STORAGE = 0x10, 0x20
_STAGE_COMPUTE, _STAGE_TRANSFER, _STAGE_HOST = 0x800, 0x1000, 0x4000
BARRIER_STAGES = _STAGE_COMPUTE | _STAGE_TRANSFER   # what a barrier between dispatches waits on
_ACCESS_SHADER_READ, _ACCESS_SHADER_WRITE = 0x20, 0x40
_ACCESS_TRANSFER_READ, _ACCESS_TRANSFER_WRITE, _ACCESS_HOST_READ = 0x800, 0x1000, 0x2000
_STORAGE_BUFFER, _UNIFORM_DYNAMIC, _STORAGE_DYNAMIC = 7, 8, 9
_SHADER_STAGE_COMPUTE = 0x20


def _wait_seconds() -> float:
    """PYSHADE_GPU_WAIT: the seconds a launch waits for its fence before it reports a
    timeout instead of hanging (default 60). A CPU driver compiles a kernel with LLVM
    at its first dispatch, inside that wait: lavapipe took 10-55 s over some fuzzer
    kernels alone on two cores, longer under load (docs/devices/testing.md)."""
    raw = os.environ.get("PYSHADE_GPU_WAIT", "60")
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError(f"PYSHADE_GPU_WAIT={raw!r}: expected a positive number of seconds")
    return seconds


_WAIT_NS = int(_wait_seconds() * 10**9)

# Descriptor pools: sets each, storage-buffer descriptors each.
_POOL_SETS, _POOL_STORAGE = 128, 128 * 8
# Parameter arena per command buffer (uniform/storage parameter blocks).
ARENA_SIZE = 1 << 18

_uids = itertools.count()


class Buffer:
    """A VkBuffer with its own VkDeviceMemory; ``view`` is the host mapping, or None."""

    __slots__ = ("mem", "handle", "memory", "size", "view", "uid", "pooled")

    def __init__(self, mem: Memory, handle: Any, memory: Any, size: int, view: Any,
                 pooled: bool = False, uid: int | None = None):
        self.mem, self.handle, self.memory, self.size, self.view = mem, handle, memory, size, view
        # one per VkBuffer, kept when the pool hands the buffer out again (never reused
        # for another VkBuffer): the arrays on it take it, so the descriptor sets cached
        # for an array serve the next array on the same buffer (a sort's fresh output)
        self.uid = next(_uids) if uid is None else uid
        #: array storage, kept in the memory's pool when freed
        self.pooled = pooled

    def __del__(self) -> None:
        try:
            self.mem.retire("pooled" if self.pooled else "buffer", self.handle, self.memory,
                            self.size, self.view, self.uid)
        except Exception:       # interpreter shutdown: the process frees everything
            pass


class Memory:
    """Memory types, buffer creation and deferred destruction for one device."""

    def __init__(self, dev: VulkanDevice, staging: bool = False):
        self.dev = dev
        self.vk = dev.vk
        self.ffi, self.lib = dev.vk.ffi, dev.vk.lib
        self.device = dev.vk_device
        mp = dev.vk_adapter.memory
        self.types = [int(mp.memoryTypes[i].propertyFlags) for i in range(mp.memoryTypeCount)]
        self.retired: deque = deque()
        # freed array buffers (pool.py): (handle, memory, view, uid) by size in bytes; a
        # new array of the same byte size takes one once the GPU is done with it
        self.pool = SizePool(POOL_BYTES)
        self._readback: Buffer | None = None
        self.unified = False
        probe = self._create(16, _USAGE_STORAGE | _USAGE_TRANSFER_SRC | _USAGE_TRANSFER_DST)
        bits = self._requirements(probe).memoryTypeBits
        self.lib.vkDestroyBuffer(self.device, probe, self.ffi.NULL)
        # Vulkan orders memory types best first among those with the same flags: the
        # first device-local type is where arrays live. When it is host-visible and
        # coherent too (CPU drivers, unified memory), arrays are mapped directly.
        t = self._pick(bits, _DEVICE_LOCAL, 0)
        need = _HOST_VISIBLE | _HOST_COHERENT
        self.unified = (t is None or self.types[t] & need == need) and not staging

    # ---- creation -------------------------------------------------------------

    def _create(self, size: int, usage: int) -> Any:
        ffi = self.ffi
        info = ffi.new("VkBufferCreateInfo*", {
            "sType": self.vk.VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, "size": size,
            "usage": usage, "sharingMode": 0})
        out = ffi.new("VkBuffer*")
        check(self.lib.vkCreateBuffer(self.device, info, ffi.NULL, out), "vkCreateBuffer")
        return out[0]

    def _requirements(self, handle: Any) -> Any:
        req = self.ffi.new("VkMemoryRequirements*")
        self.lib.vkGetBufferMemoryRequirements(self.device, handle, req)
        return req

    def _pick(self, bits: int, need: int, prefer: int) -> int | None:
        """The first memory type allowed by ``bits`` with flags ``need`` (with ``prefer``
        too where one has them)."""
        allowed = [i for i, f in enumerate(self.types) if bits >> i & 1 and f & need == need]
        best = [i for i in allowed if self.types[i] & prefer == prefer]
        return (best or allowed or [None])[0]

    def buffer(self, size: int, usage: int, need: int, prefer: int = 0,
               mapped: bool = True) -> Buffer:
        """A new buffer of ``size`` bytes in memory with flags ``need``; mapped when
        host-visible (and ``mapped``)."""
        ffi, lib = self.ffi, self.lib
        handle = self._create(size, usage)
        req = self._requirements(handle)
        index = self._pick(req.memoryTypeBits, need, prefer)
        if index is None:
            lib.vkDestroyBuffer(self.device, handle, ffi.NULL)
            raise MemoryError(f"{self.dev.adapter} has no memory type with flags {need:#x}")
        info = ffi.new("VkMemoryAllocateInfo*", {
            "sType": self.vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            "allocationSize": req.size, "memoryTypeIndex": index})
        out = ffi.new("VkDeviceMemory*")
        result = lib.vkAllocateMemory(self.device, info, ffi.NULL, out)
        if result != 0:
            lib.vkDestroyBuffer(self.device, handle, ffi.NULL)
            raise MemoryError(f"cannot allocate {size} bytes on {self.dev.adapter} "
                              f"(vkAllocateMemory: {result})")
        memory = out[0]
        check(lib.vkBindBufferMemory(self.device, handle, memory, 0), "vkBindBufferMemory")
        view = None
        if mapped and self.types[index] & _HOST_VISIBLE:
            ptr = ffi.new("void**")
            check(lib.vkMapMemory(self.device, memory, 0, size, 0, ptr), "vkMapMemory")
            view = ffi.buffer(ptr[0], size)
        return Buffer(self, handle, memory, size, view)

    def array_buffer(self, size: int) -> Buffer:
        """Storage for a device array: device-local (mapped when unified); a pooled
        buffer of the same size when there is one (nothing pending uses it)."""
        hit = self.pool.take(size)
        if hit is not None:
            handle, memory, view, uid = hit
            return Buffer(self, handle, memory, size, view, pooled=True, uid=uid)
        usage = _USAGE_STORAGE | _USAGE_TRANSFER_SRC | _USAGE_TRANSFER_DST
        need = _DEVICE_LOCAL | (_HOST_VISIBLE | _HOST_COHERENT if self.unified else 0)
        try:
            buf = self.buffer(size, usage, need, mapped=self.unified)
        except MemoryError:
            if not self.pool.bytes:
                raise
            self.release_pool()
            buf = self.buffer(size, usage, need, mapped=self.unified)
        buf.pooled = True
        return buf

    def release_pool(self) -> None:
        """Destroy every pooled buffer (before an allocation that failed is retried)."""
        ffi, lib, dev = self.ffi, self.lib, self.device
        for handle, memory, _, _ in self.pool.drain():
            lib.vkDestroyBuffer(dev, handle, ffi.NULL)
            lib.vkFreeMemory(dev, memory, ffi.NULL)

    def staging(self, size: int) -> Buffer:
        """A host-visible buffer to copy ``size`` bytes from."""
        return self.buffer(size, _USAGE_TRANSFER_SRC, _HOST_VISIBLE | _HOST_COHERENT)

    def readback(self, size: int) -> Buffer:
        """The device's read-back buffer (host-cached where possible), grown to ``size``."""
        rb = self._readback
        if rb is None or rb.size < size:
            self._readback = None
            rb = self._readback = self.buffer(max(1 << (size - 1).bit_length(), 4096),
                                              _USAGE_TRANSFER_DST,
                                              _HOST_VISIBLE | _HOST_COHERENT, _HOST_CACHED)
        return rb

    def region(self, size: int) -> Any:
        return self.ffi.new("VkBufferCopy*", {"size": size})

    # ---- deferred destruction --------------------------------------------------

    def retire(self, kind: str, *handles: Any) -> None:
        """Destroy ``handles`` once the submission being recorded (or the next) is done."""
        self.retired.append((self.dev._serial, kind, handles))

    def destroy_retired(self, pending: int | None) -> None:
        """Destroy what was retired before submission ``pending`` (None: nothing pending)."""
        ffi, lib, dev = self.ffi, self.lib, self.device
        queue = self.retired
        for _ in range(len(queue)):
            item = queue.popleft()
            tag, kind, h = item
            if pending is not None and tag >= pending:
                queue.append(item)
                continue
            if kind == "pooled" and self.pool.put(h[2], (h[0], h[1], h[3], h[4])):
                continue                        # kept for the next array of its size
            if kind in ("buffer", "pooled"):
                lib.vkDestroyBuffer(dev, h[0], ffi.NULL)
                lib.vkFreeMemory(dev, h[1], ffi.NULL)
            elif kind == "set":
                lib.vkFreeDescriptorSets(dev, h[0], 1, ffi.new("VkDescriptorSet*", h[1]))
            elif kind == "pipeline":
                lib.vkDestroyPipeline(dev, h[0], ffi.NULL)
                lib.vkDestroyPipelineLayout(dev, h[1], ffi.NULL)
                lib.vkDestroyDescriptorSetLayout(dev, h[2], ffi.NULL)


class Arena:
    """Parameter blocks of one command buffer, bound at dynamic offsets."""

    def __init__(self, mem: Memory, align: int):
        self.buf = mem.buffer(ARENA_SIZE, _USAGE_UNIFORM | _USAGE_STORAGE,
                              _HOST_VISIBLE | _HOST_COHERENT, _DEVICE_LOCAL)
        self.uid = self.buf.uid
        self.align = align
        self.used = 0
        self.ffi = mem.ffi

    def put(self, raw: bytes) -> int | None:
        off = -(-self.used // self.align) * self.align
        end = off + len(raw)
        if end > ARENA_SIZE:
            return None
        self.buf.view[off:end] = raw
        self.used = end
        return off

    def offset_ptr(self, off: int) -> Any:
        return self.ffi.new("uint32_t[1]", [off])


class Slot:
    """A command buffer with its fence, parameter arena and what it must keep alive."""

    def __init__(self, dev: VulkanDevice, staging: bool = False):
        vk = dev.vk
        ffi, lib = vk.ffi, vk.lib
        self.dev, self.lib, self.device = dev, lib, dev.vk_device
        pool_info = ffi.new("VkCommandPoolCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
            "flags": vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
            "queueFamilyIndex": dev.queue_family})
        pool = ffi.new("VkCommandPool*")
        check(lib.vkCreateCommandPool(self.device, pool_info, ffi.NULL, pool),
              "vkCreateCommandPool")
        self.pool = pool[0]
        alloc = ffi.new("VkCommandBufferAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            "commandPool": self.pool, "level": 0, "commandBufferCount": 1})
        self.cmd_ptr = ffi.new("VkCommandBuffer[1]")
        check(lib.vkAllocateCommandBuffers(self.device, alloc, self.cmd_ptr),
              "vkAllocateCommandBuffers")
        self.cmd = self.cmd_ptr[0]
        self.fence_ptr = ffi.new("VkFence[1]")
        finfo = ffi.new("VkFenceCreateInfo*", {"sType": vk.VK_STRUCTURE_TYPE_FENCE_CREATE_INFO})
        check(lib.vkCreateFence(self.device, finfo, ffi.NULL, self.fence_ptr), "vkCreateFence")
        self.fence = self.fence_ptr[0]
        self.begin_info = ffi.new("VkCommandBufferBeginInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
            "flags": vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT})
        self.submit_info = ffi.new("VkSubmitInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO, "commandBufferCount": 1,
            "pCommandBuffers": self.cmd_ptr})
        # Every command after a barrier sees the shader and transfer writes before it.
        self.full = ffi.new("VkMemoryBarrier*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            "srcAccessMask": _ACCESS_SHADER_WRITE | _ACCESS_TRANSFER_WRITE,
            "dstAccessMask": _ACCESS_SHADER_READ | _ACCESS_SHADER_WRITE
            | _ACCESS_TRANSFER_READ | _ACCESS_TRANSFER_WRITE})
        self.to_host = ffi.new("VkMemoryBarrier*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            "srcAccessMask": _ACCESS_SHADER_WRITE | _ACCESS_TRANSFER_WRITE,
            "dstAccessMask": _ACCESS_HOST_READ})
        self.null = ffi.NULL
        self.serial = -1
        self.recorded = 0
        self.keep: list[Any] = []
        self._arena: Arena | None = None

    def begin(self, serial: int) -> None:
        self.serial = serial
        self.recorded = 0
        check(self.lib.vkBeginCommandBuffer(self.cmd, self.begin_info), "vkBeginCommandBuffer")
        self.barrier()          # after the submissions before this one

    def barrier(self) -> None:
        stages = _STAGE_COMPUTE | _STAGE_TRANSFER
        n = self.null
        self.lib.vkCmdPipelineBarrier(self.cmd, stages, stages, 0, 1, self.full, 0, n, 0, n)

    def arena(self, kind: str) -> Arena:
        a = self._arena
        if a is None:
            lim = self.dev.limits
            align = max(lim["min_uniform_buffer_offset_alignment"],
                        lim["min_storage_buffer_offset_alignment"], 16)
            a = self._arena = Arena(self.dev._mem, align)
        return a

    def submit(self) -> None:
        lib, n = self.lib, self.null
        lib.vkCmdPipelineBarrier(self.cmd, _STAGE_COMPUTE | _STAGE_TRANSFER, _STAGE_HOST, 0,
                                 1, self.to_host, 0, n, 0, n)
        check(lib.vkEndCommandBuffer(self.cmd), "vkEndCommandBuffer")
        result = lib.vkQueueSubmit(self.dev.queue, 1, self.submit_info, self.fence)
        if result != 0:
            raise LaunchError(f"vkQueueSubmit failed ({result}) on {self.dev.adapter}")

    def done(self) -> bool:
        return self.lib.vkGetFenceStatus(self.device, self.fence) == 0

    def wait(self, spin: float = 0.0) -> None:
        """Wait for the submission; poll the fence for ``spin`` seconds first."""
        if spin:
            status, device, fence = self.lib.vkGetFenceStatus, self.device, self.fence
            end = time.perf_counter() + spin
            while status(device, fence) != 0:
                if time.perf_counter() > end:
                    break
            else:
                return
        result = self.lib.vkWaitForFences(self.device, 1, self.fence_ptr, 1, _WAIT_NS)
        if result == 2:                 # VK_TIMEOUT
            # whether the fence is signalled right after the wait gave up tells a lost
            # wake-up from work still running (lavapipe timed out on fuzz kernels that
            # run in 4 s alone: seed 4417004 kernels 0 and 92, not reproduced since)
            late = "; the fence is signalled now" if self.done() else ""
            why = f"timeout after {_WAIT_NS / 1e9:g} s{late}; PYSHADE_GPU_WAIT sets the seconds"
        elif result != 0:
            why = "device lost?"
        else:
            return
        raise LaunchError(f"waiting for the GPU failed ({result}: {why}) on {self.dev.adapter}")

    def recycle(self) -> Slot:
        check(self.lib.vkResetFences(self.device, 1, self.fence_ptr), "vkResetFences")
        self.keep.clear()
        if self._arena is not None:
            self._arena.used = 0
        return self


# ---- pipelines and descriptor sets -----------------------------------------------


def make_pipeline(dev: VulkanDevice, binary: bytes, compiled: Any, push_size: int) -> tuple:
    """(None, set layout, pipeline layout, pipeline) for SPIR-V ``binary`` and its layout.

    The shader module is destroyed once the pipeline exists (Vulkan allows it).
    """
    vk = dev.vk
    ffi, lib, device = vk.ffi, vk.lib, dev.vk_device
    layout = compiled.layout
    entries = [(s.binding, _STORAGE_BUFFER) for s in layout.buffers]
    pb = layout.params
    if pb is not None and pb.kind != "push":
        if pb.kind == "uniform" and pb.size > dev.limits["max_uniform_buffer_range"]:
            raise LaunchError(f"'{compiled.entry}': a uniform parameter block of {pb.size} "
                              f"bytes exceeds maxUniformBufferRange "
                              f"({dev.limits['max_uniform_buffer_range']}): use kind 'storage'")
        entries.append((pb.binding, _UNIFORM_DYNAMIC if pb.kind == "uniform"
                        else _STORAGE_DYNAMIC))
    bindings = ffi.new("VkDescriptorSetLayoutBinding[]", [
        {"binding": b, "descriptorType": t, "descriptorCount": 1,
         "stageFlags": _SHADER_STAGE_COMPUTE} for b, t in entries] or 1)
    dsl_info = ffi.new("VkDescriptorSetLayoutCreateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        "bindingCount": len(entries), "pBindings": bindings})
    dsl = ffi.new("VkDescriptorSetLayout[1]")
    check(lib.vkCreateDescriptorSetLayout(device, dsl_info, ffi.NULL, dsl),
          "vkCreateDescriptorSetLayout")
    push = ffi.new("VkPushConstantRange*", {"stageFlags": _SHADER_STAGE_COMPUTE,
                                            "offset": 0, "size": push_size})
    pl_info = ffi.new("VkPipelineLayoutCreateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        "setLayoutCount": 1, "pSetLayouts": dsl,
        "pushConstantRangeCount": 1 if push_size else 0,
        "pPushConstantRanges": push if push_size else ffi.NULL})
    playout = ffi.new("VkPipelineLayout*")
    check(lib.vkCreatePipelineLayout(device, pl_info, ffi.NULL, playout),
          "vkCreatePipelineLayout")
    code = ffi.from_buffer(binary)
    sm_info = ffi.new("VkShaderModuleCreateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, "codeSize": len(binary),
        "pCode": ffi.cast("uint32_t*", code)})
    module = ffi.new("VkShaderModule*")
    result = lib.vkCreateShaderModule(device, sm_info, ffi.NULL, module)
    pipeline = ffi.new("VkPipeline*")
    if result == 0:
        name = ffi.new("char[]", compiled.entry.encode())
        info = ffi.new("VkComputePipelineCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            "stage": {"sType": vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                      "stage": _SHADER_STAGE_COMPUTE, "module": module[0], "pName": name},
            "layout": playout[0]})
        result = lib.vkCreateComputePipelines(device, ffi.NULL, 1, info, ffi.NULL, pipeline)
        lib.vkDestroyShaderModule(device, module[0], ffi.NULL)
    if result != 0:
        lib.vkDestroyPipelineLayout(device, playout[0], ffi.NULL)
        lib.vkDestroyDescriptorSetLayout(device, dsl[0], ffi.NULL)
        raise CompileError(f"the Vulkan driver rejected the compute pipeline for "
                           f"'{compiled.entry}' (VkResult {result})", target=compiled.target,
                           log=f"{dev.adapter}: VkResult {result}", source=compiled.source)
    return None, dsl[0], playout[0], pipeline[0]


def _new_pool(dev: VulkanDevice, sets: int, storage: int) -> Any:
    vk = dev.vk
    ffi = vk.ffi
    sizes = ffi.new("VkDescriptorPoolSize[3]", [
        {"type": _STORAGE_BUFFER, "descriptorCount": storage},
        {"type": _UNIFORM_DYNAMIC, "descriptorCount": sets},
        {"type": _STORAGE_DYNAMIC, "descriptorCount": sets}])
    info = ffi.new("VkDescriptorPoolCreateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        "flags": vk.VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
        "maxSets": sets, "poolSizeCount": 3, "pPoolSizes": sizes})
    out = ffi.new("VkDescriptorPool*")
    check(vk.lib.vkCreateDescriptorPool(dev.vk_device, info, ffi.NULL, out),
          "vkCreateDescriptorPool")
    dev._pools.append(out[0])
    return out[0]


def make_descriptor_set(dev: VulkanDevice, prep: Any, buffers: Any, arena: Arena | None) -> tuple:
    """(set, pool): a descriptor set binding ``buffers`` (and ``arena``) for ``prep``.

    Pools are kept for the device's life; a set is freed back to its pool when
    the cache drops it. A full pool gets a successor, sized for this set if
    needed, so the number of pools follows the number of live sets.
    """
    vk = dev.vk
    ffi, lib, device = vk.ffi, vk.lib, dev.vk_device
    layouts = ffi.new("VkDescriptorSetLayout[1]", [prep.dsl])
    out = ffi.new("VkDescriptorSet*")
    pools = dev._pools

    def alloc(pool: Any) -> int:
        info = ffi.new("VkDescriptorSetAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            "descriptorPool": pool, "descriptorSetCount": 1, "pSetLayouts": layouts})
        return lib.vkAllocateDescriptorSets(device, info, out)

    # Sets freed by the cache go back to whichever pool they came from: try every
    # pool (newest first) before making another, or the count of pools grows with
    # the number of sets ever made (seen on NVIDIA, which enforces maxSets).
    pool = next((p for p in reversed(pools) if alloc(p) == 0), None)
    if pool is None:
        pool = _new_pool(dev, _POOL_SETS, _POOL_STORAGE)
        result = alloc(pool)
        if result != 0:                       # a set larger than a standard pool
            pool = _new_pool(dev, 1, max(1, len(buffers)))
            check(alloc(pool), "vkAllocateDescriptorSets")
    n = len(buffers) + (arena is not None)
    infos = ffi.new("VkDescriptorBufferInfo[]", max(n, 1))
    writes = ffi.new("VkWriteDescriptorSet[]", max(n, 1))
    whole = (1 << 64) - 1        # VK_WHOLE_SIZE (the binding spells it -1)
    items = [(s.binding, _STORAGE_BUFFER, a.buf.handle, whole)
             for s, a in zip(prep.slots, buffers)]
    if arena is not None:
        items.append((prep.pb.binding, _UNIFORM_DYNAMIC if prep.dyn == "uniform"
                      else _STORAGE_DYNAMIC, arena.buf.handle, max(prep.pb.size, 16)))
    for i, (b, t, handle, rng) in enumerate(items):
        infos[i].buffer = handle
        infos[i].offset = 0
        infos[i].range = rng
        w = writes[i]
        w.sType = vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
        w.dstSet = out[0]
        w.dstBinding = b
        w.descriptorCount = 1
        w.descriptorType = t
        w.pBufferInfo = infos + i
    if n:
        lib.vkUpdateDescriptorSets(device, n, writes, 0, ffi.NULL)
    return out[0], pool
