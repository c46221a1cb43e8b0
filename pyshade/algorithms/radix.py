"""A portable LSD radix sort of u32 keys (and i32 values carried along): per-tile
digit histograms, a device-wide scan of them, and a scatter of each tile sorted
locally in shared memory; no subgroup operations, so the same source runs on every
device and gives the same result.

Four passes of 8-bit digits, least significant first. Each pass:

1. ``radix_hist``: each workgroup counts the digits of its tile of ``TILE``
   consecutive keys into 256 counters in shared memory (``ps.atomic_add``: a count
   does not depend on the order the additions land in) and writes the tile's count of
   each digit to ``counts[digit * tiles + tile]``.
2. The exclusive scan of ``counts`` (``scan.record_scan``): digit-major order makes
   ``offsets[digit * tiles + tile]`` the first position of that tile's keys of that
   digit in the output.
3. ``radix_scatter``: each workgroup sorts its tile stably by the digit in shared
   memory, as two 4-bit splits. A split gives every invocation ``ITEMS`` consecutive
   entries, which it counts in order into 16 16-bit counters packed into two
   ``uvec4`` (a tile has ``TILE = 1024`` keys, so no counter overflows into the
   next); an inclusive scan of the invocations' counters in shared memory, and the
   exclusive scan of the tile's totals over the digits, give every entry its new
   place. The entries are (digit, index in the tile) packed into a word, so only
   4 bytes per key move in shared memory (a tile of keys, values and counters would
   not fit the 16 KiB every device has). Then the key at sorted place j, of digit d,
   is read again at its index (the tile was just read, so from cache) and written to
   ``offsets[d * tiles + tile] + j - first[d]`` (``first[d]``: the tile's first place
   of digit d, where the sorted digits change), so consecutive invocations write
   consecutive addresses; the value with it. A partial last tile sorts only the keys
   it has.

The places come from scans, not from an order of atomics, so every pass is stable and
the sort is deterministic; with the indices as values it is
``numpy.argsort(kind="stable")`` of the keys. Four passes (an even number) leave the
result in the input arrays.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32, uvec4

from ._arrays import groups_for, scratch
from .scan import record_scan, scan_scratch

WG = 128                # invocations of radix_scatter's workgroup
# entries per invocation in a split, counted serially. 8 rather than 16: on the H200,
# tiles of 1024 keys made the sort of 2^24 keys 15% faster through Vulkan and WebGPU
# and left CUDA's time as it was (bench/probes/radix_stage_profile.py --variants)
ITEMS = 8
TILE = WG * ITEMS       # keys per tile: a 16-bit counter holds TILE
HIST_WG = 256           # radix_hist's workgroup: one invocation per digit
HIST_ITEMS = TILE // HIST_WG
BITS = 8
BUCKETS = 1 << BITS
PASSES = 32 // BITS
SPLIT_BITS = 4          # digit bits per local split: 16 counters in two uvec4
# a tile in shared memory with one spare word every 32 (see _slot): 4224 bytes; with
# the scan's 4 KiB and the first places' 1 KiB the workgroup stays within the 16 KiB
# every WebGPU device has
SLOTS = TILE + TILE // 32
IDX_BITS = 16           # an entry: digit << 16 | index in the tile


def _slot(j: u32) -> u32:
    """The shared-memory word of tile place ``j``: one word skipped every 32, so that
    invocation i reading place ``i * ITEMS + k`` hits a different bank from its
    neighbours (strides of ITEMS words would make lanes share banks)."""
    return j + (j >> 5)


def _word(v: uvec4, w: u32) -> u32:
    """Component ``w`` (0..3) of ``v``."""
    if w == 0:
        return v.x
    if w == 1:
        return v.y
    if w == 2:
        return v.z
    return v.w


def _unit(d: u32) -> uvec4:
    """Four words of packed 16-bit counters (digits 0..7 of a half) with 1 in digit
    ``d``'s counter."""
    bit = u32(1) << ((d & 1) * 16)
    w = d >> 1
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


@ps.kernel(workgroup_size=HIST_WG)
def radix_hist(keys: ps.Buffer[u32], counts: ps.Buffer[u32], n: u32, shift: u32) -> None:
    """``counts[d * tiles + tile]`` = how many keys of the tile have digit
    ``(key >> shift) & 255``."""
    hist = ps.shared_array(u32, BUCKETS)
    lx = ps.local_index()
    tile = ps.global_id().x // HIST_WG
    hist[lx] = 0
    ps.barrier()
    base = tile * TILE
    for k in ps.unroll(range(HIST_ITEMS)):
        i = base + k * HIST_WG + lx                 # consecutive invocations, consecutive keys
        if i < n:
            ps.atomic_add(hist, (keys[i] >> shift) & (BUCKETS - 1), 1)
    ps.barrier()
    tiles = len(counts) // BUCKETS
    counts[lx * tiles + tile] = hist[lx]


