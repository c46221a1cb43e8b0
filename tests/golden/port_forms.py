"""Two Python forms that ports use (issue 18, item 7): a call in the index of an
augmented assignment is evaluated once, as Python evaluates it (``hist[bin_of(x)] +=
1``, on buffers, local and shared arrays and struct fields); and a variable first
assigned in a ``for`` loop whose range is a constant of at least one value is
assigned after the loop (``for i in range(4): last = i``), loop variable included."""
# pyright cannot see that those loops run, and calls the variables possibly unbound
# pyright: reportPossiblyUnboundVariable=false

import pyshade as ps
from pyshade import f32, u32

NB = 4                      # bins
PER = 8                     # samples per invocation
STEPS = 3


@ps.struct
class Tally:
    total: f32
    count: u32


def bin_of(x: f32, calls: ps.Buffer[u32], i: u32) -> u32:
    """The bin of ``x`` in [0, 1); counts its calls in ``calls[i]``, so that a second
    evaluation would show."""
    calls[i] += 1
    return min(u32(max(x, 0.0) * f32(NB)), u32(NB - 1))


@ps.kernel(workgroup_size=64)
def tally(xs: ps.Buffer[f32], hist: ps.Buffer[u32], copies: ps.Buffer[u32],
          tallies: ps.Buffer[Tally], sums_out: ps.Buffer[Tally], calls: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(calls):
        return
    li = ps.local_index()
    local = ps.array(u32, NB)
    sums = ps.array(Tally, NB)
    shared = ps.shared_array(u32, 64 * NB)
    for b in range(u32(NB)):
        shared[li * NB + b] = 0
    for s in range(u32(PER)):
        x = xs[i * PER + s]
        hist[i * NB + bin_of(x, calls, i)] += 1
        local[bin_of(x, calls, i)] += 1
        shared[li * NB + bin_of(x, calls, i)] += 1
        sums[bin_of(x, calls, i)].total += x
        sums[bin_of(x, calls, i)].count += 1
        tallies[i * NB + bin_of(x, calls, i)].total += x
    for b in range(u32(NB)):
        copies[i * 2 * NB + b] = local[b]
        copies[i * 2 * NB + NB + b] = shared[li * NB + b]
        sums_out[i * NB + b] = sums[b]


@ps.kernel(workgroup_size=64)
def loop_results(xs: ps.Buffer[f32], out: ps.Buffer[f32], width: ps.Const[int]) -> None:
    i = ps.global_id().x
    if i >= len(xs) // 4:
        return
    base = i * 4
    for k in range(4):
        last = xs[base + u32(k)]
    for j in range(STEPS):
        if j == 1:
            mid = xs[base + 1] * 2.0
            continue
        mid = xs[base] + f32(j)
    for w in range(width):
        scaled = xs[base + u32(w)] * f32(w + 1)
    for t in ps.unroll(range(4)):       # kept as a loop: it breaks
        first = t
        if xs[base + u32(t)] > 0.5:
            break
    out[i * 6] = last
    out[i * 6 + 1] = mid
    out[i * 6 + 2] = scaled
    out[i * 6 + 3] = f32(first)
    out[i * 6 + 4] = f32(k)             # the loop variable keeps its last value
    out[i * 6 + 5] = f32(j)


SPECS = {"loop_results": {"width": 2}}
