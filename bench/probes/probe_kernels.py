"""What the kernel probes share: their kernels' module from source text (a file, since
pyshade reads a kernel's source), and the devices to run it on, an unavailable one
printed and skipped. Imported by the probes run as scripts from this folder."""
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pyshade as ps

ROUTES = (("cpu", None), ("vulkan", None), ("vulkan", "hlsl"), ("wgpu", None))


def load(src: str, stem: str) -> ModuleType:
    """The module of kernel source ``src``, written to a fresh ``<stem>.py``."""
    path = Path(tempfile.mkdtemp()) / f"{stem}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def devices(routes=ROUTES):
    """(name, via, device) of each available (device name, via) of ``routes``."""
    for name, via in routes:
        try:
            dev = ps.device(name, via=via) if via else ps.device(name)
        except ps.BackendUnavailable as e:
            print(f"{name} {via or ''}: unavailable ({e})")
            continue
        yield name, via, dev


def suite_devices(cuda: bool = False) -> list:
    """(label, device) of every GPU parameter of the test suite (tests/conftest.py: each
    WebGPU and Vulkan adapter, or the drivers PYSHADE_TEST_VK_DRIVERS names, both
    Vulkan routes), and with ``cuda`` the CUDA ones: the labels the tests print."""
    tests = str(Path(__file__).resolve().parents[2] / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import conftest
    devs = [(p.id, conftest.gpu_device(p)) for p in conftest.GPU_PARAMS]
    devs += [(p.id, conftest.vulkan_device(p)) for p in conftest.VULKAN_PARAMS]
    devs += [(p.id, conftest.vulkan_device(p)) for p in conftest.HLSL_PARAMS]
    if cuda:
        devs += [(p.id, conftest.gpu_device(p)) for p in conftest.CUDA_PARAMS]
    return devs


def glslang_constants(glsl: str, scalar: str) -> tuple[str, dict[str, str], list[str]]:
    """What glslang folds ``glsl`` (a compute shader storing constants) to, read off its
    SPIR-V: glslangValidator's version line, the ``OpConstant %<scalar>`` values by id,
    and the ids the shader stores, in order."""
    tmp = Path(tempfile.mkdtemp())
    (tmp / "p.comp").write_text(glsl)
    subprocess.run(["glslangValidator", "-V", "p.comp", "-o", "p.spv"], cwd=tmp, check=True,
                   capture_output=True)
    dis = subprocess.run(["spirv-dis", "p.spv"], cwd=tmp, check=True, capture_output=True,
                         text=True).stdout
    version = subprocess.run(["glslangValidator", "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    return (version, dict(re.findall(rf"(%\S+) = OpConstant %{scalar} (\S+)", dis)),
            re.findall(r"OpStore %\S+ (%\S+)", dis))


def print_float_folds(cases: list[str]) -> None:
    """What glslang folds each f32 GLSL expression of ``cases`` to, one line each (a
    compute shader storing them in order), after glslangValidator's version line."""
    glsl = ("#version 450\nlayout(local_size_x = 1) in;\n"
            "layout(std430, binding = 0) buffer B { float o[]; };\nvoid main() {\n" +
            "".join(f"    o[{k}] = {c};\n" for k, c in enumerate(cases)) + "}\n")
    version, consts, stores = glslang_constants(glsl, "float")
    print(version)
    for case, value in zip(cases, stores):
        print(f"{case:28} folded to {consts.get(value, value)}")
