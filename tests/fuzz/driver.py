"""Run generated kernels over devices: the loop shared by tests/test_fuzz.py and
bench/fuzz_run.py, and the device list both use (the parameters of tests/conftest.py:
every WebGPU and Vulkan adapter, or the drivers PYSHADE_TEST_VK_DRIVERS names)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pyshade as ps

from .harness import (
    Outcome,
    check_on,
    compiles_at_first_dispatch,
    kernel_of,
    launch,
    load,
    make_kernel,
    module_source,
)
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
        start: int = 0, on_device: Callable[[int, str], Any] | None = None,
        races_every: int = 1,
        warm: Callable[[int, str], contextlib.AbstractContextManager] | None = None,
        ) -> tuple[list[Result], dict]:
    """Generate kernels ``start`` to ``count`` of ``seed``, ``batch`` to a module, and run
    each on the cpu device and then on every other device, comparing. ``hosts_every``: the g++
    stand-ins (cuda-host, msl-host) run every n-th kernel only (each compile takes
    seconds). ``on_device(j, label)`` is called before kernel j runs on a device (the
    isolated runner's watchdog). The cpu reference runs with the race detector every
    ``races_every``-th kernel, without it otherwise (the generator's kernels are
    race-free by construction; the shrinker always checks). On a device that compiles
    at the first dispatch (``compiles_at_first_dispatch``) each kernel is launched over
    one workgroup first, inside ``warm(j, label)`` (the isolated runner's watchdog
    phase). Returns the results and a Tally per device label."""
    tallies: dict[str, Tally] = {label: Tally() for label, _ in devs}
    results = []
    cpu_races = next(d for label, d in devs if label == "cpu")
    cpu_fast = ps.device("cpu", races=False)
    for first in range(start, count, batch):
        kernels = [make_kernel(seed, j) for j in range(first, min(first + batch, count))]
        mod = load(module_source(kernels), workdir, f"fuzz_{seed}_{first}")
        for j, k in zip(range(first, first + len(kernels)), kernels):
            res = Result(seed, j, k)
            results.append(res)
            fn, params, inputs = kernel_of(mod, k, seed, j)
            t = time.perf_counter()
            cpu = cpu_races if j % races_every == 0 else cpu_fast
            if on_device:
                on_device(j, "cpu")
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
                if on_device:
                    on_device(j, label)
                first = None
                if compiles_at_first_dispatch(label):
                    first = functools.partial(warm, j, label) if warm else contextlib.nullcontext
                o = check_on(params, k.meta, fn, mod, label, dev, inputs, want, first)
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


# -- the isolated runner: kernels in child processes, with a watchdog ----------------------
TESTS = Path(__file__).resolve().parent.parent


def result_line(res: Result) -> dict:
    """One kernel's result as the JSON line a child prints (bench/fuzz_run.py's format)."""
    return {"index": res.index, "kernel": res.kernel.name, "ft": res.kernel.meta["ft"],
            "cpu_error": res.cpu_error[:2000],
            "outcomes": {o.device: {"status": o.status, "seconds": round(o.seconds, 3),
                                    "error": o.error[:2000],
                                    "mismatch": str(o.mismatches[0]) if o.mismatches else "",
                                    "kind": o.mismatches[0].kind if o.mismatches else "",
                                    "allowed": [str(m) for m in o.allowed]}
                         for o in res.outcomes}}


def child_main(argv: list[str]) -> None:
    """A child of ``run_isolated``: run kernels [start, stop) of a seed and print one JSON
    line before each device's run of a kernel and one per finished kernel (flushed)."""
    seed, start, stop, hosts_every, races_every = map(int, argv[:5])
    groups = set(argv[5].split(","))
    keep = argv[6] if len(argv) > 6 else ""
    devs = devices(groups)
    print(json.dumps({"devices": [label for label, _ in devs]}), flush=True)
    work = Path(tempfile.mkdtemp(prefix="pyshade_fuzz_"))

    # test_fuzz's watchdog tests: "j:label" makes this child hang there, as a GPU would;
    # "j:label:pipeline" while the driver creates the pipeline, as SwiftShader's compiler
    # ("j:label:run" once it is made, as a kernel that never finishes running;
    # "j:label:warm" in lavapipe's first one-workgroup launch, as its LLVM)
    hang = os.environ.get("PYSHADE_FUZZ_TEST_HANG", "")
    current = [start]

    def device(j: int, label: str) -> None:
        current[0] = j
        print(json.dumps({"running": j, "device": label}), flush=True)
        if hang == f"{j}:{label}":
            time.sleep(3600)

    warming = [False]

    def marked(label: str, prepare: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """The device's ``prepare`` (where the driver creates the pipeline), between a
        "pipeline" and a "prepared" line: the watchdog tells a driver's slow compiler
        from a kernel that never finishes."""
        def wrapper(compiled: Any) -> Any:
            print(json.dumps({"pipeline": current[0], "device": label}), flush=True)
            if hang == f"{current[0]}:{label}:pipeline":
                time.sleep(3600)
            handle = prepare(compiled)
            if not warming[0]:      # else warm() says so once the first launch is done
                print(json.dumps({"prepared": current[0], "device": label}), flush=True)
                if hang == f"{current[0]}:{label}:run":
                    time.sleep(3600)
            return handle
        return wrapper

    for label, dev in devs:
        if label != "cpu":
            dev.prepare = marked(label, dev.prepare)  # type: ignore[method-assign]

    @contextlib.contextmanager
    def warm(j: int, label: str) -> Any:
        """A one-workgroup first launch on a device that compiles at the first dispatch
        (lavapipe): inside the "pipeline" phase, so that a compile of minutes is a
        slow-pipeline skip, not a timeout of the run."""
        print(json.dumps({"pipeline": j, "device": label}), flush=True)
        warming[0] = True
        try:
            yield
        finally:
            warming[0] = False
        if hang == f"{j}:{label}:warm":
            time.sleep(3600)
        print(json.dumps({"prepared": j, "device": label}), flush=True)
        if hang == f"{j}:{label}:run":
            time.sleep(3600)

    def done(res: Result) -> None:
        line = result_line(res)
        if keep and res.failed:
            from .shrink import Shrinker
            from .shrink import keep as keep_kernel
            o = res.failed[0]
            shrunk = Shrinker(res.kernel, res.seed, res.index, o.device, dict(devs)[o.device],
                              work, 60.0).run()
            if shrunk is not None:
                first = o.error[:300] or str(o.mismatches[0])
                line["shrunk"] = str(keep_kernel(res.kernel, res.seed, res.index, o.device,
                                                 first, directory=Path(keep)))
        print(json.dumps(line), flush=True)

    os.environ.setdefault("PYSHADE_CACHE", "0")
    run(seed, stop, devs, work, batch=5, hosts_every=hosts_every, on_result=done,
        start=start, on_device=device, races_every=races_every, warm=warm)


def run_isolated(seed: int, count: int, groups: set[str], *, jobs: int = 2,
                 kernel_timeout: float = 120.0, hosts_every: int = 10, races_every: int = 10,
                 keep: str = "", on_line: Callable[[dict], Any] | None = None,
                 deadline: float | None = None, first: int = 0,
                 run_timeout: float | None = None) -> dict:
    """Run kernels first..count-1 of ``seed`` in ``jobs`` child processes at a time, each
    on a share of the kernels (three shares per job, a new child for each). A child
    that prints nothing for ``kernel_timeout`` seconds (a kernel that never finishes
    on a device: a GPU cannot be interrupted from Python) is killed, the kernel is
    recorded as a "timeout" error on the device it was running on, and a new child
    goes on after it. ``run_timeout`` (default ``kernel_timeout``) is the watchdog's
    seconds once a kernel's pipeline is made (on lavapipe, which compiles at the first
    dispatch, once a one-workgroup first launch has compiled it: ``run``'s ``warm``),
    while it runs; the children's fence wait
    (PYSHADE_GPU_WAIT) is set 10 s below it, so a kernel that never ends is reported
    by the device rather than killed. ``deadline`` (time.monotonic()): the children
    still running then are stopped, and the run returns what finished. Returns
    {"devices", "kernels" (result lines by index), "timeouts"}."""
    lines: queue.Queue = queue.Queue()
    # three shares per child: a share with a slow kernel (lavapipe's compile of a large
    # one takes a minute) no longer leaves the other children idle for the rest of it
    share = max(1, -(-(count - first) // (3 * jobs)))
    todo = [(lo, min(lo + share, count)) for lo in range(first, count, share)]
    found: list[str] = []
    kernels: dict[int, dict] = {}
    timeouts: list[tuple[int, str]] = []
    slow: list[tuple[int, str]] = []
    live: dict[int, dict] = {}
    ident = 0
    run_wait = kernel_timeout if run_timeout is None else run_timeout

    def spawn(lo: int, hi: int) -> None:
        nonlocal ident
        ident += 1
        cmd = [sys.executable, "-c", "import sys; sys.path[:0] = sys.argv[1:3]; "
               "from fuzz import driver; driver.child_main(sys.argv[3:])",
               str(TESTS), str(TESTS.parent), str(seed), str(lo), str(hi), str(hosts_every),
               str(races_every), ",".join(sorted(groups)), keep]
        env = dict(os.environ, PYSHADE_GPU_WAIT=f"{max(1.0, run_wait - 10):g}")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, bufsize=1, env=env)
        me = ident

        def pump() -> None:
            for ln in proc.stdout:  # type: ignore[union-attr]
                if ln.startswith("{"):
                    lines.put((me, json.loads(ln)))
            lines.put((me, None))

        threading.Thread(target=pump, daemon=True).start()
        live[me] = {"proc": proc, "lo": lo, "hi": hi, "seen": time.monotonic(),
                    "at": (lo, "start")}

    while todo or live:
        while todo and len(live) < jobs and (deadline is None or time.monotonic() < deadline):
            spawn(*todo.pop(0))
        if not live:
            break
        try:
            me, line = lines.get(timeout=1.0)
        except queue.Empty:
            me, line = 0, None
        if me in live:
            c = live[me]
            c["seen"] = time.monotonic()
            if line is None:                    # the child ended
                c["proc"].wait()
                del live[me]
                rest = [j for j in range(c["lo"], c["hi"]) if j not in kernels]
                if rest and c["proc"].returncode != 0:
                    j, label = c["at"]
                    _timeout(kernels, timeouts, j, label, f"the child process failed "
                             f"(exit {c['proc'].returncode})", on_line)
                    if j + 1 < c["hi"]:
                        todo.insert(0, (j + 1, c["hi"]))
            elif "devices" in line:
                found[:] = line["devices"]
            elif "running" in line:
                c["at"] = (line["running"], line["device"])
                c["phase"] = "compile"
            elif "pipeline" in line:
                c["phase"] = "pipeline"
            elif "prepared" in line:
                c["phase"] = "run"
            else:
                kernels[line["index"]] = line
                if on_line:
                    on_line(line)
        if deadline is not None and time.monotonic() > deadline:
            for c in live.values():
                c["proc"].kill()
                c["proc"].wait()
            break
        for me, c in list(live.items()):
            limit = run_wait if c.get("phase") == "run" else kernel_timeout
            if time.monotonic() - c["seen"] > limit:
                c["proc"].kill()
                c["proc"].wait()
                del live[me]
                j, label = c["at"]
                if c.get("phase") == "pipeline":
                    _slow_pipeline(kernels, slow, j, label, kernel_timeout, on_line)
                else:
                    _timeout(kernels, timeouts, j, label,
                             f"no result after {limit:.0f} s (killed)", on_line)
                if j + 1 < c["hi"]:
                    todo.insert(0, (j + 1, c["hi"]))
    return {"devices": found, "kernels": [kernels[j] for j in sorted(kernels)],
            "timeouts": timeouts, "slow_pipelines": slow}


def _slow_pipeline(kernels: dict, slow: list, j: int, label: str, seconds: float,
                   on_line: Callable[[dict], Any] | None) -> None:
    """Kernel ``j`` on ``label``: the driver had not compiled it after ``seconds``. Not
    run there, so not compared: counted as "slow-pipeline" (a skip the summary lists),
    not as a finding. SwiftShader's compiler takes minutes over naga's SPIR-V of some
    kernels when the pipeline is made (bench/probes/swiftshader_wgpu_slow_pipeline.py),
    lavapipe's LLVM over others at their first dispatch, a one-workgroup launch that
    counts here (bench/probes/lavapipe_slow_compile_shrink.py); a kernel that never
    finishes running, or a translation or compile by pyshade's toolchains that never
    ends, is still a timeout."""
    line = _killed_line(kernels, j)
    line["outcomes"][label] = {"status": "skip", "seconds": seconds, "kind": "slow-pipeline",
                               "error": f"slow-pipeline: the driver had not compiled the "
                                        f"kernel after {seconds:.0f} s (killed; not run)",
                               "mismatch": "", "allowed": []}
    slow.append((j, label))
    if on_line:
        on_line(line)


def _timeout(kernels: dict, timeouts: list, j: int, label: str, why: str,
             on_line: Callable[[dict], Any] | None) -> None:
    """Kernel ``j`` never finished on ``label`` (a failure, "timeout")."""
    line = _killed_line(kernels, j)
    if label == "cpu":
        line["cpu_error"] = f"timeout: {why}"
    else:
        line["outcomes"][label] = {"status": "error", "seconds": 0.0, "kind": "timeout",
                                   "error": f"timeout: {why}", "mismatch": "", "allowed": []}
    line["timeout"] = label
    timeouts.append((j, label))
    if on_line:
        on_line(line)


def _killed_line(kernels: dict, j: int) -> dict:
    """Kernel ``j``'s result line, made (and kept in ``kernels``) when its child was killed
    before it printed one."""
    return kernels.setdefault(j, {"index": j, "kernel": f"fz{j}", "ft": "", "cpu_error": "",
                                  "outcomes": {}})
