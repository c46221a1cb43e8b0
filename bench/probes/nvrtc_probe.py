"""Probe: where cuda-python finds NVRTC and the CUDA headers, and what NVRTC gives.

    python bench/probes/nvrtc_probe.py

Prints the cuda-bindings version, the libnvrtc it loaded (``cuda.pathfinder``
looks in site-packages first: the ``nvidia-cuda-nvrtc`` wheel puts it in
``nvidia/cu13/lib``; then CUDA_PATH/CUDA_HOME and the system), NVRTC's version
and architectures, the directory of ``cuda_fp16.h`` (the ``nvidia-cuda-runtime``
wheel's ``nvidia/cu13/include``; NVRTC itself ships no standard headers), then
compiles an f16 kernel to PTX and to an sm_90 CUBIN and reports the PTX ISA
version (a driver must be at least as new to load that PTX) and whether
``--fmad=false`` kept ``a * b + c`` unfused. No GPU is needed.

Seen here (2026-12): cuda-bindings 13.4.4, libnvrtc.so.13 from site-packages,
NVRTC 13.5, archs 75..121, PTX ``.version 9.5``; the H200's driver is 580
(CUDA 13.0, PTX ISA up to 9.0), so it loads the CUBIN but not this PTX.
"""

import re

from pyshade.toolchains import nvrtc as tool

SOURCE = r"""
#include <cuda_fp16.h>
extern "C" __global__ void probe(float* x, __half* h) {
    unsigned int i = threadIdx.x;
    x[i] = x[i] * 3.0f + 1.0f;
    h[i] = __hadd_rn(h[i], __float2half_rn(x[i]));
}
"""


def main() -> None:
    import cuda.bindings
    from cuda.bindings import nvrtc
    from cuda.pathfinder import find_nvidia_header_directory, load_nvidia_dynamic_lib

    print("cuda-bindings", cuda.bindings.__version__)
    lib = load_nvidia_dynamic_lib("nvrtc")
    print("libnvrtc", lib.abs_path, "found via", lib.found_via)
    print("NVRTC", "%d.%d" % tool.nvrtc_version())
    print("architectures", list(nvrtc.nvrtcGetSupportedArchs()[1]))
    print("cuda_fp16.h in", find_nvidia_header_directory("cudart"))
    ptx = tool.compile_cuda(SOURCE, name="probe.cu").decode()
    print("PTX", re.search(r"\.version \S+", ptx).group(0), re.search(r"\.target \S+", ptx).group(0),
          "fused" if "fma" in ptx else "unfused (mul.rn + add.rn)")
    cubin = tool.compile_cuda(SOURCE, name="probe.cu", arch="sm_90", cubin=True)
    print("CUBIN", len(cubin), "bytes, ELF" if cubin[:4] == b"\x7fELF" else "NOT ELF")


if __name__ == "__main__":
    main()
