"""The conformance table (``tools/conformance.py``): every operator, builtin and conversion
on i32, u32 and f32 scalars, on each type's edge values, on every device, against a
Python reference. A result that differs from the reference and is not a documented target
limitation (``conformance.LIMITS``) fails; ``docs/conformance.md`` lists every case."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import CUDA_PARAMS, GPU_PARAMS, HLSL_PARAMS, VULKAN_PARAMS, get_device, gpu_device

import pyshade as ps

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("conformance", ROOT / "tools" / "conformance.py")
conformance = importlib.util.module_from_spec(_spec)
sys.modules["conformance"] = conformance
_spec.loader.exec_module(conformance)
cc = conformance.cc


# The real devices: the C stand-ins (cuda-host, msl-host) would compile a program per case with
# g++ and test the host's libm, not a GPU's; the cuda device runs where there is a GPU.
PARAMS = [*GPU_PARAMS, *VULKAN_PARAMS, *HLSL_PARAMS, *CUDA_PARAMS]


@pytest.fixture(params=["cpu", *PARAMS], ids=["cpu", *(p.id for p in PARAMS)])
def device(request: pytest.FixtureRequest) -> ps.Device:
    """The cpu device and every GPU device here."""
    return get_device("cpu") if request.param == "cpu" else gpu_device(request.param)


def test_every_case_on_the_device(device: ps.Device, request: pytest.FixtureRequest) -> None:
    dev = device
    name = "cpu" if dev.target == "python" else request.node.callspec.id
    table = conformance.run({name: dev})
    bad = [f"{key}: " + "; ".join(row[name].failures[:3]) for key, row in table.items()
           if row[name].failures]
    assert not bad, "\n".join(bad)


def test_the_judge_can_fail() -> None:
    """A wrong sum, a wrong sign of zero, a missing raise on the cpu device and a sine far
    outside its bound inside [-pi, pi] are failures; NaN against NaN and a raise where
    Python raises are not."""
    by = {c.key: c for c in cc.cases()}
    add, sin = by["x + y [f32]"], by["math.sin(x) [f32]"]
    div = by["x // y [i32]"]
    assert conformance.judge(add, "vulkan", 1.0, 2.0, 4.0)[0] == "fail"
    assert conformance.judge(add, "vulkan", 0.0, -0.0, -0.0)[0] == "fail"
    assert conformance.judge(add, "vulkan", math.nan, 1.0, -math.nan)[0] == "exact"
    assert conformance.judge(div, "cpu", 7, 0, 7)[0] == "fail"
    assert conformance.judge(div, "cpu", 7, 0, conformance.RAISED)[0] == "raises"
    assert conformance.judge(div, "vulkan", -7, 0, -7)[0] == "exact"
    assert conformance.judge(sin, "vulkan", 0.5, 0.0, 0.48)[0] == "fail"
    assert conformance.judge(sin, "vulkan", 3.0e38, 0.0, 0.3)[0] == "T"


def test_fma_rounds_once_and_the_limit_is_narrow() -> None:
    """``ps.fma(x, y, -0.1)``'s reference rounds once: 1e10 * 3.0 is a tie between two
    f32, so 3e10 - 0.1 rounds down where the product rounded first (to even, up) does
    not. A GPU's twice-rounded result is the `R` limitation; on the cpu device it is a
    failure, and so is any other value on a GPU."""
    fma = {c.key: c for c in cc.cases()}["ps.fma(x, y, -0.1) [f32]"]
    once, twice = 29999998976.0, 30000001024.0
    assert cc.fma_ref(1e10, 3.0) == once
    assert conformance.judge(fma, "vulkan", 1e10, 3.0, once)[0] == "exact"
    assert conformance.judge(fma, "vulkan", 1e10, 3.0, twice)[0] == "R"
    assert conformance.judge(fma, "cpu", 1e10, 3.0, twice)[0] == "fail"
    assert conformance.judge(fma, "vulkan", 1e10, 3.0, 29999996928.0)[0] == "fail"


def test_select_of_a_flushed_comparison() -> None:
    """A GPU may compare a flushed subnormal and still pass its bits through (`F`, as
    SwiftShader's select does); a wrong pick of normal operands fails."""
    sel = {c.key: c for c in cc.cases()}["ps.select(x, y, x < y) [f32]"]
    sub = -cc.F32_SUB_BIG
    assert conformance.judge(sel, "vulkan", sub, 0.0, 0.0)[0] == "exact"
    assert conformance.judge(sel, "vulkan", sub, 0.0, sub)[0] == "F"
    assert conformance.judge(sel, "cpu", sub, 0.0, sub)[0] == "fail"
    assert conformance.judge(sel, "vulkan", 1.0, 2.0, 1.0)[0] == "fail"


def test_wgsl_may_drop_nan_and_zero_signs_narrowly() -> None:
    """Through wgpu, NVIDIA computes ``ps.select(x, y, x < y)`` as ``max(x, y)`` (H100,
    bench/results/nvidia_issue16_20261205_h100.txt): with a NaN operand or a zero of the
    other sign that is `W` on a wgpu device; on a vulkan route, which declares
    SignedZeroInfNanPreserve, it fails, as does a wrong pick of numbers on wgpu."""
    sel = {c.key: c for c in cc.cases()}["ps.select(x, y, x < y) [f32]"]
    assert conformance.judge(sel, "wgpu nvidia", math.nan, 0.0, 0.0)[0] == "W"
    assert conformance.judge(sel, "wgpu nvidia", -0.0, 0.0, 0.0)[0] == "W"
    assert conformance.judge(sel, "vulkan nvidia", math.nan, 0.0, 0.0)[0] == "fail"
    assert conformance.judge(sel, "vulkan nvidia", -0.0, 0.0, 0.0)[0] == "fail"
    assert conformance.judge(sel, "wgpu nvidia", 1.0, 2.0, 1.0)[0] == "fail"
    assert conformance.judge(sel, "wgpu nvidia", -0.0, 0.0, -0.0)[0] == "exact"


def test_a_formula_is_held_to_its_bound() -> None:
    """The builtins Vulkan and WGSL define by a formula (``cc.INHERITED``): within the
    formula's absolute bound a GPU's result is a measured ulp error, past it a failure;
    an infinite operand or one whose square may overflow is `I`; the cpu device, which
    computes the reference's formula, must match it bit for bit."""
    by = {c.key: c for c in cc.cases()}
    length, mix = by["ps.length(vec2(x, y)) [f32]"], by["ps.mix(x, y, 0.25) [f32]"]
    assert cc.INHERITED.keys() >= {"mix", "smoothstep", "dot", "cross", "length",
                                   "distance", "normalize"}
    assert conformance.judge(length, "vulkan", 3.0, 4.0, 5.0) == ("exact", 0.0)
    next5 = float(np.nextafter(np.float32(5.0), np.float32(6.0)))
    assert conformance.judge(length, "vulkan", 3.0, 4.0, next5) == ("ulp", 1.0)
    assert conformance.judge(length, "cpu", 3.0, 4.0, next5)[0] == "fail"
    assert conformance.judge(length, "vulkan", 3.0, 4.0, 5.01)[0] == "fail"
    assert conformance.judge(length, "vulkan", math.inf, 4.0, math.nan)[0] == "I"
    assert conformance.judge(mix, "vulkan", cc.F32_MAX, -cc.F32_MAX, -math.inf)[0] == "I"
    assert conformance.judge(mix, "vulkan", 1.0, 3.0, 1.5)[0] == "exact"
    assert conformance.judge(mix, "vulkan", 1.0, 3.0, 1.6)[0] == "fail"


def test_the_page_lists_every_case() -> None:
    page = (ROOT / "docs" / "conformance.md").read_text()
    missing = [c.key for c in cc.cases() if f"| `{c.key}` |" not in page]
    assert not missing, f"docs/conformance.md lacks {missing}: run python tools/conformance.py " \
        "--write"
    assert "FAIL" not in page
    assert all(f"`{lim.letter}`" in page for lim in conformance.LIMITS)


@pytest.mark.parametrize("ty", ["i32", "u32", "f32"])
def test_the_edges_of_each_type(ty: str) -> None:
    """The issue's edge values: 0, 1, -1, min, max, and for f32 NaN, +-inf, a subnormal
    and -0.0; shift counts 0 and 31."""
    e = cc.EDGES[ty]
    want = {"i32": [0, 1, -1, -2**31, 2**31 - 1], "u32": [0, 1, 2**32 - 1]}.get(ty)
    if want:
        assert all(v in e for v in want)
    else:
        assert any(math.isnan(v) for v in e) and math.inf in e and -math.inf in e
        assert any(math.copysign(1, v) < 0 and v == 0 for v in e)
        assert any(0 < abs(v) < cc.F32_TINY for v in e)
    assert {0, 31} <= set(cc.SHIFT_COUNTS)
