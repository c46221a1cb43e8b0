"""What do naga's runtime checks (index clamping, loop bounding) cost? (issue 17) The radix
sort of 2^24 u32 keys through wgpu with the checks (``create_shader_module``) and without
(``wgpuDeviceCreateShaderModuleTrusted``, pyshade's default), on two devices of the same
adapter, rounds interleaved; the Vulkan device (GLSL) as the reference. Milliseconds per
``record_radix`` (a batch of 10, median of 5) and per ``sort`` end to end.

    python bench/probes/wgpu_checks_probe.py [--n 16777216] [--rounds 3]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyshade as ps
from pyshade.algorithms import sort
from pyshade.algorithms.radix import record_radix
from pyshade.benchmarks.common import median_ms
from pyshade.runtime.wgpu import WgpuDevice


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reference", default="cuda,vulkan")
    a = ap.parse_args()
    n = a.n
    host = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    want = np.sort(host)
    devs = {}
    for name in a.reference.split(","):
        try:
            devs[name] = ps.device(name)
        except Exception as exc:  # noqa: BLE001 - a probe reports what is missing
            print(f"{name}: {exc}")
    for checks in (True, False):
        d = WgpuDevice()
        d.runtime_checks = checks
        devs[f"wgpu, checks {'on' if checks else 'off'}"] = d
    times: dict[str, dict[str, list[float]]] = {}
    for _ in range(a.rounds):
        for label, dev in devs.items():
            keys = dev.array(host)
            assert np.array_equal(sort(keys, method="radix").numpy(), want), label

            def batch(dev=dev, keys=keys) -> None:
                with dev.batch():
                    for _ in range(10):
                        record_radix(dev, keys, n)
            t = times.setdefault(label, {})
            t.setdefault("record_radix", []).append(median_ms(batch, dev.synchronize, 5) / 10)
            t.setdefault("sort", []).append(median_ms(
                lambda dev=dev, keys=keys: sort(keys, method="radix"), dev.synchronize, 7))
    print(f"n = {n}, ms (median over {a.rounds} rounds, range)")
    print("| device | record_radix | sort |")
    print("|---|---|---|")
    for label, t in times.items():
        cells = [f"{np.median(v):.3f} ({min(v):.3f}-{max(v):.3f})" for v in t.values()]
        print(f"| {label} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
