"""Baseline: GLSL kernels run through the ``vulkan`` binding alone (no pyshade code, no
pyshade import): glslangValidator by subprocess, one pipeline with push constants, one
command buffer, as a careful user of the binding writes it. ``tests/test_bench_cli.py``
checks that this module imports nothing from pyshade.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

import numpy as np

HAND_GLSL = """#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant, std430) uniform P { uint n; uint stage; uint pass_of_stage; uint order; } p;
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    uint partner = i ^ (1u << (p.stage - p.pass_of_stage));
    if (partner > i && partner < p.n) {
        bool up = ((i >> (p.stage + 1u)) & 1u) == 0u;
        if (p.order == 1u) { up = !up; }
        uint a = data[i];
        uint b = data[partner];
        if ((b < a) == up) { data[i] = b; data[partner] = a; }
    }
}
"""


def sort_steps(n: int) -> list[tuple[int, int]]:
    """(stage, pass_of_stage) of the bitonic network over n = 2^k keys."""
    k = n.bit_length() - 1
    return [(s, p) for s in range(k) for p in range(s + 1)]


FILL_GLSL = """#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint x[]; };
layout(push_constant, std430) uniform P { uint v; uint n; uint pad0; uint pad1; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) { x[i] = p.v; }
}
"""


def glslang_spirv(src: str) -> bytes:
    """SPIR-V from glslangValidator (subprocess; the hand version's own build step). The
    tool is found on PATH, else in a checkout's ``.tools/bin``."""
    tool = shutil.which("glslangValidator") or os.path.join(
        os.getcwd(), ".tools", "bin", "glslangValidator")
    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "k.comp"), os.path.join(d, "k.spv")
        with open(path, "w") as f:
            f.write(src)
        subprocess.run([tool, "-V", "--target-env", "vulkan1.1", "-S", "comp", "-o", out,
                        path], check=True, capture_output=True)
        with open(out, "rb") as f:
            return f.read()


