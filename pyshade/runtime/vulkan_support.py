"""Helpers of the ``vulkan`` device: the binding, the instance, adapters, SPIR-V patches.

The PyPI package ``vulkan`` is a cffi binding of the Vulkan loader
(``libvulkan.so.1``). Its Python wrappers build every struct through a
generic helper that costs tens of microseconds; pyshade calls the loader's C
functions (``vulkan.lib``) with structs made by ``vulkan.ffi`` instead, and
takes only constants from the wrapper module.

One ``VkInstance`` per process serves every ``VulkanDevice``: the loader
reads ``VK_DRIVER_FILES`` when it is created, so set that variable before the
first device (or ``ps.devices()``) is made.
"""

from __future__ import annotations

import struct
import threading
from typing import Any

from ..errors import BackendUnavailable

__all__ = ["Adapter", "add_denorm_preserve", "binding", "check", "list_adapters"]

_INSTALL = "pip install 'pyshade[vulkan]' (the 'vulkan' package) and a Vulkan loader " \
           "(Debian: libvulkan1)"
_DRIVERS = ("install a GPU driver with Vulkan support, or Mesa's lavapipe for a CPU "
            "fallback (Debian: mesa-vulkan-drivers)")

_lock = threading.Lock()
_binding: Any = None
_instance: Any = None
_instance_error: str | None = None

# VkPhysicalDeviceType -> rank: discrete, integrated, virtual, then CPU drivers.
# the core features the device is created with, where the GPU has them: only those the
# emitters may use (robustBufferAccess stays off: no other GPU device checks bounds, and
# bench/probes/radix_stage_profile.py --robust times what it costs)
ENABLED_FEATURES = ("shaderInt64", "shaderFloat64", "shaderInt16")
_TYPE_RANK = {2: 0, 1: 1, 3: 2, 4: 3}
_TYPE_NAME = {0: "other", 1: "integrated GPU", 2: "discrete GPU", 3: "virtual GPU", 4: "CPU"}


def binding() -> Any:
    """The ``vulkan`` module (``.ffi``, ``.lib`` and the constants), or BackendUnavailable."""
    global _binding
    if _binding is None:
        try:
            import vulkan
        except ImportError as exc:
            raise BackendUnavailable(f"the vulkan binding is not installed: {_INSTALL}") from exc
        except OSError as exc:     # the package is there, libvulkan.so.1 is not
            raise BackendUnavailable(f"the Vulkan loader could not be loaded ({exc}): "
                                     f"{_INSTALL}") from exc
        _binding = vulkan
    return _binding


def check(result: int, what: str) -> None:
    """Raise for a failing ``VkResult`` (negative values are errors)."""
    if result < 0:
        vk = binding()
        names = [k for k, v in vars(vk).items()
                 if k.startswith("VK_ERROR_") and v == result]
        raise RuntimeError(f"{what} failed: {names[0] if names else result}")


