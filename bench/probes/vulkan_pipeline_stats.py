"""What NVIDIA's Vulkan compiler made of the radix sort's kernels (issue 17: the Vulkan
scatter takes about twice the cuda device's GPU time for the same algorithm).

Creates a Vulkan device of its own with VK_KHR_pipeline_executable_properties, builds a
compute pipeline from each kernel's SPIR-V (as pyshade compiles it for the vulkan device,
and again through the spirv-opt passes of ``EXTRA_PASSES``) with statistics captured, and
prints every statistic the driver reports (registers, binary size, spills...). Neither
lavapipe nor SwiftShader (Mesa 22.3, Chromium's) offer the extension; it prints why when
the adapter lacks it.

    python bench/probes/vulkan_pipeline_stats.py
"""
from __future__ import annotations

import os
import subprocess
import tempfile

import vulkan as vk

import pyshade as ps
import pyshade.algorithms.radix as radix
from pyshade.toolchains import glslang

EXT = "VK_KHR_pipeline_executable_properties"
# inline helpers that return early too (merge-return), then split vectors and arrays
# into scalars: after pyshade's passes a scatter keeps 24 calls and 71 function variables
EXTRA_PASSES = ("--merge-return", "--inline-entry-points-exhaustive",
                "--eliminate-dead-functions", "--convert-local-access-chains",
                "--scalar-replacement=0", "--eliminate-local-single-block",
                "--eliminate-local-single-store", "--ssa-rewrite", "--ccp",
                "--eliminate-dead-code-aggressive")
U = radix.KIND_U32
SCATTER = dict(kind=U, out_kind=U, rev=False, write_keys=True, vmode=radix.NO_VALS, sel=True)
KERNELS = [
    ("scatter 8/8/0/0/1", radix.radix_scatter, dict(SCATTER, items=8, unroll=8, tkeys=False,
                                                    rake=False, nib=True)),
    ("scatter 8/8/0/0/0", radix.radix_scatter, dict(SCATTER, items=8, unroll=8, tkeys=False,
                                                    rake=False, nib=False)),
    ("scatter 16/1/0/1/0", radix.radix_scatter, dict(SCATTER, items=16, unroll=1, tkeys=False,
                                                     rake=True, nib=False)),
    ("hist 8/4", radix.radix_hist, dict(kind=U, items=8, unroll=4)),
]


def extra(binary: bytes) -> bytes:
    """``binary`` through spirv-opt's EXTRA_PASSES."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "a.spv"), os.path.join(tmp, "b.spv")
        with open(src, "wb") as f:
            f.write(binary)
        subprocess.run([glslang._tool("spirv-opt"), *EXTRA_PASSES, "--target-env=vulkan1.1",
                        src, "-o", out], check=True, capture_output=True)
        with open(out, "rb") as f:
            return f.read()


def device() -> tuple:
    """(adapter name, VkDevice) of the first adapter with ``EXT``, its feature on; (None,
    None) when none has it."""
    app = vk.VkApplicationInfo(sType=vk.VK_STRUCTURE_TYPE_APPLICATION_INFO,
                               apiVersion=vk.VK_MAKE_VERSION(1, 2, 0))
    inst = vk.vkCreateInstance(vk.VkInstanceCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, pApplicationInfo=app), None)
    for pd in vk.vkEnumeratePhysicalDevices(inst):
        name = vk.vkGetPhysicalDeviceProperties(pd).deviceName
        exts = {e.extensionName for e in vk.vkEnumerateDeviceExtensionProperties(pd, None)}
        if EXT not in exts:
            print(f"{name}: no {EXT}")
            continue
        fams = vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)
        fam = next(i for i, f in enumerate(fams) if f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
        feat = vk.VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR(
            sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
            pipelineExecutableInfo=vk.VK_TRUE)
        q = vk.VkDeviceQueueCreateInfo(sType=vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                       queueFamilyIndex=fam, queueCount=1,
                                       pQueuePriorities=[1.0])
        dev = vk.vkCreateDevice(pd, vk.VkDeviceCreateInfo(
            sType=vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, pNext=feat, queueCreateInfoCount=1,
            pQueueCreateInfos=[q], enabledExtensionCount=1, ppEnabledExtensionNames=[EXT]), None)
        return name, dev
    return None, None


def pipeline(dev, compiled, binary: bytes):
    """A compute pipeline of ``binary`` with ``compiled``'s layout, statistics captured."""
    lay = compiled.layout
    bindings = [vk.VkDescriptorSetLayoutBinding(
        binding=b.binding, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT) for b in lay.buffers]
    dsl = vk.vkCreateDescriptorSetLayout(dev, vk.VkDescriptorSetLayoutCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        bindingCount=len(bindings), pBindings=bindings), None)
    assert lay.params.kind == "push", lay.params
    rng = vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT, offset=0,
                                 size=lay.params.size)
    pl = vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, setLayoutCount=1,
        pSetLayouts=[dsl], pushConstantRangeCount=1, pPushConstantRanges=[rng]), None)
    mod = vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, codeSize=len(binary),
        pCode=binary), None)
    stage = vk.VkPipelineShaderStageCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=mod, pName=compiled.entry)
    info = vk.VkComputePipelineCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, stage=stage, layout=pl,
        flags=vk.VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR)
    return vk.vkCreateComputePipelines(dev, None, 1, [info], None)[0]


def value(s) -> str:
    """The text of statistic ``s``'s value, by its format."""
    f = s.format
    if f == vk.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        return str(bool(s.value.b32))
    if f == vk.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        return str(s.value.i64)
    if f == vk.VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        return str(s.value.u64)
    return f"{s.value.f64:g}"


def stats(dev, pipe) -> list[tuple[str, str]]:
    """(name, value) of every statistic of every executable of ``pipe``."""
    props = vk.vkGetDeviceProcAddr(dev, "vkGetPipelineExecutablePropertiesKHR")
    get = vk.vkGetDeviceProcAddr(dev, "vkGetPipelineExecutableStatisticsKHR")
    info = vk.VkPipelineInfoKHR(sType=vk.VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, pipeline=pipe)
    rows = []
    for i, p in enumerate(list(props(dev, info))):
        rows.append((f"executable {i}", f"{p.name} ({p.subgroupSize})"))
        einfo = vk.VkPipelineExecutableInfoKHR(
            sType=vk.VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, pipeline=pipe,
            executableIndex=i)
        rows += [(s.name, value(s)) for s in get(dev, einfo)]
    return rows


def main() -> None:
    """Print the statistics of each of ``KERNELS``, as compiled and with ``EXTRA_PASSES``."""
    name, dev = device()
    if dev is None:
        return
    print(f"adapter: {name}")
    for label, k, consts in KERNELS:
        c = ps.compile(k, "glsl", **consts)
        for form, binary in (("pyshade", c.binary), ("extra passes", extra(c.binary))):
            try:
                rows = stats(dev, pipeline(dev, c, binary))
                print(f"== {label}, {form}: " + "; ".join(f"{a} = {b}" for a, b in rows))
            except Exception as e:  # noqa: BLE001 - a probe: report and go on
                print(f"== {label}, {form}: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
