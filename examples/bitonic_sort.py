"""The canonical pyshade example: a bitonic sort (the demo's kernel).

The kernel is one compare-and-swap step of a bitonic network. It uses what
pyshade adds to plain Python kernels: a TypeVar generic (u32/i32/f32, bound
from the array's dtype at launch), NewTypes, an IntEnum with ``match``, a
portable struct parameter and a ``Const[type]`` trait class. The script
drives the whole network in one ``dev.batch()`` and checks numpy's answer:

    python examples/bitonic_sort.py --device wgpu --n 100000 --dtype f32 --descending

``pyshade.algorithms.sort`` is the library version: the same network with most passes
done in shared memory, and a radix sort for large arrays, on data left on the device.
"""

import argparse
import sys
import time
from enum import IntEnum
from typing import Any, NewType, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

T = TypeVar("T", u32, i32, f32)
Stage = NewType("Stage", u32)                 # newtype: zero cost
Pass = NewType("Pass", u32)


class SortOrder(IntEnum):                     # repr(u32) enum
    ASCENDING = 0
    DESCENDING = 1


@ps.struct
class BitonicParams:                          # repr(C) struct, portable layout
    n: u32
    stage: Stage
    pass_of_stage: Pass
    order: SortOrder


class Natural:                                # a "trait implementation"
    @staticmethod
    def before(a: T, b: T) -> bool:
        return a < b


@ps.kernel(workgroup_size=256)
def bitonic_step(data: ps.Buffer[T], p: BitonicParams, cmp: ps.Const[type[Natural]] = Natural) -> None:
    i = ps.global_id().x
    partner = i ^ (u32(1) << (p.stage - p.pass_of_stage))
    if partner > i and partner < p.n:
        up = ((i >> (p.stage + 1)) & 1) == 0
        match p.order:
            case SortOrder.ASCENDING:
                pass
            case SortOrder.DESCENDING:
                up = not up
        a, b = data[i], data[partner]
        if cmp.before(b, a) == up:
            data[i], data[partner] = b, a


def bitonic_sort(data: ps.DeviceArray, descending: bool = False) -> None:
    """Sort ``data`` (length a power of two) in place on its device."""
    dev, n = data.device, len(data)
    order = SortOrder.DESCENDING if descending else SortOrder.ASCENDING
    with dev.batch():                            # one submission for the whole network
        for stage in range(max(n - 1, 0).bit_length()):
            for pass_of_stage in range(stage + 1):
                params = BitonicParams(n=n, stage=Stage(stage),
                                       pass_of_stage=Pass(pass_of_stage), order=order)
                bitonic_step.launch(data, params, Natural, threads=n, device=dev)


def main() -> int:
    """Sort random data on a device and compare with numpy."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--device", default=None, help="cpu, wgpu, ... (default: best available)")
    ap.add_argument("--n", type=int, default=0, help="elements (default 65536; cpu 4096)")
    ap.add_argument("--dtype", choices=["u32", "i32", "f32"], default="u32")
    ap.add_argument("--descending", action="store_true")
    args = ap.parse_args()
    dev = ps.device(args.device)
    n = args.n or (4096 if dev.name == "cpu" else 1 << 16)
    n2 = 1 << max(n - 1, 0).bit_length()       # the network needs a power of two
    rng = np.random.default_rng()
    dtype: Any = {"u32": np.uint32, "i32": np.int32, "f32": np.float32}[args.dtype]
    if dtype is np.float32:
        x = rng.standard_normal(n).astype(np.float32)
        pad = -np.inf if args.descending else np.inf
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        pad = info.min if args.descending else info.max
    data = dev.array(np.concatenate([x, np.full(n2 - n, pad, dtype=dtype)]))
    t0 = time.perf_counter()
    bitonic_sort(data, args.descending)
    got = data.numpy()[:n]
    dt = time.perf_counter() - t0
    want = np.sort(x)[::-1] if args.descending else np.sort(x)
    ok = np.array_equal(got, want)
    print(f"bitonic sort  device={dev.name}  adapter={dev.adapter}")
    print(f"n={n}  dtype={args.dtype}  order={'descending' if args.descending else 'ascending'}  "
          f"time={dt * 1e3:.1f} ms (first run, with compilation)")
    print("ok" if ok else f"FAILED: {int(np.count_nonzero(got != want))} of {n} differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
