"""Freed array storage kept for reuse, by byte size, up to a byte limit: what the vulkan
and wgpu devices do with the buffer of an array that is gone.

Why: a device allocation costs far more than the kernels that use it. Creating and
binding VkDeviceMemory cost NVIDIA's driver about 2.5 ms per 64 MiB (it clears it;
bench/probes/algos_profile.py), and a new 64 MiB wgpu buffer 6.5-9 ms on an H100 (created,
then cleared by wgpu before its first use; bench/probes/radix_stage_profile.py, 'empty(n)'),
where a radix sort of 2^24 keys that writes one takes about 1 ms. CuPy pools for the same
reason. When a pooled buffer may be taken (once the GPU is done with it, or at once) is
the device's business.
"""

from __future__ import annotations

from typing import Any

__all__ = ["POOL_BYTES", "SizePool"]

#: the bytes a device keeps pooled at most
POOL_BYTES = 1 << 30


class SizePool:
    """Items (a device's buffer handles) filed under their byte size, at most ``limit``
    bytes in all. Not thread-safe: the device holds its lock around it."""

    def __init__(self, limit: int = POOL_BYTES):
        self.free: dict[int, list[Any]] = {}
        self.bytes = 0
        self.limit = limit

    def put(self, size: int, item: Any) -> bool:
        """Keep ``item`` of ``size`` bytes; False (not kept) when the limit would be passed."""
        if self.bytes + size > self.limit:
            return False
        self.free.setdefault(size, []).append(item)
        self.bytes += size
        return True

    def take(self, size: int) -> Any:
        """The item last kept of ``size`` bytes, or None."""
        free = self.free.get(size)
        if not free:
            return None
        self.bytes -= size
        return free.pop()

    def drain(self) -> list[Any]:
        """Every item, the pool left empty (for the device to destroy them)."""
        items = [item for free in self.free.values() for item in free]
        self.free.clear()
        self.bytes = 0
        return items
