"""Replay fuzzer kernels by seed and index on chosen device groups, and optionally
shrink each that disagrees (``tests/fuzz/shrink.py``), printing the outcomes and the
shrunk source: for findings on a machine where the fuzz run happened (the H200).

    python bench/probes/fuzz_replay.py --devices cpu,cuda,vulkan 20262212:13 20262213:59 --shrink 60

``--keep DIR`` writes each shrunk kernel as a regression module there (``shrink.keep``;
``tests/fuzz/regressions`` is what tests/test_fuzz.py replays on every device).
"""
import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzz import driver  # noqa: E402
from fuzz.harness import make_kernel, module_source  # noqa: E402
from fuzz.shrink import Shrinker, keep  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="+", help="SEED:INDEX")
    ap.add_argument("--devices", default="cpu,cuda,wgpu,vulkan,vulkan-hlsl")
    ap.add_argument("--shrink", type=float, default=0.0, help="seconds per shrink (0: none)")
    ap.add_argument("--shrink-on", default="", help="shrink on these device labels only")
    ap.add_argument("--keep", default="", help="write each shrunk kernel to this folder")
    a = ap.parse_args()
    devs = driver.devices(set(a.devices.split(",")))
    print("devices:", [label for label, _ in devs])
    for spec in a.kernels:
        seed, j = map(int, spec.split(":"))
        work = Path(tempfile.mkdtemp())
        res, _ = driver.run(seed, j + 1, devs, work, batch=1, start=j)
        for r in res:
            print(f"== {seed}:{j} cpu_error={r.cpu_error!r}")
            for o in r.outcomes:
                print("  ", o.device, o.status, o.mismatches[0] if o.mismatches else o.error[:300])
            if not a.shrink:
                continue
            for o in r.outcomes:
                if o.status not in ("disagree", "error") or \
                        a.shrink_on and o.device not in a.shrink_on.split(","):
                    continue
                k = make_kernel(seed, j)
                s = Shrinker(k, seed, j, o.device, dict(devs)[o.device], work, a.shrink)
                last = s.run()
                print(f"-- shrunk on {o.device} ({s.checks} checks):",
                      last.mismatches[0] if last and last.mismatches else last)
                print(module_source([k]))
                if a.keep and last is not None:
                    print("kept:", keep(k, seed, j, o.device,
                                        o.error[:300] or str(o.mismatches[0]),
                                        directory=Path(a.keep)))


if __name__ == "__main__":
    main()
