"""What every benchmark family shares: the run's settings, the result records, timing."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

#: The cpu device interprets every invocation in Python: GPU sizes (2^20 keys) would take
#: minutes there, so its sizes are capped (docs/benchmarks.md).
CPU_MAX_N = 4096
CPU_MAX_N_QUICK = 1024


@dataclass
class Settings:
    """One ``pyshade bench`` run: the devices asked for, sizes, repetitions."""

    devices: list[str]
    sizes: list[int]
    reps: int = 5
    quick: bool = False
    launches: int = 1000
    _opened: dict[str, Any] = field(default_factory=dict)

    def device(self, name: str) -> Any:
        """The pyshade device ``name`` (opened once per run); raises BackendUnavailable."""
        if name not in self._opened:
            import pyshade as ps
            self._opened[name] = ps.device(name)
        return self._opened[name]

    def sizes_for(self, device: str) -> list[int]:
        """The sizes to run on ``device``: the cpu device's are capped (it interprets)."""
        if device != "cpu":
            return list(self.sizes)
        cap = CPU_MAX_N_QUICK if self.quick else CPU_MAX_N
        return sorted({min(n, cap) for n in self.sizes})


@dataclass
class Results:
    """The measurements and the skipped benchmarks of one run, as plain dicts (JSON)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)

    def add(self, family: str, device: str, name: str, pyshade: float, unit: str, *,
            n: int | None = None, baseline: float | None = None,
            baseline_name: str | None = None, **extra: Any) -> dict[str, Any]:
        """Record one measurement: pyshade's value against the baseline's, same unit. With
        ``n`` and a time unit, keys/s are derived (the plot's axis)."""
        row: dict[str, Any] = {"family": family, "device": device, "name": name, "n": n,
                               "unit": unit, "pyshade": pyshade, "baseline": baseline,
                               "baseline_name": baseline_name,
                               "ratio": pyshade / baseline if baseline else None}
        if n and unit in ("ms", "s"):
            scale = 1e-3 if unit == "ms" else 1.0
            row["keys_per_s"] = n / (pyshade * scale) if pyshade else None
            if baseline:
                row["baseline_keys_per_s"] = n / (baseline * scale)
        row.update(extra)
        self.rows.append(row)
        return row

    def skip(self, family: str, device: str, reason: str) -> None:
        """Record a benchmark that could not run here, with the reason (first line)."""
        entry = {"family": family, "device": device,
                 "reason": reason.strip().splitlines()[0] if reason.strip() else "unavailable"}
        if entry not in self.skipped:       # once, not once per size
            self.skipped.append(entry)


    def fail(self, family: str, device: str, reason: str) -> None:
        """Record a benchmark that should have run here and did not (exit status 1)."""
        self.failed.append({"family": family, "device": device,
                            "reason": reason.strip().splitlines()[0] if reason.strip()
                            else "failed"})


def median_ms(fn: Callable[[], Any], sync: Callable[[], Any], reps: int,
              warm: bool = True) -> float:
    """Median wall time of ``fn(); sync()`` in milliseconds, after one untimed warm-up
    call (which translates, compiles and creates pipelines)."""
    if warm:
        fn()
        sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a measuring child process: the same pyshade as this one (its
    parent folder first on PYTHONPATH), Python's bytecode cache on as for users (this
    workplace may turn it off, which would time the compilation of pyshade's modules)."""
    import pyshade
    root = os.path.dirname(os.path.dirname(os.path.abspath(pyshade.__file__)))
    env = dict(os.environ, **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


class ChildFailed(RuntimeError):
    """A measuring child process exited with an error (its last line is the message)."""


def run_child(code: str, args: list[str], env: dict[str, str], timeout: float = 300) -> str:
    """Run ``code`` in a fresh interpreter; its last line of output (JSON). Raises
    ChildFailed with the child's last error line when it fails."""
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       env=env, timeout=timeout)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines()
        raise ChildFailed(lines[-1] if lines else f"exit status {p.returncode}")
    return p.stdout.strip().splitlines()[-1]


def attempt(out: Results, family: str, device: str, fn: Callable[[], Any]) -> None:
    """Run one family's part on one device; a missing backend, binding or tool (the
    binding's import, glslangValidator, an adapter) is recorded as skipped with its
    reason. A child process that fails is recorded as failed (the other devices still
    run); anything else is a bug and propagates."""
    from pyshade.errors import BackendUnavailable
    try:
        fn()
    except (BackendUnavailable, ImportError, OSError, subprocess.CalledProcessError) as e:
        out.skip(family, device, f"{type(e).__name__}: {e}")
    except ChildFailed as e:
        out.fail(family, device, f"child process: {e}")


def per_device(s: Settings, out: Results, family: str, runners: dict[str, Callable[..., None]],
               missing: str, sized: bool = False) -> None:
    """Run ``runners[device](s, out)`` (with ``sized``: ``(s, out, n)`` for each of the
    device's sizes) on every device of ``s``; a device without a runner is skipped with
    ``missing`` (``{device}`` is replaced)."""
    for name in s.devices:
        fn = runners.get(name)
        if fn is None:
            out.skip(family, name, missing.format(device=repr(name)))
        elif not sized:
            attempt(out, family, name, lambda fn=fn: fn(s, out))
        else:
            for n in s.sizes_for(name):
                attempt(out, family, name, lambda fn=fn, n=n: fn(s, out, n))
