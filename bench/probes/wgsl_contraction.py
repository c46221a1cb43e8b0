"""Probe (issue 16, item 1): how far each device's float32 ``a * b + c``,
``a * a - b * b + c``, ``a / b`` and ``sqrt(|a|)`` are from numpy's, on 100,000 random
inputs; the size of the difference that WGSL cannot forbid (it has no ``precise``:
naga's SPIR-V carries no ``NoContraction``, so a Vulkan driver may fuse a * b + c into
one FMA).

One row per device and route (every adapter of ``ps.devices()``: cpu, wgpu, vulkan
through GLSL and through HLSL, cuda), the fractions of results whose bits differ:

* ``mad``: ``a * b + c`` against numpy's ``(a * b) + c`` (two roundings);
* ``fused``: of the triples where one rounding gives other bits than two, the fraction
  where the device gave the fused value ``float32(float64(a) * b + c)`` (a driver that
  contracts shows here);
* ``sq``: ``a * a - b * b + c`` against numpy's ``(a * a - b * b) + c`` (lavapipe fuses
  this one through WGSL: about 27% of random inputs differ);
* ``div``: ``a / b`` against numpy's; ``sqrt``: ``math.sqrt(abs(a))`` against numpy's
  (Vulkan allows 2.5 ulp for a division and sqrt's "inherited" precision: NoContraction
  does not ask for them, only drivers give them exactly).

Two thirds of the triples have ``c`` at or a few ulps from ``-(a * b)``, where fusing
changes the result (the product's rounding error survives).

    PYTHONPATH=. python bench/probes/wgsl_contraction.py [out.json]

The JSON (rows and the command) goes to the path given, else to
``$OUT/wgsl_contraction.json`` where ``$OUT`` is set (the device tool's folder).
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys

import numpy as np

import pyshade as ps
from pyshade import f32

N = 100_000


@ps.kernel(workgroup_size=64)
def float_ops(a: ps.Buffer[f32], b: ps.Buffer[f32], c: ps.Buffer[f32], mad: ps.Buffer[f32],
              sq: ps.Buffer[f32], div: ps.Buffer[f32], root: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        mad[i] = a[i] * b[i] + c[i]
        sq[i] = a[i] * a[i] - b[i] * b[i] + c[i]
        div[i] = a[i] / b[i]
        root[i] = math.sqrt(abs(a[i]))


def inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """N triples: a third with random c, a third with c = -(a * b), a third a few ulps off
    it (as tests/test_precise.py makes them)."""
    a = rng.uniform(-4, 4, N).astype(np.float32)
    b = rng.uniform(-4, 4, N).astype(np.float32)
    b[b == 0] = 1
    c = rng.uniform(-16, 16, N).astype(np.float32)
    near = -(a * b)
    third = N // 3
    c[:third] = near[:third]
    steps = rng.integers(-3, 4, N - 2 * third).astype(np.float32)
    c[2 * third:] = near[2 * third:] + np.spacing(near[2 * third:]) * steps
    return a, b, c


def differs(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where the bits differ."""
    return got.view(np.uint32) != want.view(np.uint32)


def measure(dev: ps.Device, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> dict:
    """One device's fractions (see the module docstring)."""
    outs = [dev.zeros(N, np.float32) for _ in range(4)]
    float_ops.launch(dev.array(a), dev.array(b), dev.array(c), *outs, threads=N, device=dev)
    mad, sq, div, root = (o.numpy() for o in outs)
    separate = (a * b) + c
    fused = (a.astype(np.float64) * b + c).astype(np.float32)
    apart = differs(fused, separate)
    return {"mad": float(differs(mad, separate).mean()),
            "fused": float((~differs(mad, fused) & apart).sum() / max(1, apart.sum())),
            "sq": float(differs(sq, (a * a - b * b) + c).mean()),
            "div": float(differs(div, a / b).mean()),
            "sqrt": float(differs(root, np.sqrt(np.abs(a))).mean()),
            "fusable": float(apart.mean())}


def main(argv: list[str]) -> None:
    """Measure every available device and route; print a table, save the JSON."""
    rng = np.random.default_rng()
    a, b, c = inputs(rng)
    rows = []
    cols = ("mad", "fused", "sq", "div", "sqrt")
    print(f"{'device':12} {'via':6} " + " ".join(f"{k:>9}" for k in cols) + "  adapter")
    for info in ps.devices():
        if not info.available:
            continue
        for via in info.via or ("",):
            dev = ps.device(info.name, via=via if info.backend == "vulkan" else None)
            try:
                row = measure(dev, a, b, c)
            except ps.PyshadeError as e:
                row = {"error": str(e).splitlines()[0]}
            row.update(device=info.name, via=via, adapter=info.adapter)
            rows.append(row)
            cells = " ".join(f"{row[k]:9.5f}" if k in row else f"{'-':>9}"
                             for k in cols)
            print(f"{info.name:12} {via:6} {cells}  {info.adapter} {row.get('error', '')}")
    print(f"(fusable triples: {rows[0].get('fusable', 0):.3f} of {N})" if rows else "no devices")
    path = argv[1] if len(argv) > 1 else (
        os.path.join(os.environ["OUT"], "wgsl_contraction.json") if os.environ.get("OUT")
        else None)
    if path:
        with open(path, "w") as f:
            json.dump({"command": " ".join(["python", *argv]), "n": N,
                       "machine": platform.node(), "rows": rows,
                       "env": {k: os.environ[k] for k in ("VK_DRIVER_FILES",)
                               if k in os.environ}}, f, indent=1)
        print("saved", path)


if __name__ == "__main__":
    main(sys.argv)
