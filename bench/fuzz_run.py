"""A whole run of the differential fuzzer (tests/fuzz, docs/devices/testing.md):

    python bench/fuzz_run.py --kernels 5000 --seed 7 \\
        --devices cpu,wgpu,vulkan,vulkan-hlsl,cuda --json /tmp/fuzz.json

Kernel ``j`` of the run is ``tests/fuzz.harness.make_kernel(seed, j)``; each runs on the
cpu device and on every available device of the named groups (those missing are left
out and named in the summary), every output compared with the cpu device's. The
kernels go in chunks (``--chunk``), each in a child process with a time limit
(``--chunk-timeout``): a kernel that hangs a device (an endless loop on a GPU cannot be
interrupted from Python) costs its chunk's remainder, recorded as a timeout, not the
run. With ``--shrink`` each disagreeing kernel is shrunk (``tests/fuzz/shrink.py``)
and written to ``--keep`` (default: the JSON file's directory). Vulkan drivers:
PYSHADE_TEST_VK_DRIVERS=lavapipe,swiftshader, as for the tests. The summary table is
printed last; every kernel's outcome per device is in the JSON file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def worker(args: argparse.Namespace) -> None:
    """Run kernels [start, stop) and print one JSON line per kernel (flushed)."""
    sys.path[:0] = [str(TESTS.parent), str(TESTS)]
    from fuzz import driver, shrink

    devs = driver.devices(set(args.devices.split(",")))
    print(json.dumps({"devices": [label for label, _ in devs]}), flush=True)
    work = Path(tempfile.mkdtemp(prefix="pyshade_fuzz_"))

    def emit(res: driver.Result) -> None:
        line = {"index": res.index, "kernel": res.kernel.name, "ft": res.kernel.meta["ft"],
                "cpu_error": res.cpu_error,
                "outcomes": {o.device: {"status": o.status, "seconds": round(o.seconds, 3),
                                        "error": o.error[:1000],
                                        "mismatch": str(o.mismatches[0]) if o.mismatches
                                        else ""} for o in res.outcomes}}
        if args.shrink and res.failed:
            o = res.failed[0]
            dev = dict(devs)[o.device]
            kern = res.kernel
            done = shrink.Shrinker(kern, res.seed, res.index, o.device, dev, work, 60.0).run()
            if done is not None:
                first = o.error[:300] or str(o.mismatches[0])
                line["shrunk"] = str(shrink.keep(kern, res.seed, res.index, o.device, first,
                                                 directory=Path(args.keep)))
        print(json.dumps(line), flush=True)

    os.environ.setdefault("PYSHADE_CACHE", "0")
    driver.run(args.seed, args.stop, devs, work, batch=args.batch, hosts_every=10,
               on_result=emit, start=args.start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", type=int, default=300)
    p.add_argument("--seed", type=int, default=None, help="default: a fresh one (printed)")
    p.add_argument("--devices", default="cpu,wgpu,vulkan,vulkan-hlsl,cuda")
    p.add_argument("--json", default=None, help="where the full results go")
    p.add_argument("--chunk", type=int, default=25, help="kernels per child process")
    p.add_argument("--chunk-timeout", type=float, default=600.0)
    p.add_argument("--batch", type=int, default=5, help="kernels per generated module")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="start no chunk after this long (the run stops short, and says so)")
    p.add_argument("--shrink", action="store_true", help="shrink what disagrees")
    p.add_argument("--keep", default=None, help="where shrunk regressions go")
    p.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(6), "little")
    if args.keep is None:
        args.keep = str(Path(args.json or ".").resolve().parent)
    if args.worker:
        args.start, args.stop = args.worker
        worker(args)
        return
    t0 = time.time()
    print(f"fuzz_run: seed {args.seed}, {args.kernels} kernels, devices {args.devices}",
          flush=True)
    kernels: list[dict] = []
    timeouts: list[int] = []
    found: list[str] = []
    summary = _summary(kernels, found, timeouts, 0.0)
    for start in range(0, args.kernels, args.chunk):
        if args.max_seconds is not None and time.time() - t0 > args.max_seconds:
            print(f"  stopped at {start} kernels: --max-seconds {args.max_seconds:.0f}")
            break
        stop = min(start + args.chunk, args.kernels)
        cmd = [sys.executable, __file__, "--worker", str(start), str(stop), "--seed",
               str(args.seed), "--devices", args.devices, "--batch", str(args.batch),
               "--keep", args.keep, *(["--shrink"] if args.shrink else [])]
        got = _child(cmd, args.chunk_timeout)
        for line in got["lines"]:
            if "devices" in line:
                found = line["devices"]
            else:
                kernels.append(line)
        if got["timed_out"]:
            done = {k["index"] for k in kernels}
            hung = next(j for j in range(start, stop) if j not in done)
            timeouts.append(hung)
            kernels.append({"index": hung, "timeout": True, "outcomes": {}})
        print(f"  {stop}/{args.kernels} kernels, {time.time() - t0:.0f} s", flush=True)
        # Written after every chunk: a run stopped early keeps what it did.
        summary = _summary(kernels, found, timeouts, time.time() - t0)
        if args.json:
            Path(args.json).write_text(json.dumps(
                {"seed": args.seed, "command": " ".join(sys.argv), "devices": found,
                 "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                 "finished": stop == args.kernels, "summary": summary, "kernels": kernels},
                indent=1))
    _print_table(args, summary)


def _child(cmd: list[str], timeout: float) -> dict:
    """Run a worker; its JSON lines, and whether it ran out of time."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True)
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            timed_out = True
        out.seek(0)
        lines = [json.loads(ln) for ln in out if ln.startswith("{")]
    return {"lines": lines, "timed_out": timed_out or proc.returncode != 0}


def _summary(kernels: list[dict], found: list[str], timeouts: list[int],
             seconds: float) -> dict:
    per = {d: {"agree": 0, "disagree": 0, "error": 0, "skip": 0, "seconds": 0.0}
           for d in found}
    cpu_errors = 0
    for k in kernels:
        cpu_errors += bool(k.get("cpu_error"))
        for d, o in k["outcomes"].items():
            per.setdefault(d, {"agree": 0, "disagree": 0, "error": 0, "skip": 0,
                               "seconds": 0.0})
            per[d][o["status"]] += 1
            per[d]["seconds"] += o["seconds"]
    ran = [k for k in kernels if not k.get("timeout")]
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
          f"timeouts at {s['timeouts'] or 'none'}")
    print(f"{'device':28} {'agree':>7} {'disagree':>9} {'error':>6} {'skip':>6} {'s':>7}")
    for d, c in s["per_device"].items():
        print(f"{d:28} {c['agree']:7} {c['disagree']:9} {c['error']:6} {c['skip']:6} "
              f"{c['seconds']:7.0f}")
    if s["kernels"] == 0:
        print("no kernel ran (a worker failed before its first kernel?)")


if __name__ == "__main__":
    main()
