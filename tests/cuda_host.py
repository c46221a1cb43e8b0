"""``CudaHostDevice``: pyshade's CUDA emission compiled as C++20 by g++ against a
stand-in for the CUDA runtime (``tests/cuda_host/cuda_host.h``) and run on the CPU.

CI has no GPU, so without this the CUDA C would only be compiled there. Here every
execution test and the differential test also run the generated CUDA code and check
its results against numpy: precedence, conversions, the generated vector operators,
struct layouts and the prelude's C++ are exercised. What this cannot check is NVRTC's
and the GPU's own behaviour: the H200 does that (bench/h200_cuda.sh).

A launch loops over the groups; within a group the invocations run one after another,
or, when the kernel has a barrier, one fiber each on the launching thread
(``tests/cuda_host/ps_fibers.h``): a barrier switches to the next invocation. The same
CUDA text is first compiled by NVRTC (the launch path's ``compile_source``), so the
code is valid for both compilers.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pyshade.errors import BackendUnavailable, LaunchError
from pyshade.runtime.base import Compiled, Device, DeviceArray

HERE = Path(__file__).parent / "cuda_host"
_LAUNCHER = r"""
template <class T> T ps_host_arg(void* p) {
    if constexpr (std::is_pointer_v<T>) return (T)p;
    else return *(const std::remove_cv_t<T>*)p;
}
template <class... A, std::size_t... I>
void ps_host_call(void (*f)(A...), void** b, std::index_sequence<I...>) { f(ps_host_arg<A>(b[I])...); }
template <class... A> void ps_host_invoke(void (*f)(A...), void** b) {
    ps_host_call(f, b, std::index_sequence_for<A...>{});
}
extern "C" void ps_host_run(void** b, unsigned gx, unsigned gy, unsigned gz) {
    blockDim = {%(bx)d, %(by)d, %(bz)d};
    gridDim = {gx, gy, gz};
    if (%(threaded)d) {
        // the invocations of a group as fibers (ps_fibers.h), made once per launch
        ps_fibers f(%(bx)d * %(by)d * %(bz)d);
        f.resume = [](unsigned t) {
            threadIdx = {t %% %(bx)du, t / %(bx)du %% %(by)du, t / (%(bx)du * %(by)du)};
        };
        for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y)
        for (unsigned x = 0; x < gx; ++x) {
            blockIdx = {x, y, z};
            f.run([b](unsigned) { ps_host_invoke(::%(entry)s, b); });
        }
        return;
    }
    for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x) {
        blockIdx = {x, y, z};
        for (unsigned k = 0; k < %(bz)du; ++k) for (unsigned j = 0; j < %(by)du; ++j)
        for (unsigned i = 0; i < %(bx)du; ++i) {
            threadIdx = {i, j, k};
            ps_host_invoke(::%(entry)s, b);
        }
    }
}
"""


def compiler() -> str | None:
    """The C++ compiler this harness uses (g++), or None."""
    return shutil.which("g++")


class CudaHostArray(DeviceArray):
    """Host memory standing in for device memory (raw bytes, C order)."""

    def __init__(self, device: CudaHostDevice, raw: np.ndarray, dtype: np.dtype,
                 shape: tuple[int, ...]):
        self.device = device
        self.raw = raw
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)

    @property
    def ptr(self) -> int:
        return self.raw.ctypes.data

    def numpy(self) -> np.ndarray:
        return self.raw[:self.nbytes].copy().view(self.dtype).reshape(self.shape)

    def write(self, data: np.ndarray) -> None:
        src = np.ascontiguousarray(np.asarray(data, dtype=self.dtype)).reshape(-1)
        self.raw[:self.nbytes] = src.view(np.uint8)

    def view(self, dtype: Any) -> CudaHostArray:
        super().view(dtype)
        return CudaHostArray(self.device, self.raw, dtype, self.shape)


class CudaHostDevice(Device):
    """The CUDA emission on the CPU (see the module docstring); device name cuda-host."""

    name = "cuda-host"
    backend = "cuda-host"
    target = "cuda"

    def __init__(self):
        cxx = compiler()
        if cxx is None:
            raise BackendUnavailable("g++ is not installed (Debian package g++)")
        self.cxx = cxx
        self.adapter = f"CUDA C++ on the CPU ({cxx}, tests/cuda_host)"
        self.features = {"f16", "i64", "f64"}
        self.limits = {"max_compute_shared_memory_size": 49152}
        self._dir = Path(tempfile.mkdtemp(prefix="pyshade_cuda_host_"))
        self._libs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._header: Path | None = None    # precompiled on the first build

    # The flags of every compile; the precompiled header must be built with the same ones.
    FLAGS = ("-std=c++20", "-O1", "-fPIC", "-fwrapv", "-ffp-contract=off", "-w", "-pthread")

    def _precompile_header(self) -> Path:
        """The stand-in header, precompiled once per session (most of a kernel's compile
        time is the standard headers: about 0.9 s without, 0.3 s with); the plain header
        where g++ cannot precompile it."""
        header = self._dir / "cuda_host.h"
        shutil.copy(HERE / "cuda_host.h", header)
        shutil.copy(HERE / "ps_fibers.h", self._dir / "ps_fibers.h")
        r = subprocess.run([self.cxx, *self.FLAGS, "-x", "c++-header", str(header), "-o",
                            str(header) + ".gch"], capture_output=True, text=True)
        return header if r.returncode == 0 else HERE / "cuda_host.h"

    def array(self, data: Any, dtype: Any = None) -> CudaHostArray:
        host = np.ascontiguousarray(np.asarray(data, dtype=dtype))
        if host.ndim == 0:
            host = host.reshape(1)
        raw = np.zeros(max(host.nbytes, 16), np.uint8)
        raw[:host.nbytes] = host.reshape(-1).view(np.uint8)
        return CudaHostArray(self, raw, host.dtype, host.shape)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> CudaHostArray:
        return self.array(np.zeros(shape, dtype))

    def prepare(self, compiled: Compiled) -> Any:
        """The shared object of ``compiled.source`` (compiled once per source text)."""
        key = hashlib.sha1(compiled.source.encode()).hexdigest()[:16] + compiled.entry
        with self._lock:
            lib = self._libs.get(key)
            if lib is None:
                lib = self._libs[key] = self._build(compiled, key)
        return lib

    # What differs between the stand-ins (tests/msl_host.py overrides these three).
    LANGUAGE = "CUDA"

    def host_text(self, compiled: Compiled) -> str:
        """The C++ translation unit: the emission and its launcher."""
        bx, by, bz = compiled.layout.workgroup_size
        threaded = int(bool(re.search(r"\b__syncthreads\s*\(", compiled.source)))
        return compiled.source + _LAUNCHER % {"bx": bx, "by": by, "bz": bz,
                                              "threaded": threaded, "entry": compiled.entry}

    def compile_command(self, src: Path, so: Path) -> list[str]:
        """g++ on ``src`` to the shared object ``so``, with the precompiled stand-in."""
        if self._header is None:
            self._header = self._precompile_header()
        return [self.cxx, *self.FLAGS, "-shared", f"-I{HERE}", "-include", str(self._header),
                "-o", str(so), str(src)]

    def _build(self, compiled: Compiled, key: str) -> Any:
        src = self._dir / f"{key}.cpp"
        so = self._dir / f"{key}.so"
        src.write_text(self.host_text(compiled))
        r = subprocess.run(self.compile_command(src, so), capture_output=True, text=True)
        if r.returncode != 0:
            raise LaunchError(f"g++ rejected the {self.LANGUAGE} emission of "
                              f"'{compiled.entry}' ({src}):\n{r.stderr[-4000:]}")
        lib = ctypes.CDLL(str(so))
        lib.ps_host_run.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint,
                                    ctypes.c_uint, ctypes.c_uint]
        lib.ps_host_run.restype = None
        lib.ps_params_size = compiled.layout.params.size if compiled.layout.params else 0
        return lib

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        self.checked_launch(compiled, buffers, params, groups)

    def run_prepared(self, lib: Any, buffers: Sequence[DeviceArray], params: bytes | None,
                     groups: tuple[int, int, int]) -> None:
        ptrs = [b.ptr for b in buffers]          # type: ignore[attr-defined]
        block = None
        if lib.ps_params_size:
            block = ctypes.create_string_buffer(bytes(params or b""), lib.ps_params_size)
            ptrs.append(ctypes.addressof(block))
        argv = (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs)
        lib.ps_host_run(argv, *groups)

    def __del__(self) -> None:
        shutil.rmtree(getattr(self, "_dir", ""), ignore_errors=True) if os.path.isdir(
            str(getattr(self, "_dir", ""))) else None
