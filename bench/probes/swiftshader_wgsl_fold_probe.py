"""Probe (fuzz second reference ``wgsl-reciprocal``, docs/devices/testing.md): which
float expressions with two constants SwiftShader regroups when they come through WGSL.
naga's SPIR-V carries no ``NoContraction``, so SwiftShader's SPIR-V optimizer may fold
arithmetic as if it were associative: ``x / c`` as ``x * (1 / c)`` (wgsl_division_probe)
and, found by fresh seed 108304552020987 kernel 75 (``fmod((2.5 * u32(n)) / 7.0, 1.0)``),
``(c1 * x) / c2`` as ``x * (c1 / c2)``. Both are within WGSL's 2.5-ulp division. lavapipe
folds constant chains too, and writes ``(-v) + (v + c)`` as ``c`` (seed 232741618614045
kernel 19); a regrouped sum has no ulp bound at all (the rounding idiom). Each
row: how many of 65536 results differ from the cpu's, and whether they all equal one
model (the product with one folded constant), on every wgpu device here. The Vulkan
routes mark every float operation ``NoContraction``: there the same rows differ in none
(checked here on both drivers and both routes).

    VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json \\
        python bench/probes/swiftshader_wgsl_fold_probe.py
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402

import pyshade as ps  # noqa: E402
from pyshade import f32  # noqa: E402

C1, C2 = 0.3, 7.0       # f32(0.3) * f32(1 / 7) and f32(0.3 / 7) differ: the models part
F = np.float32
W = 21                  # results per invocation


@ps.kernel(workgroup_size=64)
def folds(x: ps.Buffer[f32], o: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    v = x[i]
    o[i * W + 0] = v / 7.0
    o[i * W + 1] = (0.3 * v) / 7.0
    o[i * W + 2] = (v * 0.3) / 7.0
    o[i * W + 3] = (v / 0.3) / 7.0
    o[i * W + 4] = (v * 0.3) * 7.0
    o[i * W + 5] = 0.3 / (v * 7.0)
    o[i * W + 6] = (v + 0.3) + 7.0
    o[i * W + 7] = (v / 7.0) * 0.3
    o[i * W + 8] = (v - 0.3) + 7.0
    o[i * W + 9] = (v + 0.3) - 7.0
    o[i * W + 10] = 7.0 - (v + 0.3)
    o[i * W + 11] = (v - 0.3) - 7.0
    o[i * W + 12] = (0.3 + v) + 7.0
    o[i * W + 13] = 7.0 + (v + 0.3)
    o[i * W + 14] = (v + 0.3) * 7.0
    o[i * W + 15] = 7.0 * (0.3 * v)
    o[i * W + 16] = (v + 12582912.0) - 12582912.0
    o[i * W + 17] = (-v) + (v + 0.3)
    o[i * W + 18] = (v + 0.3) + (v * 7.0)
    o[i * W + 19] = (v * 0.3) * v
    o[i * W + 20] = (v * 7.0) + (v + 0.3)


def models(v: np.ndarray) -> list[tuple[str, dict[str, np.ndarray]]]:
    """Each row's name and its candidate results (numpy f32, one rounding each)."""
    r7, c1, c7 = F(1) / F(C2), F(C1), F(C2)
    return [
        ("v / 7.0", {"v * (1 / 7)": v * r7}),
        ("(0.3 * v) / 7.0", {"v * f32(0.3 / 7)": v * F(C1 / C2), "v * (0.3 * (1 / 7))": v * (c1 * r7),
                             "(0.3 * v) * (1 / 7)": (c1 * v) * r7}),
        ("(v * 0.3) / 7.0", {"v * f32(0.3 / 7)": v * F(C1 / C2), "v * (0.3 * (1 / 7))": v * (c1 * r7),
                             "(v * 0.3) * (1 / 7)": (v * c1) * r7}),
        ("(v / 0.3) / 7.0", {"v * (1 / 0.3) * (1 / 7)": (v * (F(1) / c1)) * r7,
                             "v * ((1 / 0.3) * (1 / 7))": v * ((F(1) / c1) * r7),
                             "v / f32(0.3 * 7)": v / (c1 * F(C2))}),
        ("(v * 0.3) * 7.0", {"v * f32(0.3 * 7)": v * (c1 * F(C2))}),
        ("0.3 / (v * 7.0)", {"(0.3 / 7) / v": (c1 / F(C2)) / v}),
        ("(v + 0.3) + 7.0", {"v + f32(0.3 + 7)": v + (c1 + F(C2))}),
        ("(v / 7.0) * 0.3", {"(v * (1 / 7)) * 0.3": (v * r7) * c1, "v * (0.3 * (1 / 7))": v * (c1 * r7)}),
        ("(v - 0.3) + 7.0", {"v + f32(7 - 0.3)": v + (c7 - c1), "v - f32(0.3 - 7)": v - (c1 - c7)}),
        ("(v + 0.3) - 7.0", {"v + f32(0.3 - 7)": v + (c1 - c7), "v - f32(7 - 0.3)": v - (c7 - c1)}),
        ("7.0 - (v + 0.3)", {"f32(7 - 0.3) - v": (c7 - c1) - v}),
        ("(v - 0.3) - 7.0", {"v - f32(0.3 + 7)": v - (c1 + c7)}),
        ("(0.3 + v) + 7.0", {"v + f32(0.3 + 7)": v + (c1 + c7)}),
        ("7.0 + (v + 0.3)", {"v + f32(0.3 + 7)": v + (c1 + c7)}),
        ("(v + 0.3) * 7.0", {"v * 7 + f32(0.3 * 7)": v * c7 + c1 * c7}),
        ("7.0 * (0.3 * v)", {"v * f32(0.3 * 7)": v * (c1 * c7)}),
        ("(v + 1.5 * 2**23) - 1.5 * 2**23", {"v": v, "rint(v)": np.rint(v)}),
        ("(-v) + (v + 0.3)", {"((-v) + v) + 0.3": ((-v) + v) + c1}),
        ("(v + 0.3) + (v * 7.0)", {"(v + v * 7) + 0.3": (v + v * c7) + c1}),
        ("(v * 0.3) * v", {"(v * v) * 0.3": (v * v) * c1}),
        ("(v * 7.0) + (v + 0.3)", {"(v * 7 + v) + 0.3": (v * c7 + v) + c1}),
    ]


def main() -> None:
    rng = np.random.default_rng(1)
    n = 65536
    v = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    v[::2] *= -1
    want = np.zeros(n * W, np.float32)
    names = [("cpu", "glsl")] + [(f"{b}:{i}", via) for b, via in
                                 (("wgpu", "wgsl"), ("vulkan", "glsl"), ("vulkan", "hlsl"))
                                 for i in range(3)]
    for name, via in names:
        try:
            dev = ps.device(name, via=via) if name.startswith("vulkan") else ps.device(name)
        except Exception:           # noqa: BLE001 - fewer adapters than asked for
            continue
        out = dev.array(np.zeros(n * W, np.float32))
        folds.launch(dev.array(v), out, threads=n, device=dev)
        got = out.numpy().reshape(n, W)
        if name == "cpu":
            want = got
            continue
        print(f"== {dev}")
        with np.errstate(all="ignore"):
            for col, (row, cands) in enumerate(models(v)):
                bad = got[:, col].view(np.uint32) != want[:, col].view(np.uint32)
                fits = [m for m, c in cands.items()
                        if (c.view(np.uint32) == got[:, col].view(np.uint32)).all()]
                print(f"  {row:32} differ {int(bad.sum()):6}   equals: {', '.join(fits) or '-'}")


if __name__ == "__main__":
    main()
