"""What every recording GPU device shares: ``batch()``, ``flush()`` and chunked submission.

A device that records launches (wgpu, vulkan) keeps one lock for recording,
submission and read-back, a per-thread batch depth, and submits its recorded
work in chunks so the GPU starts while Python records the rest: outside a batch
after every ``FIRST_CHUNK`` launches, bounding how far the GPU lags behind the
launches; inside a batch the first after ``BATCH_FIRST_CHUNK`` launches, then 4 times
as many each time, at most ``MAX_RECORDED``. One submission per launch would cost more
host time than the dispatch (bench/README.md). The device supplies ``_submit()``,
which submits what is recorded and calls ``_chunk_reset()``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

FIRST_CHUNK = 32
# Small, so that the GPU starts on a batch's first launches while Python records the
# rest: a radix sort of 2^24 keys (20 launches, one batch) took 1.90 ms end to end
# through Vulkan on an H100 against 2.29 with the whole batch submitted at its end,
# and 2.43 against 2.80 through wgpu (bench/probes/submit_chunk_probe.py,
# bench/results/h100_submit_chunk_20261206.txt, run 2, with a first chunk of 2). Once the
# host's side was faster (run 3), a first chunk of 1 took 0.993 ms through Vulkan against
# 1.046 for 2, 1.091 for 4, 1.051 for 8 and 1.132 for the whole batch, and 1.215 ms
# through wgpu against 1.233, 1.304, 1.198 and 1.306 (ranges of 7 rounds within 0.04 ms).
BATCH_FIRST_CHUNK = 1
MAX_RECORDED = 4096
# How long a wait for results polls (the vulkan device its fence, VulkanDevice.spin_wait;
# the wgpu device wgpuDevicePoll, wgpu_support.WorkDoneWaiter) before it blocks in the
# driver, on GPU adapters (CPU drivers need every core for the work itself). Blocking
# costs a wake-up, and the thread comes back to a cold core: a sort of 2^24 keys on an
# H100 took 0.07 ms less end to end through Vulkan polling (bench/probes/record_host_probe.py,
# bench/results/h100_host_20261206.txt); CUDA's own synchronisation spins by default.
SPIN_WAIT_S = 0.002


class Recording:
    """Mixin of the recording devices (see the module docstring)."""

    _lock: Any
    _local: threading.local
    _submit_at: int

    def _init_lock(self) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()
        self._submit_at = FIRST_CHUNK

    def _submit(self) -> None:  # pragma: no cover - every device defines it
        raise NotImplementedError

    def _chunk_reset(self) -> None:
        """After any submission the next chunk starts small again."""
        self._submit_at = BATCH_FIRST_CHUNK if getattr(self._local, "depth", 0) > 0 \
            else FIRST_CHUNK

    def _submit_chunk(self) -> None:
        """Submit a chunk of recorded launches (the caller holds the lock)."""
        grow = getattr(self._local, "depth", 0) > 0
        nxt = min(self._submit_at * 4, MAX_RECORDED) if grow else FIRST_CHUNK
        self._submit()
        self._submit_at = nxt

    @contextlib.contextmanager
    def batch(self) -> Iterator[Any]:
        """Record the launches inside together (one compute pass or command buffer where
        the API allows), submitted in growing chunks while recording and when the
        outermost ``batch()`` of this thread exits.

        Each launch sees the writes of the launches before it. ``numpy()``,
        ``write()`` and numpy arguments inside a batch see what was recorded before
        them. If the block raises, the launches recorded before the exception are
        still submitted and run (as on every device), then the exception propagates.
        """
        local = self._local
        local.depth = getattr(local, "depth", 0) + 1
        if local.depth == 1:
            with self._lock:
                self._submit_at = min(self._submit_at, BATCH_FIRST_CHUNK)
        try:
            yield self
        finally:
            local.depth -= 1
            if local.depth == 0:
                with self._lock:
                    self._submit()

    def flush(self) -> None:
        """Submit the launches recorded so far, without waiting for them."""
        with self._lock:
            self._submit()
