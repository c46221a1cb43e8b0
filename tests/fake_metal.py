"""A fake of PyObjC's ``Metal`` module, test-only: exactly the calls that
``pyshade/runtime/metal.py`` makes, so that its code runs on Linux.

``FakeMetal()`` stands where ``import Metal`` would (``metal._metal_module`` is the seam).
A library compile checks the MSL with g++ against the metal_stdlib stand-in
(``msl_host.syntax_check``) and returns Metal's ``(nil, NSError)`` with g++'s log when it
fails; the first dispatch of a pipeline builds it with ``MslHostDevice``'s own compile
hooks (``prepare``: its launcher and g++ command). Dispatches are recorded with the
buffers bound at each Metal index and a copy of the ``setBytes`` bytes; a committed
command buffer runs, in queue order with those committed before it, when the host waits
(``waitUntilCompleted``), so a device that reads results without waiting sees stale
memory. Misuse that Metal asserts on (recording after ``endEncoding``, committing an
open encoder, setBytes over 4 KiB, a pipeline not set) raises ``AssertionError``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np
from msl_host import MslHostDevice, syntax_check

from pyshade.runtime.base import Compiled, Layout

_HOST: list[MslHostDevice] = []

MTLResourceStorageModeShared = 0
MTLDispatchTypeSerial = 0
MTLMathModeSafe = 0
MTLCommandBufferStatusCompleted = 4
MTLCommandBufferStatusError = 5


def _host() -> MslHostDevice:
    """One stand-in for the session: its builds are cached by source text."""
    if not _HOST:
        _HOST.append(MslHostDevice())
    return _HOST[0]


@dataclass(frozen=True)
class MTLSize:
    """``MTLSize`` (PyObjC: a struct with named fields)."""

    width: int
    height: int
    depth: int


def MTLSizeMake(w: int, h: int, d: int) -> MTLSize:
    return MTLSize(int(w), int(h), int(d))


class NSError:
    def __init__(self, text: str):
        self.text = text

    def localizedDescription(self) -> str:
        return self.text


class _Contents:
    """What ``MTLBuffer.contents()`` returns in PyObjC: a pointer with ``as_buffer(n)``."""

    def __init__(self, mem: np.ndarray):
        self.mem = mem

    def as_buffer(self, n: int) -> memoryview:
        assert n <= self.mem.size, "as_buffer past the buffer's length"
        return memoryview(self.mem[:n])


class FakeBuffer:
    def __init__(self, length: int, options: int):
        assert options == MTLResourceStorageModeShared, "only shared storage is faked"
        self.mem = np.zeros(length, np.uint8)      # Metal zero-fills new buffers

    def length(self) -> int:
        return self.mem.size

    def contents(self) -> _Contents:
        return _Contents(self.mem)


class MTLCompileOptions:
    """``MTLCompileOptions``; ``math_mode=False`` is an SDK before macOS 15 (no mathMode)."""

    math_mode = True

    def __init__(self) -> None:
        self.fast_math: bool | None = None
        self.mode: int | None = None

    @classmethod
    def alloc(cls) -> MTLCompileOptions:
        return cls()

    def init(self) -> MTLCompileOptions:
        return self

    def setFastMathEnabled_(self, on: bool) -> None:
        self.fast_math = on

    def __getattr__(self, name: str) -> Any:
        if name == "setMathMode_" and type(self).math_mode:
            return lambda mode: setattr(self, "mode", mode)
        raise AttributeError(name)


class FakeFunction:
    def __init__(self, library: FakeLibrary, name: str):
        self.library = library
        self.name = name


class FakeLibrary:
    def __init__(self, source: str):
        self.source = source

    def newFunctionWithName_(self, name: str) -> FakeFunction | None:
        return FakeFunction(self, name) if f"kernel void {name}(" in self.source else None


class FakePipeline:
    def __init__(self, device: FakeDevice, fn: FakeFunction):
        self.device = device
        self.fn = fn
        self.built: dict[tuple, Any] = {}

    def maxTotalThreadsPerThreadgroup(self) -> int:
        return 1024

    def run(self, bound: dict[int, Any], groups: MTLSize, threads: MTLSize) -> None:
        """Build (once per workgroup size) and call the stand-in's launcher: pointer ``i``
        is what is bound at Metal index ``i``."""
        ws = (threads.width, threads.height, threads.depth)
        lib = self.built.get(ws)
        if lib is None:
            c = Compiled("msl", None, self.fn.library.source, self.fn.name, Layout((), None, ws))
            lib = self.built[ws] = _host().prepare(c)
        n = max(bound, default=-1) + 1
        keep = [ctypes.create_string_buffer(v, len(v)) if isinstance(v, bytes) else None
                for v in (bound.get(i) for i in range(n))]
        ptrs = [ctypes.addressof(k) if k is not None else bound[i].mem.ctypes.data
                for i, k in enumerate(keep)]
        argv = (ctypes.c_void_p * max(n, 1))(*ptrs)
        lib.ps_host_run(argv, groups.width, groups.height, groups.depth)


class FakeEncoder:
    def __init__(self, cb: FakeCommandBuffer):
        self.cb = cb
        self.pso: FakePipeline | None = None
        self.bound: dict[int, Any] = {}
        self.open = True

    def setComputePipelineState_(self, pso: FakePipeline) -> None:
        assert self.open, "encoder used after endEncoding"
        self.pso = pso

    def setBuffer_offset_atIndex_(self, buf: FakeBuffer, offset: int, i: int) -> None:
        assert self.open and offset == 0 and 0 <= i < 31
        self.bound[i] = buf

    def setBytes_length_atIndex_(self, raw: bytes, n: int, i: int) -> None:
        assert self.open and 0 <= i < 31 and n == len(raw)
        assert n <= 4096, "setBytes takes at most 4 KiB"
        self.bound[i] = bytes(raw)          # Metal copies the bytes at this call

    def dispatchThreadgroups_threadsPerThreadgroup_(self, groups: MTLSize,
                                                    threads: MTLSize) -> None:
        assert self.open and self.pso is not None, "dispatch without a pipeline"
        self.cb.work.append((self.pso, dict(self.bound), groups, threads))
        self.cb.queue.device.dispatches += 1

    def endEncoding(self) -> None:
        assert self.open, "endEncoding twice"
        self.open = False


class FakeCommandBuffer:
    def __init__(self, queue: FakeQueue):
        self.queue = queue
        self.work: list[tuple] = []
        self.encoders: list[FakeEncoder] = []
        self.state = 0          # 0 recording, 2 committed, 4 completed

    def computeCommandEncoderWithDispatchType_(self, kind: int) -> FakeEncoder:
        assert kind == MTLDispatchTypeSerial and self.state == 0
        enc = FakeEncoder(self)
        self.encoders.append(enc)
        return enc

    def commit(self) -> None:
        assert self.state == 0, "committed twice"
        assert not any(e.open for e in self.encoders), "commit with an open encoder"
        self.state = 2
        self.queue.committed.append(self)
        self.queue.device.commits += 1

    def waitUntilCompleted(self) -> None:
        assert self.state >= 2, "waiting on a command buffer that was not committed"
        q = self.queue
        while self.state != 4:          # run this and every one committed before it
            cb = q.committed.pop(0)
            for pso, bound, groups, threads in cb.work:
                pso.run(bound, groups, threads)
            cb.state = 4

    def status(self) -> int:
        return MTLCommandBufferStatusCompleted if self.state == 4 else self.state

    def error(self) -> None:
        return None


class FakeQueue:
    def __init__(self, device: FakeDevice):
        self.device = device
        self.committed: list[FakeCommandBuffer] = []

    def commandBuffer(self) -> FakeCommandBuffer:
        return FakeCommandBuffer(self)


class FakeDevice:
    """An ``MTLDevice``: an Apple GPU with unified memory, running on the CPU."""

    def __init__(self, name: str = "Fake Apple M0 (tests/fake_metal)", registry: int = 1):
        self._name = name
        self._registry = registry
        self.dispatches = 0
        self.commits = 0
        self.libraries = 0

    def name(self) -> str:
        return self._name

    def registryID(self) -> int:
        return self._registry

    def hasUnifiedMemory(self) -> bool:
        return True

    def maxThreadsPerThreadgroup(self) -> MTLSize:
        return MTLSize(1024, 1024, 1024)

    def maxThreadgroupMemoryLength(self) -> int:
        return 32768

    def maxBufferLength(self) -> int:
        return 1 << 30

    def newCommandQueue(self) -> FakeQueue:
        return FakeQueue(self)

    def newBufferWithLength_options_(self, n: int, options: int) -> FakeBuffer | None:
        return FakeBuffer(n, options) if n > 0 else None

    def newLibraryWithSource_options_error_(self, source: str, opts: MTLCompileOptions,
                                            err: None) -> tuple:
        assert err is None
        # what the device must ask for: no fast math, by whichever property the SDK has
        assert opts.mode == MTLMathModeSafe or opts.fast_math is False
        self.libraries += 1
        log = syntax_check(source)
        if log:
            return None, NSError(log)
        return FakeLibrary(source), None

    def newComputePipelineStateWithFunction_error_(self, fn: FakeFunction,
                                                   err: None) -> tuple:
        return FakePipeline(self, fn), None


class FakeMetal:
    """The module: ``MTLCreateSystemDefaultDevice``, ``MTLCopyAllDevices`` and the names
    above. ``devices`` is how many GPUs it has; ``math_mode`` whether its
    ``MTLCompileOptions`` has ``mathMode`` (macOS 15 SDK)."""

    MTLResourceStorageModeShared = MTLResourceStorageModeShared
    MTLDispatchTypeSerial = MTLDispatchTypeSerial
    MTLMathModeSafe = MTLMathModeSafe
    MTLCommandBufferStatusError = MTLCommandBufferStatusError
    MTLSizeMake = staticmethod(MTLSizeMake)

    def __init__(self, devices: int = 1, math_mode: bool = True):
        self.devices = [FakeDevice(f"Fake Apple M{i} (tests/fake_metal)", i + 1)
                        for i in range(devices)]
        self.MTLCompileOptions = type("MTLCompileOptions", (MTLCompileOptions,),
                                      {"math_mode": math_mode})

    def MTLCreateSystemDefaultDevice(self) -> FakeDevice | None:
        return self.devices[0] if self.devices else None

    def MTLCopyAllDevices(self) -> list[FakeDevice]:
        return list(reversed(self.devices))       # the default need not come first
