"""A portable LSD radix sort of u32 keys (and i32 values carried along): per-tile
digit histograms, a device-wide scan of them, and a scatter of each tile sorted
locally in shared memory; no subgroup operations, so the same source runs on every
device and gives the same result.

Four passes of 8-bit digits, least significant first. Each pass:

1. ``radix_hist``: each workgroup counts the digits of ``HIST_TILES`` consecutive tiles
   of ``items * WG`` keys, each tile into its own 256 counters in shared memory
   (``ps.atomic_add``: a count does not depend on the order the additions land in), and
   writes each tile's count of each digit to ``counts[digit * tiles + tile]``: a
   digit's counts of the group's tiles are consecutive words. Where the scan is
   fused (``fused``, below), it also adds them (``ps.atomic_add`` again) to ``sums``,
   the totals of the tiles of ``scan.TILE`` counts that the next step scans.
2. The exclusive scan of ``counts``: digit-major order makes
   ``offsets[digit * tiles + tile]`` the first position of that tile's keys of that
   digit in the output. ``scan.record_scan`` takes three launches (the tiles' totals,
   their scan, the tiles); fused, it is one (``scan.scan_tiles`` with ``summed``: each
   workgroup adds up the ``sums`` before its tile and scans its tile from there).
3. ``radix_scatter``: each workgroup first reads its tile's 256 output offsets (their
   latency hides behind what follows), then sorts its tile stably by the digit in
   shared memory, as two 4-bit splits. A split gives every invocation ``items``
   consecutive entries, which it counts in order into 16 16-bit counters packed into
   two ``uvec4`` (word ``d & 7``, the low half for digits 0..7, the high half for
   8..15; a tile has at most ``MAX_ITEMS * WG = 2048`` keys, so no counter overflows
   into the next). A scan of the counters gives every entry its new place: either
   (``rake``) digit-major, word by word and invocation by invocation, by raking (each
   invocation sums 8 consecutive words, the 128 sums are scanned, the words are
   written back as prefixes), or a Hillis-Steele scan of each invocation's counters
   followed by the exclusive scan of the tile's 8 packed totals. Either way the low
   halves count digits 0..7 in order and the high halves 8..15, so the high halves
   are offset by the number of keys of digits 0..7. The entries are (digit, index in
   the tile) packed into a word, so only 4 bytes per key move in shared memory
   during the splits. Then the key at sorted place j, of digit d, is taken again
   (``tkeys``: from a copy of the tile's keys in shared memory; else from ``keys`` at
   its index, which was just read, so from cache) and written to ``offsets[d * tiles
   + tile] + j - first[d]`` (``first[d]``: the tile's first place of digit d, where
   the sorted digits change), so consecutive invocations write consecutive
   addresses; the value with it. A partial last tile sorts only the keys it has.
   The tile's loads and stores are issued ``unroll`` at a time, all of a group
   before the first is used, so a workgroup waits for memory once per group.
   Fused, workgroup t also sets ``sums[t]`` back to zero, so ``sums`` is zero before
   every pass's histogram (it is made zero, and dropped when a sort stops half
   recorded).

The key transforms of ``keys.py`` cost no pass of their own: the first pass reads the
caller's words and sorts by their keys (``key_of(word, kind) ^ flip``), the last one
writes the sorted keys back as words (``word_of(key, out_kind)``, reversed for a
descending sort) into the caller's output; an argsort's first pass writes each key's
index in the input as its value (no iota launch, no values read) and its last pass
writes only the values. The tile size and the unrolling of the tile's loads and
stores, ``tkeys``, ``rake`` and ``nib`` are specialisations chosen per target (``tuning``),
and so are ``sel`` (every target but cuda picks a counter by vector selections, which
SPIR-V keeps branch-free) and ``fused`` (WebGPU only, ``fused_scan``). The result does
not depend on them.

The places come from scans, not from an order of atomics, so every pass is stable and
the sort is deterministic; with the indices as values it is
``numpy.argsort(kind="stable")`` of the keys.
"""

from __future__ import annotations

import numpy as np

import pyshade as ps
from pyshade import i32, u32, uvec4

from ._arrays import drop_scratch, groups_for, scratch
from .keys import KIND_U32, key_of, word_of
from .scan import TILE as SCAN_TILE
from .scan import WG as SCAN_WG
from .scan import element_type, identity, record_scan, scan_scratch, scan_tiles

