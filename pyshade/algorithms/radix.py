"""A portable LSD radix sort of u32 keys (and i32 values carried along): per-tile
digit histograms, a device-wide scan, a stable scatter; no subgroup operations and no
atomics, so the same source runs on every device and gives the same result.

Eight passes of 4-bit digits, least significant first. Each pass:

1. ``radix_rank``: each workgroup takes a tile of ``TILE`` consecutive keys,
   ``ITEMS`` per invocation, and gives every key its rank among the keys of its tile
   with the same digit (how many come before it): each invocation counts its own
   keys in order into 16 16-bit counters packed into two ``uvec4`` (a tile has at
   most ``TILE = 1024`` keys, so no counter overflows into the next), then an
   inclusive scan of the invocations' counters in shared memory gives what the
   invocations before it counted. It writes the ranks, and the tile's count of each
   digit to ``counts[digit * tiles + tile]``.
2. The exclusive scan of ``counts`` (``scan.record_scan``): digit-major order makes
   ``offsets[digit * tiles + tile]`` the first position of that tile's keys of that
   digit in the output.
3. ``radix_scatter``: key i goes to ``offsets[digit * tiles + tile] + rank[i]``.

The rank is a scan, not an order of atomics, so every pass is stable and the sort is
deterministic; with the indices as values it is ``numpy.argsort(kind="stable")`` of
the keys.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32, uvec4

from ._arrays import groups_for
from .scan import record_scan

WG = 128
ITEMS = 8               # keys per invocation, counted serially
TILE = WG * ITEMS       # keys per tile: a 16-bit counter holds TILE
BITS = 4
BUCKETS = 1 << BITS
PASSES = 32 // BITS


def _word(v: uvec4, w: u32) -> u32:
    """Component ``w`` (0..3) of ``v``."""
    if w == 0:
        return v.x
    if w == 1:
        return v.y
    if w == 2:
        return v.z
    return v.w


def _unit(d: u32, half: u32) -> uvec4:
    """The packed counters of digits ``8 * half .. 8 * half + 7`` (16 bits each, two
    per word) with 1 in digit ``d``'s counter; zero when ``d`` is in the other half."""
    w = d >> 1
    bit = u32(1) << ((d & 1) * 16)
    if (w >> 2) != half:
        return uvec4(0, 0, 0, 0)
    w = w & 3
    if w == 0:
        return uvec4(bit, 0, 0, 0)
    if w == 1:
        return uvec4(0, bit, 0, 0)
    if w == 2:
        return uvec4(0, 0, bit, 0)
    return uvec4(0, 0, 0, bit)


def _count(lo: uvec4, hi: uvec4, d: u32) -> u32:
    """Digit ``d``'s counter in the packed counters ``lo`` (digits 0..7), ``hi`` (8..15)."""
    w = d >> 1
    v = _word(hi, w - 4) if w >= 4 else _word(lo, w)
    return (v >> ((d & 1) * 16)) & 0xFFFF


@ps.kernel(workgroup_size=WG)
def radix_rank(keys: ps.Buffer[u32], ranks: ps.Buffer[u32], counts: ps.Buffer[u32], n: u32,
               shift: u32) -> None:
    """``ranks[i]`` = how many keys before key i in its tile have its digit
    ``(key >> shift) & 15``; ``counts[d * tiles + tile]`` = how many keys of the tile
    have digit d."""
    scan_lo = ps.shared_array(uvec4, WG)
    scan_hi = ps.shared_array(uvec4, WG)
    lx = ps.local_index()
    first = ps.global_id().x // WG * TILE + lx * ITEMS
    digit = ps.array(u32, ITEMS)
    rank = ps.array(u32, ITEMS)
    # this invocation's ITEMS consecutive keys, counted in order
    lo = uvec4(0, 0, 0, 0)
    hi = uvec4(0, 0, 0, 0)
    for k in range(u32(ITEMS)):
        if first + k < n:
            d = (keys[first + k] >> shift) & (BUCKETS - 1)
            digit[k] = d
            rank[k] = _count(lo, hi, d)
            lo = lo + _unit(d, 0)
            hi = hi + _unit(d, 1)
    # Hillis-Steele inclusive scan of the invocations' counters
    scan_lo[lx] = lo
    scan_hi[lx] = hi
    off = u32(1)
    while off < WG:
        ps.barrier()
        a = scan_lo[lx]
        b = scan_hi[lx]
        if lx >= off:
            a = a + scan_lo[lx - off]
            b = b + scan_hi[lx - off]
        ps.barrier()
        scan_lo[lx] = a
        scan_hi[lx] = b
        off *= 2
    ps.barrier()
    before_lo = scan_lo[lx] - lo
    before_hi = scan_hi[lx] - hi
    for k in range(u32(ITEMS)):
        if first + k < n:
            ranks[first + k] = _count(before_lo, before_hi, digit[k]) + rank[k]
    if lx < BUCKETS:
        tiles = len(counts) // BUCKETS
        counts[lx * tiles + ps.global_id().x // WG] = _count(scan_lo[WG - 1], scan_hi[WG - 1], lx)


@ps.kernel(workgroup_size=WG)
def radix_scatter(keys: ps.Buffer[u32], vals: ps.Buffer[i32], ranks: ps.Buffer[u32],
                  offsets: ps.Buffer[u32], keys_out: ps.Buffer[u32], vals_out: ps.Buffer[i32],
                  n: u32, shift: u32, kv: ps.Const[bool]) -> None:
    """Key i (and value i with ``kv``) to ``offsets[digit * tiles + tile] + ranks[i]``."""
    i = ps.global_id().x
    if i < n:
        k = keys[i]
        d = (k >> shift) & (BUCKETS - 1)
        tiles = len(offsets) // BUCKETS
        dst = offsets[d * tiles + i // TILE] + ranks[i]
        keys_out[dst] = k
        if kv:
            vals_out[dst] = vals[i]


def record_radix(dev: ps.Device, keys: ps.DeviceArray, vals: ps.DeviceArray | None,
                 n: int) -> None:
    """Record the radix sort of ``keys[:n]`` (with ``vals[:n]``) in place on ``dev``,
    inside a ``dev.batch()``: the passes alternate between the arrays and scratch
    copies, and an even number of passes ends in the arrays."""
    tiles = groups_for(n, TILE)
    kv = vals is not None
    ranks = dev.empty(n, np.uint32)
    counts = dev.empty(BUCKETS * tiles, np.uint32)
    offsets = dev.empty(BUCKETS * tiles, np.uint32)
    k_a, k_b = keys, dev.empty(n, np.uint32)
    # without values, two distinct placeholders: one array bound to two parameters,
    # one of them written, is refused at launch
    v_a = vals if vals is not None else dev.empty(1, np.int32)
    v_b = dev.empty(n if kv else 1, np.int32)
    for p in range(PASSES):
        shift = p * BITS
        radix_rank.launch(k_a, ranks, counts, n, shift, threads=tiles * WG, device=dev)
        record_scan(dev, counts, offsets, BUCKETS * tiles, False)
        radix_scatter.launch(k_a, v_a, ranks, offsets, k_b, v_b, n, shift, kv,
                             threads=n, device=dev)
        k_a, k_b = k_b, k_a
        if kv:
            v_a, v_b = v_b, v_a
