"""Statements: if/elif/else, while, for range (1-3 args, negative and runtime steps),
break, continue, pass, early return and assert."""

import pyshade as ps
from pyshade import i32, u32


@ps.kernel(workgroup_size=64)
def classify(values: ps.Buffer[i32], out_codes: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(values):
        return                      # early exit from a kernel
    v = values[i]
    code: u32 = 0
    if v < 0:
        code = 1
    elif v == 0:
        pass
    elif v < 100:
        code = 2
    else:
        code = 3
    out_codes[i] = code


@ps.kernel(workgroup_size=64)
def loops(data: ps.Buffer[i32], n: i32, step: i32) -> None:
    i = ps.global_id().x
    if i >= len(data):
        return
    total: i32 = 0
    for k in range(4):              # one argument
        total += k
    for k in range(2, n):           # two arguments, runtime bound
        if k % 3 == 0:
            continue
        total += k
    for k in range(n, 0, -2):       # negative constant step
        total -= k
        if total < -1000:
            break
    for k in range(0, n, step):     # runtime step: its sign is known only at run time
        total += k & 1
    j: i32 = 10
    while j > 0:
        j -= 3
        if j == 4:
            continue
        total ^= j
    while True:
        total += 7
        if total > 50:
            break
    assert total > 50, "loop ends only above 50"
    data[i] = total


@ps.kernel(workgroup_size=64)
def find_first(haystack: ps.Buffer[u32], needle: u32, found: ps.Buffer[i32]) -> None:
    """Linear search in one thread; the loop variable is also read after the loop."""
    if ps.global_id().x != 0:
        return
    pos: i32 = -1
    for k in range(len(haystack)):
        if haystack[k] == needle:
            pos = i32(k)
            break
    found[0] = pos
