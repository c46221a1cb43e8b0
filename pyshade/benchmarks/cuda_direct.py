"""Baseline: hand-written CUDA C through CuPy's ``RawModule``/``RawKernel`` (no pyshade
code, no pyshade import): the section-7 bitonic step and a trivial fill kernel.
``tests/test_bench_cli.py`` checks that this module imports nothing from pyshade.
"""

from __future__ import annotations

from typing import Any

HAND_CU = r"""
extern "C" __global__ void bitonic(unsigned int* data, unsigned int n, unsigned int stage,
                                   unsigned int pass_of_stage, unsigned int order) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int partner = i ^ (1u << (stage - pass_of_stage));
    if (partner > i && partner < n) {
        bool up = ((i >> (stage + 1u)) & 1u) == 0u;
        if (order == 1u) up = !up;
        unsigned int a = data[i], b = data[partner];
        if ((b < a) == up) { data[i] = b; data[partner] = a; }
    }
}
extern "C" __global__ void fill(unsigned int* x, unsigned int v, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"""


def steps_of(n: int) -> list[tuple[int, int]]:
    """(stage, pass_of_stage) of the bitonic network over n = 2^k keys."""
    k = n.bit_length() - 1
    return [(s, p) for s in range(k) for p in range(s + 1)]


def hand_kernels() -> tuple[Any, Any]:
    """The baseline: CuPy RawKernels of HAND_CU (CuPy's NVRTC, default options)."""
    import cupy as cp
    mod = cp.RawModule(code=HAND_CU)
    return mod.get_function("bitonic"), mod.get_function("fill")
