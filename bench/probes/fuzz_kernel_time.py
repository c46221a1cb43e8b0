"""Time one fuzzer kernel on one device group's first device in phases: a first launch
over one workgroup, as tests/fuzz/harness.check_on's ``warm`` (on lavapipe: LLVM
compiles the shader at the first dispatch), then a launch over all of the kernel's
invocations, twice. For kernels that hold a device for minutes (issue 16: seed
6579655493099019436 kernel 60 on lavapipe).

    CI=true PYSHADE_TEST_VK_DRIVERS=lavapipe python bench/probes/fuzz_kernel_time.py \
        6579655493099019436:60 --device vulkan
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzz import driver  # noqa: E402
from fuzz.harness import kernel_of, launch, load, make_kernel, module_source  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", help="SEED:INDEX")
    ap.add_argument("--device", default="vulkan", help="a device group; its first device")
    ap.add_argument("--first", type=int, default=0,
                    help="invocations of the first launch (0: one workgroup, as the runner)")
    a = ap.parse_args()
    seed, j = map(int, a.kernel.split(":"))
    label, dev = driver.devices({a.device})[1]
    print("device:", label, flush=True)
    k = make_kernel(seed, j)
    mod = load(module_source([k]), Path(tempfile.mkdtemp()), f"fz_{seed}_{j}")
    fn, params, inputs = kernel_of(mod, k, seed, j)
    small = dict(k.meta, n=a.first or k.meta["wg"])
    for label, meta in (("first launch (small)", small), ("full launch", k.meta),
                        ("again", k.meta)):
        t = time.perf_counter()
        launch(params, meta, fn, mod, dev, inputs)
        print(f"{label} n={meta['n']}: {time.perf_counter() - t:.2f} s", flush=True)


if __name__ == "__main__":
    main()
