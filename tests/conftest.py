"""Shared fixtures: devices (skip locally, fail in CI), golden-file updating.

GPU tests run on every WebGPU adapter and every raw Vulkan adapter, the latter
twice (kernels compiled from GLSL, and from HLSL by DXC): ``dev`` is ``cpu``
plus one parameter per adapter and route, ``wgpu_dev``, ``vulkan_dev`` and
``hlsl_dev`` the adapters of one, with ids that name the backend and adapter
(``wgpu-llvmpipe``, ``vulkan-swiftshader``, ``vulkan-hlsl-llvmpipe``). In CI (``CI=true``),
or when ``PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader`` (any subset) asks,
the parameters are those drivers, ``VK_DRIVER_FILES`` is pointed at their
Vulkan ICD files unless something else already set it, and a driver that is
missing fails its tests. Otherwise the parameters are the adapters found
(OpenGL ones only when there is no native one).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
from dataclasses import dataclass

import numpy as np
import pytest

import pyshade as ps

IN_CI = os.environ.get("CI", "").lower() == "true"
# The persistent compile cache stays off in tests (and in the processes they start), so
# that every test compiles what it names; tests/test_diskcache.py turns it on, each test
# in a directory of its own.
os.environ["PYSHADE_CACHE"] = "0"

# CI's two independent CPU Vulkan drivers: ICD file pattern, word in the adapter name.
VK_DRIVERS = {
    "lavapipe": ("/usr/share/vulkan/icd.d/lvp_icd.*.json", "llvmpipe"),
    "swiftshader": ("/usr/lib/chromium/vk_swiftshader_icd.json", "swiftshader"),
}


def _wanted_drivers() -> list[str]:
    spec = os.environ.get("PYSHADE_TEST_VK_DRIVERS")
    if spec is None:
        spec = ",".join(VK_DRIVERS) if IN_CI else ""
    wanted = [w.strip().lower() for w in spec.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in VK_DRIVERS]
    if unknown:
        raise pytest.UsageError(f"PYSHADE_TEST_VK_DRIVERS: unknown driver(s) {unknown}; "
                                f"known: {', '.join(VK_DRIVERS)}")
    return wanted


def icd_file(driver: str) -> str | None:
    """The installed Vulkan ICD file of a driver in ``VK_DRIVERS``, or None."""
    found = sorted(glob.glob(VK_DRIVERS[driver][0]))
    return found[0] if found else None


WANTED_DRIVERS = _wanted_drivers()
# The Vulkan loader reads VK_DRIVER_FILES once, when wgpu-native creates its
# instance (the first adapter request): conftest is imported before any test
# module, and pyshade imports wgpu lazily, so this is early enough.
if WANTED_DRIVERS and not (os.environ.get("VK_DRIVER_FILES")
                           or os.environ.get("VK_ICD_FILENAMES")):
    _files = [f for f in map(icd_file, WANTED_DRIVERS) if f]
    if _files:
        os.environ["VK_DRIVER_FILES"] = os.pathsep.join(_files)


@dataclass(frozen=True)
class GpuParam:
    """One GPU parameter of ``dev``/``wgpu_dev``: a wanted driver, or an adapter found."""

    id: str
    driver: str = ""           # a VK_DRIVERS key: the adapter is looked up by name
    device_name: str = ""      # else the device to open ("wgpu:N"), or "" if there is none
    backend: str = "wgpu"      # "wgpu" or "vulkan"
    via: str = ""              # vulkan: "hlsl" compiles kernels by DXC (default: GLSL)


def _slug(label: str) -> str:
    low = label.lower()
    for word in ("llvmpipe", "swiftshader"):
        if word in low:
            return word
    return re.sub(r"[^a-z0-9]+", "-", low.split(" / ")[0].split("(")[0]).strip("-") or "gpu"


def _gpu_params() -> list[GpuParam]:
    if WANTED_DRIVERS:
        return [GpuParam(f"wgpu-{VK_DRIVERS[d][1]}", driver=d) for d in WANTED_DRIVERS]
    try:
        from pyshade.runtime.wgpu import adapter_label, list_adapters
        adapters = list(enumerate(list_adapters()))
    except ps.BackendUnavailable:
        adapters = []
    native = [(i, a) for i, a in adapters if a.info.get("backend_type") != "OpenGL"]
    params: list[GpuParam] = []
    for i, a in native or adapters:
        base = f"wgpu-{_slug(adapter_label(a))}"
        ident, k = base, 2
        while any(p.id == ident for p in params):
            ident, k = f"{base}-{k}", k + 1
        params.append(GpuParam(ident, device_name=f"wgpu:{i}"))
    return params or [GpuParam("wgpu")]


def _vulkan_params() -> list[GpuParam]:
    if WANTED_DRIVERS:
        return [GpuParam(f"vulkan-{VK_DRIVERS[d][1]}", driver=d, backend="vulkan")
                for d in WANTED_DRIVERS]
    try:
        from pyshade.runtime.vulkan_support import list_adapters
        adapters = list(enumerate(list_adapters()))
    except ps.BackendUnavailable:
        adapters = []
    params: list[GpuParam] = []
    for i, a in adapters:
        base = f"vulkan-{_slug(a.label)}"
        ident, k = base, 2
        while any(p.id == ident for p in params):
            ident, k = f"{base}-{k}", k + 1
        params.append(GpuParam(ident, device_name=f"vulkan:{i}", backend="vulkan"))
    return params or [GpuParam("vulkan", backend="vulkan")]


def _cuda_params() -> list[GpuParam]:
    """One parameter per CUDA GPU that CuPy sees; none without CuPy or a GPU (CI compiles
    CUDA with NVRTC but has no GPU to run it: tests/test_toolchain_nvrtc.py)."""
    try:
        from pyshade.runtime.cuda import device_count
        n = device_count()
    except ps.BackendUnavailable:
        return []
    return [GpuParam("cuda" if i == 0 else f"cuda-{i}", device_name="cuda" if i == 0
                     else f"cuda:{i}", backend="cuda") for i in range(n)]


GPU_PARAMS = _gpu_params()
VULKAN_PARAMS = _vulkan_params()
CUDA_PARAMS = _cuda_params()
# The CUDA emission compiled by g++ and run on the CPU (tests/cuda_host.py): everywhere,
# CI included, since CI has no GPU.
CUDA_HOST_PARAMS = [GpuParam("cuda-host", backend="cuda-host")]
_cuda_host: list = []
# The MSL emission compiled by g++ against a metal_stdlib stand-in (tests/msl_host.py):
# no Mac here, so this is the only execution of the MSL.
MSL_HOST_PARAMS = [GpuParam("msl-host", backend="msl-host")]
_msl_host: list = []
# The same Vulkan adapters, running SPIR-V that DXC made from the HLSL emission.
HLSL_PARAMS = [GpuParam(p.id.replace("vulkan", "vulkan-hlsl", 1), p.driver, p.device_name,
                        "vulkan", "hlsl") for p in VULKAN_PARAMS]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/<target>/* from the current emitters")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: needs a real GPU (run on the lent H200, not in CI)")
    config.addinivalue_line("markers", "slow: long-running test")


_EXIT_STATUS: list[int] = []
# Lines the fuzz tests leave for the end of the run (their seeds and counts), printed
# whether they pass or fail: a fresh seed's run is repeatable only by its seed.
FUZZ_SUMMARY: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FUZZ_SUMMARY:
        terminalreporter.section("fuzz")
        for line in FUZZ_SUMMARY:
            terminalreporter.write_line(line)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave without the C library's exit handlers once DXC was loaded into this
    process (``PYSHADE_DXC_IN_PROCESS=1``; by default it runs in a helper process):
    DXC 1.7's ``DllShutdown`` runs after its own statics are destroyed and can lock
    freed memory forever (a CI run hung there after its last test; docs/hlsl.md). The
    report is written by now; this only skips what ``exit()`` would run after Python."""
    from pyshade.toolchains import dxc_com
    if dxc_com._libs and _EXIT_STATUS:
        import sys
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def require(condition: bool, reason: str) -> None:
    """Skip locally when something is missing; in CI (CI=true) that is a failure."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


# The Debian package of each program a test runs, for the reason of a missing one.
TOOL_PACKAGES = {"glslangValidator": "glslang-tools", "spirv-val": "spirv-tools",
                 "spirv-dis": "spirv-tools", "g++": "g++"}


def require_tools(*names: str, why: str = "") -> None:
    """``require`` each program on PATH (skip locally, fail in CI); ``why`` says what it
    is for."""
    missing = [n for n in names if shutil.which(n) is None]
    require(not missing, "not installed: " + ", ".join(
        f"{n} (Debian package {TOOL_PACKAGES.get(n, n)})" for n in missing)
        + (f"; {why}" if why else ""))


def require_dxc(spirv_val: bool = True) -> None:
    """``require`` DXC (compushady's library, found as ``toolchains/dxc.py`` finds it)
    and, where its SPIR-V is validated (``spirv_val``), spirv-val."""
    from pyshade.toolchains.dxc import library_path
    try:
        library_path()
    except ps.BackendUnavailable as e:
        require(False, str(e))
    if spirv_val:
        require_tools("spirv-val", why="it validates DXC's SPIR-V")


def get_device(name: str, via: str | None = None) -> ps.Device:
    """The named device, or skip/fail with the reason it is unavailable."""
    try:
        return ps.device(name, via=via)
    except ps.BackendUnavailable as e:
        require(False, f"device {name!r} unavailable: {e}")
        raise


def gpu_device(param: GpuParam) -> ps.Device:
    """The device of a GPU parameter, or skip/fail with the reason it is unavailable."""
    if param.backend == "vulkan":
        return vulkan_device(param)
    if param.backend == "cuda":
        return get_device(param.device_name)
    if param.backend == "cuda-host":
        return cuda_host_device()
    if param.backend == "msl-host":
        return msl_host_device()
    if param.device_name:
        return get_device(param.device_name)
    if not param.driver:
        return get_device("wgpu")
    pattern, word = VK_DRIVERS[param.driver]
    try:
        from pyshade.runtime.wgpu import adapter_label, list_adapters
        adapters = list_adapters()
    except ps.BackendUnavailable as e:
        require(False, f"wgpu unavailable, so no {param.driver} adapter: {e}")
        raise
    for i, a in enumerate(adapters):
        # Vulkan only: never a silent fallback to the same driver's OpenGL adapter.
        if word in adapter_label(a).lower() and a.info.get("backend_type") == "Vulkan":
            return get_device(f"wgpu:{i}")
    require(False, f"no Vulkan adapter of {param.driver} ({word}): ICD file {pattern} "
            f"{'found' if icd_file(param.driver) else 'missing'}, "
            f"VK_DRIVER_FILES={os.environ.get('VK_DRIVER_FILES', '')!r}, adapters: "
            f"{[adapter_label(a) for a in adapters]}")
    raise AssertionError("unreachable")


def vulkan_device(param: GpuParam) -> ps.Device:
    """The ``vulkan`` device of a parameter (glslang and spirv-val are needed too; DXC
    for ``via="hlsl"``)."""
    require(shutil.which("glslangValidator") is not None and shutil.which("spirv-val") is not None,
            "glslangValidator/spirv-val (glslang-tools, spirv-tools) are not installed")
    via = param.via or None
    if via == "hlsl":
        require(importlib.util.find_spec("compushady") is not None,
                "compushady (DXC) is not installed: pip install 'pyshade[hlsl]'")
    if param.device_name or not param.driver:
        return get_device(param.device_name or "vulkan", via)
    pattern, word = VK_DRIVERS[param.driver]
    try:
        from pyshade.runtime.vulkan_support import list_adapters
        adapters = list_adapters()
    except ps.BackendUnavailable as e:
        require(False, f"vulkan unavailable, so no {param.driver} adapter: {e}")
        raise
    for i, a in enumerate(adapters):
        if word in a.name.lower():
            return get_device(f"vulkan:{i}", via)
    require(False, f"no Vulkan adapter of {param.driver} ({word}): ICD file {pattern} "
            f"{'found' if icd_file(param.driver) else 'missing'}, "
            f"VK_DRIVER_FILES={os.environ.get('VK_DRIVER_FILES', '')!r}, adapters: "
            f"{[a.label for a in adapters]}")
    raise AssertionError("unreachable")


def cuda_host_device() -> ps.Device:
    """The one CudaHostDevice of the session (g++ and NVRTC are needed)."""
    from cuda_host import CudaHostDevice, compiler
    require(compiler() is not None, "g++ is not installed (Debian package g++)")
    try:
        from pyshade.toolchains.nvrtc import nvrtc_version
        nvrtc_version()
    except ps.BackendUnavailable as e:
        require(False, f"NVRTC is missing ({e})")
    if not _cuda_host:
        _cuda_host.append(CudaHostDevice())
    return _cuda_host[0]


def msl_host_device() -> ps.Device:
    """The one MslHostDevice of the session (g++ is needed)."""
    from msl_host import MslHostDevice, compiler
    require(compiler() is not None, "g++ is not installed (Debian package g++)")
    if not _msl_host:
        _msl_host.append(MslHostDevice())
    return _msl_host[0]


ALL_GPU_PARAMS = [*GPU_PARAMS, *VULKAN_PARAMS, *HLSL_PARAMS, *CUDA_PARAMS,
                  *CUDA_HOST_PARAMS, *MSL_HOST_PARAMS]


@pytest.fixture(params=["cpu", *ALL_GPU_PARAMS], ids=["cpu", *(p.id for p in ALL_GPU_PARAMS)])
def dev(request: pytest.FixtureRequest) -> ps.Device:
    """Each execution test runs on the CPU interpreter, on every WebGPU adapter, on
    every Vulkan adapter (the ``vulkan`` device, from GLSL and from HLSL), on every CUDA
    GPU, on the CUDA emission run on the CPU (``cuda-host``, tests/cuda_host.py) and on
    the MSL emission run on the CPU (``msl-host``, tests/msl_host.py)."""
    if request.param == "cpu":
        return get_device("cpu")
    return gpu_device(request.param)


@pytest.fixture(params=GPU_PARAMS, ids=[p.id for p in GPU_PARAMS])
def wgpu_dev(request: pytest.FixtureRequest) -> ps.Device:
    """Each WebGPU adapter in turn (the GPU half of ``dev``)."""
    return gpu_device(request.param)


@pytest.fixture(params=VULKAN_PARAMS, ids=[p.id for p in VULKAN_PARAMS])
def vulkan_dev(request: pytest.FixtureRequest) -> ps.Device:
    """Each Vulkan adapter in turn (the ``vulkan`` half of ``dev``)."""
    return vulkan_device(request.param)


@pytest.fixture(params=HLSL_PARAMS, ids=[p.id for p in HLSL_PARAMS])
def hlsl_dev(request: pytest.FixtureRequest) -> ps.Device:
    """Each Vulkan adapter in turn, compiling kernels from HLSL (``via="hlsl"``)."""
    return vulkan_device(request.param)


@pytest.fixture(params=[*VULKAN_PARAMS, *HLSL_PARAMS],
                ids=[p.id for p in [*VULKAN_PARAMS, *HLSL_PARAMS]])
def vk_route_dev(request: pytest.FixtureRequest) -> ps.Device:
    """Each Vulkan adapter in turn, from GLSL and from HLSL (``vulkan_dev`` + ``hlsl_dev``)."""
    return vulkan_device(request.param)


@pytest.fixture
def rng() -> np.random.Generator:
    """Fresh random data every run (seed printed on failure via the repr)."""
    return np.random.default_rng()


def lcg_rounds(start: np.ndarray, iters: int) -> np.ndarray:
    """What the runtimes' slow test kernel (``SLOW``: ``iters`` rounds of the LCG
    ``x * 1664525 + 1013904223`` per u32 element) leaves in an array that held ``start``."""
    x = start.astype(np.uint32)
    with np.errstate(over="ignore"):
        for _ in range(iters):
            x = x * np.uint32(1664525) + np.uint32(1013904223)
    return x
