"""What a ``ps.barrier()`` must order: shared memory only, or device (buffer) memory too.

``ps.barrier()`` is a workgroup execution and memory barrier. Every target can spell a
barrier over workgroup-shared memory alone, or over shared and device memory
(``emit/base.py`` ``barrier_statements``); the device half costs time on some drivers
(NVIDIA's Vulkan: the radix sort's scatter kernel, 34 barriers, ran four times slower
than on CUDA). ``device_ordered_buffers`` decides, once per specialisation and for every
target, which Buffer parameters need their accesses ordered by the barriers; the
emitters spell the shared-only barrier when there is none (``KernelInfo.barrier_scope``).

The rule. Number the *intervals* of the kernel body: a barrier statement ends one and
starts the next, in source order. A buffer needs device-memory ordering at barriers
iff it is written (a store, a compound assignment or any atomic, in the kernel or a
helper it reaches) and either

- it is accessed (read, written, atomically, or passed to a helper) in two intervals, or
- one of its accesses is inside a loop whose body contains a barrier (one site can then
  run before and after a barrier).

``len(buf)`` and ``buf.shape[k]`` read the binding's size, not its memory: no access.
Helpers cannot call ``barrier()`` (refused at translation), so a helper call is one
point of its caller: a buffer a helper takes counts, by the kernel parameter it is
bound to (``FuncInfo.buffer_params``, and the argument itself), as accessed where the
call is, whatever the helper does with it. Read-only buffers need nothing (no
invocation changes them during the launch); a write-once output, or a buffer read and
written between the same two barriers (``out[i] += x``), needs nothing either.

Why it is sound. ``check_barriers`` (uniformity.py) has made every barrier uniform:
every invocation of a workgroup runs the same barriers in the same order. So when all
the accesses of buffer ``B`` lie in one interval ``k`` (no barrier between them in
source order, none in a loop with a barrier), every invocation of every workgroup
touches ``B`` only between its ``k``-th and ``k+1``-th barrier: control never returns
to an earlier point except through a loop, and such a loop has no barrier. The
device-memory half of a barrier orders an invocation's accesses before it against
those after it (and, with the execution barrier, against the other invocations'
accesses after it). No two accesses of ``B`` lie on either side of one barrier in one
invocation, and a chain of synchronisation that goes through a barrier ends, in every
invocation it reaches, after that invocation's accesses of interval ``k``: intervals
only grow along program order, and a buffer that carries the chain between two
invocations is itself touched in one interval only, or else it needs the ordering and
the barrier keeps it. So no happens-before edge between two accesses of ``B`` depends on
the barriers' device-memory semantics, and dropping them changes no result. That covers
chains between workgroups too (GLSL's ``memoryBarrierBuffer()`` is a device-scope
fence): whatever buffers a chain passes through, it reaches each invocation after that
invocation's interval ``k``. (Launches refuse one array bound to two parameters when
either is written, so buffer parameters do not alias: each is its own memory.)

The rule is coarse where it cannot see indices: a loop with a barrier that writes a
different element each iteration keeps the full barrier, and so does a buffer whose
elements are each read before and written after a barrier by one invocation only
(``network.bitonic_tile``); so do two accesses that an ``if``/``else`` with a barrier
in one branch separates.
"""

from __future__ import annotations

import ast
from typing import Any


def device_ordered_buffers(kernel: Any) -> tuple[str, ...]:
    """The Buffer parameters of ``kernel`` (a typed KernelInfo whose barriers
    ``check_barriers`` accepted) whose accesses the barriers must order in device memory,
    in parameter order; () when the kernel has no barrier or none needs it."""
    written = {b.name for b in kernel.buffers if b.written or b.atomic}
    if not kernel.uses_barrier or not written:
        return ()
    intervals: dict[str, set[int]] = {}
    accesses: list[str] = []             # buffer names, in visit order
    repeated: set[str] = set()           # accessed inside a loop that has a barrier
    interval = 0
    # An iterative walk in source order (kernel trees may be deeper than Python's
    # recursion limit); ("exit", index of its first access, interval at its start)
    # closes a loop.
    stack: list[tuple] = [("node", s) for s in reversed(kernel.tree.body)]
    while stack:
        item = stack.pop()
        if item[0] == "exit":
            _, first, at = item
            if interval != at:           # a barrier ran inside: every access repeats
                repeated.update(accesses[first:])
            continue
        node = item[1]
        call = getattr(node, "ps_call", None) if isinstance(node, ast.Call) else None
        if call and call[0] == "builtin" and call[1].name == "barrier":
            interval += 1
            continue
        if call and call[0] == "builtin" and call[1].name == "len":
            continue                     # the binding's size, not its memory
        if call and call[0] == "func":   # the buffers bound to the helper's parameters
            for g in call[1].buffer_params.values():
                if g in written:
                    accesses.append(g)
                    intervals.setdefault(g, set()).add(interval)
        if isinstance(node, ast.Name) and node.id in written:
            accesses.append(node.id)
            intervals.setdefault(node.id, set()).add(interval)
            continue
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            stack.append(("exit", len(accesses), interval))
        stack.extend(("node", c) for c in reversed(list(ast.iter_child_nodes(node))))
    return tuple(b.name for b in kernel.buffers
                 if b.name in written and (b.name in repeated
                                           or len(intervals.get(b.name, ())) > 1))
