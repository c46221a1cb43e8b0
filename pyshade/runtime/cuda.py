"""The ``cuda`` device: CUDA C from ``emit/cuda.py``, compiled by NVRTC to a CUBIN for
the present GPU (``toolchains/nvrtc.py``), loaded and launched through CuPy.

- ``ps.device("cuda")`` / ``"cuda:N"``: the N-th CUDA device in CuPy's order. Every
  launch, copy and read-back of a device goes through its default (legacy) stream, so
  launches are asynchronous (as CUDA's are), a read-back (``numpy()``, a numpy argument
  copied back, ``synchronize()``) waits for what was launched before it, and work that
  CuPy and torch queue on their default streams is ordered with ours without events
  (a non-blocking stream of our own would race with them on shared arrays).
  ``batch()`` and ``flush()`` have nothing to hold back.
- Arrays: ``dev.array``/``zeros``/``empty`` allocate from CuPy's memory pool. A CuPy
  array, or any object with ``__cuda_array_interface__`` or ``__dlpack__`` (torch
  tensors), passed as a ``Buffer`` argument is used in place, without a copy
  (``adopt``): C-contiguous, on this device, of the slot's element dtype. numpy
  arrays are copied in and, when the kernel writes them, back.
- A launch follows the kernel signature of ``emit/cuda.py``: the buffer pointers in
  binding order, then the parameter block (``ParamBlock.size`` bytes, lengths
  included) as one struct by value, passed as a numpy structured scalar of that size
  (CuPy copies its bytes into the launch).
- Group counts above 65535 per dimension fold into y and z as on the other devices
  (``max_groups_per_dim``), so the generated unfolding is the same on every target.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np

from ..cache import LRU
from ..errors import BackendUnavailable, LaunchError
from .base import Compiled, Device, DeviceArray, check_requirements, shape_bytes, shape_tuple

MODULE_CACHE_SIZE = 256


def _cupy() -> Any:
    try:
        import cupy
    except Exception as e:  # ImportError, or CuPy's own error for a missing CUDA library
        raise BackendUnavailable(f"the cuda device needs CuPy (pip install 'pyshade[cuda]' "
                                 f"and a cupy-cuda12x/13x wheel): {e}") from None
    return cupy


def device_count() -> int:
    """How many CUDA devices CuPy sees (``BackendUnavailable`` without CuPy or a driver)."""
    cp = _cupy()
    try:
        return cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # CUDARuntimeError: no driver, no device
        raise BackendUnavailable(f"no CUDA device: {e}") from None


class CudaArray(DeviceArray):
    """A 1-D array in CUDA device memory (ours, or adopted from CuPy/torch in place)."""

    __slots__ = ("device", "dtype", "shape", "raw", "owner")

    def __init__(self, device: CudaDevice, raw: Any, dtype: np.dtype, shape: tuple[int, ...],
                 owner: Any = None):
        self.device = device
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.raw = raw          # a cupy ndarray over the bytes: what a launch passes
        self.owner = owner      # the adopted object, kept alive while this array lives

    @property
    def ptr(self) -> int:
        """The device address of the first element."""
        return self.raw.data.ptr

    @property
    def __cuda_array_interface__(self) -> dict:
        """So that CuPy, torch and numba can use the array in place."""
        descr = self.dtype.descr if self.dtype.fields else [("", self.dtype.str)]
        return {"shape": self.shape, "typestr": self.dtype.str if not self.dtype.fields
                else f"|V{self.dtype.itemsize}", "descr": descr,
                "data": (self.ptr, False), "version": 3,
                "strides": None, "stream": 1}     # the legacy default stream

    def numpy(self) -> np.ndarray:
        """Copy the array to the host (after the launches before it)."""
        dev = self.device
        host = np.empty(self.nbytes, np.uint8)
        if self.nbytes:
            with dev._cp_device:
                self.raw.data.copy_to_host_async(host.ctypes.data, self.nbytes, dev.stream)
                dev.stream.synchronize()
        return host.view(self.dtype).reshape(self.shape)

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents (same dtype and size), in stream order."""
        src = np.ascontiguousarray(np.asarray(data, dtype=self.dtype))
        if src.nbytes != self.nbytes:
            raise LaunchError(f"write(): {src.nbytes} bytes given for an array of "
                              f"{self.nbytes} bytes")
        dev = self.device
        if self.nbytes:
            with dev._cp_device:
                self.raw.data.copy_from_host_async(src.ctypes.data, self.nbytes, dev.stream)
                dev.stream.synchronize()    # the host buffer may go away when we return


