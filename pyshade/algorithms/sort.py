"""Bitonic sort: the DESIGN.md section-7 kernel, usable as a library function.

The kernel below is the canonical example (with docstrings added): a NewType, an IntEnum
with ``match``, a portable struct, a TypeVar generic and a ``Const`` trait
class. ``sort`` pads the data to a power of two with a value that sorts last,
records every step in one ``dev.batch()`` submission, and drops the padding.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NewType, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

T = TypeVar("T", u32, i32, f32)
Stage = NewType("Stage", u32)                 # newtype: zero cost
Pass = NewType("Pass", u32)


class SortOrder(IntEnum):                     # repr(u32) enum
    """Direction of the sort; a u32 enum in the kernel."""

    ASCENDING = 0
    DESCENDING = 1


@ps.struct
class BitonicParams:                          # repr(C) struct, portable layout
    """Parameters of one ``bitonic_step`` launch: padded length, stage, pass and order."""

    n: u32
    stage: Stage
    pass_of_stage: Pass
    order: SortOrder


class Natural:                                # a "trait implementation"
    """The default comparison "trait" for ``bitonic_step``: natural ``<`` order."""

    @staticmethod
    def before(a: T, b: T) -> bool:
        """True when ``a`` sorts before ``b`` (``a < b``)."""
        return a < b


@ps.kernel(workgroup_size=256)
def bitonic_step(data: ps.Buffer[T], p: BitonicParams, cmp: ps.Const[type] = Natural):
    """One pass of the bitonic network: invocation i compare-exchanges ``data[i]`` with
    ``data[i ^ (1 << (stage - pass_of_stage))]``, ordering each block up or down."""
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


_DTYPES = (np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32))


def _pad_value(dtype: np.dtype, descending: bool) -> Any:
    if dtype.kind == "f":
        return -np.inf if descending else np.inf
    info = np.iinfo(dtype)
    return info.min if descending else info.max


def sort_steps(n: int) -> list[tuple[int, int]]:
    """The (stage, pass_of_stage) pairs of a bitonic network over n = 2^k items."""
    k = max(n - 1, 0).bit_length()
    return [(s, p) for s in range(k) for p in range(s + 1)]


def sort(array: Any, descending: bool = False, device: Any = None) -> np.ndarray:
    """Sort a 1-D u32/i32/f32 array on ``device`` (default: the best available).

    Returns a new numpy array. Any length works: the data are padded to a
    power of two with a value that sorts last. NaNs are not supported.
    """
    dev = ps.device(device) if not isinstance(device, ps.Device) else device
    host = array.numpy() if isinstance(array, ps.DeviceArray) else np.asarray(array)
    if host.ndim != 1 or host.dtype not in _DTYPES:
        raise TypeError(f"sort() needs a 1-D uint32, int32 or float32 array, got "
                        f"{host.dtype} with shape {host.shape}")
    n = host.size
    if n < 2:
        return host.copy()
    n2 = 1 << (n - 1).bit_length()
    padded = np.full(n2, _pad_value(host.dtype, descending), dtype=host.dtype)
    padded[:n] = host
    buf = dev.array(padded)
    order = SortOrder.DESCENDING if descending else SortOrder.ASCENDING
    with dev.batch():
        for stage, pass_of_stage in sort_steps(n2):
            params = BitonicParams(n=n2, stage=stage, pass_of_stage=pass_of_stage, order=order)
            bitonic_step.launch(buf, params, threads=n2, device=dev)
    return buf.numpy()[:n]
