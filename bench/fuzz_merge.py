"""Merge the JSON files of several ``bench/fuzz_run.py`` processes into one markdown
summary: kernels run, per-device counts, the kernels that disagree (seed, index,
device, first difference), the timeouts. Used by ``bench/h200_longrun.sh``.

    python bench/fuzz_merge.py DIR_OR_JSON [...]
"""

from __future__ import annotations

import collections
import glob
import json
import os
import sys


def load(paths: list[str]) -> list[dict]:
    """Every run in ``paths`` (JSON files, or folders of them); unreadable files skipped
    with a note on stderr (a process killed while writing)."""
    runs = []
    for p in paths:
        files = sorted(glob.glob(os.path.join(p, "*.json"))) if os.path.isdir(p) else [p]
        for f in files:
            try:
                with open(f) as fh:
                    runs.append(json.load(fh))
            except (OSError, ValueError) as e:
                print(f"skipped {f}: {e}", file=sys.stderr)
    return runs


def summary(runs: list[dict]) -> str:
    """The markdown summary of ``runs``."""
    per = collections.defaultdict(collections.Counter)
    bad, timeouts, kernels, seconds = [], [], 0, 0.0
    for r in runs:
        kernels += len(r.get("kernels", []))
        seconds = max(seconds, r.get("summary", {}).get("seconds", 0.0))
        timeouts += [(r["seed"], i) for i in r.get("summary", {}).get("timeouts", [])]
        for k in r.get("kernels", []):
            for dev, o in k.get("outcomes", {}).items():
                per[dev][o["status"]] += 1
                if o["status"] in ("disagree", "error"):
                    why = (o.get("mismatch") or o.get("error") or "").splitlines()
                    bad.append((r["seed"], k["index"], dev, o["status"], why[0][:120] if why else ""))
    devices = sorted(per)
    statuses = ["agree", "disagree", "error", "skip"]
    lines = [f"{len(runs)} runs, {kernels} kernels, longest run {seconds:.0f} s, "
             f"{len(timeouts)} chunk timeouts, {len({(s, i) for s, i, *_ in bad})} kernels "
             "disagreeing or failing somewhere", "",
             "| device | " + " | ".join(statuses) + " |", "|---" * (len(statuses) + 1) + "|"]
    lines += [f"| {d} | " + " | ".join(str(per[d][s]) for s in statuses) + " |" for d in devices]
    if bad:
        lines += ["", "| seed | kernel | device | status | first difference |", "|---|---|---|---|---|"]
        lines += [f"| {s} | {i} | {d} | {st} | {w.replace('|', '/')} |" for s, i, d, st, w in bad]
    if timeouts:
        lines += ["", "timeouts (seed, first kernel of the chunk): "
                  + ", ".join(f"{s}:{i}" for s, i in timeouts)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(load(sys.argv[1:])))
