"""Prefix sums on the device: ``scan(x)`` (inclusive, ``numpy.cumsum``) and
``scan(x, inclusive=False)`` (exclusive).

Reduce, then scan: an array of more than one tile of ``TILE = ITEMS * WG`` elements
is first reduced per tile (``reduce.sum_tiles``, which reads it once), the tile
totals are scanned (exclusively, recursively), and ``scan_tiles`` then scans each
tile starting from the total of the tiles before it. Memory traffic is three passes
over the data (CUB's decoupled look-back needs two, but relies on workgroups that
wait for each other, which no portable API promises); the earlier scan-then-add
wrote the result twice and took 1.7x CuPy's time on the H200.

``scan_tiles``: ``WG`` invocations load their tile in shared memory (element
``k * WG + lx``: consecutive words per load), each adds up its ``ITEMS`` consecutive
elements, a Hillis-Steele scan across the workgroup gives each invocation the sum of
those before it, and each invocation writes its elements' prefixes back to shared
memory, from where the workgroup stores them as it loaded them. Shared indices skip
a word every 32 (``_pad``), so that the invocations' strided accesses fall in
different banks. Every launch of one call is recorded in one ``dev.batch()``.

Integers wrap (u32 and i32 modulo 2^32, as ``numpy.cumsum(x, dtype=x.dtype)``).
float32 sums are added in this order, not numpy's (sequential) one, so they differ
from ``numpy.cumsum`` by rounding: every prefix is within ``scan_tolerance(n)`` times
the prefix sum of ``abs(x)`` of the exact value. NaN and infinities propagate as in
numpy, and a prefix of only -0.0 stays -0.0 (the padding is -0.0, which adds nothing,
sign included); the exclusive scan's first element is +0.0, numpy's empty sum.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np

import pyshade as ps
from pyshade import f32, i32, u32

from ._arrays import Operand, give, groups_for, operand, scratch

T = TypeVar("T", u32, i32, f32)

WG = 256
ITEMS = 8               # elements per invocation
TILE = ITEMS * WG


def _pad(j: u32) -> u32:
    """Shared index of tile element ``j``: one word skipped every 32 (bank conflicts)."""
    return j + (j >> 5)


@ps.kernel(workgroup_size=WG)
def scan_tiles(data: ps.Buffer[T], out: ps.Buffer[T], offsets: ps.Buffer[T], n: u32,
               ident: T, inclusive: ps.Const[bool], offset: ps.Const[bool],
               elem: ps.Const[type[T]], summed: ps.Const[bool]) -> None:
    """Scan each tile of ``TILE`` elements of ``data[:n]`` into ``out`` (inclusive or
    exclusive), starting each tile but the first from ``offsets[tile]`` when
    ``offset`` (the first tile's is the empty sum: adding +0.0 would turn a -0.0
    prefix into +0.0), or, when ``summed``, from the sum of ``offsets[:tile]`` (the
    tiles' totals, added up here by each workgroup: integers only, in no set order).
    ``ident`` (0, or -0.0 for floats) pads the last tile; ``elem`` is ``T`` as a value
    (a type checker takes no TypeVar as an argument), for the shared arrays."""
    tile = ps.shared_array(elem, TILE + TILE // 32)
    part = ps.shared_array(elem, WG)
    lx = ps.local_index()
    grp = ps.global_id().x // WG
    base = grp * TILE
    start = ident
    if summed:
        # the totals of the tiles before this one, read WG at a time and added as a tree
        acc = ident
        j = lx
        while j < grp:
            acc = acc + offsets[j]
            j += WG
        part[lx] = acc
        half = u32(WG // 2)
        while half > 0:
            ps.barrier()
            if lx < half:
                part[lx] = part[lx] + part[lx + half]
            half //= 2
        ps.barrier()
        start = part[0]
        ps.barrier()            # part is written again below
    for k in range(u32(ITEMS)):
        v = ident
        if base + k * WG + lx < n:
            v = data[base + k * WG + lx]
        tile[_pad(k * WG + lx)] = v
    ps.barrier()
    total = ident
    for k in range(u32(ITEMS)):
        total = total + tile[_pad(lx * ITEMS + k)]
    part[lx] = total
    # Hillis-Steele inclusive scan of the invocations' totals
    d = u32(1)
    while d < WG:
        ps.barrier()
        t = part[lx]
        if lx >= d:
            t = part[lx - d] + t
        ps.barrier()
        part[lx] = t
        d *= 2
    ps.barrier()
    run = ident
    if lx > 0:
        run = part[lx - 1]
    if summed:
        run = start + run
    elif offset and grp > 0:
        if lx > 0:
            run = offsets[grp] + run
        else:
            run = offsets[grp]
    for k in range(u32(ITEMS)):
        j = _pad(lx * ITEMS + k)
        x = tile[j]
        if inclusive:
            run = run + x
            tile[j] = run
        else:
            tile[j] = run
            run = run + x
    ps.barrier()
    for k in range(u32(ITEMS)):
        i = base + k * WG + lx
        if i < n:
            if not inclusive and i == 0:
                out[i] = elem(0)        # the empty sum is +0.0, not the -0.0 padding
            else:
                out[i] = tile[_pad(k * WG + lx)]


def element_type(dtype: np.dtype) -> Any:
    """The kernel scalar type of a dtype (``ps.u32``, ``ps.i32``, ``ps.f32``)."""
    return {"u": u32, "i": i32, "f": f32}[dtype.kind]


def identity(dtype: np.dtype) -> Any:
    """The padding of a sum: 0, or -0.0 for float32 (``-0.0 + x`` is ``x`` for every
    ``x``, -0.0 included)."""
    return np.float32(-0.0) if dtype.kind == "f" else dtype.type(0)


def scan_scratch(dev: ps.Device, n: int, dtype: Any) -> list[ps.DeviceArray]:
    """The scratch arrays ``record_scan`` of n elements of ``dtype`` uses, every level's:
    a caller that scans the same length repeatedly (the radix sort, once per pass)
    allocates them once, since an allocation can cost more than the scan (NVIDIA's
    Vulkan driver takes milliseconds per large buffer)."""
    arrays: list[ps.DeviceArray] = []
    tiles = groups_for(n, TILE)
    while tiles > 1:                                    # one tile is scanned in place
        level = len(arrays) // 2
        arrays.append(scratch(dev, f"scan.totals{level}", tiles, dtype))
        arrays.append(scratch(dev, f"scan.starts{level}", tiles, dtype))
        tiles = groups_for(tiles, TILE)
    return arrays


def record_scan(dev: ps.Device, src: ps.DeviceArray, out: ps.DeviceArray, n: int,
                inclusive: bool, scratch: list[ps.DeviceArray] | None = None) -> None:
    """Record the scan of ``src[:n]`` into ``out[:n]`` on ``dev`` (same dtype; called
    inside a ``dev.batch()``). ``scratch`` is ``scan_scratch(dev, n, dtype)``, made
    here when not given."""
    if n == 0:
        return
    # imported here: reduce.py imports this module
    from .reduce import sum_tiles
    dtype = np.dtype(src.dtype)
    if scratch is None:
        scratch = scan_scratch(dev, n, dtype)
    tiles = groups_for(n, TILE)
    ident, elem = identity(dtype), element_type(dtype)
    if tiles == 1:
        scan_tiles.launch(src, out, src, n, ident, inclusive, False, elem, False, threads=WG,
                          device=dev)
        return
    sums, offsets = scratch[0], scratch[1]
    sum_tiles.launch(src, sums, n, ident, ITEMS, elem, threads=tiles * WG, device=dev)
    record_scan(dev, sums, offsets, tiles, False, scratch[2:])
    scan_tiles.launch(src, out, offsets, n, ident, inclusive, True, elem, False,
                      threads=tiles * WG, device=dev)


def scan_tolerance(n: int) -> float:
    """The float32 bound of ``scan``: each prefix is within ``scan_tolerance(n) *
    cumsum(abs(x))`` of the exact prefix sum. Per level of tiles (each covering
    ``TILE`` times more elements) a prefix takes at most ``ITEMS`` roundings inside
    its invocation, ``log2(WG)`` in the scan across the workgroup, one to start from
    the tile offset and ``log2(TILE)`` in the tile total's pairwise sum, each at most
    2^-24 relative."""
    levels = max(1, math.ceil(math.log2(max(n, 2)) / math.log2(TILE)))
    per_level = ITEMS + math.log2(WG) + 1 + math.log2(TILE)
    return levels * per_level * 2.0 ** -24


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