class _Prepared:
    """A loaded kernel: the CuPy function, block size and parameter-block dtype."""

    __slots__ = ("module", "fn", "block", "pdtype", "entry")


class CudaDevice(Device):
    """A CUDA GPU through CuPy (see the module docstring)."""

    backend = "cuda"
    target = "cuda"

    def __init__(self, index: int = 0):
        cp = _cupy()
        n = device_count()
        if n == 0:
            raise BackendUnavailable("no CUDA device (the driver reports 0 GPUs)")
        if not 0 <= index < n:
            raise BackendUnavailable(f"there is no device 'cuda:{index}': {n} CUDA "
                                     f"device(s) found (cuda:0 .. cuda:{n - 1})")
        self.cp = cp
        self.index = index
        self.name = "cuda" if index == 0 else f"cuda:{index}"
        self._cp_device = cp.cuda.Device(index)
        props = cp.cuda.runtime.getDeviceProperties(index)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        major, minor = props["major"], props["minor"]
        drv = cp.cuda.runtime.driverGetVersion()
        self.adapter = (f"{name} (sm_{major}{minor}, CUDA driver "
                        f"{drv // 1000}.{drv % 1000 // 10})")
        self.cuda_arch = f"sm_{major}{minor}"
        self.compile_with = self.cuda_arch      # the launch path compiles CUBINs for it
        self.max_workgroup_size = (props["maxThreadsDim"][0], props["maxThreadsDim"][1],
                                   props["maxThreadsDim"][2])
        self.max_workgroup_invocations = props["maxThreadsPerBlock"]
        self.limits = {"max_compute_shared_memory_size": props["sharedMemPerBlock"]}
        self.unified_memory = False
        self.stream = cp.cuda.Stream.null      # see the module docstring
        self._modules = LRU(MODULE_CACHE_SIZE)
        self._lock = threading.Lock()
        self._driver_launch = False    # True once CuPy refused the parameter-block scalar

    # ---- arrays ----------------------------------------------------------------------

    def _alloc(self, nbytes: int) -> Any:
        with self._cp_device:
            return self.cp.empty(max(nbytes, 1), dtype=self.cp.uint8)

    def array(self, data: Any, dtype: Any = None) -> CudaArray:
        """Upload ``data`` (array-like); a CUDA array of this device is used in place."""
        if not isinstance(data, np.ndarray) and (hasattr(data, "__cuda_array_interface__")
                                                 or hasattr(data, "__dlpack__")):
            return self.adopt(data, np.dtype(dtype) if dtype is not None else None)
        host = np.ascontiguousarray(np.asarray(data, dtype=dtype))
        if host.ndim == 0:
            host = host.reshape(1)
        arr = CudaArray(self, self._alloc(host.nbytes), host.dtype, host.shape)
        if host.nbytes:
            arr.write(host)
        return arr

    def empty(self, shape: int | Sequence[int], dtype: Any = np.float32) -> CudaArray:
        """An uninitialised array."""
        shape = shape_tuple(shape)
        dt = np.dtype(dtype)
        n = shape_bytes(shape, dt)
        return CudaArray(self, self._alloc(n), dt, shape)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> CudaArray:
        """A zero-filled array (filled on the device's stream)."""
        arr = self.empty(shape, dtype)
        with self._cp_device:
            arr.raw.data.memset_async(0, arr.raw.nbytes, self.stream)
        return arr

    def adopt(self, obj: Any, dtype: np.dtype | None = None) -> CudaArray:
        """A CudaArray over the memory of a CuPy array, a ``__cuda_array_interface__`` or
        ``__dlpack__`` object (torch), without a copy; ``LaunchError`` if it is not
        C-contiguous or lives on another GPU."""
        cp = self.cp
        try:
            with self._cp_device:
                view = obj if isinstance(obj, cp.ndarray) else cp.asarray(obj)
        except Exception as e:
            raise LaunchError(f"a {type(obj).__name__} cannot be used as a CUDA array in "
                              f"place: {e}") from None
        if view.device.id != self.index:
            raise LaunchError(f"the {type(obj).__name__} lives on cuda:{view.device.id}, the "
                              f"launch is on {self.name}")
        if not view.flags.c_contiguous:
            raise LaunchError(f"the {type(obj).__name__} is not C-contiguous (strides "
                              f"{view.strides}): pass a contiguous copy")
        dt = np.dtype(view.dtype) if dtype is None else dtype
        raw = view.reshape(-1).view(cp.uint8) if view.size else self._alloc(0)
        shape = tuple(view.shape)
        if dtype is not None and dt != np.dtype(view.dtype):
            # vector/struct elements over a component array: (n, 4) float32 for vec4
            count = view.nbytes // dt.itemsize
            shape = (count,)
        return CudaArray(self, raw, dt, shape, owner=obj)

    # ---- kernels ---------------------------------------------------------------------

    def prepare(self, compiled: Compiled) -> _Prepared:
        """Load the compiled CUBIN (or PTX) once per (kernel, specialisation)."""
        key = compiled.key or compiled.binary
        return self._modules.get_or_make(key, lambda: self._load(compiled), self._lock)

    def _load(self, compiled: Compiled) -> _Prepared:
        from ..errors import CompileError
        binary = compiled.binary
        if not isinstance(binary, (bytes, bytearray)):
            raise CompileError(f"'{compiled.entry}': the cuda device runs CUBIN or PTX bytes, "
                               f"got {type(binary).__name__} (target {compiled.target!r})",
                               target=compiled.target, source=compiled.source)
        # Every CUDA GPU pyshade builds for (sm_90) has f16, f64 and i64; shared memory
        # over the per-block limit fails only at the launch, with a less useful message.
        check_requirements(compiled.requirements, None, self.limits, self.adapter, "cuda")
        prep = _Prepared()
        with self._cp_device:
            prep.module = self.cp.cuda.function.Module()
            try:
                prep.module.load(bytes(binary))
                prep.fn = prep.module.get_function(compiled.entry)
            except Exception as e:   # CUDADriverError: wrong architecture, PTX too new...
                raise CompileError(f"the CUDA driver rejected '{compiled.entry}' on "
                                   f"{self.adapter}: {e}", target="cuda", log=str(e),
                                   source=compiled.source) from None
        prep.block = tuple(int(x) for x in compiled.layout.workgroup_size)
        prep.entry = compiled.entry
        pb = compiled.layout.params
        prep.pdtype = None if pb is None else np.dtype([("block", np.uint8, (pb.size,))])
        return prep

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Run ``compiled`` over ``groups`` (checked: this entry point is public)."""
        self.checked_launch(compiled, buffers, params, groups)

    def run_prepared(self, prep: _Prepared, buffers: Sequence[DeviceArray],
                     params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Launch on the device's stream (arguments already checked and packed)."""
        if self._driver_launch:
            return self._launch_driver(prep, buffers, params, groups)
        args = [b.raw for b in buffers]     # type: ignore[attr-defined]
        if prep.pdtype is not None:
            args.append(np.frombuffer(params, prep.pdtype)[0])
        try:
            if self.index:       # the current device must be the module's
                with self._cp_device:
                    prep.fn(groups, prep.block, tuple(args), stream=self.stream)
            else:
                prep.fn(groups, prep.block, tuple(args), stream=self.stream)
        except (TypeError, ValueError, NotImplementedError):
            # This CuPy does not pass a structured scalar by value: launch through the
            # driver API with our own kernelParams from now on.
            self._driver_launch = True
            self._launch_driver(prep, buffers, params, groups)
        except Exception as e:   # CUDADriverError: too many resources requested...
            raise LaunchError(f"'{prep.entry}': the CUDA launch failed on {self.adapter}: "
                              f"{e}") from None

    def _launch_driver(self, prep: _Prepared, buffers: Sequence[DeviceArray],
                       params: bytes | None, groups: tuple[int, int, int]) -> None:
        """cuLaunchKernel with kernelParams pointing at each buffer address and at the
        parameter block's bytes (the signature of emit/cuda.py)."""
        import ctypes
        n = len(buffers)
        ptrs = (ctypes.c_void_p * max(n, 1))(*[b.ptr for b in buffers])  # type: ignore[attr-defined]
        slots = [ctypes.addressof(ptrs) + i * ctypes.sizeof(ctypes.c_void_p) for i in range(n)]
        block = None
        if prep.pdtype is not None:
            block = ctypes.create_string_buffer(bytes(params or b""), prep.pdtype.itemsize)
            slots.append(ctypes.addressof(block))
        kp = (ctypes.c_void_p * max(len(slots), 1))(*slots)
        bx, by, bz = prep.block
        try:
            with self._cp_device:
                self.cp.cuda.driver.launchKernel(prep.fn.ptr, groups[0], groups[1], groups[2],
                                                 bx, by, bz, 0, self.stream.ptr,
                                                 ctypes.addressof(kp), 0)
        except Exception as e:
            raise LaunchError(f"'{prep.entry}': the CUDA launch failed on {self.adapter}: "
                              f"{e}") from None
        del block

    def synchronize(self) -> None:
        """Wait for every launch and copy on the device's stream."""
        self.stream.synchronize()