@ps.kernel(workgroup_size=WG)
def radix_scatter(keys: ps.Buffer[u32], vals: ps.Buffer[i32], offsets: ps.Buffer[u32],
                  keys_out: ps.Buffer[u32], vals_out: ps.Buffer[i32], n: u32, shift: u32,
                  kv: ps.Const[bool]) -> None:
    """Sort the tile stably by digit ``(key >> shift) & 255`` in shared memory, then
    write its key (and value with ``kv``) at sorted place j, of digit d, to
    ``offsets[d * tiles + tile] + j - first[d]``."""
    work = ps.shared_array(u32, SLOTS)
    scan_lo = ps.shared_array(uvec4, WG)
    scan_hi = ps.shared_array(uvec4, WG)
    first = ps.shared_array(u32, BUCKETS)
    lx = ps.local_index()
    tile = ps.global_id().x // WG
    base = tile * TILE
    # the keys of a partial last tile: a missing key would sort behind every present
    # one (as digit 255, index past theirs) in both splits, so it is simply left out
    count = min(n - base, u32(TILE))
    for k in ps.unroll(range(ITEMS)):
        j = k * WG + lx
        if j < count:
            d = (keys[base + j] >> shift) & (BUCKETS - 1)
            work[_slot(j)] = (d << IDX_BITS) | j
    entry = ps.array(u32, ITEMS)
    rank = ps.array(u32, ITEMS)
    for half in range(u32(BITS // SPLIT_BITS)):
        at = IDX_BITS + half * SPLIT_BITS
        ps.barrier()            # the entries are in place; the last split's scan is read
        lo = uvec4(0, 0, 0, 0)
        hi = uvec4(0, 0, 0, 0)
        for k in ps.unroll(range(ITEMS)):
            if lx * ITEMS + k < count:
                e = work[_slot(lx * ITEMS + k)]
                d = (e >> at) & 15
                entry[k] = e
                rank[k] = _count(lo, hi, d)
                # one half changes: one vector addition (the cpu device's cost is in them)
                if d < 8:
                    lo = lo + _unit(d)
                else:
                    hi = hi + _unit(d - 8)
        # Hillis-Steele inclusive scan of the invocations' counters (a raking scan,
        # with 3 barriers instead of 14, was faster on lavapipe but 1.5 times slower on
        # the H200, whose idle lanes in the serial parts cost more than the barriers)
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
        # the exclusive scan over the digits of the tile's totals, still packed: word w
        # holds the first places of digits 2w (low half) and 2w + 1 (high half)
        t_lo = scan_lo[WG - 1]
        t_hi = scan_hi[WG - 1]
        even_lo = t_lo & uvec4(0xFFFF)
        even_hi = t_hi & uvec4(0xFFFF)
        pair_lo = even_lo + (t_lo >> uvec4(16))
        pair_hi = even_hi + (t_hi >> uvec4(16))
        p1 = pair_lo.x
        p2 = p1 + pair_lo.y
        p3 = p2 + pair_lo.z
        p4 = p3 + pair_lo.w
        p5 = p4 + pair_hi.x
        p6 = p5 + pair_hi.y
        p7 = p6 + pair_hi.z
        start_lo = uvec4(0, p1, p2, p3) * uvec4(0x10001) + (even_lo << uvec4(16))
        start_hi = uvec4(p4, p5, p6, p7) * uvec4(0x10001) + (even_hi << uvec4(16))
        # each digit's first place for this invocation's entries; every field stays
        # below TILE, so no packed addition carries
        place_lo = start_lo + scan_lo[lx] - lo
        place_hi = start_hi + scan_hi[lx] - hi
        for k in ps.unroll(range(ITEMS)):
            if lx * ITEMS + k < count:
                e = entry[k]
                work[_slot(_count(place_lo, place_hi, (e >> at) & 15) + rank[k])] = e
    ps.barrier()
    # the first place of each digit present: where the sorted digits change
    for k in ps.unroll(range(ITEMS)):
        j = k * WG + lx
        if j < count:
            d = work[_slot(j)] >> IDX_BITS
            before = work[_slot(max(j, 1) - 1)] >> IDX_BITS
            if j == 0 or before != d:
                first[d] = j
    ps.barrier()
    tiles = len(offsets) // BUCKETS
    for k in ps.unroll(range(ITEMS)):
        j = k * WG + lx                             # consecutive places, consecutive addresses
        if j < count:
            e = work[_slot(j)]
            src = base + (e & ((1 << IDX_BITS) - 1))
            d = e >> IDX_BITS
            dst = offsets[d * tiles + tile] + j - first[d]
            keys_out[dst] = keys[src]
            if kv:
                vals_out[dst] = vals[src]


def record_radix(dev: ps.Device, keys: ps.DeviceArray, vals: ps.DeviceArray | None,
                 n: int) -> None:
    """Record the radix sort of ``keys[:n]`` (with ``vals[:n]``) in place on ``dev``,
    inside a ``dev.batch()``: the passes alternate between the arrays and scratch
    copies, and an even number of passes ends in the arrays."""
    tiles = groups_for(n, TILE)
    kv = vals is not None
    counts = scratch(dev, "radix.counts", BUCKETS * tiles, np.uint32)
    offsets = scratch(dev, "radix.offsets", BUCKETS * tiles, np.uint32)
    levels = scan_scratch(dev, BUCKETS * tiles, np.uint32)      # once, for every pass
    k_a, k_b = keys, scratch(dev, "radix.keys", n, np.uint32)
    # without values, two distinct placeholders: one array bound to two parameters,
    # one of them written, is refused at launch
    v_a = vals if vals is not None else scratch(dev, "radix.no_vals", 1, np.int32)
    v_b = scratch(dev, "radix.vals" if kv else "radix.no_vals_b", n if kv else 1, np.int32)
    for p in range(PASSES):
        shift = p * BITS
        radix_hist.launch(k_a, counts, n, shift, threads=tiles * HIST_WG, device=dev)
        record_scan(dev, counts, offsets, BUCKETS * tiles, False, levels)
        radix_scatter.launch(k_a, v_a, offsets, k_b, v_b, n, shift, kv,
                             threads=tiles * WG, device=dev)
        k_a, k_b = k_b, k_a
        if kv:
            v_a, v_b = v_b, v_a
