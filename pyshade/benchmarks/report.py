"""The report of a ``pyshade bench`` run: JSON (the record), a markdown table and a PNG
plot (keys/s against n per device; matplotlib, the ``plot`` extra)."""

from __future__ import annotations

import json
import os
from typing import Any

COLUMNS = ("family", "device", "measurement", "n", "pyshade", "baseline", "ratio", "also")


def save_json(report: dict[str, Any], path: str) -> None:
    """Write the report as JSON."""
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


def load_json(path: str) -> dict[str, Any]:
    """A report written by ``save_json``; SystemExit when it is not one."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"pyshade bench: cannot read {path}: {e}") from None
    if not isinstance(report, dict) or "results" not in report:
        raise SystemExit(f"pyshade bench: {path} is not a pyshade bench report")
    return report


def _n(n: int | None) -> str:
    if not n:
        return ""
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def _value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    digits = 3 if abs(v) < 10 else 2 if abs(v) < 100 else 1
    return f"{v:.{digits}f} {unit}"


def _also(row: dict[str, Any]) -> str:
    """Other libraries' times and notes of a row (numpy/cupy/torch, GPU time, limit)."""
    parts = []
    for lib in ("numpy", "cupy", "torch"):
        if f"{lib}_ms" in row and lib != row.get("baseline_name"):
            parts.append(f"{lib} {_value(row[f'{lib}_ms'], 'ms')}")
    if row.get("torch_note"):
        parts.append("torch: refused")
    if row.get("hand_gpu_ms") is not None:
        parts.append(f"hand GPU {_value(row['hand_gpu_ms'], 'ms')}")
    if row.get("per_target_ms"):
        parts.append(", ".join(f"{t} {v:.1f}" for t, v in row["per_target_ms"].items()))
    if row.get("keys_per_s"):
        parts.append(f"{row['keys_per_s'] / 1e6:.1f} M keys/s")
    return "; ".join(parts)


def table_rows(report: dict[str, Any]) -> list[tuple[str, ...]]:
    """One tuple of ``COLUMNS`` per measurement."""
    out = []
    for r in report["results"]:
        base = _value(r.get("baseline"), r["unit"])
        if r.get("baseline_name"):
            base += f" ({r['baseline_name']})"
        ratio = f"{r['ratio']:.2f}" if r.get("ratio") is not None else "-"
        out.append((r["family"], r["device"], r["name"], _n(r.get("n")),
                    _value(r["pyshade"], r["unit"]), base, ratio, _also(r)))
    return out


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown: where and how it was made, one table row per measurement
    (ratio = pyshade / baseline: below 1 pyshade is faster), then what was skipped."""
    v = report.get("versions", {})
    lines = [f"`{report.get('command', '?')}`, {report.get('date', '?')}", "",
             "Versions: " + ", ".join(f"{k} {x}" for k, x in v.items()) + ".", ""]
    for name, adapter in report.get("devices", {}).items():
        lines.append(f"- `{name}`: {adapter}")
    lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |"
              for r in table_rows(report)]
    skipped = report.get("skipped", [])
    failed = report.get("failed", [])
    if skipped or failed:
        lines.append("")
    for s in skipped:
        lines.append(f"- skipped: {s['family']} on {s['device']}: {s['reason']}")
    for s in failed:
        lines.append(f"- FAILED: {s['family']} on {s['device']}: {s['reason']}")
    return "\n".join(lines) + "\n"


def plot(report: dict[str, Any], path: str) -> str | None:
    """Keys/s against n, one panel per device, one line per measurement (solid pyshade,
    dashed its baseline for the sorts) into ``path``. Returns why not (no matplotlib, no
    measurement with a size) or None when written."""
    try:
        import matplotlib
        matplotlib.use("Agg")                # no display on a server
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install 'pyshade[plot]'): no PNG"
    rows = [r for r in report["results"] if r.get("n") and r.get("keys_per_s")]
    devices = sorted({r["device"] for r in rows})
    if not devices:
        return "no measurement with a size to plot"
    fig, axes = plt.subplots(1, len(devices), figsize=(5.5 * len(devices), 4.5), squeeze=False)
    for ax, dev in zip(axes[0], devices):
        mine = [r for r in rows if r["device"] == dev]
        for name in dict.fromkeys(r["name"] for r in mine):
            pts = sorted((r["n"], r) for r in mine if r["name"] == name)
            label = name.rsplit(",", 1)[0]
            line, = ax.plot([n for n, _ in pts], [r["keys_per_s"] for _, r in pts], "o-",
                            label=label)
            base = [(n, r["baseline_keys_per_s"]) for n, r in pts
                    if r.get("baseline_keys_per_s")]
            if base and ("sort" in name or pts[0][1]["family"] == "kernels"):
                ax.plot([n for n, _ in base], [k for _, k in base], "x--",
                        color=line.get_color(), label=f"{label}: {pts[0][1]['baseline_name']}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{dev}: {report.get('devices', {}).get(dev, '')}"[:60], fontsize=9)
        ax.set_xlabel("n (keys)")
        ax.set_ylabel("keys/s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.suptitle(f"pyshade bench, {report.get('date', '')}", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None