WG = 128                # invocations of radix_scatter's workgroup
# entries per invocation in a split, counted serially: a per-target specialisation
# (``tuning``). On the H200 (bench/results/h200_radix_variants_20261204_final.txt),
# tiles of 1024 keys (8 per invocation) with every loop unrolled sorted 2^24 keys
# through Vulkan and WebGPU faster than tiles of 2048 (2.46 against 2.93-2.99 ms,
# 2.63-2.74 against 3.17-3.82); through CUDA, tiles of 2048 (16 per invocation) with
# the tile's loads, stores and histogram left as loops took 1.40 ms against 1.60.
# On an H100 (bench/results/h100_radix_scatter_20261206.txt) the same two tunings with
# the offsets read first and the loads grouped took 1.315 ms (cuda) and 2.00 / 2.30 ms
# (Vulkan / WebGPU) against 1.53, 2.36 and 2.60 before; unrolling cuda's loops, keeping
# the keys in shared memory or scanning by raking made it slower there (128 registers:
# 25% occupancy, per Nsight Compute). With the splits' per-entry bound checks and
# branches gone (a partial tile's missing keys sort as digit 255; selects instead of
# ifs), the H200 (bench/results/h200_radix_scatter_20261206.txt) sorted 2^24 keys in
# 0.870 ms (16/1) and 0.836 ms (16/1 raking) through CUDA against 1.222 before; ``nib``
# (4-bit counters) took 0.970 there (116 registers per sm_90's ptxas). In three runs
# (that one and bench/results/h100_radix_scatter_20261206b.txt, ...c.txt on an H100),
# ``nib`` through Vulkan (GLSL) took 1.57-1.70 ms against a mean of 1.69-1.74 for the
# default in the same run (one default timing of the H200's run, 1.62, was below nib's
# 1.63), and raking through WebGPU 1.74-1.87 against 1.80-1.96, below every default
# timing of its run: a small gain. Both together (bench/results/h100_radix_tunings_20261206.txt,
# two H100 runs, 2^24 keys) took 1.343-1.473 ms through Vulkan against 1.444-1.593 for
# ``nib`` alone and 1.450-1.527 for the same tuning timed again, and 1.633-1.836 through
# WebGPU against 1.727-1.937 for raking alone: Vulkan and WebGPU take both. With the
# histogram writing whole sectors, tiles of 2048 keys (16 per invocation, loads and
# stores issued 4 at a time) took 1.142-1.172 ms through Vulkan against 1.331-1.422 for
# 8/8 in the same runs (bench/results/h100_radix_tunings_20261206.txt, runs 4 and 6; a
# run without the cuda device first was disturbed), and no less through WebGPU. Once naga
# added no runtime checks (index clamping, loop bounding), WebGPU took 16/4 too: 1.210 and
# 1.249 ms against 1.370 and 1.449 for 8/8 (bench/results/h100_host_20261206.txt).
ITEMS = 8               # the default (every target but cuda)
MAX_ITEMS = 16          # a 16-bit counter holds MAX_ITEMS * WG
HIST_WG = 256           # radix_hist's workgroup
# tiles a radix_hist workgroup counts: a digit's counts of them are whole 32-byte sectors
# of ``counts`` (a word per tile, written one by one, cost more than the counting)
HIST_TILES = 8
assert HIST_WG == 256, "radix_hist's invocation lx adds up digit lx's counts"
BITS = 8
BUCKETS = 1 << BITS
PASSES = 32 // BITS
SPLIT_BITS = 4          # digit bits per local split: 16 counters in two uvec4
# a tile in shared memory with one spare word every 32 (see _slot): 8448 bytes for
# 2048 keys; with the scan's 4 KiB and the first places' 1 KiB the workgroup stays
# within the 16 KiB every WebGPU device has
IDX_BITS = 16           # an entry: digit << 16 | index in the tile
# during a split, an entry also holds its rank among the invocation's entries of its
# digit (below MAX_ITEMS) in the bits between the index (below 2048) and the digit
RANK_AT = 11
# what radix_scatter's pass carries along with the keys (``vmode``)
NO_VALS = 0
CARRY_VALS = 1
INDEX_VALS = 2          # the keys' indices in the input (argsort's first pass)


