"""Reductions on the device: ``reduce(x, "sum" | "min" | "max")``.

A tree reduction per workgroup: each of ``WG`` invocations loads ``ITEMS`` elements
of its workgroup's tile of ``TILE = ITEMS * WG`` (element ``k * WG + lx`` of the
tile, so that each load of the workgroup reads consecutive words) and combines them
as a pairwise tree in registers, then the workgroup halves its partial results in
shared memory until one is left; the partials are reduced the same way, recursively,
down to one element (2^24 elements: two launches). Loading several elements per
invocation keeps the loads in flight that a memory-bound kernel needs: with two per
invocation the H200 read 2^24 floats at 0.8 TB/s (``pyshade bench --only algorithms``).
Every launch is recorded in one ``dev.batch()``.

- ``sum``: integers wrap (``numpy.sum(x, dtype=x.dtype)``); float32 is summed as a
  pairwise tree (as numpy does, in another order), within ``sum_tolerance(n)`` times
  ``sum(abs(x))`` of the exact sum; a sum of only -0.0 is -0.0, the empty sum +0.0.
- ``min``/``max`` compare bits, not floats (a GPU may flush subnormals or ignore NaN
  in a float comparison): integers by value; float32 as numpy's ``min``/``max``, a NaN
  if there is one (NaN propagates: the first NaN of the tree's order, bits kept), else
  the smallest/largest value, where -0.0 counts below 0.0 (numpy gives either zero,
  which compare equal). ``min`` and ``max`` of an empty array are a ValueError, as in
  numpy.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

from ._arrays import Operand, give, groups_for, operand, scratch
from .keys import ABS, KIND_F32, KIND_I32, KIND_U32, POS_INF, SIGN, kind_of
from .scan import element_type, identity

T = TypeVar("T", u32, i32, f32)

WG = 256
ITEMS = 16              # elements per invocation (a power of two: the register tree)
TILE = ITEMS * WG
OPS = ("sum", "min", "max")


@ps.kernel(workgroup_size=WG)
def sum_tiles(data: ps.Buffer[T], partial: ps.Buffer[T], n: u32, ident: T,
              items: ps.Const[int], elem: ps.Const[type[T]]) -> None:
    """``partial[tile]`` = the sum of the tile's ``items * WG`` elements of ``data[:n]``
    (``ident``, 0 or -0.0, where there are none; ``items`` a power of two: ``ITEMS``
    here, ``scan.ITEMS`` for the scan's tiles); ``elem`` is ``T`` as a value, for the
    shared and local arrays."""
    part = ps.shared_array(elem, WG)
    vals = ps.array(elem, items)
    lx = ps.local_index()
    grp = ps.global_id().x // WG
    first = grp * (items * WG) + lx
    for k in ps.unroll(range(items)):
        vals[k] = ident
        if first + k * WG < n:
            vals[k] = data[first + k * WG]
    # a pairwise tree, so that a float sum keeps the rounding bound of one tree; each
    # level unrolled (constant indices), so that ``vals`` stays in registers (a loop over
    # a variable bound left it in local memory on CUDA). Levels past ``items`` are
    # empty loops.
    for k in ps.unroll(range(items // 2)):
        vals[k] = vals[k] + vals[k + items // 2]
    for k in ps.unroll(range(items // 4)):
        vals[k] = vals[k] + vals[k + items // 4]
    for k in ps.unroll(range(items // 8)):
        vals[k] = vals[k] + vals[k + items // 8]
    for k in ps.unroll(range(items // 16)):
        vals[k] = vals[k] + vals[k + items // 16]
    for k in ps.unroll(range(items // 32)):
        vals[k] = vals[k] + vals[k + items // 32]
    part[lx] = vals[0]
    d = u32(WG // 2)
    while d > 0:
        ps.barrier()
        if lx < d:
            part[lx] = part[lx] + part[lx + d]
        d >>= 1
    if lx == 0:
        partial[grp] = part[0]


def _key(b: u32, kind: u32) -> u32:
    """The word's key, whose unsigned order is the value order (``keys.py``)."""
    if kind == KIND_U32:
        return b
    if kind == KIND_I32:
        return b ^ SIGN
    if (b & SIGN) != 0:
        return ~b
    return b | SIGN


def _pick(a: u32, b: u32, kind: u32, is_max: bool) -> u32:
    """The smaller (``is_max``: larger) of two words of ``kind``; for floats a NaN wins,
    the first one, so that NaN propagates as in numpy."""
    if kind == KIND_F32:
        if (a & ABS) > POS_INF:
            return a
        if (b & ABS) > POS_INF:
            return b
    ka = _key(a, kind)
    kb = _key(b, kind)
    if is_max:
        if kb > ka:
            return b
    elif kb < ka:
        return b
    return a


@ps.kernel(workgroup_size=WG)
def minmax_tiles(data: ps.Buffer[u32], partial: ps.Buffer[u32], n: u32, ident: u32,
                 kind: ps.Const[int], is_max: ps.Const[bool]) -> None:
    """``partial[tile]`` = the min (``is_max``: max) of the tile's words of ``data[:n]``,
    compared as ``kind`` (``ident``, which never wins, where there are none)."""
    part = ps.shared_array(u32, WG)
    vals = ps.array(u32, ITEMS)
    lx = ps.local_index()
    grp = ps.global_id().x // WG
    first = grp * TILE + lx
    for k in ps.unroll(range(ITEMS)):
        vals[k] = ident
        if first + k * WG < n:
            vals[k] = data[first + k * WG]
    # the same unrolled tree as sum_tiles' (ITEMS <= 32)
    for k in ps.unroll(range(ITEMS // 2)):
        vals[k] = _pick(vals[k], vals[k + ITEMS // 2], u32(kind), is_max)
    for k in ps.unroll(range(ITEMS // 4)):
        vals[k] = _pick(vals[k], vals[k + ITEMS // 4], u32(kind), is_max)
    for k in ps.unroll(range(ITEMS // 8)):
        vals[k] = _pick(vals[k], vals[k + ITEMS // 8], u32(kind), is_max)
    for k in ps.unroll(range(ITEMS // 16)):
        vals[k] = _pick(vals[k], vals[k + ITEMS // 16], u32(kind), is_max)
    for k in ps.unroll(range(ITEMS // 32)):
        vals[k] = _pick(vals[k], vals[k + ITEMS // 32], u32(kind), is_max)
    part[lx] = vals[0]
    d = u32(WG // 2)
    while d > 0:
        ps.barrier()
        if lx < d:
            part[lx] = _pick(part[lx], part[lx + d], u32(kind), is_max)
        d >>= 1
    if lx == 0:
        partial[grp] = part[0]


# The word that never wins a min (max) of each kind: the largest (smallest) value,
# never a NaN (a NaN would win).
_MIN_IDENT = {KIND_U32: 0xFFFFFFFF, KIND_I32: 0x7FFFFFFF, KIND_F32: POS_INF}
_MAX_IDENT = {KIND_U32: 0, KIND_I32: SIGN, KIND_F32: 0xFF800000}


def sum_tolerance(n: int) -> float:
    """The float32 bound of ``reduce(x, "sum")``: within ``sum_tolerance(n) *
    sum(abs(x))`` of the exact sum (one rounding per tree level, at most 2^-24
    relative each)."""
    return (max(1, math.ceil(math.log2(max(n, 2)))) + 1) * 2.0 ** -24


def reduce(x: Any, op: str = "sum", device: Any = None) -> Any:
    """Reduce a 1-D uint32, int32 or float32 array to one value on the device.

    ``op`` is ``"sum"`` (integers wrap modulo 2^32, as ``numpy.sum(x,
    dtype=x.dtype)``; float32 within ``sum_tolerance(n) * sum(abs(x))`` of the exact
    sum), ``"min"`` or ``"max"`` (``numpy.min``/``numpy.max``: a float NaN propagates;
    -0.0 counts below 0.0; an empty array is a ValueError).

    ``x`` may be a device array (the result is a device array of one element on its
    device, so nothing is read back), a CuPy array or torch CUDA tensor (adopted by
    the cuda device without a copy; the result is a one-element cuda device array), or
    host data (uploaded to ``device``, default the best available; the result is a
    numpy scalar of ``x``'s dtype, as ``numpy.sum`` gives). Every launch is recorded in
    one ``dev.batch()``.
    """
    if op not in OPS:
        raise ValueError(f"reduce(): op must be one of {', '.join(map(repr, OPS))}, "
                         f"got {op!r}")
    arr = operand(x, device, "reduce")
    if arr.n == 0 and op != "sum":
        raise ValueError(f"reduce(): an empty array has no {op} (numpy raises too)")
    out = _reduce(arr, op)
    return out.numpy()[0] if arr.host else give(arr, out)


def _reduce(arr: Operand, op: str) -> ps.DeviceArray:
    dev, n, dtype = arr.device, arr.n, arr.dtype
    if n == 0:
        return dev.zeros(1, dtype)
    with dev.batch():
        if op == "sum":
            ident, elem = identity(dtype), element_type(dtype)
            src = arr.array
            while True:
                tiles = groups_for(n, TILE)
                part = _partials(dev, tiles, dtype, src is arr.array)
                sum_tiles.launch(src, part, n, ident, ITEMS, elem, threads=tiles * WG,
                                 device=dev)
                if tiles == 1:
                    return part
                src, n = part, tiles
        kind = kind_of(dtype)
        is_max = op == "max"
        word = (_MAX_IDENT if is_max else _MIN_IDENT)[kind]
        src = arr.array.view(np.uint32)
        while True:
            tiles = groups_for(n, TILE)
            part = _partials(dev, tiles, np.dtype(np.uint32), n == arr.n)
            minmax_tiles.launch(src, part, n, word, kind, is_max,
                                threads=tiles * WG, device=dev)
            if tiles == 1:
                return part.view(dtype)
            src, n = part, tiles


def _partials(dev: ps.Device, tiles: int, dtype: np.dtype, first: bool) -> ps.DeviceArray:
    """The tiles' partial results: the result itself (a new array) for one tile, else a
    scratch array (``first``: of the first level, else of the second; more levels need
    over 2^32 elements), reused by the next call with no allocation."""
    if tiles == 1:
        return dev.empty(1, dtype)
    return scratch(dev, f"reduce.partial{0 if first else 1}.{dtype.char}", tiles, dtype)
