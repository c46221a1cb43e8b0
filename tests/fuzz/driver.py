"""Run generated kernels over devices: the loop shared by tests/test_fuzz.py and
bench/fuzz_run.py, and the device list both use (the parameters of tests/conftest.py:
every WebGPU and Vulkan adapter, or the drivers PYSHADE_TEST_VK_DRIVERS names)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pyshade as ps

from .harness import Outcome, check_on, kernel_seed, launch, load, make_inputs, make_kernel, module_source
from .nodes import Kernel

# Device groups, as PYSHADE_FUZZ_DEVICES names them (test_differential's names).
GROUPS = ("cpu", "wgpu", "vulkan", "vulkan-hlsl", "cuda", "cuda-host", "msl-host")


def devices(names: set[str] | None = None,
            strict: bool = False) -> list[tuple[str, ps.Device]]:
    """(label, device) of every available device of the named groups (all by default),
    the cpu device first. Unavailable ones are left out, unless ``strict`` (the test in
    CI, where a missing driver or toolchain must fail, not shrink the run silently)."""
    import pytest
    from conftest import (
        CUDA_PARAMS,
        GPU_PARAMS,
        HLSL_PARAMS,
        VULKAN_PARAMS,
        cuda_host_device,
        gpu_device,
        msl_host_device,
        vulkan_device,
    )
    names = set(GROUPS) if names is None else names
    unknown = names - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown device group(s) {sorted(unknown)}; known: {GROUPS}")
    makers: list[tuple[str, Callable[[], ps.Device]]] = [("cpu", lambda: ps.device("cpu"))]
    if "wgpu" in names:
        makers += [(p.id, lambda p=p: gpu_device(p)) for p in GPU_PARAMS]
    if "vulkan" in names:
        makers += [(p.id, lambda p=p: vulkan_device(p)) for p in VULKAN_PARAMS]
    if "vulkan-hlsl" in names:
        makers += [(p.id, lambda p=p: vulkan_device(p)) for p in HLSL_PARAMS]
    if "cuda" in names:
        makers += [(p.id, lambda p=p: gpu_device(p)) for p in CUDA_PARAMS]
    if "cuda-host" in names:
        makers.append(("cuda-host", cuda_host_device))
    if "msl-host" in names:
        makers.append(("msl-host", msl_host_device))
    out = []
    for label, make in makers:
        try:
            out.append((label, make()))
        except (pytest.skip.Exception, pytest.fail.Exception, ps.BackendUnavailable):
            if strict:
                raise
            continue
    return out


@dataclass
class Result:
    """One kernel: where it came from, its cpu outputs' fate, and each device's outcome."""

    seed: int
    index: int
    kernel: Kernel
    cpu_error: str = ""
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("disagree", "error")]


@dataclass
class Tally:
    """Per device: kernels run, agreed, disagreed (errors included), skipped, seconds,
    and the kernels with differences each documented rule accepted (``harness.RULES``)."""

    kernels: int = 0
    agreed: int = 0
    disagreed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    allowed: dict[str, int] = field(default_factory=dict)

    def add(self, o: Outcome) -> None:
        for r in dict.fromkeys(m.note.removeprefix("; allowed: ") for m in o.allowed):
            self.allowed[r] = self.allowed.get(r, 0) + 1
        if o.status == "skip":
            self.skipped += 1
            return
        self.kernels += 1
        self.seconds += o.seconds
        if o.status == "agree":
            self.agreed += 1
        else:
            self.disagreed += 1


def run(seed: int, count: int, devs: list[tuple[str, ps.Device]], workdir: Path,
        batch: int = 10, hosts_every: int = 1,
        on_result: Callable[[Result], Any] | None = None,
        start: int = 0) -> tuple[list[Result], dict]:
    """Generate kernels ``start`` to ``count`` of ``seed``, ``batch`` to a module, and run
    each on the cpu device and then on every other device, comparing. ``hosts_every``: the g++
    stand-ins (cuda-host, msl-host) run every n-th kernel only (each compile takes
    seconds). Returns the results and a Tally per device label."""
    tallies: dict[str, Tally] = {label: Tally() for label, _ in devs}
    results = []
    cpu = next(d for label, d in devs if label == "cpu")
    for first in range(start, count, batch):
        kernels = [make_kernel(seed, j) for j in range(first, min(first + batch, count))]
        mod = load(module_source(kernels), workdir, f"fuzz_{seed}_{first}")
        for j, k in zip(range(first, first + len(kernels)), kernels):
            res = Result(seed, j, k)
            results.append(res)
            fn = getattr(mod, k.name)
            params = [n for n, _ in k.live_params()]
            inputs = make_inputs(k.meta, kernel_seed(seed, j, 1))
            t = time.perf_counter()
            try:
                want = launch(params, k.meta, fn, mod, cpu, inputs)
            except Exception as e:  # noqa: BLE001 - a kernel the cpu device refuses: reported
                res.cpu_error = f"{type(e).__name__}: {e}"
                if on_result:
                    on_result(res)
                continue
            tallies["cpu"].add(Outcome("cpu", "agree", seconds=time.perf_counter() - t))
            for label, dev in devs:
                if label == "cpu" or label in ("cuda-host", "msl-host") and j % hosts_every:
                    continue
                o = check_on(params, k.meta, fn, mod, label, dev, inputs, want)
                tallies[label].add(o)
                res.outcomes.append(o)
            if on_result:
                on_result(res)
    return results, tallies


def report(res: Result, shrunk: str | None = None) -> str:
    """A failing kernel's message: seed, index, each device's first difference, source."""
    lines = [f"PYSHADE_FUZZ_SEED={res.seed} kernel {res.index} ({res.kernel.name}, "
             f"{res.kernel.meta['ft']}):"]
    if res.cpu_error:
        lines.append(f"  the cpu device failed: {res.cpu_error[:2000]}")
    for o in res.failed:
        what = o.error[:2000] if o.status == "error" else "; ".join(map(str, o.mismatches[:3]))
        lines.append(f"  {o.device}: {what}")
    lines.append(("--- shrunk kernel\n" + shrunk) if shrunk else
                 ("--- kernel\n" + res.kernel.source()))
    return "\n".join(lines)