def tuning(dev: ps.Device) -> tuple[int, int, bool, bool, bool]:
    """(items, unroll, tkeys, rake, nib) for ``dev``: keys per invocation (a tile is ``items *
    WG`` keys), how many of the tile's loads and stores are issued together (unrolled;
    ``items``: all, 1: one at a time), whether the scatter keeps the tile's keys in
    shared memory (else it reads them again from global memory) and whether a split's
    counters are scanned by raking (else Hillis-Steele), whether a split counts its keys
    in 4-bit counters (else 16-bit). Only the speed depends on them."""
    if dev.target == "cuda":
        return 16, 1, False, True, False
    if dev.target in ("glsl", "wgsl"):
        return 16, 4, False, True, True
    return ITEMS, ITEMS, False, False, False


def selects(dev: ps.Device) -> bool:
    """The scatter's ``sel`` for ``dev``: every target but cuda picks a counter by vector
    selections (``_count_sel``), cuda by ``?:`` (``_count``, 7% faster there)."""
    return dev.target != "cuda"


def fused_scan(dev: ps.Device) -> bool:
    """Whether ``dev`` scans a pass's counts in one launch (``fused``: the histogram adds
    up the scan tiles' totals with atomics, the scatter sets them back to zero) rather
    than ``record_scan``'s three. WebGPU only: there the fewer launches took a sort of
    2^24 keys from 1.238 to 1.190 ms on an H100, where the atomics and the zeroing made
    it slower through CUDA (0.811 to 0.816 ms) and Vulkan (0.986 to 1.012)
    (bench/results/h100_radix_fused_20261206.txt: interleaved, 7 rounds)."""
    return dev.target == "wgsl"


