"""Prefix sums on the device: ``scan(x)`` (inclusive, ``numpy.cumsum``) and
``scan(x, inclusive=False)`` (exclusive).

A work-efficient (Blelloch) scan per workgroup: each workgroup of ``WG``
invocations scans a tile of ``TILE = 2 * WG`` elements in shared memory (an
up-sweep that builds a tree of partial sums, then a down-sweep that turns it into
exclusive prefixes) and writes its tile's total; the totals are scanned the same
way, recursively, and each tile adds the total of the tiles before it. Every launch
of one call is recorded in one ``dev.batch()``.

Integers wrap (u32 and i32 modulo 2^32, as ``numpy.cumsum(x, dtype=x.dtype)``).
float32 sums are added in the tree's order, not numpy's (sequential) one, so they
differ from ``numpy.cumsum`` by rounding: every prefix is within
``scan_tolerance(n)`` times the prefix sum of ``abs(x)`` of the exact value (the
tree adds about 2 log2(n) roundings to each prefix). NaN and infinities propagate
as in numpy, and a prefix of only -0.0 stays -0.0 (the padding is -0.0, which adds
nothing, sign included); the exclusive scan's first element is +0.0, numpy's empty
sum.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

from ._arrays import Operand, give, groups_for, operand

T = TypeVar("T", u32, i32, f32)

WG = 256
TILE = 2 * WG


@ps.kernel(workgroup_size=WG)
def scan_tiles(data: ps.Buffer[T], out: ps.Buffer[T], sums: ps.Buffer[T], n: u32, ident: T,
               inclusive: ps.Const[bool], elem: ps.Const[type[T]]) -> None:
    """Scan each tile of ``TILE`` elements of ``data[:n]`` into ``out`` (inclusive or
    exclusive within the tile) and write the tile's total to ``sums[tile]``;
    ``ident`` (0, or -0.0 for floats) pads the last tile. ``elem`` is ``T`` as a value
    (a type checker takes no TypeVar as an argument), for the shared array."""
    tile = ps.shared_array(elem, TILE)
    lx = ps.local_index()
    grp = ps.global_id().x // WG
    a = grp * TILE + lx
    b = a + WG
    x0 = ident
    x1 = ident
    if a < n:
        x0 = data[a]
    if b < n:
        x1 = data[b]
    tile[lx] = x0
    tile[lx + WG] = x1
    # up-sweep: tile[offset * (2k + 2) - 1] becomes the sum of its 2 * offset elements
    offset = u32(1)
    d = u32(WG)
    while d > 0:
        ps.barrier()
        if lx < d:
            hi = offset * (2 * lx + 2) - 1
            tile[hi] = tile[hi - offset] + tile[hi]
        offset *= 2
        d >>= 1
    ps.barrier()
    total = tile[TILE - 1]
    ps.barrier()          # every invocation has read the total before it is cleared
    if lx == 0:
        tile[TILE - 1] = ident
    # down-sweep: each node passes its prefix to its left child, prefix + left to its right
    d = u32(1)
    while d < TILE:
        offset >>= 1
        ps.barrier()
        if lx < d:
            hi = offset * (2 * lx + 2) - 1
            left = tile[hi - offset]
            tile[hi - offset] = tile[hi]
            tile[hi] = tile[hi] + left
        d *= 2
    ps.barrier()
    e0 = tile[lx]
    e1 = tile[lx + WG]
    if inclusive:
        e0 = e0 + x0
        e1 = e1 + x1
    elif a == 0:
        e0 = elem(0)            # the empty sum is +0.0, not the -0.0 padding
    if a < n:
        out[a] = e0
    if b < n:
        out[b] = e1
    if lx == 0:
        sums[grp] = total


@ps.kernel(workgroup_size=WG)
def add_tile_offsets(out: ps.Buffer[T], offsets: ps.Buffer[T], n: u32) -> None:
    """``out[i] += offsets[tile of i]`` for every tile but the first (whose offset is
    the empty sum: adding +0.0 would turn a -0.0 prefix into +0.0)."""
    i = ps.global_id().x
    if i < n:
        t = i // TILE
        if t > 0:
            out[i] = offsets[t] + out[i]


def element_type(dtype: np.dtype) -> Any:
    """The kernel scalar type of a dtype (``ps.u32``, ``ps.i32``, ``ps.f32``)."""
    return {"u": u32, "i": i32, "f": f32}[dtype.kind]


def identity(dtype: np.dtype) -> Any:
    """The padding of a sum: 0, or -0.0 for float32 (``-0.0 + x`` is ``x`` for every
    ``x``, -0.0 included)."""
    return np.float32(-0.0) if dtype.kind == "f" else dtype.type(0)


def record_scan(dev: ps.Device, src: ps.DeviceArray, out: ps.DeviceArray, n: int,
                inclusive: bool) -> None:
    """Record the scan of ``src[:n]`` into ``out[:n]`` on ``dev`` (same dtype; called
    inside a ``dev.batch()``)."""
    if n == 0:
        return
    dtype = np.dtype(src.dtype)
    tiles = groups_for(n, TILE)
    sums = dev.empty(tiles, dtype)
    scan_tiles.launch(src, out, sums, n, identity(dtype), inclusive, element_type(dtype),
                      threads=tiles * WG, device=dev)
    if tiles > 1:
        offsets = dev.empty(tiles, dtype)
        record_scan(dev, sums, offsets, tiles, False)
        add_tile_offsets.launch(out, offsets, n, threads=n, device=dev)


def scan_tolerance(n: int) -> float:
    """The float32 bound of ``scan``: each prefix is within ``scan_tolerance(n) *
    cumsum(abs(x))`` of the exact prefix sum (two roundings per tree level, plus the
    tile offsets' levels, each at most 2^-24 relative)."""
    levels = max(1, math.ceil(math.log2(max(n, 2))))
    return 2.0 * (levels + 2) * 2.0 ** -24


def scan(x: Any, inclusive: bool = True, device: Any = None) -> Any:
    """Prefix sums of a 1-D uint32, int32 or float32 array, computed on the device.

    ``inclusive=True`` gives ``out[i] = x[0] + ... + x[i]`` (``numpy.cumsum(x,
    dtype=x.dtype)``); ``inclusive=False`` the exclusive scan ``out[i] = x[0] + ... +
    x[i - 1]``, with ``out[0] = 0``. The result has ``x``'s dtype: integers wrap
    modulo 2^32; float32 prefixes are summed as a tree, within ``scan_tolerance(n)``
    times the prefix sum of ``abs(x)`` of the exact value (NaN and infinities
    propagate as in numpy).

    ``x`` may be a device array (the result is a new device array on its device), a
    CuPy array or torch CUDA tensor (adopted by the cuda device without a copy; the
    result is a cuda device array, which CuPy and torch take in place through
    ``__cuda_array_interface__``), or host data (uploaded to ``device``, default the
    best available; the result is a numpy array). Every launch is recorded in one
    ``dev.batch()``.
    """
    op = operand(x, device, "scan")
    return give(op, _scan(op, inclusive))


def _scan(op: Operand, inclusive: bool) -> ps.DeviceArray:
    dev = op.device
    out = dev.empty(op.n, op.dtype)
    with dev.batch():
        record_scan(dev, op.array, out, op.n, inclusive)
    return out
