"""``sort`` and ``argsort`` on the device, and the demo's bitonic kernel
(``examples/bitonic_sort.py``).

``bitonic_step`` below is the canonical example (with docstrings added): a NewType,
an IntEnum with ``match``, a portable struct, a TypeVar generic and a ``Const``
trait class; ``sort_steps`` lists its passes. The library functions sort u32 keys
(``keys.py``: every dtype's order as unsigned order, made and undone on the
device) with one of two engines, both written in pyshade and run on every device:

- ``"bitonic"`` (``network.py``): the bitonic network, padded on the device to a
  power of two, with every pass whose partner distance fits a workgroup tile done in
  shared memory; few launches, so it wins for small arrays;
- ``"radix"`` (``radix.py``): an LSD radix sort, 4 passes of 8-bit digits, O(n) work,
  stable by construction; it wins for large arrays.

``method="auto"`` takes the bitonic network below ``RADIX_MIN`` elements and the
radix sort from there. Every launch of a call is recorded in one ``dev.batch()``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NewType, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

from . import network
from ._arrays import give, operand, scratch
from .keys import KIND_F32, copy_prefix, from_keys, iota, kind_of, to_keys
from .radix import record_radix

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
def bitonic_step(data: ps.Buffer[T], p: BitonicParams, cmp: ps.Const[type[Natural]] = Natural) -> None:
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


def sort_steps(n: int) -> list[tuple[int, int]]:
    """The (stage, pass_of_stage) pairs of ``bitonic_step``'s network over n = 2^k items
    (the library functions use ``network.py``, which does most passes in shared memory)."""
    k = max(n - 1, 0).bit_length()
    return [(s, p) for s in range(k) for p in range(s + 1)]


#: From this many keys ``method="auto"`` takes the radix sort: below it the bitonic
#: network's fewer launches win (pyshade bench --only algorithms; docs/performance.md;
#: re-measured on lavapipe for the four-pass radix sort, which wins there from 4096).
RADIX_MIN = 1 << 14
#: The values of ``sort``'s and ``argsort``'s ``method``.
METHODS = ("auto", "bitonic", "radix")


def _use_radix(n: int, method: str) -> bool:
    """Whether ``method`` sorts n keys with the radix sort (ValueError for an unknown
    method)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, "
                         f"got {method!r}")
    return method == "radix" or (method == "auto" and n >= RADIX_MIN)


def _record_network(dev: ps.Device, words: ps.DeviceArray, n: int, kind: int, flip: int,
                    with_vals: bool) -> tuple[ps.DeviceArray, ps.DeviceArray | None]:
    """Record: keys of the n words (``to_keys``), padded, sorted ascending by the bitonic
    network; with ``with_vals``, the indices 0..n-1 carried along. Returns (keys,
    indices), each longer than n when padded (the padding sorts last)."""
    length = network.padded_length(n)
    keys = scratch(dev, "sort.keys", length, np.uint32)
    to_keys.launch(words, keys, n, flip, kind, threads=length, device=dev)
    vals = None
    if with_vals:
        vals = dev.empty(length, np.int32)
        iota.launch(vals, threads=length, device=dev)
    network.record_network(dev, keys, vals)
    return keys, vals


def sort(array: Any, descending: bool = False, device: Any = None, *,
         in_place: bool = False, method: str = "auto") -> Any:
    """Sort a 1-D uint32, int32 or float32 array on the device.

    The result equals ``numpy.sort(array)`` (reversed when ``descending``), bit for
    bit: float32 subnormals and infinities sort by value, -0.0 before +0.0, and NaNs
    (of either sign) last, each element keeping its bits, NaN payloads included.
    Among NaNs, which numpy leaves unordered, the result is ascending by bit pattern
    for positive NaNs, then negative NaNs by descending bit pattern (the IEEE total
    order with negative NaNs moved to the end). Any length works.

    ``array`` may be a device array (the result is a new device array on its device:
    nothing goes through the host), a CuPy array or torch CUDA tensor (adopted by the
    cuda device without a copy; the result is a cuda device array, which CuPy and
    torch take in place through ``__cuda_array_interface__``), or host data (uploaded
    to ``device``, default the best available; the result is a numpy array).

    With ``in_place=True``, ``array`` (a device array, CuPy array or torch CUDA
    tensor) is sorted where it lives and returned. ``method`` picks the engine:
    ``"bitonic"`` (the bitonic network, shared-memory tiles), ``"radix"`` (LSD radix
    sort) or ``"auto"`` (bitonic below ``RADIX_MIN`` elements, radix from there); the
    result is the same.
    """
    from ..launch.binder import is_foreign_array
    if in_place and not (isinstance(array, ps.DeviceArray) or is_foreign_array(array)):
        raise TypeError(f"sort(in_place=True) needs a device array, a CuPy array or a "
                        f"torch CUDA tensor, got {type(array).__name__}")
    op = operand(array, device, "sort")
    dev, n = op.device, op.n
    _use_radix(n, method)                   # checks ``method`` whatever n is
    out = op.array if in_place else dev.empty(n, op.dtype)
    if n:
        kind = kind_of(op.dtype)
        words = op.array.view(np.uint32)
        with dev.batch():
            if _use_radix(n, method) and kind != KIND_F32:
                # the key transforms are done by the first and last passes
                record_radix(dev, words, n, kind, dst=out.view(np.uint32), out_kind=kind,
                             descending=descending)
            else:
                # floats: from_keys moves the negative NaNs behind the positive ones
                if _use_radix(n, method):
                    radix_keys = record_radix(dev, words, n, kind)
                    assert radix_keys is not None
                    keys = radix_keys
                else:
                    keys, _ = _record_network(dev, words, n, kind, 0, False)
                from_keys.launch(keys, out.view(np.uint32), n, int(descending), kind,
                                 threads=n, device=dev)
    return array if in_place else give(op, out)


def argsort(array: Any, descending: bool = False, device: Any = None, *,
            method: str = "auto") -> Any:
    """The indices that sort a 1-D uint32, int32 or float32 array, as int32, computed
    on the device.

    The sort is stable: the result equals ``numpy.argsort(array, kind="stable")``,
    ties (-0.0 and 0.0 are equal; every NaN is equal, and last) in index order.
    ``descending=True`` sorts by descending value (NaNs first), ties still in index
    order (as ``torch.argsort(x, descending=True, stable=True)``), which is not the
    reverse of the ascending result when there are ties.

    ``array`` may be a device array (the indices are a new int32 device array on its
    device), a CuPy array or torch CUDA tensor (adopted by the cuda device; the
    indices are a cuda device array), or host data (uploaded to ``device``, default
    the best available; the indices are a numpy int32 array). ``method`` is as for
    ``sort``; both engines give the same indices.
    """
    op = operand(array, device, "argsort")
    dev, n = op.device, op.n
    _use_radix(n, method)
    if n >= 2**31:
        raise ValueError(f"argsort(): {n} elements do not have int32 indices")
    if not n:
        return give(op, dev.empty(0, np.int32))
    flip = 0xFFFFFFFF if descending else 0
    words, kind = op.array.view(np.uint32), kind_of(op.dtype, arg=True)
    with dev.batch():
        if _use_radix(n, method):
            out = dev.empty(n, np.int32)
            record_radix(dev, words, n, kind, flip, vals=out)
        else:
            _, vals = _record_network(dev, words, n, kind, flip, True)
            assert vals is not None
            out = vals
            if vals.size != n:              # the network's padding: keep the first n
                out = dev.empty(n, np.int32)
                copy_prefix.launch(vals, out, threads=n, device=dev)
    return give(op, out)
