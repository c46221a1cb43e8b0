"""Per-dispatch host cost: pyshade's vulkan device against the same SPIR-V dispatched
through the ``vulkan`` binding directly (no pyshade code in the timed loops).

Kernel: ``data[i] += p.value`` over 64 u32 (one workgroup), parameters as push
constants. Cases, each the median of ``--reps`` repetitions of ``--launches``:

Batched cases time the recording loop (host cost per launch; the GPU's work is
waited for outside the timing); ``plain`` times launches plus the final wait.

* ``batched``: launches recorded into one command buffer (pyshade: ``dev.batch()``
  + ``run_prepared``, the launch path's call; direct: one command buffer with
  push constants, descriptor set and dispatch per launch, a barrier between
  dependent dispatches, as pyshade records them), one submit, wait.
* ``batched-wrappers``: the direct loop through the binding's Python wrappers
  (``vk.vkCmdDispatch`` ...) instead of its cffi ``lib``.
* ``plain``: every launch its own submission with a fence (pyshade outside a
  batch; direct: a ring of 16 command buffers and fences), then wait for all.

Usage: ``python bench/probes/vulkan_dispatch_probe.py [--adapter N] [--launches 2000]``.
The direct setup reuses the device's VkDevice and queue (setup is not timed).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

SRC = """#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant, std430) uniform Params { uint value; uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) data[i] += p.value; }
"""


def _timed(fn, reps: int) -> float:
    """Median over ``reps`` of the host time that ``fn`` reports (its recording loop)."""
    return statistics.median(fn() for _ in range(reps))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--adapter", type=int, default=0)
    ap.add_argument("--launches", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()

    from pyshade.runtime.base import BufferSlot, Compiled, Layout, ParamBlock
    from pyshade.runtime.vulkan import VulkanDevice
    from pyshade.toolchains.glslang import compile_glsl

    dev = VulkanDevice(args.adapter)
    spv = compile_glsl(SRC)
    k = Compiled("glsl", spv, SRC, "main",
                 Layout((BufferSlot("data", 0, np.dtype(np.uint32), True),),
                        ParamBlock(1, 16, "push"), (64, 1, 1)), key=("probe",))
    arr = dev.zeros(64, np.uint32)
    prep = dev.prepare(k)
    params = np.array([1, 64, 0, 0], np.uint32).tobytes()
    n = args.launches

    def ps_batched() -> float:
        with dev.batch():
            t0 = time.perf_counter()
            for _ in range(n):
                dev.run_prepared(prep, [arr], params, (1, 1, 1))
            t = time.perf_counter() - t0
        dev.synchronize()
        return t

    def ps_plain() -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            dev.run_prepared(prep, [arr], params, (1, 1, 1))
        dev.synchronize()
        return time.perf_counter() - t0

    # ---- direct: the same pipeline objects, driven by the binding alone -------------
    import vulkan as vk
    ffi, lib = vk.ffi, vk.lib
    device, queue = dev.vk_device, dev.queue
    ps_batched()                                  # makes the descriptor set
    dset = next(iter(dev._sets.values())).handle  # the direct loop binds the same set
    pipeline, playout = prep.pipeline, prep.playout
    ring = []
    for _ in range(16):
        pool = ffi.new("VkCommandPool*")
        lib.vkCreateCommandPool(device, ffi.new("VkCommandPoolCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
            "flags": vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
            "queueFamilyIndex": dev.queue_family}), ffi.NULL, pool)
        cmd = ffi.new("VkCommandBuffer[1]")
        lib.vkAllocateCommandBuffers(device, ffi.new("VkCommandBufferAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            "commandPool": pool[0], "level": 0, "commandBufferCount": 1}), cmd)
        fence = ffi.new("VkFence[1]")
        lib.vkCreateFence(device, ffi.new("VkFenceCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, "flags": 1}), ffi.NULL, fence)
        submit = ffi.new("VkSubmitInfo*", {"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                           "commandBufferCount": 1, "pCommandBuffers": cmd})
        ring.append((pool, cmd, fence, submit))
    begin = ffi.new("VkCommandBufferBeginInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, "flags": 1})
    sets = ffi.new("VkDescriptorSet[1]", [dset])
    barrier = ffi.new("VkMemoryBarrier*", {"sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                           "srcAccessMask": 0x40, "dstAccessMask": 0x60})
    NULL = ffi.NULL

    def direct_batched() -> float:
        _, cmd, fence, submit = ring[0]
        c = cmd[0]
        t0 = time.perf_counter()
        lib.vkBeginCommandBuffer(c, begin)
        lib.vkCmdBindPipeline(c, 1, pipeline)
        lib.vkCmdBindDescriptorSets(c, 1, playout, 0, 1, sets, 0, NULL)
        for i in range(n):
            if i:
                lib.vkCmdPipelineBarrier(c, 0x800, 0x800, 0, 1, barrier, 0, NULL, 0, NULL)
            lib.vkCmdPushConstants(c, playout, 0x20, 0, 16, params)
            lib.vkCmdDispatch(c, 1, 1, 1)
        t = time.perf_counter() - t0
        lib.vkEndCommandBuffer(c)
        lib.vkResetFences(device, 1, fence)
        lib.vkQueueSubmit(queue, 1, submit, fence[0])
        lib.vkWaitForFences(device, 1, fence, 1, 10**11)
        return t

    def direct_batched_wrappers() -> float:
        _, cmd, fence, submit = ring[0]
        c = cmd[0]
        t0 = time.perf_counter()
        vk.vkBeginCommandBuffer(c, begin)
        vk.vkCmdBindPipeline(c, 1, pipeline)
        vk.vkCmdBindDescriptorSets(c, 1, playout, 0, 1, sets, 0, NULL)
        for i in range(n):
            if i:
                vk.vkCmdPipelineBarrier(c, 0x800, 0x800, 0, 1, barrier, 0, NULL, 0, NULL)
            vk.vkCmdPushConstants(c, playout, 0x20, 0, 16, ffi.from_buffer(params))
            vk.vkCmdDispatch(c, 1, 1, 1)
        t = time.perf_counter() - t0
        vk.vkEndCommandBuffer(c)
        lib.vkResetFences(device, 1, fence)
        lib.vkQueueSubmit(queue, 1, submit, fence[0])
        lib.vkWaitForFences(device, 1, fence, 1, 10**11)
        return t

    def direct_plain() -> float:
        t0 = time.perf_counter()
        for i in range(n):
            _, cmd, fence, submit = ring[i % 16]
            lib.vkWaitForFences(device, 1, fence, 1, 10**11)
            lib.vkResetFences(device, 1, fence)
            c = cmd[0]
            lib.vkBeginCommandBuffer(c, begin)
            lib.vkCmdBindPipeline(c, 1, pipeline)
            lib.vkCmdBindDescriptorSets(c, 1, playout, 0, 1, sets, 0, NULL)
            lib.vkCmdPushConstants(c, playout, 0x20, 0, 16, params)
            lib.vkCmdDispatch(c, 1, 1, 1)
            lib.vkEndCommandBuffer(c)
            lib.vkQueueSubmit(queue, 1, submit, fence[0])
        for _, _, fence, _ in ring:
            lib.vkWaitForFences(device, 1, fence, 1, 10**11)
        return time.perf_counter() - t0

    print(f"{dev.adapter}: {n} launches, median of {args.reps}")
    rows = [("batched", ps_batched, direct_batched),
            ("batched-wrappers", ps_batched, direct_batched_wrappers),
            ("plain", ps_plain, direct_plain)]
    for name, mine, theirs in rows:
        mine()
        theirs()
        a, b = _timed(mine, args.reps) / n * 1e6, _timed(theirs, args.reps) / n * 1e6
        print(f"  {name:17} pyshade {a:7.2f} us/launch  direct {b:7.2f} us/launch  "
              f"ratio {a / b:5.2f}  pyshade's own {a - b:+6.2f} us")
    expect = n * (1 + len(rows) * 2 * (1 + args.reps))      # every launch adds 1
    got = int(arr.numpy()[0])
    print(f"  check: data[0] = {got}, {expect} expected: {'ok' if got == expect else 'FAILED'}")
    for pool, _, _, _ in ring:
        lib.vkDestroyCommandPool(device, pool[0], NULL)


if __name__ == "__main__":
    main()
