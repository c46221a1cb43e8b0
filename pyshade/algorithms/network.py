"""The bitonic network over u32 keys (and, for argsort, i32 values carried along),
with every pass whose partner distance fits a workgroup's tile done in shared memory.

A bitonic sort of 2^k elements runs stages s = 0..k-1, and stage s runs passes of
partner distance 2^s, 2^(s-1), ..., 1; element i is paired with i + d and the pair is
put in ascending order when bit s + 1 of i is 0, descending otherwise. Every pass of
distance below ``TILE = 2 * WG`` touches only pairs inside one aligned tile, so:

- ``bitonic_tile`` loads a tile into shared memory and runs a range of stages there
  (each pass one ``barrier()`` apart), for distances up to ``WG``: one launch does all
  of stages 0..log2(TILE)-1 (each tile sorted, alternately up and down), and one
  launch ends each later stage;
- ``bitonic_global`` runs one pass of a larger distance over the whole array.

So 2^k elements take 1 + sum over the stages s >= log2(TILE) of (s - log2(TILE) + 2)
launches, instead of k(k+1)/2. With values, elements compare as (key, value) pairs:
the values are distinct indices, so the result is the stable order of the keys.
"""

from __future__ import annotations

import pyshade as ps
from pyshade import i32, u32

WG = 256
TILE = 2 * WG
LOG_TILE = TILE.bit_length() - 1


def _before(ka: u32, va: i32, kb: u32, vb: i32, kv: bool) -> bool:
    """True when element a sorts before element b (by key, then by value with ``kv``)."""
    if kv:
        return ka < kb or (ka == kb and va < vb)
    return ka < kb


@ps.kernel(workgroup_size=WG)
def bitonic_tile(keys: ps.Buffer[u32], vals: ps.Buffer[i32], stage_lo: u32, stage_hi: u32,
                 kv: ps.Const[bool]) -> None:
    """Run stages ``stage_lo..stage_hi - 1`` of the network on each tile of ``TILE``
    elements in shared memory, for the partner distances below ``TILE`` (the larger
    ones are ``bitonic_global``'s). ``len(keys)`` is a multiple of ``TILE``; ``vals``
    is ignored unless ``kv``."""
    sk = ps.shared_array(u32, TILE)
    sv = ps.shared_array(i32, TILE)
    lx = ps.local_index()
    base = ps.global_id().x // WG * TILE
    sk[lx] = keys[base + lx]
    sk[lx + WG] = keys[base + lx + WG]
    if kv:
        sv[lx] = vals[base + lx]
        sv[lx + WG] = vals[base + lx + WG]
    stage = stage_lo
    while stage < stage_hi:
        d = u32(1) << stage
        if d > WG:
            d = u32(WG)
        while d > 0:
            ps.barrier()
            # invocation lx owns the pair (i, i + d): the lx-th pair of this distance
            i = 2 * d * (lx // d) + lx % d
            j = i + d
            up = (((base + i) >> (stage + 1)) & 1) == 0
            ka = sk[i]
            kb = sk[j]
            va = i32(0)
            vb = i32(0)
            if kv:
                va = sv[i]
                vb = sv[j]
            if _before(kb, vb, ka, va, kv) == up:
                sk[i] = kb
                sk[j] = ka
                if kv:
                    sv[i] = vb
                    sv[j] = va
            d >>= 1
        stage += 1
    ps.barrier()
    keys[base + lx] = sk[lx]
    keys[base + lx + WG] = sk[lx + WG]
    if kv:
        vals[base + lx] = sv[lx]
        vals[base + lx + WG] = sv[lx + WG]


@ps.kernel(workgroup_size=WG)
def bitonic_global(keys: ps.Buffer[u32], vals: ps.Buffer[i32], stage: u32, dist: u32,
                   kv: ps.Const[bool]) -> None:
    """One pass of partner distance ``dist`` (a power of two) in stage ``stage``:
    invocation t compare-exchanges the t-th pair ``(i, i + dist)``."""
    t = ps.global_id().x
    if t < len(keys) // 2:
        i = 2 * dist * (t // dist) + t % dist
        j = i + dist
        up = ((i >> (stage + 1)) & 1) == 0
        ka = keys[i]
        kb = keys[j]
        va = i32(0)
        vb = i32(0)
        if kv:
            va = vals[i]
            vb = vals[j]
        if _before(kb, vb, ka, va, kv) == up:
            keys[i] = kb
            keys[j] = ka
            if kv:
                vals[i] = vb
                vals[j] = va


def padded_length(n: int) -> int:
    """The length the network sorts: a power of two, at least one tile."""
    return max(TILE, 1 << max(n - 1, 0).bit_length())


def record_network(dev: ps.Device, keys: ps.DeviceArray, vals: ps.DeviceArray | None) -> None:
    """Record the whole network over ``keys`` (``padded_length`` elements) and, when
    given, ``vals`` (the same length) on ``dev``, inside a ``dev.batch()``."""
    n2 = keys.size
    kv = vals is not None
    v = vals if vals is not None else dev.empty(1, "int32")
    bitonic_tile.launch(keys, v, 0, LOG_TILE, kv, threads=n2 // 2, device=dev)
    for stage in range(LOG_TILE, n2.bit_length() - 1):
        dist = 1 << stage
        while dist >= TILE:
            bitonic_global.launch(keys, v, stage, dist, kv, threads=n2 // 2, device=dev)
            dist >>= 1
        bitonic_tile.launch(keys, v, stage, stage + 1, kv, threads=n2 // 2, device=dev)
