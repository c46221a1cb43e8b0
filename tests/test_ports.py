"""Kernels of other projects, ported as their authors wrote them (issue 18): every
module of ``tests/ports/`` on every device against numpy, and translated to every
target and compiled by each toolchain present.

Each port module's docstring starts with ``Port of owner/repo:path (function, ...)``,
names the functions it ports and says what changed in the spelling. A module exports
its kernels and three functions, the one convention of every port:

- ``inputs(rng) -> dict``: fresh random inputs (numpy arrays and numbers);
- ``run(dev, **inputs) -> dict``: launches the kernels on ``dev``, returns the outputs;
- ``reference(**inputs) -> dict``: the same outputs computed by numpy.

The tests below compare the two, exactly where the result is exact (integers, and
floats whose every partial sum is an integer below 2**24) and otherwise within a
tolerance that each test justifies.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import require

import pyshade as ps

PORTS_DIR = Path(__file__).parent / "ports"
PORTS = sorted(p.stem for p in PORTS_DIR.glob("*.py") if not p.name.startswith("_"))
U = 2.0 ** -24          # f32 unit roundoff
FIRST_LINE = re.compile(r"^Port of ([\w.-]+/[\w.-]+):(\S+) \((\w+(?:, \w+)*)\)$")


def port(name: str) -> ModuleType:
    return importlib.import_module(f"ports.{name}")


def kernels_of(mod: ModuleType) -> list[ps.Kernel]:
    return [v for v in vars(mod).values() if isinstance(v, ps.Kernel)]


def run_port(name: str, dev: ps.Device, rng: np.random.Generator) -> tuple[dict, dict, dict]:
    """(inputs, outputs on ``dev``, numpy's outputs) of one port."""
    mod = port(name)
    inp = mod.inputs(rng)
    got = mod.run(dev, **inp)
    want = mod.reference(**inp)
    assert set(got) == set(want), (sorted(got), sorted(want))
    for k in want:
        assert np.shape(got[k]) == np.shape(want[k]), (k, np.shape(got[k]), np.shape(want[k]))
    return inp, got, want


# -- the modules themselves ---------------------------------------------------------------
def test_at_least_ten_ports() -> None:
    assert len(PORTS) >= 10, PORTS


@pytest.mark.parametrize("name", PORTS)
def test_port_names_its_source(name: str) -> None:
    """The first line names the repository, the file and the functions ported, and each
    of those functions is a kernel or helper of the module; the module follows the
    convention (inputs, run, reference)."""
    mod = port(name)
    first = (mod.__doc__ or "").splitlines()[0]
    m = FIRST_LINE.match(first)
    assert m, f"{name}: first docstring line {first!r} is not 'Port of owner/repo:path (function)'"
    for fn in m.group(3).split(", "):
        assert callable(getattr(mod, fn, None)), f"{name}: {fn} named in the docstring is not defined"
    assert any(k.__name__ in m.group(3).split(", ") for k in kernels_of(mod)), name
    for fn in ("inputs", "run", "reference"):
        assert callable(getattr(mod, fn, None)), f"{name} has no {fn}()"


TARGETS = ("wgsl", "glsl", "hlsl", "msl", "cuda", "python")
KERNELS = [(name, k.__name__) for name in PORTS for k in kernels_of(port(name))]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("name", "kernel"), KERNELS, ids=[f"{n}.{k}" for n, k in KERNELS])
def test_port_translates_and_compiles(name: str, kernel: str, target: str) -> None:
    """Every kernel translates to every target, and the target's toolchain compiles it:
    naga (WGSL), glslang + spirv-val (GLSL), DXC (HLSL), NVRTC (CUDA), CPython; MSL,
    without a Mac, is compiled by g++ against tests/msl_host's metal_stdlib stand-in."""
    k = getattr(port(name), kernel)
    text = ps.translate(k, target)
    assert text
    if target == "msl":
        from msl_host import compiler, syntax_check
        require(compiler() is not None, "g++ is not installed (Debian package g++)")
        assert syntax_check(text, f"{kernel}.metal") == ""
        return
    try:
        compiled = ps.compile(k, target)
    except ps.BackendUnavailable as e:
        require(False, f"no {target} toolchain: {e}")
        raise
    assert compiled.source == text


# -- each port on every device ------------------------------------------------------------
def test_numba_fast_matmul(dev: ps.Device, rng: np.random.Generator) -> None:
    """Each element is a sum of k products, accumulated in order: its error is at most
    k rounding errors of the sum of the products' magnitudes (fused multiply-adds only
    make it smaller)."""
    inp, got, want = run_port("numba_fast_matmul", dev, rng)
    a, b = (np.abs(inp[x].astype(np.float64)) for x in "AB")
    bound = (a.shape[1] + 1) * U * (a @ b)
    assert np.all(np.abs(got["C"] - want["C"]) <= bound)


def test_numba_array_sum(dev: ps.Device, rng: np.random.Generator) -> None:
    _, got, want = run_port("numba_array_sum", dev, rng)
    np.testing.assert_array_equal(got["data"], want["data"])


