"""The bounded cache every stage uses (specialisations, pipelines, compiled namespaces)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class LRU(OrderedDict):
    """A dict that keeps at most ``size`` entries, dropping the least recently used."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self._lock = threading.Lock()

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        """The value for ``key`` (marked as recently used), or ``default``."""
        with self._lock:
            if key in self:
                self.move_to_end(key)
                return self[key]
        return default

    def put(self, key: Any, value: Any) -> Any:
        """Store ``value``; drop the oldest entries beyond ``size``."""
        with self._lock:
            self[key] = value
            self.move_to_end(key)
            while len(self) > self.size:
                self.popitem(last=False)
        return value

    def get_or_make(self, key: Any, make: Any, lock: Any) -> Any:
        """The value for ``key``, else ``make()``'s, stored; ``make`` runs under ``lock``
        (the caller's: a device's pipeline builds are serialised) and at most once per
        key however many threads ask at once."""
        hit = self.get(key)
        if hit is not None:
            return hit
        with lock:
            hit = self.get(key)
            if hit is None:
                hit = self.put(key, make())
        return hit
