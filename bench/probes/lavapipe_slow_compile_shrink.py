"""Shrink a fuzzer kernel whose first dispatch holds lavapipe for long (LLVM compiles a
compute shader at its first dispatch on llvmpipe) to the smallest kernel that still
takes over ``--limit`` seconds; each candidate runs in a child process with one
workgroup on the device group's first device. Issue 16: seed 6579655493099019436
kernel 60 spends minutes in LLVM's ScalarEvolution (gdb: isKnownPredicate /
isLoopBackedgeGuardedByCond, recursing).

    CI=true PYSHADE_TEST_VK_DRIVERS=lavapipe python bench/probes/lavapipe_slow_compile_shrink.py \
        6579655493099019436:60 --limit 20 --seconds 1800
"""
import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzz.harness import kernel_of, launch, load, make_kernel, module_source  # noqa: E402
from fuzz.shrink import Shrinker  # noqa: E402


def child(path: str, group: str) -> None:
    from fuzz import driver
    k, seed, j = pickle.loads(Path(path).read_bytes())
    dev = driver.devices({group})[1][1]
    mod = load(module_source([k]), Path(tempfile.mkdtemp()), f"slow_{seed}_{j}")
    fn, params, inputs = kernel_of(mod, k, seed, j)
    t = time.perf_counter()
    launch(params, dict(k.meta, n=k.meta["wg"]), fn, mod, dev, inputs)
    print(f"{time.perf_counter() - t:.2f}")


class SlowShrinker(Shrinker):
    """``still_fails``: the first dispatch takes over ``limit`` seconds."""

    limit = 20.0
    group = "vulkan"

    def outcome(self):  # noqa: ANN201
        f = self.workdir / "k.pickle"
        f.write_bytes(pickle.dumps((self.kern, self.seed, self.index)))
        t = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, __file__, "--child", str(f), self.group],
                               capture_output=True, text=True, timeout=self.limit,
                               env=dict(os.environ, PYSHADE_GPU_WAIT="600"))
        except subprocess.TimeoutExpired:
            return "slow"
        if p.returncode:
            return "error"   # an edit the kernel language refuses
        return f"fast {time.perf_counter() - t:.1f}"

    def still_fails(self) -> bool:
        src = module_source([self.kern])
        if src not in self.seen:
            self.checks += 1
            o = self.outcome()
            self.seen[src] = o == "slow"
            print(f"check {self.checks}: {len(src.splitlines())} lines: {o}", flush=True)
        return self.seen[src]

    def run(self):  # noqa: ANN201
        if not self.still_fails():
            return None
        progress = True
        while progress and self.time_left():
            progress = self.drop_statements() | self.inline() | self.simplify()
        return "slow"


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", help="SEED:INDEX")
    ap.add_argument("--group", default="vulkan")
    ap.add_argument("--limit", type=float, default=20.0)
    ap.add_argument("--seconds", type=float, default=1800.0)
    a = ap.parse_args()
    seed, j = map(int, a.kernel.split(":"))
    k = make_kernel(seed, j)
    SlowShrinker.limit, SlowShrinker.group = a.limit, a.group
    s = SlowShrinker(k, seed, j, a.group, None, Path(tempfile.mkdtemp()), a.seconds)
    print("result:", s.run(), f"after {s.checks} checks")
    print(module_source([k]))


if __name__ == "__main__":
    main()