def test_cupy_reduction_atomic(dev: ps.Device, rng: np.random.Generator) -> None:
    """Each value goes through at most (its thread's loop count + BLOCK + GRID)
    additions, in an order that depends on the device and the atomics' order: the error
    is at most that many rounding errors of the sum of the magnitudes."""
    mod = port("cupy_reduction_atomic")
    inp, got, want = run_port("cupy_reduction_atomic", dev, rng)
    x = inp["x"].astype(np.float64)
    adds = -(-len(x) // (mod.BLOCK * mod.GRID)) + mod.BLOCK + mod.GRID
    assert abs(got["y"][0] - want["y"][0]) <= adds * U * np.abs(x).sum()


def test_cuda_samples_black_scholes(dev: ps.Device, rng: np.random.Generator) -> None:
    """The sample's own acceptance test (BlackScholes.cpp): the L1 norm of the error
    relative to the double-precision reference below 1e-6; and every price within 1e-4,
    some 16 f32 roundings of the largest price (100), since exp and log may be a few
    ulp off on a GPU and the put subtracts two terms of that size."""
    _, got, want = run_port("cuda_samples_black_scholes", dev, rng)
    for k in ("call", "put"):
        err = np.abs(got[k] - want[k])
        assert err.sum() / np.abs(want[k]).sum() < 1e-6, k
        assert err.max() < 1e-4, (k, err.max())


def test_cuda_samples_scalar_prod(dev: ps.Device, rng: np.random.Generator) -> None:
    """The products are of values in [0, 1): every term is positive, so each dot
    product's relative error is at most the number of roundings on its longest path
    (one product, ceil(elementN / ACCUM_N) sums, log2(ACCUM_N) tree levels) times U."""
    mod = port("cuda_samples_scalar_prod")
    inp, got, want = run_port("cuda_samples_scalar_prod", dev, rng)
    depth = 1 + -(-inp["A"].shape[1] // mod.ACCUM_N) + int(np.log2(mod.ACCUM_N))
    np.testing.assert_allclose(got["C"], want["C"], rtol=(depth + 1) * U, atol=0)


def test_cuda_samples_atomic_intrinsics(dev: ps.Device, rng: np.random.Generator) -> None:
    """Exact, as computeGold checks; the exchange and compare-and-swap counters (2 and
    7) hold some thread id, which one depending on the order the threads ran in."""
    inp, got, want = run_port("cuda_samples_atomic_intrinsics", dev, rng)
    n = inp["blocks"] * port("cuda_samples_atomic_intrinsics").NUM_THREADS
    g, w = got["g_odata"], want["g_odata"]
    for slot in (2, 7):
        assert 0 <= g[slot] < n, (slot, g[slot])
    keep = [i for i in range(11) if i not in (2, 7)]
    np.testing.assert_array_equal(g[keep], w[keep])


def test_webgpu_compute_boids(dev: ps.Device, rng: np.random.Generator) -> None:
    """Positions within [-1, 1] and velocities below 0.1 after a few dozen f32
    operations each (the reference is float64): within 1e-6. No pair of boids lies
    within 1e-6 of a radius (inputs() sees to it), so every boid takes the same
    branches on every device."""
    _, got, want = run_port("webgpu_compute_boids", dev, rng)
    for k in ("pos", "vel"):
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=1e-6, err_msg=k)
    assert (np.abs(got["pos"]) <= 1.0).all()


def test_webgpu_game_of_life(dev: ps.Device, rng: np.random.Generator) -> None:
    _, got, want = run_port("webgpu_game_of_life", dev, rng)
    np.testing.assert_array_equal(got["board"], want["board"])


def test_taichi_fractal(dev: ps.Device, rng: np.random.Generator) -> None:
    """Iterating z*z + c is chaotic near the Julia set, and ``c`` holds ``cos(t) * 0.2``,
    where Vulkan allows ``cos`` an absolute error of 2**-11 (SwiftShader's is 1.4e-4,
    which changes some 20 of the 1152 escape counts). So every pixel's count must lie
    within those of the pictures for ``c`` at 17 points of that band (the exact ``c``
    included), and at least 90% of the pixels must be the exact picture's."""
    mod = port("taichi_fractal")
    inp, got, want = run_port("taichi_fractal", dev, rng)
    if dev.target == "wgsl":
        # WGSL cannot forbid contraction: NVIDIA's driver fuses every a * b + c there
        # (docs/devices/vulkan.md), which moved 299 of the 1152 pixels on the H200, far
        # outside the cos band; through WGSL a third may differ, each still a count.
        assert (got["pixels"] != want["pixels"]).mean() <= 0.35
        k = np.rint((1 - got["pixels"]) / 0.02)
        assert ((0 <= k) & (k <= 50)).all()
        return
    c1 = np.cos(np.float64(inp["t"])) * 0.2
    band = np.stack([mod.julia(np.float32(c1 + d * 0.2 * 2.0 ** -11)) for d in np.linspace(-1, 1, 17)])
    px = got["pixels"]
    assert ((band.min(axis=0) <= px) & (px <= band.max(axis=0))).all()
    assert (px == want["pixels"]).mean() >= 0.9


def test_warp_wave(dev: ps.Device, rng: np.random.Generator) -> None:
    """Heights of magnitude below 1 after six substeps of some ten f32 operations each
    (the reference is float64): within 2e-6. No cell lies within 1e-3 of the circle's
    edge (inputs() sees to it), so every device displaces the same cells."""
    _, got, want = run_port("warp_wave", dev, rng)
    np.testing.assert_allclose(got["heights"], want["heights"], rtol=0, atol=2e-6)
    np.testing.assert_allclose(got["vertices"], want["vertices"], rtol=0, atol=2e-6)


def test_cuda_samples_convolution_separable(dev: ps.Device, rng: np.random.Generator) -> None:
    """Integers 0..15 in the image and the kernel: every partial sum is an integer
    below 2**24, exact in f32 in any order."""
    _, got, want = run_port("cuda_samples_convolution_separable", dev, rng)
    np.testing.assert_array_equal(got["rows"], want["rows"])
    np.testing.assert_array_equal(got["output"], want["output"])


def test_every_port_has_a_run_test() -> None:
    """A new module in tests/ports/ gets its own test above."""
    missing = [n for n in PORTS if f"test_{n}" not in globals()]
    assert not missing, missing
