"""Port of NVIDIA/cuda-samples:Samples/5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh (BlackScholesGPU)

The CUDA sample's European option pricer: ``cndGPU`` approximates the cumulative normal
distribution by a polynomial, ``BlackScholesBodyGPU`` prices a call and a put, and the
kernel prices two options per thread, reading ``float2`` elements.

Spelling: ``float2`` buffers are ``ps.Buffer[vec2]`` and ``make_float2`` is ``vec2``;
``blockDim.x * blockIdx.x + threadIdx.x`` as an ``int`` is ``ps.tid()``; the C
integer division ``optN / 2`` is ``optN // 2``. ``BlackScholesBodyGPU`` returns its two
results as a tuple instead of writing them through ``float &`` parameters. The fast
intrinsics are the plain functions (``__fdividef(a, b)`` is ``a / b``, ``__expf`` and
``__logf`` are ``math.exp`` and ``math.log``), and ``__fdividef(1.0F, rsqrtf(T))`` is
``math.sqrt(T)`` (pyshade has no ``rsqrt``).
"""

from __future__ import annotations

import math

import numpy as np

import pyshade as ps
from pyshade import f32, i32, vec2


def cndGPU(d: f32) -> f32:
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438

    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))

    cnd = RSQRT2PI * math.exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))

    if d > 0:
        cnd = 1.0 - cnd

    return cnd


def BlackScholesBodyGPU(S: f32, X: f32, T: f32, R: f32, V: f32) -> tuple[f32, f32]:
    """Call and put prices of stock price S, strike X, years T, riskless rate R and
    volatility V."""
    sqrtT = math.sqrt(T)
    d1 = (math.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT

    CNDD1 = cndGPU(d1)
    CNDD2 = cndGPU(d2)

    # Calculate Call and Put simultaneously
    expRT = math.exp(-R * T)
    CallResult = S * CNDD1 - X * expRT * CNDD2
    PutResult = X * expRT * (1.0 - CNDD2) - S * (1.0 - CNDD1)
    return CallResult, PutResult


@ps.kernel(workgroup_size=128)
def BlackScholesGPU(d_CallResult: ps.Buffer[vec2], d_PutResult: ps.Buffer[vec2],
                    d_StockPrice: ps.Buffer[vec2], d_OptionStrike: ps.Buffer[vec2],
                    d_OptionYears: ps.Buffer[vec2], Riskfree: f32, Volatility: f32,
                    optN: i32) -> None:
    opt = ps.tid()

    # Calculating 2 options per thread to increase ILP
    if opt < (optN // 2):
        callResult1, putResult1 = BlackScholesBodyGPU(
            d_StockPrice[opt].x, d_OptionStrike[opt].x, d_OptionYears[opt].x, Riskfree, Volatility)
        callResult2, putResult2 = BlackScholesBodyGPU(
            d_StockPrice[opt].y, d_OptionStrike[opt].y, d_OptionYears[opt].y, Riskfree, Volatility)
        d_CallResult[opt] = vec2(callResult1, callResult2)
        d_PutResult[opt] = vec2(putResult1, putResult2)


RISKFREE = 0.02
VOLATILITY = 0.30


def inputs(rng: np.random.Generator) -> dict:
    """The sample's ranges (BlackScholes.cu: price 5..30, strike 1..100, 0.25..10
    years); an odd count of pairs, not a multiple of the workgroup."""
    n = 2 * int(rng.integers(300, 400)) + 1      # optN odd: the last option is left out
    return {"S": rng.uniform(5.0, 30.0, n).astype(np.float32),
            "X": rng.uniform(1.0, 100.0, n).astype(np.float32),
            "T": rng.uniform(0.25, 10.0, n).astype(np.float32)}


def run(dev: ps.Device, S: np.ndarray, X: np.ndarray, T: np.ndarray) -> dict:
    optN = len(S)
    half = optN // 2
    call, put = dev.zeros((half, 2), np.float32), dev.zeros((half, 2), np.float32)
    BlackScholesGPU.launch(call, put, S[:2 * half].reshape(half, 2), X[:2 * half].reshape(half, 2),
                           T[:2 * half].reshape(half, 2), np.float32(RISKFREE),
                           np.float32(VOLATILITY), np.int32(optN), threads=half, device=dev)
    return {"call": call.numpy().reshape(-1), "put": put.numpy().reshape(-1)}


def reference(S: np.ndarray, X: np.ndarray, T: np.ndarray) -> dict:
    """The same formulas in float64 (BlackScholes_gold.cpp computes in double too)."""
    half = len(S) // 2
    S, X, T = (a[:2 * half].astype(np.float64) for a in (S, X, T))
    R, V = np.float64(np.float32(RISKFREE)), np.float64(np.float32(VOLATILITY))

    def cnd(d: np.ndarray) -> np.ndarray:
        K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        c = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
            K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978
                                                                        + K * 1.330274429)))))
        return np.where(d > 0, 1.0 - c, c)

    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    expRT = np.exp(-R * T)
    return {"call": S * cnd(d1) - X * expRT * cnd(d2),
            "put": X * expRT * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))}
