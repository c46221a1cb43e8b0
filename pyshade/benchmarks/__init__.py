"""``pyshade bench``: every benchmark that can run on this machine (docs/benchmarks.md).

One module per family (``launch``, ``kernels``, ``algorithms``, ``translate``,
``coldstart``); the hand-written baselines live in modules that import nothing from
pyshade (``wgpu_direct``, ``vulkan_direct``, ``cuda_direct``); ``report`` writes the JSON,
the markdown table and the plot.
"""

from __future__ import annotations

import datetime
import importlib
import platform
import sys
import traceback
from typing import Any, Callable

from .common import Results, Settings

#: The families, in the order they run: each is a module here with ``run(settings, results)``.
FAMILIES = ("translate", "launch", "kernels", "algorithms", "coldstart")

#: What a run records the version of, when importable.
VERSIONED = ("numpy", "wgpu", "vulkan", "cupy", "torch")


def versions() -> dict[str, str]:
    """pyshade, Python and each importable binding or library, with their versions."""
    import pyshade
    out = {"pyshade": pyshade.__version__, "python": platform.python_version()}
    for name in VERSIONED:
        try:
            from importlib.metadata import version
            out[name] = version(name if name != "cupy" else _cupy_dist())
        except Exception:  # noqa: BLE001 - absent or unnamed: not recorded
            continue
    return out


def _cupy_dist() -> str:
    """CuPy's distribution is named after its CUDA (cupy-cuda13x)."""
    from importlib.metadata import packages_distributions
    return (packages_distributions().get("cupy") or ["cupy"])[0]


def run(settings: Settings, only: tuple[str, ...] = FAMILIES, command: str = "",
        progress: Callable[[dict], None] | None = None) -> dict:
    """Run the families in ``only`` on ``settings.devices``; the report (a JSON-able dict).
    A family that raises is listed under ``failed`` (its traceback on stderr) and the
    others still run. ``progress`` gets the report so far after each family (so a run
    stopped by a time limit still leaves what it measured)."""
    res = Results()
    failed: list[dict[str, str]] = []
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    rep: dict[str, Any] = {}
    for fam in FAMILIES:
        if fam not in only:
            continue
        print(f"pyshade bench: {fam} ...", file=sys.stderr, flush=True)
        mod = importlib.import_module(f"{__name__}.{fam}")
        try:
            mod.run(settings, res)
        except Exception as e:  # noqa: BLE001 - reported; the other families still run
            traceback.print_exc()
            failed.append({"family": fam, "device": ",".join(settings.devices),
                           "reason": f"{type(e).__name__}: {e}".splitlines()[0]})
        rep = _report(settings, only, command, date, res, failed)
        if progress is not None:
            progress(rep)
    return rep or _report(settings, only, command, date, res, failed)


def _report(settings: Settings, only: tuple[str, ...], command: str, date: str,
            res: Results, failed: list[dict[str, str]]) -> dict[str, Any]:
    devices = {name: getattr(dev, "adapter", "?") for name, dev in settings._opened.items()}
    return {"command": command, "date": date,
            "machine": f"{platform.node()} {platform.machine()} {platform.system()}",
            "versions": versions(), "devices": devices,
            "settings": {"devices": settings.devices, "sizes": settings.sizes,
                         "reps": settings.reps, "quick": settings.quick,
                         "launches": settings.launches, "only": list(only)},
            "results": list(res.rows), "skipped": list(res.skipped),
            "failed": failed + res.failed}