def hist_shape(tiles: int, items: int, unroll: int) -> tuple[int, int]:
    """(threads, unroll) of a ``radix_hist`` launch over ``tiles`` tiles of ``items * WG``
    keys: ``HIST_TILES`` tiles a workgroup, and no more loads issued together than a
    tile has per invocation."""
    return groups_for(tiles, HIST_TILES) * HIST_WG, min(unroll, items * WG // HIST_WG)


def _slot(j: u32) -> u32:
    """The shared-memory word of tile place ``j``: one word skipped every 32, so that
    invocation i reading place ``i * ITEMS + k`` hits a different bank from its
    neighbours (strides of ITEMS words would make lanes share banks)."""
    return j + (j >> 5)


def _word(v: uvec4, w: u32) -> u32:
    """Component ``w`` (0..3) of ``v``, by selections, not branches (in a split's loop a
    branch per key costs more than the three selects, per the sm_90 SASS)."""
    return (v.x if w == 0 else v.y) if w < 2 else (v.z if w == 2 else v.w)


def _word_sel(v: uvec4, w: u32) -> u32:
    """``_word`` by one vector ``ps.select`` and three ors: branch-free SPIR-V. GLSL's and
    HLSL's ``?:`` become a branch and a phi there, and SwiftShader's Subzero ran out of
    memory compiling a scatter with hundreds of them; on cuda this form took 7% longer
    (bench/results/h100_radix_scatter_20261206e.txt), so the scatter's ``sel`` picks."""
    one = ps.select(uvec4(0, 0, 0, 0), v, uvec4(w) == uvec4(0, 1, 2, 3))
    return (one.x | one.y) | (one.z | one.w)


def _unit(w4: u32, bit: u32) -> uvec4:
    """A uvec4 of packed counters holding ``bit`` in word ``w4`` (0..3) and 0 elsewhere."""
    return uvec4(bit if w4 == 0 else 0, bit if w4 == 1 else 0, bit if w4 == 2 else 0,
                 bit if w4 == 3 else 0)


def _count(lo: uvec4, hi: uvec4, d: u32) -> u32:
    """Digit ``d``'s counter (0..15) in the packed counters ``lo`` (words 0..3), ``hi``
    (words 4..7): word ``d & 7``, its low 16 bits for digits 0..7, its high 16 for 8..15.
    Scanned in (word, invocation) order, the low halves then count digits 0..7 in order
    and the high halves 8..15, so the 16-digit scan is 8 words wide."""
    w = d & 7
    return _half(_word(hi, w - 4) if w >= 4 else _word(lo, w), d)


def _count_sel(lo: uvec4, hi: uvec4, d: u32) -> u32:
    """``_count`` by vector selections (see ``_word_sel``)."""
    return _half(_word_sel(ps.select(lo, hi, uvec4(d & 4) != uvec4(0, 0, 0, 0)), d & 3), d)


def _half(v: u32, d: u32) -> u32:
    """Digit ``d``'s 16-bit counter in its packed word ``v``: the low half for digits
    0..7, the high half for 8..15."""
    return (v >> ((d >> 3) * 16)) & 0xFFFF


def _index(e: u32) -> u32:
    """The index in the tile of entry ``e`` (its low ``IDX_BITS``)."""
    return e & ((1 << IDX_BITS) - 1)


def _bump(lo: uvec4, hi: uvec4, d: u32) -> tuple[uvec4, uvec4]:
    """The packed counters ``lo``, ``hi`` (see ``_count``) with digit ``d``'s counter one
    higher: one half changes, by one vector addition (the cpu device's cost is in them)."""
    bit = u32(1) << ((d >> 3) * 16)
    if (d & 7) < 4:
        return lo + _unit(d & 3, bit), hi
    return lo, hi + _unit(d & 3, bit)


def _rake_slot(p: u32) -> u32:
    """The shared word of counter ``p`` of the raking scan: one spare word every 8, so
    that invocation r reading words ``8r .. 8r + 7`` hits a different bank from its
    neighbours."""
    return p + (p >> 3)


@ps.kernel(workgroup_size=HIST_WG)
def radix_hist(keys: ps.Buffer[u32], counts: ps.Buffer[u32], sums: ps.Buffer[u32], n: u32,
               shift: u32, flip: u32, kind: ps.Const[int], items: ps.Const[int],
               unroll: ps.Const[int], fused: ps.Const[bool]) -> None:
    """``counts[d * tiles + tile]`` = how many keys of the tile (``items * WG`` keys) have
    digit ``(key >> shift) & 255``, the key of a word being ``key_of(word, kind) ^ flip``
    (the first pass reads the input's words; the others, keys: ``KIND_U32``, 0). A
    workgroup counts ``HIST_TILES`` consecutive tiles, each into its own counters, so
    that it writes each digit's counts of its tiles as consecutive words. ``fused``: it
    also adds them to ``sums``, the totals of the count scan's tiles (``SCAN_TILE``
    consecutive words of ``counts`` each), which ``radix_scatter`` leaves zero again."""
    hist = ps.shared_array(u32, HIST_TILES * (BUCKETS + 1))
    lx = ps.local_index()
    group = ps.global_id().x // HIST_WG
    for z in ps.unroll(range(HIST_TILES * (BUCKETS + 1) // HIST_WG + 1)):
        if z * HIST_WG + lx < HIST_TILES * (BUCKETS + 1):
            hist[z * HIST_WG + lx] = 0
    ps.barrier()
    base = group * (HIST_TILES * items * WG)
    steps = items * WG // HIST_WG // unroll         # a tile's groups of loads
    got = ps.array(u32, unroll)
    for k0 in range(u32(HIST_TILES * steps)):
        # the group's loads are all issued before the first is used: one memory latency
        # per group, not one per key
        for k1 in ps.unroll(range(unroll)):
            i = base + (k0 * unroll + k1) * HIST_WG + lx    # consecutive invocations, keys
            if i < n:
                got[k1] = keys[i]
        at = k0 // u32(steps) * (BUCKETS + 1)       # this tile's counters
        for k1 in ps.unroll(range(unroll)):
            i = base + (k0 * unroll + k1) * HIST_WG + lx
            if i < n:
                key = key_of(got[k1], u32(kind)) ^ flip
                ps.atomic_add(hist, at + ((key >> shift) & (BUCKETS - 1)), 1)
    ps.barrier()
    tiles = len(counts) // BUCKETS
    # invocation i writes digit i // HIST_TILES of tile i % HIST_TILES: a digit's counts of
    # the group's tiles are consecutive words (whole memory sectors, not one word each);
    # the counters' rows are BUCKETS + 1 words apart, so the reads hit different banks
    for k in ps.unroll(range(HIST_TILES)):
        p = k * HIST_WG + lx
        d = p // HIST_TILES
        j = p % HIST_TILES
        t = group * HIST_TILES + j
        if t < tiles:
            counts[d * tiles + t] = hist[j * (BUCKETS + 1) + d]
    if not fused:
        return
    # invocation lx adds digit lx's counts of the group's tiles to the totals of the
    # scan's tiles they fall in (at most two: a scan tile is a multiple of HIST_TILES
    # counts, but a digit's row need not start at a tile's edge)
    first = group * HIST_TILES
    row = lx * tiles + first
    c0 = row // SCAN_TILE
    s0 = u32(0)
    s1 = u32(0)
    for j in ps.unroll(range(HIST_TILES)):
        if first + j < tiles:
            v = hist[j * (BUCKETS + 1) + lx]
            if (row + j) // SCAN_TILE == c0:
                s0 += v
            else:
                s1 += v
    if s0 > 0:
        ps.atomic_add(sums, c0, s0)
    if s1 > 0:
        ps.atomic_add(sums, c0 + 1, s1)


@ps.kernel(workgroup_size=WG)
def radix_scatter(keys: ps.Buffer[u32], vals: ps.Buffer[i32], offsets: ps.Buffer[u32],
                  sums: ps.Buffer[u32], keys_out: ps.Buffer[u32], vals_out: ps.Buffer[i32],
                  n: u32, shift: u32, flip: u32, kind: ps.Const[int], out_kind: ps.Const[int],
                  rev: ps.Const[bool],
                  write_keys: ps.Const[bool], vmode: ps.Const[int], items: ps.Const[int],
                  unroll: ps.Const[int], tkeys: ps.Const[bool], rake: ps.Const[bool],
                  nib: ps.Const[bool], sel: ps.Const[bool], fused: ps.Const[bool]) -> None:
    """Sort the tile (``items * WG`` keys) stably by digit ``(key >> shift) & 255`` in
    shared memory, then write the key at sorted place j, of digit d, to place ``p =
    offsets[d * tiles + tile] + j - first[d]`` (``n - 1 - p`` when ``rev``), as the word
    ``word_of(key, out_kind)`` (with ``write_keys``), and with it (``vmode``) its value
    or its index in the input. A key is ``key_of(word, kind) ^ flip`` of the word read.
    ``tkeys`` keeps the tile's keys in shared memory too (else they are read again from
    ``keys``); ``rake`` scans the split's counters digit-major by raking (else by a
    Hillis-Steele scan of each invocation's counters); ``nib`` counts a split's keys in
    4-bit counters (else in the 16-bit ones); ``sel`` picks a counter by vector selections
    (``_count_sel``: branch-free SPIR-V) rather than ``?:`` (``_count``: cuda's faster
    form). ``fused``: workgroup t sets ``sums[t]`` back to zero for the next pass's
    histogram (the scan that read them is done)."""
    work = ps.shared_array(u32, items * WG + items * WG // 32)
    tile_keys = ps.shared_array(u32, items * WG + items * WG // 32 if tkeys else 1)
    scan_lo = ps.shared_array(uvec4, 1 if rake else WG)
    scan_hi = ps.shared_array(uvec4, 1 if rake else WG)
    cnt = ps.shared_array(u32, 9 * WG if rake else 1)
    part = ps.shared_array(u32, 2 * WG if rake else 1)
    first = ps.shared_array(u32, BUCKETS)
    lx = ps.local_index()
    tile = ps.global_id().x // WG
    tiles = len(offsets) // BUCKETS
    base = tile * (items * WG)
    # the tile's output offsets, read first so that their latency hides behind the sort
    dest = ps.array(u32, BUCKETS // WG)
    for q in ps.unroll(range(BUCKETS // WG)):
        dest[q] = offsets[(q * WG + lx) * tiles + tile]
    if fused and lx == 0 and tile < len(sums):
        sums[tile] = 0
    # a partial last tile's missing keys enter the splits as digit 255 with their
    # index: they sort behind every present key (stably, indices past theirs) and only
    # the output loop needs to know where the keys end (no bound check per split entry)
    count = min(n - base, u32(items * WG))
    got = ps.array(u32, unroll)
    for k0 in range(u32(items // unroll)):
        for k1 in ps.unroll(range(unroll)):
            j = (k0 * unroll + k1) * WG + lx
            got[k1] = u32(0xFFFFFFFF)
            if j < count:
                got[k1] = key_of(keys[base + j], u32(kind)) ^ flip
        for k1 in ps.unroll(range(unroll)):
            j = (k0 * unroll + k1) * WG + lx
            d = (got[k1] >> shift) & (BUCKETS - 1) if j < count else u32(BUCKETS - 1)
            work[_slot(j)] = (d << IDX_BITS) | j
            if tkeys:
                tile_keys[_slot(j)] = got[k1]
    entry = ps.array(u32, items)
    for half in range(u32(BITS // SPLIT_BITS)):
        at = IDX_BITS + half * SPLIT_BITS
        ps.barrier()            # the entries are in place; the last split's scan is read
        lo = uvec4(0, 0, 0, 0)
        hi = uvec4(0, 0, 0, 0)
        if nib:
            # 4-bit counters, digits 0..7 in ca and 8..15 in cb: a key costs a shift and
            # an add, where the 16-bit counters need a choice among 8 words. Entries
            # 0..14 are counted (a count stays below 16); the 16th only gets its rank.
            ca = u32(0)
            cb = u32(0)
            for k in ps.unroll(range(items)):
                e = work[_slot(lx * items + k)]
                d = (e >> at) & 15
                sh = (d & 7) * 4
                entry[k] = e | ((((cb if d >= 8 else ca) >> sh) & 15) << RANK_AT)
                if k < 15:
                    inc = u32(1) << sh
                    ca += 0 if d >= 8 else inc
                    cb += inc if d >= 8 else 0
            steps = uvec4(0, 4, 8, 12)
            lo = ((uvec4(ca) >> steps) & uvec4(15)) | (((uvec4(cb) >> steps) & uvec4(15)) << uvec4(16))
            steps = steps + uvec4(16)
            hi = ((uvec4(ca) >> steps) & uvec4(15)) | (((uvec4(cb) >> steps) & uvec4(15)) << uvec4(16))
            if items > 15:
                # (the rank is below the digits)
                lo, hi = _bump(lo, hi, (entry[15 % items] >> at) & 15)
        else:
            for k in ps.unroll(range(items)):
                e = work[_slot(lx * items + k)]
                d = (e >> at) & 15
                got_d = _count_sel(lo, hi, d) if sel else _count(lo, hi, d)
                entry[k] = e | (got_d << RANK_AT)
                lo, hi = _bump(lo, hi, d)
        # place_lo/place_hi: each counter's first place for this invocation's entries,
        # less the places of digits 0..7 in the high halves (added below)
        if rake:
            # the counters digit-major, cnt[w * WG + i]; invocation r sums words 8r..8r+7
            # (in scan order), the 128 sums are scanned (ping-pong, one barrier a step),
            # and r writes its words back as exclusive prefixes
            for w in ps.unroll(range(4)):
                cnt[_rake_slot(w * WG + lx)] = _word(lo, u32(w))
                cnt[_rake_slot((w + 4) * WG + lx)] = _word(hi, u32(w))
            ps.barrier()
            seg = ps.array(u32, 8)
            s = u32(0)
            for i in ps.unroll(range(8)):
                seg[i] = s
                s += cnt[_rake_slot(lx * 8 + i)]
            part[lx] = s
            src = u32(0)
            for step in ps.unroll(range(7)):
                ps.barrier()
                v = part[src * WG + lx]
                if lx >= (1 << step):
                    v += part[src * WG + lx - (1 << step)]
                part[(1 - src) * WG + lx] = v
                src = 1 - src
            ps.barrier()
            ex = part[src * WG + lx] - s
            for i in ps.unroll(range(8)):
                cnt[_rake_slot(lx * 8 + i)] = ex + seg[i]
            total = part[src * WG + WG - 1]
            ps.barrier()
            place_lo = uvec4(cnt[_rake_slot(lx)], cnt[_rake_slot(WG + lx)],
                             cnt[_rake_slot(2 * WG + lx)], cnt[_rake_slot(3 * WG + lx)])
            place_hi = uvec4(cnt[_rake_slot(4 * WG + lx)], cnt[_rake_slot(5 * WG + lx)],
                             cnt[_rake_slot(6 * WG + lx)], cnt[_rake_slot(7 * WG + lx)])
        else:
            # Hillis-Steele inclusive scan of the invocations' counters (a raking scan
            # of them, with 3 barriers instead of 14, was faster on lavapipe but 1.5
            # times slower on the H200)
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
            # the exclusive scan of the tile's 8 packed totals: word w's first places
            t_lo = scan_lo[WG - 1]
            t_hi = scan_hi[WG - 1]
            p1 = t_lo.x
            p2 = p1 + t_lo.y
            p3 = p2 + t_lo.z
            p4 = p3 + t_lo.w
            p5 = p4 + t_hi.x
            p6 = p5 + t_hi.y
            p7 = p6 + t_hi.z
            total = p7 + t_hi.w
            place_lo = uvec4(0, p1, p2, p3) + scan_lo[lx] - lo
            place_hi = uvec4(p4, p5, p6, p7) + scan_hi[lx] - hi
        # the high halves (digits 8..15) come after every key of digits 0..7; every
        # field stays below the tile's size, so no packed addition carries
        after = uvec4((total & 0xFFFF) << 16)
        place_lo = place_lo + after
        place_hi = place_hi + after
        for k in ps.unroll(range(items)):
            e = entry[k]
            r = (e >> RANK_AT) & (MAX_ITEMS - 1)
            e = e & ~(u32(MAX_ITEMS - 1) << RANK_AT)
            d = (e >> at) & 15
            first_d = _count_sel(place_lo, place_hi, d) if sel else _count(place_lo, place_hi, d)
            work[_slot(first_d + r)] = e
    ps.barrier()
    # the first place of each digit present: where the sorted digits change
    for k0 in range(u32(items // unroll)):
        for k1 in ps.unroll(range(unroll)):
            j = (k0 * unroll + k1) * WG + lx
            d = work[_slot(j)] >> IDX_BITS
            before = work[_slot(max(j, 1) - 1)] >> IDX_BITS
            if j == 0 or before != d:
                first[d] = j
    ps.barrier()
    # each digit's output place less its first place in the tile (wrapping: p = that + j)
    for q in ps.unroll(range(BUCKETS // WG)):
        first[q * WG + lx] = dest[q] - first[q * WG + lx]
    ps.barrier()
    to = ps.array(u32, unroll)
    for k0 in range(u32(items // unroll)):
        for k1 in ps.unroll(range(unroll)):
            j = (k0 * unroll + k1) * WG + lx        # consecutive places, consecutive addresses
            if j < count:
                e = work[_slot(j)]
                src = _index(e)
                dst = first[e >> IDX_BITS] + j
                to[k1] = n - 1 - dst if rev else dst
                if write_keys:
                    if tkeys:
                        got[k1] = tile_keys[_slot(src)]
                    else:
                        got[k1] = key_of(keys[base + src], u32(kind)) ^ flip
        for k1 in ps.unroll(range(unroll)):
            j = (k0 * unroll + k1) * WG + lx
            if j < count:
                if write_keys:
                    keys_out[to[k1]] = word_of(got[k1], u32(out_kind))
                # the entry is read again rather than kept: a register per key less
                if vmode == CARRY_VALS:
                    vals_out[to[k1]] = vals[base + _index(work[_slot(j)])]
                elif vmode == INDEX_VALS:
                    vals_out[to[k1]] = i32(base + _index(work[_slot(j)]))


def record_radix(dev: ps.Device, src: ps.DeviceArray, n: int, kind: int = KIND_U32,
                 flip: int = 0, *, dst: ps.DeviceArray | None = None,
                 out_kind: int = KIND_U32, descending: bool = False,
                 vals: ps.DeviceArray | None = None) -> ps.DeviceArray | None:
    """Record on ``dev``, inside a ``dev.batch()``, the stable sort of the keys
    ``key_of(src[i], kind) ^ flip`` of the n words of ``src`` (left as they are).

    The first pass reads ``src`` and the last one writes the sorted keys as the words
    ``word_of(key, out_kind)`` into ``dst`` (reversed when ``descending``), so the key
    transforms cost no pass of their own. With ``vals`` (n int32), the indices that sort
    the keys are written there (the first pass makes them, no iota), and without
    ``dst`` the keys themselves are not kept (returns None). With neither, the sorted
    keys are left in a scratch array, which is returned."""
    items, unroll, tkeys, rake, nib = tuning(dev)
    tile = items * WG
    tiles = groups_for(n, tile)
    counts = scratch(dev, "radix.counts", BUCKETS * tiles, np.uint32)
    offsets = scratch(dev, "radix.offsets", BUCKETS * tiles, np.uint32)
    if fused_scan(dev):
        # the totals of the count scan's tiles: zero between passes (each pass's scatter
        # clears what its histogram added), so zeroed once, when made, and dropped if a
        # sort stops half recorded
        sums = scratch(dev, "radix.sums", groups_for(BUCKETS * tiles, SCAN_TILE), np.uint32,
                       zeroed=True)
        levels = []
    else:
        sums = scratch(dev, "radix.no_sums", 1, np.uint32)     # bound, unused
        levels = scan_scratch(dev, BUCKETS * tiles, np.uint32)  # once, for every pass
    # pass p writes keys to ``key_out[(PASSES - 1 - p) % 2]`` (values likewise to
    # ``val_out``): the last pass into dst (or keys_a), the one before into keys_b, ...
    keys_a = dst if dst is not None else scratch(dev, "radix.keys_a", n, np.uint32)
    key_out = (keys_a, scratch(dev, "radix.keys_b", n, np.uint32))
    kv = vals is not None
    val_out: tuple[ps.DeviceArray, ps.DeviceArray]
    if vals is not None:
        val_out = (vals, scratch(dev, "radix.vals", n, np.int32))
    else:
        # distinct placeholders: one array bound to two parameters, one of them written,
        # is refused at launch
        val_out = (scratch(dev, "radix.no_vals_a", 1, np.int32),
                   scratch(dev, "radix.no_vals_b", 1, np.int32))
    try:
        _record_passes(dev, src, n, kind, flip, out_kind, descending, kv, dst is not None,
                       key_out, val_out, counts, offsets, sums, levels)
    except BaseException:
        drop_scratch(dev, "radix.sums")
        raise
    return dst if dst is not None else (None if kv else key_out[0])


def _record_passes(dev: ps.Device, src: ps.DeviceArray, n: int, kind: int, flip: int,
                   out_kind: int, descending: bool, kv: bool, has_dst: bool,
                   key_out: tuple[ps.DeviceArray, ps.DeviceArray],
                   val_out: tuple[ps.DeviceArray, ps.DeviceArray], counts: ps.DeviceArray,
                   offsets: ps.DeviceArray, sums: ps.DeviceArray,
                   levels: list[ps.DeviceArray]) -> None:
    """``record_radix``'s launches: per pass, the histogram, the scan of the counts (one
    launch where ``fused_scan``, else ``record_scan`` with ``levels``) and the scatter."""
    fused = fused_scan(dev)
    ident, elem = identity(np.dtype(np.uint32)), element_type(np.dtype(np.uint32))
    items, unroll, tkeys, rake, nib = tuning(dev)
    tiles = groups_for(n, items * WG)
    keys_in = src
    hist_threads, hist_unroll = hist_shape(tiles, items, unroll)
    for p in range(PASSES):
        shift = p * BITS
        last = p == PASSES - 1
        k_kind, k_flip = (kind, flip) if p == 0 else (KIND_U32, 0)
        o = (PASSES - 1 - p) % 2
        # argsort's last pass needs only the indices: its keys_a (scratch) is bound, unwritten
        write_keys = not (last and kv and not has_dst)
        vmode = (INDEX_VALS if p == 0 else CARRY_VALS) if kv else NO_VALS
        radix_hist.launch(keys_in, counts, sums, n, shift, k_flip, k_kind, items, hist_unroll,
                          fused, threads=hist_threads, device=dev)
        if fused:
            scan_tiles.launch(counts, offsets, sums, BUCKETS * tiles, ident, False, False,
                              elem, True, threads=len(sums) * SCAN_WG, device=dev)
        else:
            record_scan(dev, counts, offsets, BUCKETS * tiles, False, levels)
        # values: what the last pass wrote (the first pass reads none, vals is bound)
        radix_scatter.launch(keys_in, val_out[1 - o], offsets, sums, key_out[o], val_out[o], n,
                             shift, k_flip, k_kind, out_kind if last else KIND_U32,
                             last and descending, write_keys, vmode, items, unroll, tkeys,
                             rake, nib, selects(dev), fused, threads=tiles * WG, device=dev)
        keys_in = key_out[o]
