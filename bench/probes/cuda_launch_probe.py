"""Probe: launch pyshade's NVRTC output with the CUDA driver API, following the kernel
signature that ``emit/cuda.py`` documents (buffer pointers in binding order, then the
parameter block as one struct by value).

    python bench/probes/cuda_launch_probe.py build DIR   # here: NVRTC -> PTX and CUBIN
    python3 bench/probes/cuda_launch_probe.py run DIR    # on the GPU: ctypes + libcuda only

``build`` compiles three goldens (saxpy: a float and a length in the block; workgroup.ids:
no block, a 3-D workgroup; vectors.shade: vec3/vec4 parameters with padding); ``run``
loads each as PTX and as CUBIN, launches it and checks the result (shade's colors are
printed, to compare with the CPU device's: 0.917208, 0.571215, 0.258209, 1.0, ...).
On the H200 (driver 580, CUDA 13.0) the PTX of NVRTC 13.5 is refused ("the provided PTX
was compiled with an unsupported toolchain") and every CUBIN runs and agrees:
``bench/results/h200_cuda_launch.txt``.
"""

import ctypes as C
import math
import os
import struct
import sys

GOLDENS = ("saxpy.saxpy", "workgroup.ids", "vectors.shade")


def build(d: str) -> None:
    from pyshade.toolchains.nvrtc import compile_cuda
    root = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden", "cuda")
    os.makedirs(d, exist_ok=True)
    for name in GOLDENS:
        src = open(os.path.join(root, f"{name}.cu")).read()
        open(f"{d}/{name}.ptx", "wb").write(compile_cuda(src) + b"\0")
        open(f"{d}/{name}.cubin", "wb").write(compile_cuda(src, cubin=True))


class Driver:
    """The few libcuda calls a launch needs, through ctypes."""

    def __init__(self) -> None:
        self.cu = C.CDLL("libcuda.so.1")
        self.ck(self.cu.cuInit(0), "cuInit")
        v = C.c_int()
        self.cu.cuDriverGetVersion(C.byref(v))
        print("driver CUDA version", v.value)
        dev, ctx = C.c_int(), C.c_void_p()
        self.ck(self.cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
        self.ck(self.cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        self.ck(self.cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    def ck(self, r: int, what: str) -> bool:
        if r != 0:
            s = C.c_char_p()
            self.cu.cuGetErrorString(r, C.byref(s))
            print("FAIL", what, r, s.value)
        return r == 0

    def load(self, path: str):
        mod = C.c_void_p()
        ok = self.ck(self.cu.cuModuleLoadData(C.byref(mod), C.c_char_p(open(path, "rb").read())),
                     "load " + path)
        print("load", path, "ok" if ok else "failed")
        return mod if ok else None

    def function(self, mod, name: str):
        f = C.c_void_p()
        self.ck(self.cu.cuModuleGetFunction(C.byref(f), mod, name.encode()), "function")
        return f

    def alloc(self, data: bytes) -> C.c_uint64:
        p = C.c_uint64()
        self.ck(self.cu.cuMemAlloc_v2(C.byref(p), len(data)), "alloc")
        self.ck(self.cu.cuMemcpyHtoD_v2(p, data, len(data)), "upload")
        return p

    def read(self, p: C.c_uint64, n: int) -> bytes:
        b = C.create_string_buffer(n)
        self.ck(self.cu.cuMemcpyDtoH_v2(b, p, n), "download")
        return b.raw

    def launch(self, f, grid: tuple, block: tuple, args: list) -> None:
        """Each argument is a device pointer or the bytes of a by-value struct."""
        held = [C.c_uint64(a.value) if isinstance(a, C.c_uint64) else C.create_string_buffer(a, len(a))
                for a in args]
        ptrs = (C.c_void_p * len(held))(*[C.cast(C.pointer(h), C.c_void_p)
                                          if isinstance(h, C.c_uint64) else C.cast(h, C.c_void_p)
                                          for h in held])
        self.ck(self.cu.cuLaunchKernel(f, *grid, *block, 0, None, ptrs, None), "launch")
        self.ck(self.cu.cuCtxSynchronize(), "synchronize")


def run(d: str) -> None:
    cu = Driver()
    for kind in ("ptx", "cubin"):
        m = cu.load(f"{d}/saxpy.saxpy.{kind}")
        if m is None:
            continue
        n = 1000
        px = cu.alloc(struct.pack(f"<{n}f", *[float(i) for i in range(n)]))
        py = cu.alloc(struct.pack(f"<{n}f", *[1.0] * n))
        # ps_Params: float a at 0, u32 length of x at 4, 16 bytes.
        cu.launch(cu.function(m, "saxpy"), (16, 1, 1), (64, 1, 1),
                  [px, py, struct.pack("<fI8x", 2.0, n)])
        out = struct.unpack(f"<{n}f", cu.read(py, 4 * n))
        print(kind, "saxpy", "OK" if all(out[i] == 2.0 * i + 1.0 for i in range(n)) else "WRONG")

        m = cu.load(f"{d}/workgroup.ids.{kind}")
        tot = 2 * 3 * 32
        po, pf = cu.alloc(bytes(16 * tot)), cu.alloc(bytes(4 * tot))
        cu.launch(cu.function(m, "ids"), (2, 3, 1), (4, 4, 2), [po, pf])
        o = struct.unpack(f"<{4 * tot}I", cu.read(po, 16 * tot))
        fl = struct.unpack(f"<{tot}I", cu.read(pf, 4 * tot))
        bad = 0
        for gy in range(3):
            for gx in range(2):
                for lz in range(2):
                    for ly in range(4):
                        for lx in range(4):
                            lin = (gx * 4 + lx) + (gy * 4 + ly) * 8 + lz * 8 * 12
                            want = (gx * 100 + lx, gy * 100 + ly, lz, 2)
                            bad += o[4 * lin:4 * lin + 4] != want
                            bad += fl[lin] != lx + ly * 4 + lz * 16 + gx * 32
        print(kind, "ids", "OK" if bad == 0 else f"{bad} WRONG")

        m = cu.load(f"{d}/vectors.shade.{kind}")
        n = 64
        normals = [v for i in range(n) for v in (math.sin(i), math.cos(i), 0.5, 0.0)]
        pn, pc = cu.alloc(struct.pack(f"<{4 * n}f", *normals)), cu.alloc(bytes(16 * n))
        # ps_Params: vec3 light at 0, vec4 tint at 16, u32 length at 32, 48 bytes.
        params = struct.pack("<3f4x4fI12x", 0.2, -1.0, 0.3, 0.9, 0.5, 0.25, 1.0, n)
        cu.launch(cu.function(m, "shade"), (1, 1, 1), (64, 1, 1), [pn, pc, params])
        c = struct.unpack(f"<{4 * n}f", cu.read(pc, 16 * n))
        print(kind, "shade first colors", [round(t, 6) for t in c[:8]])


if __name__ == "__main__":
    {"build": build, "run": run}[sys.argv[1]](sys.argv[2])