class HandVulkan:
    """The bitonic sort through the ``vulkan`` binding alone, as a careful user writes it:
    a device-local key buffer (uploaded and read back through a host-visible staging
    buffer), push constants, one command buffer for all steps."""

    def __init__(self, capacity: int, adapter_name: str | None, glsl: str = HAND_GLSL):
        import vulkan as vk
        self.vk, ffi, lib = vk, vk.ffi, vk.lib
        self.ffi, self.lib, self.n = ffi, lib, capacity
        app = ffi.new("VkApplicationInfo*", {"sType": vk.VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                             "apiVersion": vk.VK_MAKE_VERSION(1, 1, 0)})
        inst = ffi.new("VkInstance*")
        assert lib.vkCreateInstance(ffi.new("VkInstanceCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, "pApplicationInfo": app}),
            ffi.NULL, inst) == 0
        self.instance = inst[0]
        cnt = ffi.new("uint32_t*")
        lib.vkEnumeratePhysicalDevices(self.instance, cnt, ffi.NULL)
        phys = ffi.new("VkPhysicalDevice[]", cnt[0])
        lib.vkEnumeratePhysicalDevices(self.instance, cnt, phys)
        chosen = None
        for i in range(cnt[0]):
            props = ffi.new("VkPhysicalDeviceProperties*")
            lib.vkGetPhysicalDeviceProperties(phys[i], props)
            name = ffi.string(props.deviceName).decode()
            if adapter_name is None or name == adapter_name:
                chosen, self.name, self.props = phys[i], name, props
                break
        assert chosen is not None, f"no Vulkan adapter named {adapter_name!r}"
        self.phys = chosen
        lib.vkGetPhysicalDeviceQueueFamilyProperties(chosen, cnt, ffi.NULL)
        fams = ffi.new("VkQueueFamilyProperties[]", cnt[0])
        lib.vkGetPhysicalDeviceQueueFamilyProperties(chosen, cnt, fams)
        self.family = next(i for i in range(cnt[0]) if fams[i].queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
        self.ts_valid = fams[self.family].timestampValidBits
        prio = ffi.new("float[]", [1.0])
        dev = ffi.new("VkDevice*")
        assert lib.vkCreateDevice(chosen, ffi.new("VkDeviceCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, "queueCreateInfoCount": 1,
            "pQueueCreateInfos": ffi.new("VkDeviceQueueCreateInfo*", {
                "sType": vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                "queueFamilyIndex": self.family, "queueCount": 1, "pQueuePriorities": prio})}),
            ffi.NULL, dev) == 0
        self.device = dev[0]
        q = ffi.new("VkQueue*")
        lib.vkGetDeviceQueue(self.device, self.family, 0, q)
        self.queue = q[0]
        size = capacity * 4
        self.data, self.data_mem = self._buffer(size, 0x20 | 0x1 | 0x2, 0x1)  # storage+src+dst
        self.stage, self.stage_mem = self._buffer(size, 0x1 | 0x2, 0x2 | 0x4)  # host-visible
        ptr = ffi.new("void**")
        lib.vkMapMemory(self.device, self.stage_mem, 0, size, 0, ptr)
        self.mapped = ffi.buffer(ptr[0], size)
        self._pipeline(glslang_spirv(glsl))
        pool = ffi.new("VkCommandPool*")
        lib.vkCreateCommandPool(self.device, ffi.new("VkCommandPoolCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, "flags": 0x2,
            "queueFamilyIndex": self.family}), ffi.NULL, pool)
        self.cmd = ffi.new("VkCommandBuffer[1]")
        lib.vkAllocateCommandBuffers(self.device, ffi.new("VkCommandBufferAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            "commandPool": pool[0], "level": 0, "commandBufferCount": 1}), self.cmd)
        self.fence = ffi.new("VkFence[1]")
        lib.vkCreateFence(self.device, ffi.new("VkFenceCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_FENCE_CREATE_INFO}), ffi.NULL, self.fence)
        self.submit = ffi.new("VkSubmitInfo*", {"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                                "commandBufferCount": 1,
                                                "pCommandBuffers": self.cmd})
        self.begin = ffi.new("VkCommandBufferBeginInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, "flags": 1})
        self.barrier = ffi.new("VkMemoryBarrier*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER, "srcAccessMask": 0x40 | 0x1000,
            "dstAccessMask": 0x20 | 0x40 | 0x800})
        self.qpool = None
        if self.ts_valid:
            qp = ffi.new("VkQueryPool*")
            lib.vkCreateQueryPool(self.device, ffi.new("VkQueryPoolCreateInfo*", {
                "sType": vk.VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, "queryType": 2,
                "queryCount": 2}), ffi.NULL, qp)                  # VK_QUERY_TYPE_TIMESTAMP
            self.qpool = qp[0]

    def _buffer(self, size: int, usage: int, want: int) -> tuple:
        vk, ffi, lib = self.vk, self.ffi, self.lib
        buf = ffi.new("VkBuffer*")
        lib.vkCreateBuffer(self.device, ffi.new("VkBufferCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, "size": size, "usage": usage}),
            ffi.NULL, buf)
        req = ffi.new("VkMemoryRequirements*")
        lib.vkGetBufferMemoryRequirements(self.device, buf[0], req)
        mp = ffi.new("VkPhysicalDeviceMemoryProperties*")
        lib.vkGetPhysicalDeviceMemoryProperties(self.phys, mp)
        idx = next(i for i in range(mp.memoryTypeCount) if req.memoryTypeBits >> i & 1
                   and mp.memoryTypes[i].propertyFlags & want == want)
        mem = ffi.new("VkDeviceMemory*")
        assert lib.vkAllocateMemory(self.device, ffi.new("VkMemoryAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, "allocationSize": req.size,
            "memoryTypeIndex": idx}), ffi.NULL, mem) == 0
        lib.vkBindBufferMemory(self.device, buf[0], mem[0], 0)
        return buf[0], mem[0]

    def _pipeline(self, spirv: bytes) -> None:
        vk, ffi, lib, d = self.vk, self.ffi, self.lib, self.device
        dsl = ffi.new("VkDescriptorSetLayout*")
        lib.vkCreateDescriptorSetLayout(d, ffi.new("VkDescriptorSetLayoutCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, "bindingCount": 1,
            "pBindings": ffi.new("VkDescriptorSetLayoutBinding*", {
                "binding": 0, "descriptorType": vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                "descriptorCount": 1, "stageFlags": 0x20})}), ffi.NULL, dsl)
        pl = ffi.new("VkPipelineLayout*")
        lib.vkCreatePipelineLayout(d, ffi.new("VkPipelineLayoutCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, "setLayoutCount": 1,
            "pSetLayouts": dsl, "pushConstantRangeCount": 1,
            "pPushConstantRanges": ffi.new("VkPushConstantRange*", {
                "stageFlags": 0x20, "offset": 0, "size": 16})}), ffi.NULL, pl)
        self.playout = pl[0]
        code = ffi.from_buffer(spirv)
        mod = ffi.new("VkShaderModule*")
        lib.vkCreateShaderModule(d, ffi.new("VkShaderModuleCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, "codeSize": len(spirv),
            "pCode": ffi.cast("uint32_t*", code)}), ffi.NULL, mod)
        name = ffi.new("char[]", b"main")
        pipe = ffi.new("VkPipeline*")
        assert lib.vkCreateComputePipelines(d, ffi.NULL, 1, ffi.new(
            "VkComputePipelineCreateInfo*", {
                "sType": vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                "stage": {"sType": vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                          "stage": 0x20, "module": mod[0], "pName": name},
                "layout": self.playout}), ffi.NULL, pipe) == 0
        self.pipeline = pipe[0]
        pool = ffi.new("VkDescriptorPool*")
        lib.vkCreateDescriptorPool(d, ffi.new("VkDescriptorPoolCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, "maxSets": 1,
            "poolSizeCount": 1, "pPoolSizes": ffi.new("VkDescriptorPoolSize*", {
                "type": vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, "descriptorCount": 1})}),
            ffi.NULL, pool)
        self.sets = ffi.new("VkDescriptorSet[1]")
        lib.vkAllocateDescriptorSets(d, ffi.new("VkDescriptorSetAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, "descriptorPool": pool[0],
            "descriptorSetCount": 1, "pSetLayouts": dsl}), self.sets)
        lib.vkUpdateDescriptorSets(d, 1, ffi.new("VkWriteDescriptorSet*", {
            "sType": vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, "dstSet": self.sets[0],
            "dstBinding": 0, "descriptorCount": 1,
            "descriptorType": vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            "pBufferInfo": ffi.new("VkDescriptorBufferInfo*", {
                "buffer": self.data, "offset": 0, "range": self.n * 4})}), 0, ffi.NULL)

    def _run(self, record: Any) -> None:
        lib, c = self.lib, self.cmd[0]
        lib.vkBeginCommandBuffer(c, self.begin)
        record(c)
        lib.vkEndCommandBuffer(c)
        lib.vkResetFences(self.device, 1, self.fence)
        lib.vkQueueSubmit(self.queue, 1, self.submit, self.fence[0])
        lib.vkWaitForFences(self.device, 1, self.fence, 1, 10**11)

    def _copy(self, c: Any, src: Any, dst: Any, nbytes: int) -> None:
        self.lib.vkCmdCopyBuffer(c, src, dst, 1, self.ffi.new("VkBufferCopy*", {
            "srcOffset": 0, "dstOffset": 0, "size": nbytes}))

    def upload(self, host: np.ndarray) -> None:
        """Keys into the device-local buffer (through the staging buffer)."""
        self.mapped[:host.nbytes] = host.tobytes()
        self._run(lambda c: self._copy(c, self.stage, self.data, host.nbytes))

    def download(self, n: int) -> np.ndarray:
        """The first n device-local keys back (through the staging buffer)."""
        self._run(lambda c: self._copy(c, self.data, self.stage, n * 4))
        return np.frombuffer(bytes(self.mapped[:n * 4]), np.uint32)

    def sort(self, n: int) -> tuple[float, float | None]:
        """All steps over the first n keys in one command buffer: (wall seconds, GPU
        seconds or None)."""
        lib, ffi = self.lib, self.ffi
        groups = -(-n // 256)
        gx, gy = (groups, 1) if groups <= 65535 else (32768, -(-groups // 32768))
        params = [np.array([n, s, p, 0], np.uint32).tobytes() for s, p in sort_steps(n)]
        qp = self.qpool
        t0 = time.perf_counter()
        c = self.cmd[0]
        lib.vkBeginCommandBuffer(c, self.begin)
        if qp is not None:
            lib.vkCmdResetQueryPool(c, qp, 0, 2)
            lib.vkCmdWriteTimestamp(c, 0x1, qp, 0)                # TOP_OF_PIPE
        self._dispatches(c, params, gx, gy)
        if qp is not None:
            lib.vkCmdWriteTimestamp(c, 0x2000, qp, 1)             # BOTTOM_OF_PIPE
        lib.vkEndCommandBuffer(c)
        lib.vkResetFences(self.device, 1, self.fence)
        lib.vkQueueSubmit(self.queue, 1, self.submit, self.fence[0])
        lib.vkWaitForFences(self.device, 1, self.fence, 1, 10**11)
        wall = time.perf_counter() - t0
        gpu = None
        if qp is not None:
            ts = ffi.new("uint64_t[2]")
            lib.vkGetQueryPoolResults(self.device, qp, 0, 2, 16, ts, 8, 0x1 | 0x2)  # 64 | WAIT
            bits = self.ts_valid
            mask = (1 << bits) - 1 if bits < 64 else (1 << 64) - 1
            gpu = ((ts[1] - ts[0]) & mask) * self.props.limits.timestampPeriod * 1e-9
        return wall, gpu

    def _dispatches(self, c: Any, blocks: list[bytes], gx: int, gy: int) -> None:
        """Bind the pipeline, then one push-constant block + dispatch per block, with a
        full compute-to-compute barrier between dispatches."""
        lib, NULL = self.lib, self.ffi.NULL
        lib.vkCmdBindPipeline(c, 1, self.pipeline)
        lib.vkCmdBindDescriptorSets(c, 1, self.playout, 0, 1, self.sets, 0, NULL)
        for i, pb in enumerate(blocks):
            if i:
                lib.vkCmdPipelineBarrier(c, 0x800, 0x800, 0, 1, self.barrier, 0, NULL, 0, NULL)
            lib.vkCmdPushConstants(c, self.playout, 0x20, 0, 16, pb)
            lib.vkCmdDispatch(c, gx, gy, 1)

    def launches(self, blocks: list[bytes], groups: int) -> float:
        """One dispatch per 16-byte push-constant block, in one command buffer with a
        barrier between dispatches, submitted once: host seconds spent recording and
        submitting (the wait on the fence comes after, untimed)."""
        lib = self.lib
        t0 = time.perf_counter()
        c = self.cmd[0]
        lib.vkBeginCommandBuffer(c, self.begin)
        self._dispatches(c, blocks, groups, 1)
        lib.vkEndCommandBuffer(c)
        lib.vkResetFences(self.device, 1, self.fence)
        lib.vkQueueSubmit(self.queue, 1, self.submit, self.fence[0])
        t = time.perf_counter() - t0
        lib.vkWaitForFences(self.device, 1, self.fence, 1, 10**11)
        return t
