"""Where does the host's time go in one ``sort`` of 2^24 u32 keys through the recording
devices? (issue 17) Times each command-buffer begin, launch, submission (split into its
API calls) and the final wait of one sort, end to end, and prints the timeline of the
median call (microseconds from the call) and the totals per kind; with ``synchronize()``
polling first (``vulkan_memory.SPIN_WAIT_S``) and blocking at once, interleaved.

    python bench/probes/record_host_probe.py [--n 16777216] [--devices vulkan,wgpu]
"""

from __future__ import annotations

import argparse
import functools
import time

import numpy as np

import pyshade as ps
from pyshade.algorithms import sort

EVENTS: list[tuple[str, float, float]] = []


def timed(kind: str, fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            EVENTS.append((kind, t0, time.perf_counter()))
    return wrapper


def patch(cls, name: str, kind: str) -> None:
    setattr(cls, name, timed(kind, getattr(cls, name)))


def instrument(dev) -> None:
    if dev.name.startswith("vulkan"):
        from pyshade.runtime import vulkan, vulkan_memory
        patch(vulkan_memory.Slot, "begin", "vkBegin")
        patch(vulkan_memory.Slot, "submit", "vkEnd+vkQueueSubmit")
        patch(vulkan.VulkanDevice, "run_prepared", "launch")
        patch(vulkan.VulkanDevice, "synchronize", "synchronize")
        patch(vulkan.VulkanDevice, "_descriptor_set", "new descriptor set")
    else:
        from pyshade.runtime import wgpu as pw
        d = dev.wgpu_device
        enc = d.create_command_encoder()
        cpass = enc.begin_compute_pass()
        patch(type(d.queue), "submit", "queue.submit")
        patch(type(enc), "finish", "encoder.finish")
        patch(type(enc), "begin_compute_pass", "begin_compute_pass")
        patch(type(cpass), "end", "pass.end")
        patch(type(cpass), "dispatch_workgroups", "dispatch_workgroups")
        patch(type(cpass), "set_bind_group", "set_bind_group")
        patch(type(d), "create_bind_group", "create_bind_group")
        patch(type(d), "create_command_encoder", "create_command_encoder")
        cpass.end()
        patch(pw.WgpuDevice, "run_prepared", "launch")
        patch(pw.WgpuDevice, "synchronize", "synchronize")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--devices", default="vulkan,wgpu")
    ap.add_argument("--reps", type=int, default=21)
    a = ap.parse_args()
    host = np.random.default_rng(1).integers(0, 2**32, a.n, dtype=np.uint32)
    want = np.sort(host)
    for name in a.devices.split(","):
        dev = ps.device(name)
        keys = dev.array(host)
        instrument(dev)
        assert np.array_equal(sort(keys, method="radix").numpy(), want)
        spin = getattr(dev, "spin_wait", None)       # the Vulkan device's
        variants = {"synchronize blocks": 0.0} if spin is None else \
            {f"synchronize polls {spin * 1e3:g} ms": spin, "synchronize blocks": 0.0}
        by_variant: dict[str, list] = {v: [] for v in variants}
        for _ in range(a.reps):
            for label, s_wait in variants.items():       # interleaved
                if spin is not None:
                    dev.spin_wait = s_wait
                # 3 calls, the last one kept: its start follows a wait of its own kind
                for _ in range(3):
                    dev.synchronize()
                    EVENTS.clear()
                    t0 = time.perf_counter()
                    sort(keys, method="radix")
                    t1 = time.perf_counter()
                    dev.synchronize()
                    t2 = time.perf_counter()
                by_variant[label].append(
                    (t2 - t0, t1 - t0, [(k, s - t0, e - t0) for k, s, e in EVENTS]))
        if spin is not None:
            dev.spin_wait = spin
        for label, runs in by_variant.items():
            report(name, dev, label, runs)


def report(name: str, dev, label: str, runs: list) -> None:
    runs.sort(key=lambda r: r[0])
    total, call, ev = runs[len(runs) // 2]
    print(f"\n=== {name} ({dev.adapter}), {label}: sort+synchronize {total * 1e6:.0f} us "
          f"(range {runs[0][0] * 1e6:.0f}-{runs[-1][0] * 1e6:.0f}), sort() returned at "
          f"{call * 1e6:.0f} us")
    sums: dict[str, list[float]] = {}
    for k, s, e in ev:
        sums.setdefault(k, []).append(e - s)
    for k, v in sums.items():
        print(f"  {k:28s} {len(v):3d} calls {sum(v) * 1e6:8.1f} us "
              f"(max {max(v) * 1e6:.1f})")
    print("  timeline (us from the call: start-end kind):")
    for k, s, e in sorted(ev, key=lambda x: x[1]):
        if k in ("launch", "dispatch_workgroups", "set_bind_group") and e - s < 40e-6:
            continue
        print(f"    {s * 1e6:8.1f}-{e * 1e6:8.1f} {k}")
    launches = [(s, e) for k, s, e in ev if k == "launch"]
    print(f"  launches at (us): {' '.join(f'{s * 1e6:.0f}' for s, _ in launches)}")


if __name__ == "__main__":
    main()
