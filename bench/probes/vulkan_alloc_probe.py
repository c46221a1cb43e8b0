"""Does how a Vulkan buffer's memory is allocated change a kernel's bandwidth? (issue 17)

bench/probes/memory_pattern_probe.py found a copy of 2^24 u32 1.4-1.7 times slower
through Vulkan than through CUDA on an H100, barriers or not
(bench/probes/vulkan_barrier_probe.py). Here the same copy kernels run through the
pyshade Vulkan device on source and destination buffers allocated in other ways:

- ``pyshade``: the device's own (one vkAllocateMemory per buffer, the first
  device-local memory type);
- ``dedicated``: VkMemoryDedicatedAllocateInfo chained to the allocation;
- ``one block``: both buffers bound at 2 MiB-aligned offsets of one allocation;
- ``type t``: every other device-local memory type the buffer allows.

Milliseconds per launch (median of 5 batches of 10); the memory types are printed.

    python bench/probes/vulkan_alloc_probe.py [--n 16777216]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from memory_pattern_probe import copy, copy_many, timed  # noqa: E402

import pyshade as ps  # noqa: E402
from pyshade.runtime.vulkan import VulkanArray  # noqa: E402
from pyshade.runtime.vulkan_memory import Buffer  # noqa: E402

_KEEP: list = []


def raw_array(dev, nbytes: int, type_index: int, dedicated: bool = False, block=None,
              offset: int = 0) -> VulkanArray:
    """A u32 array on a buffer bound to memory allocated as asked (kept until exit)."""
    vk, ffi, lib, d = dev.vk, dev.vk.ffi, dev.vk.lib, dev.vk_device
    mem = dev._mem
    handle = mem._create(nbytes, 0x20 | 0x1 | 0x2)
    req = mem._requirements(handle)
    if block is None:
        info = ffi.new("VkMemoryAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            "allocationSize": req.size, "memoryTypeIndex": type_index})
        if dedicated:
            ded = ffi.new("VkMemoryDedicatedAllocateInfo*", {
                "sType": vk.VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                "buffer": handle})
            info.pNext = ded
            _KEEP.append(ded)
        out = ffi.new("VkDeviceMemory*")
        assert lib.vkAllocateMemory(d, info, ffi.NULL, out) == 0
        memory = out[0]
    else:
        memory = block
    assert lib.vkBindBufferMemory(d, handle, memory, offset) == 0
    buf = Buffer(mem, handle, memory, nbytes, None)
    buf.pooled = True           # freed into the pool, never destroyed here
    arr = VulkanArray(dev, buf, np.uint32, (nbytes // 4,))
    _KEEP.append(arr)
    return arr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    n = ap.parse_args().n
    dev = ps.device("vulkan")
    vk, ffi, lib = dev.vk, dev.vk.ffi, dev.vk.lib
    mp = dev.vk_adapter.memory
    for i in range(mp.memoryTypeCount):
        t = mp.memoryTypes[i]
        print(f"memory type {i}: flags {int(t.propertyFlags):#x}, heap {t.heapIndex} "
              f"({mp.memoryHeaps[t.heapIndex].size >> 20} MiB, flags "
              f"{int(mp.memoryHeaps[t.heapIndex].flags):#x})")
    nbytes = 4 * n
    probe = dev._mem._create(nbytes, 0x23)
    bits = dev._mem._requirements(probe).memoryTypeBits
    local = [i for i in range(mp.memoryTypeCount) if bits >> i & 1
             and mp.memoryTypes[i].propertyFlags & 1]
    first = local[0]
    print(f"allowed types {bits:#x}, device-local {local}")
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    pairs = {"pyshade": (dev.array(host), dev.empty(n, np.uint32)),
             "dedicated": (raw_array(dev, nbytes, first, True),
                           raw_array(dev, nbytes, first, True))}
    align = 2 << 20
    size = -(-nbytes // align) * align
    info = ffi.new("VkMemoryAllocateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        "allocationSize": 2 * size, "memoryTypeIndex": first})
    out = ffi.new("VkDeviceMemory*")
    assert lib.vkAllocateMemory(dev.vk_device, info, ffi.NULL, out) == 0
    pairs["one block"] = (raw_array(dev, nbytes, first, block=out[0]),
                          raw_array(dev, nbytes, first, block=out[0], offset=size))
    for t in local[1:]:
        pairs[f"type {t}"] = (raw_array(dev, nbytes, t), raw_array(dev, nbytes, t))
    rows = {}
    for label, (src, dst) in pairs.items():
        if label != "pyshade":
            src.write(host)
        rows[f"copy, {label}"] = timed(dev, lambda s=src, d=dst: copy.launch(
            s, d, n, threads=n, device=dev))
        rows[f"copy 4 a thread, {label}"] = timed(dev, lambda s=src, d=dst: copy_many.launch(
            s, d, n, 4, threads=n // 4, device=dev))
        assert np.array_equal(dst.numpy(), host), label
    print(f"{dev.adapter}, n = {n}, ms per launch")
    print("| measurement | vulkan |\n|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {v:.4f} |")
    sys.stdout.flush()
    os._exit(0)                 # the raw buffers are not the pool's to free


if __name__ == "__main__":
    main()
