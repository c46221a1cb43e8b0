"""A whole run of the differential fuzzer (tests/fuzz, docs/devices/testing.md):

    python bench/fuzz_run.py --kernels 5000 --seed 7 \\
        --devices cpu,wgpu,vulkan,vulkan-hlsl,cuda --json /tmp/fuzz.json

Kernel ``j`` of the run is ``tests/fuzz.harness.make_kernel(seed, j)``; each runs on the
cpu device and on every available device of the named groups (those missing are left
out and named in the summary), every output compared with the cpu device's. The
kernels run in ``--jobs`` child processes at a time (``tests/fuzz/driver.run_isolated``),
each on its share: a child that reports nothing for ``--kernel-timeout`` seconds (a
kernel that never finishes on a device: a GPU cannot be interrupted from Python) is
killed, the kernel is recorded as a timeout on the device it was running on, and a new
child goes on after it. With ``--shrink`` each disagreeing kernel is shrunk (``tests/fuzz/shrink.py``)
and written to ``--keep`` (default: the JSON file's directory). Vulkan drivers:
PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader, as for the tests. The summary table is
printed last; every kernel's outcome per device is in the JSON file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", type=int, default=300)
    p.add_argument("--seed", type=int, default=None, help="default: a fresh one (printed)")
    p.add_argument("--devices", default="cpu,wgpu,vulkan,vulkan-hlsl,cuda")
    p.add_argument("--json", default=None, help="where the full results go")
    p.add_argument("--jobs", type=int, default=2, help="child processes at a time")
    p.add_argument("--kernel-timeout", type=float, default=120.0,
                   help="seconds without a result before a child is killed")
    p.add_argument("--run-timeout", type=float, default=None,
                   help="the watchdog's seconds while a kernel runs, its pipeline made "
                        "(default: --kernel-timeout); the CPU drivers compile there")
    p.add_argument("--races-every", type=int, default=10,
                   help="the cpu reference runs with the race detector every n-th kernel")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="stop after this long (the run stops short: finished is false in the JSON)")
    p.add_argument("--shrink", action="store_true", help="shrink what disagrees")
    p.add_argument("--keep", default=None, help="where shrunk regressions go")
    args = p.parse_args()
    sys.path[:0] = [str(TESTS), str(TESTS.parent)]
    from fuzz import driver

    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(6), "little")
    if args.keep is None:
        args.keep = str(Path(args.json or ".").resolve().parent)
    t0 = time.time()
    print(f"fuzz_run: seed {args.seed}, {args.kernels} kernels, devices {args.devices}",
          flush=True)
    done = [0]

    def progress(line: dict) -> None:
        done[0] += 1
        if done[0] % 25 == 0:
            print(f"  {done[0]}/{args.kernels} kernels, {time.time() - t0:.0f} s", flush=True)

    deadline = None if args.max_seconds is None else time.monotonic() + args.max_seconds
    got = driver.run_isolated(args.seed, args.kernels, set(args.devices.split(",")),
                              jobs=args.jobs, kernel_timeout=args.kernel_timeout,
                              run_timeout=args.run_timeout,
                              races_every=args.races_every,
                              keep=args.keep if args.shrink else "", on_line=progress,
                              deadline=deadline)
    kernels = got["kernels"]
    timeouts = [f"{j} on {label}" for j, label in got["timeouts"]]
    summary = _summary(kernels, got["devices"], timeouts, time.time() - t0)
    summary["slow_pipelines"] = [f"{j} on {label}" for j, label in got["slow_pipelines"]]
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"seed": args.seed, "command": " ".join(sys.argv), "devices": got["devices"],
             "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
             "finished": len(kernels) == args.kernels, "summary": summary,
             "kernels": kernels}, indent=1))
    _print_table(args, summary)


def _summary(kernels: list[dict], found: list[str], timeouts: list[int],
             seconds: float) -> dict:
    per = {d: {"agree": 0, "disagree": 0, "error": 0, "skip": 0, "seconds": 0.0,
               "allowed": 0} for d in found}
    cpu_errors = 0
    for k in kernels:
        cpu_errors += bool(k.get("cpu_error"))
        for d, o in k["outcomes"].items():
            per.setdefault(d, {"agree": 0, "disagree": 0, "error": 0, "skip": 0,
                               "seconds": 0.0, "allowed": 0})
            per[d][o["status"]] += 1
            per[d]["allowed"] += bool(o.get("allowed"))
            per[d]["seconds"] += o["seconds"]
    ran = kernels
    if "cpu" in per:            # the reference: it "agrees" wherever it ran the kernel
        per["cpu"]["agree"] = len(ran) - cpu_errors
        per["cpu"]["error"] = cpu_errors
    failing = [k["index"] for k in ran if k.get("cpu_error") or any(
        o["status"] in ("disagree", "error") for o in k["outcomes"].values())]
    return {"kernels": len(ran), "failing_kernels": failing, "cpu_errors": cpu_errors,
            "timeouts": timeouts, "per_device": per, "seconds": round(seconds, 1)}


def _print_table(args: argparse.Namespace, s: dict) -> None:
    print(f"\nseed {args.seed}: {s['kernels']} kernels in {s['seconds']:.0f} s; "
          f"{len(s['failing_kernels'])} failing, {s['cpu_errors']} refused by cpu, "
          f"timeouts at {s['timeouts'] or 'none'}; slow pipelines (skipped) at "
          f"{s.get('slow_pipelines') or 'none'}")
    print(f"{'device':28} {'agree':>7} {'(rule)':>7} {'disagree':>9} {'error':>6} "
          f"{'skip':>6} {'s':>7}")
    for d, c in s["per_device"].items():
        print(f"{d:28} {c['agree']:7} {c.get('allowed', 0):7} {c['disagree']:9} "
              f"{c['error']:6} {c['skip']:6} {c['seconds']:7.0f}")
    print("(rule): of the agreeing kernels, those with differences a documented rule "
          "accepted (tests/fuzz/harness.RULES)")
    if s["kernels"] == 0:
        print("no kernel ran (a worker failed before its first kernel?)")


if __name__ == "__main__":
    main()