def instance() -> Any:
    """The process-wide ``VkInstance`` (Vulkan 1.1 or later), created on first use."""
    global _instance, _instance_error
    with _lock:
        if _instance is not None:
            return _instance
        if _instance_error is not None:
            raise BackendUnavailable(_instance_error)
        vk = binding()
        ffi, lib = vk.ffi, vk.lib
        version = ffi.new("uint32_t*", vk.VK_MAKE_VERSION(1, 0, 0))
        try:
            lib.vkEnumerateInstanceVersion(version)
        except AttributeError:      # a 1.0 loader has no such function
            pass
        if version[0] < vk.VK_MAKE_VERSION(1, 1, 0):
            _instance_error = "the Vulkan loader supports only Vulkan 1.0; pyshade needs 1.1"
            raise BackendUnavailable(_instance_error)
        app = ffi.new("VkApplicationInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_APPLICATION_INFO,
            "pApplicationName": _keep(ffi.new("char[]", b"pyshade")),
            "apiVersion": min(version[0], vk.VK_MAKE_VERSION(1, 3, 0))})
        info = ffi.new("VkInstanceCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, "pApplicationInfo": app})
        out = ffi.new("VkInstance*")
        result = lib.vkCreateInstance(info, ffi.NULL, out)
        if result != vk.VK_SUCCESS:
            _instance_error = (f"vkCreateInstance failed ({result}): no Vulkan driver found; "
                               f"{_DRIVERS}")
            raise BackendUnavailable(_instance_error)
        _instance = out[0]
        return _instance


_kept: list[Any] = []


def _keep(obj: Any) -> Any:
    """Keep a cffi allocation alive for the life of the process (instance-wide strings)."""
    _kept.append(obj)
    return obj


class Adapter:
    """One physical device: its handle, properties, features and extensions."""

    def __init__(self, vk: Any, handle: Any):
        ffi, lib = vk.ffi, vk.lib
        self.handle = handle
        S = vk
        fc = ffi.new("VkPhysicalDeviceFloatControlsProperties*",
                     {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES})
        drv = ffi.new("VkPhysicalDeviceDriverProperties*",
                      {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                       "pNext": fc})
        exts = self._extensions(vk)
        self.extensions = exts
        chain = drv if "VK_KHR_driver_properties" in exts else fc
        if "VK_KHR_shader_float_controls" not in exts:
            chain = ffi.NULL if chain is fc else chain
            drv.pNext = ffi.NULL
        p2 = ffi.new("VkPhysicalDeviceProperties2*",
                     {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, "pNext": chain})
        lib.vkGetPhysicalDeviceProperties2(handle, p2)
        # A field of a cffi struct does not keep the struct alive: keep the owners.
        self._owners = (p2, drv, fc)
        p = p2.properties
        self.properties = p
        self.limits = p.limits
        self.api_version = p.apiVersion
        self.device_type = p.deviceType
        self.name = ffi.string(p.deviceName).decode(errors="replace")
        self.driver = ""
        if chain is drv:
            info = ffi.string(drv.driverInfo).decode(errors="replace")
            self.driver = info or ffi.string(drv.driverName).decode(errors="replace")
        controls = "VK_KHR_shader_float_controls" in exts
        self.denorm_preserve32 = bool(controls and fc.shaderDenormPreserveFloat32)
        # Widths whose float operations may keep the sign of zero, infinities and NaNs
        # (SignedZeroInfNanPreserve): forbids optimisations like ``x + 0.0 -> x``.
        self.signed_zero_widths = tuple(w for w in (16, 32, 64) if controls and getattr(
            fc, f"shaderSignedZeroInfNanPreserveFloat{w}"))
        # Shader features worth enabling, queried through one chain.
        f16 = ffi.new("VkPhysicalDeviceShaderFloat16Int8Features*",
                      {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES})
        s8 = ffi.new("VkPhysicalDevice8BitStorageFeatures*",
                     {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES})
        s16 = ffi.new("VkPhysicalDevice16BitStorageFeatures*",
                      {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES})
        self.core12 = self.api_version >= S.VK_MAKE_VERSION(1, 2, 0)
        chain = s16
        if self.core12 or "VK_KHR_8bit_storage" in exts:
            s8.pNext, chain = chain, s8
        if self.core12 or "VK_KHR_shader_float16_int8" in exts:
            f16.pNext, chain = chain, f16
        f2 = ffi.new("VkPhysicalDeviceFeatures2*",
                     {"sType": S.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, "pNext": chain})
        lib.vkGetPhysicalDeviceFeatures2(handle, f2)
        self.feature_chain = (f2, f16, s8, s16)     # enabled as queried (see VulkanDevice)
        mem = ffi.new("VkPhysicalDeviceMemoryProperties*")
        lib.vkGetPhysicalDeviceMemoryProperties(handle, mem)
        self.memory = mem

    def _extensions(self, vk: Any) -> set[str]:
        ffi, lib = vk.ffi, vk.lib
        n = ffi.new("uint32_t*")
        lib.vkEnumerateDeviceExtensionProperties(self.handle, ffi.NULL, n, ffi.NULL)
        props = ffi.new("VkExtensionProperties[]", n[0])
        lib.vkEnumerateDeviceExtensionProperties(self.handle, ffi.NULL, n, props)
        return {ffi.string(props[i].extensionName).decode() for i in range(n[0])}

    @property
    def label(self) -> str:
        """``"<device> / Vulkan 1.3 (<driver>)"``, e.g. ``llvmpipe (...) / Vulkan 1.3 (Mesa 22.3.6 ...)``."""
        vk = binding()
        v = self.api_version
        ver = f"Vulkan {vk.VK_VERSION_MAJOR(v)}.{vk.VK_VERSION_MINOR(v)}"
        return f"{self.name} / {ver}" + (f" ({self.driver})" if self.driver else "")

    @property
    def kind(self) -> str:
        """"discrete GPU", "integrated GPU", "virtual GPU", "CPU" or "other"."""
        return _TYPE_NAME.get(self.device_type, "other")


def list_adapters() -> list[Adapter]:
    """Every Vulkan physical device, best first; index N is device ``"vulkan:N"``.

    Order: discrete, integrated, virtual GPUs, then CPU drivers (lavapipe,
    SwiftShader); ties keep the loader's order. Devices below Vulkan 1.1 are
    left out. Raises ``BackendUnavailable`` without the binding, a loader or an
    instance; returns [] when the loader finds no driver.
    """
    vk = binding()
    ffi, lib = vk.ffi, vk.lib
    inst = instance()
    n = ffi.new("uint32_t*")
    check(lib.vkEnumeratePhysicalDevices(inst, n, ffi.NULL), "vkEnumeratePhysicalDevices")
    handles = ffi.new("VkPhysicalDevice[]", n[0])
    check(lib.vkEnumeratePhysicalDevices(inst, n, handles), "vkEnumeratePhysicalDevices")
    found = [Adapter(vk, handles[i]) for i in range(n[0])]
    found = [a for a in found if a.api_version >= vk.VK_MAKE_VERSION(1, 1, 0)]
    return sorted(found, key=lambda a: _TYPE_RANK.get(a.device_type, 4))


def open_device(vk: Any, ad: Any, adapter: str) -> tuple:
    """A logical device on adapter ``ad`` with one compute queue and only the shader
    features the emitters may use enabled where present: (VkDevice, VkQueue, queue
    family, feature names, the float-control execution modes every module gets:
    ``FloatModes``)."""
    ffi, lib = vk.ffi, vk.lib
    n = ffi.new("uint32_t*")
    lib.vkGetPhysicalDeviceQueueFamilyProperties(ad.handle, n, ffi.NULL)
    fams = ffi.new("VkQueueFamilyProperties[]", n[0])
    lib.vkGetPhysicalDeviceQueueFamilyProperties(ad.handle, n, fams)
    family = next((i for i in range(n[0]) if fams[i].queueFlags & vk.VK_QUEUE_COMPUTE_BIT),
                  None)
    if family is None:
        raise BackendUnavailable(f"{adapter} has no compute queue")

    # Enable only the shader features the emitters may use, where present.
    f2, f16, s8, s16 = ad.feature_chain
    base = f2.features
    want = ffi.new("VkPhysicalDeviceFeatures2*", {
        "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2})
    for k in ENABLED_FEATURES:
        setattr(want.features, k, getattr(base, k))
    w16 = ffi.new("VkPhysicalDevice16BitStorageFeatures*", {
        "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        "storageBuffer16BitAccess": s16.storageBuffer16BitAccess,
        "uniformAndStorageBuffer16BitAccess": s16.uniformAndStorageBuffer16BitAccess,
        "storagePushConstant16": s16.storagePushConstant16})
    want.pNext = w16
    keep = [want, w16]
    exts = []
    feats = set()
    if ad.core12 or "VK_KHR_8bit_storage" in ad.extensions:
        w8 = ffi.new("VkPhysicalDevice8BitStorageFeatures*", {
            "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
            "storageBuffer8BitAccess": s8.storageBuffer8BitAccess,
            "uniformAndStorageBuffer8BitAccess": s8.uniformAndStorageBuffer8BitAccess,
            "storagePushConstant8": s8.storagePushConstant8, "pNext": want.pNext})
        want.pNext = w8
        keep.append(w8)
        if not ad.core12:
            exts.append("VK_KHR_8bit_storage")
    else:
        s8 = None
    if ad.core12 or "VK_KHR_shader_float16_int8" in ad.extensions:
        wf = ffi.new("VkPhysicalDeviceShaderFloat16Int8Features*", {
            "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
            "shaderFloat16": f16.shaderFloat16, "shaderInt8": f16.shaderInt8,
            "pNext": want.pNext})
        want.pNext = wf
        keep.append(wf)
        if not ad.core12:
            exts.append("VK_KHR_shader_float16_int8")
        if f16.shaderFloat16 and s16.storageBuffer16BitAccess:
            feats.add("f16")
        if f16.shaderInt8 and s8 is not None and s8.storageBuffer8BitAccess:
            feats.add("i8")
    if base.shaderInt16 and s16.storageBuffer16BitAccess:
        feats.add("i16")
    if base.shaderInt64:
        feats.add("i64")
    if base.shaderFloat64:
        feats.add("f64")
    modes = FloatModes(bool(ad.denorm_preserve32), ad.signed_zero_widths)
    if modes.denorm:
        feats.add("float-controls-denorm-preserve")
    if 32 in modes.signed_zero:
        feats.add("float-controls-signed-zero")
    if modes and not ad.core12:
        exts.append("VK_KHR_shader_float_controls")

    prio = ffi.new("float[]", [1.0])
    qinfo = ffi.new("VkDeviceQueueCreateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        "queueFamilyIndex": family, "queueCount": 1, "pQueuePriorities": prio})
    names = [ffi.new("char[]", e.encode()) for e in exts]
    cnames = ffi.new("char*[]", names) if names else ffi.NULL
    info = ffi.new("VkDeviceCreateInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, "pNext": want,
        "queueCreateInfoCount": 1, "pQueueCreateInfos": qinfo,
        "enabledExtensionCount": len(names), "ppEnabledExtensionNames": cnames})
    out = ffi.new("VkDevice*")
    result = lib.vkCreateDevice(ad.handle, info, ffi.NULL, out)
    del keep
    if result != vk.VK_SUCCESS:
        raise BackendUnavailable(f"vkCreateDevice failed on {adapter} ({result})")
    q = ffi.new("VkQueue*")
    lib.vkGetDeviceQueue(out[0], family, 0, q)
    return out[0], q[0], family, feats, modes


# ---- SPIR-V -------------------------------------------------------------------

_OP_EXTENSION, _OP_CAPABILITY, _OP_ENTRY_POINT, _OP_EXECUTION_MODE = 10, 17, 15, 16
_CAP_DENORM_PRESERVE = 4464
_MODE_DENORM_PRESERVE = 4459
_CAP_SIGNED_ZERO = 4466          # SignedZeroInfNanPreserve (SPV_KHR_float_controls)
_MODE_SIGNED_ZERO = 4461
# The type capability a module declares where it has floats of a width (16, 64).
_CAP_FLOAT_WIDTH = {16: 9, 64: 10}


class FloatModes:
    """The SPV_KHR_float_controls execution modes the device adds to every module:
    ``DenormPreserve 32`` where ``denorm``, ``SignedZeroInfNanPreserve`` for each width of
    ``signed_zero`` (the widths the driver reports; 16 and 64 only in modules with such
    floats). False when there is none."""

    def __init__(self, denorm: bool = False, signed_zero: tuple[int, ...] = ()):
        self.denorm = denorm
        self.signed_zero = tuple(signed_zero)

    def __bool__(self) -> bool:
        return self.denorm or bool(self.signed_zero)

    def apply(self, spirv: bytes, entry: str) -> bytes:
        """``spirv`` with these modes added (``add_float_modes``)."""
        modes = [(_MODE_DENORM_PRESERVE, _CAP_DENORM_PRESERVE, 32)] if self.denorm else []
        modes += [(_MODE_SIGNED_ZERO, _CAP_SIGNED_ZERO, w) for w in self.signed_zero]
        return add_float_modes(spirv, entry, modes)


def _instructions(words: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(start word, word count, opcode) of each instruction after the 5-word header."""
    out = []
    i = 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            raise ValueError("malformed SPIR-V: an instruction of zero words")
        out.append((i, count, op))
        i += count
    return out


def _string_words(text: str) -> list[int]:
    raw = text.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def add_denorm_preserve(spirv: bytes, entry: str) -> bytes:
    """``spirv`` with ``OpExecutionMode <entry> DenormPreserve 32`` (and the capability and
    ``SPV_KHR_float_controls`` extension it needs), so the driver keeps f32 subnormals.

    GLSL has no spelling for this execution mode, so the device adds it to the
    module; a module that already declares it is returned unchanged.
    """
    return add_float_modes(spirv, entry, [(_MODE_DENORM_PRESERVE, _CAP_DENORM_PRESERVE, 32)])


def add_float_modes(spirv: bytes, entry: str, modes: list[tuple[int, int, int]]) -> bytes:
    """``spirv`` with ``OpExecutionMode <entry> MODE WIDTH`` for each (mode, capability,
    width) of ``modes``, the capabilities and the ``SPV_KHR_float_controls`` extension they
    need. A mode the module declares already, or of width 16 or 64 in a module without
    floats of that width, is left out; nothing left: ``spirv`` itself."""
    n = len(spirv) // 4
    words = struct.unpack(f"<{n}I", spirv[:n * 4])
    insts = _instructions(words)
    entry_id = None
    declared, caps_held = set(), set()
    for start, count, op in insts:
        if op == _OP_EXECUTION_MODE and count >= 4:
            declared.add((words[start + 2], words[start + 3]))
        elif op == _OP_CAPABILITY:
            caps_held.add(words[start + 1])
        elif op == _OP_ENTRY_POINT and entry_id is None:
            name = struct.pack(f"<{count - 3}I", *words[start + 3:start + count])
            if name.split(b"\0", 1)[0].decode() == entry:
                entry_id = words[start + 2]
    if entry_id is None:
        raise ValueError(f"SPIR-V module has no entry point {entry!r}")
    modes = [(m, c, w) for m, c, w in modes if (m, w) not in declared and
             (w not in _CAP_FLOAT_WIDTH or _CAP_FLOAT_WIDTH[w] in caps_held)]
    if not modes:
        return spirv
    caps = [s + c for s, c, op in insts if op == _OP_CAPABILITY]
    has_ext = any(op == _OP_EXTENSION and "SPV_KHR_float_controls" in
                  struct.pack(f"<{c - 1}I", *words[s + 1:s + c]).decode(errors="ignore")
                  for s, c, op in insts)
    ends = [s + c for s, c, op in insts if op in (_OP_ENTRY_POINT, _OP_EXECUTION_MODE)]
    out = list(words)
    # Insert from the back so earlier positions stay valid.
    out[max(ends):max(ends)] = [x for m, _, w in modes
                                for x in ((4 << 16) | _OP_EXECUTION_MODE, entry_id, m, w)]
    if not has_ext:
        ext = _string_words("SPV_KHR_float_controls")
        out[caps[-1]:caps[-1]] = [((1 + len(ext)) << 16) | _OP_EXTENSION, *ext]
    new_caps = [c for c in dict.fromkeys(c for _, c, _ in modes) if c not in caps_held]
    out[caps[-1]:caps[-1]] = [x for c in new_caps for x in ((2 << 16) | _OP_CAPABILITY, c)]
    return struct.pack(f"<{len(out)}I", *out)
