"""The ``"cpu"`` device: runs the Python emission of a kernel, one call per
invocation, with exact GPU fixed-width semantics.

Buffers become Python lists for the launch (fast element access, exact
binary32 floats) and are written back when the kernel writes them. A kernel
that calls ``barrier()`` is a generator: every invocation of a workgroup runs
up to its next barrier before any goes on, and an invocation that finishes
while others wait at a barrier is reported (a barrier in non-uniform control
flow hangs or misbehaves on a GPU).

A launch costs memory for its buffers only: invocation ids are made chunk by
chunk, and the few caches are bounded (``ID_CACHE_MAX``, ``max_namespaces``).
"""

from __future__ import annotations

import inspect
import itertools
import linecache
import platform
import re
import threading
from itertools import repeat
from typing import Any, Sequence

import numpy as np

from .. import types as T
from ..cache import LRU
from ..errors import LaunchError
from . import cpu_races as R
from . import cpu_support as S
from .base import Compiled, Device, DeviceArray
from .cpu_convert import Converter

_tnew = tuple.__new__
# What the Python emission calls (``_u32``, ``Vec``, ``make_struct_class``...).
_SUPPORT = {name: getattr(S, name) for name in S.__all__}
# ... and with the race detector, its versions of ``_copy`` and the atomics.
_SUPPORT_RACES = {**_SUPPORT, **R.SUPPORT}
_LOCK = threading.RLock()


class CpuArray(DeviceArray):
    """A device array of the CPU device: a C-contiguous numpy array, whose
    elements in C order are the buffer's elements."""

    def __init__(self, device: "CpuDevice", data: np.ndarray):
        self.device = device
        # Launches read and write the buffer through flat views of ``data``: a view of a
        # non-contiguous array would be a copy, and the kernel's writes would be lost.
        self.data = data if data.flags.c_contiguous else np.ascontiguousarray(data)
        self.dtype = data.dtype
        self.shape = data.shape

    def view(self, dtype: Any) -> CpuArray:
        """The same memory as another dtype of the same size (no copy)."""
        super().view(dtype)                 # the size check
        return CpuArray(self.device, self.data.view(dtype))

    def numpy(self) -> np.ndarray:
        """A copy of the data (after every launch already running on the device)."""
        with self.device.lock:
            return self.data.copy()

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents."""
        with self.device.lock:
            self.data[...] = np.asarray(data, dtype=self.dtype).reshape(self.shape)


class CpuDevice(Device):
    """Runs kernels in the Python interpreter (the reference device)."""

    name = backend = "cpu"
    target = "python"
    max_groups_per_dim = 2**31 - 1
    #: Compiled kernels whose executed namespace is kept, least recently used dropped
    #: first: one namespace is a module's worth of functions (some kB to some 100 kB).
    max_namespaces = 256

    def __init__(self, races: bool = True) -> None:
        #: Whether launches check for data races (``cpu_races``); ``ps.device("cpu",
        #: races=False)`` is the device without the check.
        self.races = bool(races)
        self.adapter = f"CPython {platform.python_version()} interpreter" + (
            "" if self.races else ", race detector off")
        self._namespaces = LRU(self.max_namespaces)
        # Launches and read-backs one at a time, as on every GPU device: a launch reads
        # its buffers into lists and writes them back at its end, so two at once on one
        # array would lose each other's writes. One lock for every cpu device, since
        # each runs the others' arrays. (The interpreter runs one thread at a time
        # anyway: the lock costs no parallelism.)
        self.lock = _LOCK

    def shares_arrays(self, other: Device) -> bool:
        """Every cpu device (with or without the race detector) runs every cpu array."""
        return isinstance(other, CpuDevice)

    def array(self, data: Any, dtype: Any = None) -> CpuArray:
        """Copy ``data`` into a new CPU array (C order, whatever the layout of ``data``)."""
        arr = np.array(data, dtype=dtype, copy=True, order="C")
        if arr.ndim == 0:
            arr = arr.reshape(1)
        return CpuArray(self, arr)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> CpuArray:
        """A zero-filled array."""
        return CpuArray(self, np.zeros(shape, dtype=dtype))

    def namespace(self, compiled: Compiled) -> dict:
        """The namespace of a compiled kernel's code, executed once and kept in an LRU
        cache of ``max_namespaces`` entries."""
        key = compiled.key or id(compiled)
        ns = self._namespaces.get(key)
        # The key holds object ids, which a new kernel may reuse: check the code too.
        if ns is not None and ns["__ps_code__"] is compiled.binary:
            return ns
        # The emitted code calls the support helpers by name: the device supplies them.
        support = _SUPPORT_RACES if self.races else _SUPPORT
        ns = {**support, "__name__": "pyshade_kernel", "__ps_code__": compiled.binary}
        exec(compiled.binary, ns)  # noqa: S102 - our own generated code
        self._namespaces.size = max(1, self.max_namespaces)
        return self._namespaces.put(key, ns)

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Run every invocation of the launch (one launch at a time per device)."""
        with self.lock:
            self._run(compiled, buffers, params, groups)

    def _run(self, compiled: Compiled, buffers: Sequence[DeviceArray],
             params: bytes | None, groups: tuple[int, int, int]) -> None:
        ns = self.namespace(compiled)
        fn = ns[compiled.entry]
        conv = Converter(ns, compiled.names)
        layout = compiled.layout
        lists = []
        for arr, b in zip(buffers, layout.buffers):
            if not isinstance(arr, CpuArray):
                raise LaunchError(f"buffer {b.name!r} is not a cpu array")
            lst = conv.to_py_list(b.elem, arr.data)
            if b.ndim > 1:
                lst = S.Shaped(lst)
                lst.shape = arr.data.shape[:b.ndim]
            lists.append(lst)
        values = {}
        if params is not None and layout.params is not None:
            for name, off, t in layout.params.fields:
                raw = np.frombuffer(params, dtype=t.np_dtype, count=1, offset=off)
                values[name] = conv.load(t, raw)[0]
        req = compiled.requirements
        tracker = None
        if self.races:
            tracker = R.Tracker(_kernel_name(compiled), list(req.shared_names),
                                layout.workgroup_size)
            # A buffer the kernel never writes cannot race: it stays a plain list.
            lists = [tracker.buffer(lst, b.name, arr.data.shape[:b.ndim]) if b.writable
                     else lst for lst, b, arr in zip(lists, layout.buffers, buffers)]
        bufs = iter(lists)
        args = [next(bufs) if isinstance(t, T.BufferType) else values[n]
                for n, t in compiled.params]
        run_launch(fn, args, list(req.ids), list(req.shared), conv, layout.workgroup_size,
                   groups, tracker)
        for arr, b, lst in zip(buffers, layout.buffers, lists):
            if b.writable:
                conv.from_py_list(b.elem, R.plain(lst), arr.data)


def _kernel_name(compiled: Compiled) -> str:
    """The kernel's Python name (the entry point may be renamed: ``list_``), from its
    ``def`` line."""
    m = re.match(r"\s*(?:async\s+)?def\s+(\w+)",
                 linecache.getline(compiled.filename, compiled.lineno))
    return m.group(1) if m else compiled.entry


def run_launch(fn: Any, args: list, ids: list[str], shared_types: list, conv: Converter,
               wg: tuple[int, int, int], groups: tuple[int, int, int],
               tracker: R.Tracker | None = None) -> None:
    """Call ``fn`` for every invocation, workgroup by workgroup (telling ``tracker``, the
    race detector, which invocation runs, each new workgroup and each barrier)."""
    gen = inspect.isgeneratorfunction(fn)
    X, Y, Z = wg
    GX, GY, GZ = groups
    nwg = S.Vec((GX, GY, GZ))
    locals_ = [(x, y, z) for z in range(Z) for y in range(Y) for x in range(X)]
    simple = not gen and not shared_types and ids == ["global_id"] and Y == Z == 1 \
        and GY == GZ == 1
    if simple:
        # The common 1-D case, kept lean: one plain call per invocation, with id vectors
        # from a small shared cache and then from chunks made as the launch goes.
        gid = None
        try:
            for chunk in global_ids(GX * X):
                if tracker is None:
                    for gid in chunk:
                        fn(gid, *args)
                else:
                    for gid in chunk:
                        tracker.inv = gid
                        fn(gid, *args)
        except Exception as e:
            # A race's message names both invocations already.
            if gid is not None and not isinstance(e, LaunchError):
                e.add_note(f"(in the invocation with global_id={tuple(gid)})")
            raise
        return
    for gz, gy, gx in itertools.product(range(GZ), range(GY), range(GX)):
        shared = [conv.zero(t) for t in shared_types]
        if tracker is not None:
            shared = tracker.workgroup(shared)
        wid = S.Vec((gx, gy, gz))
        calls = []
        for li, (lx, ly, lz) in enumerate(locals_):
            vals = {"global_id": S.Vec((gx * X + lx, gy * Y + ly, gz * Z + lz)),
                    "local_id": S.Vec((lx, ly, lz)), "group_id": wid, "num_groups": nwg,
                    "local_index": li}
            calls.append(([vals[i] for i in ids] + shared + args, vals["global_id"]))
        if not gen:
            for a, g in calls:
                if tracker is not None:
                    tracker.inv = g
                _call(fn, a, g)
            continue
        live = [(fn(*a), g) for a, g in calls]
        while live:
            waiting, done = [], []
            for it, g in live:
                if tracker is not None:
                    tracker.inv = g
                try:
                    next(it)
                    waiting.append((it, g))
                except StopIteration:
                    done.append(g)
                except Exception as e:
                    if not isinstance(e, LaunchError):
                        e.add_note(f"(in the invocation with global_id={tuple(g)})")
                    raise
            if tracker is not None:
                tracker.barrier()
            if waiting and done:
                raise LaunchError(f"barrier() reached by only some invocations of workgroup "
                                  f"{tuple(wid)}: invocation {tuple(waiting[0][1])} waits at a "
                                  f"barrier while {tuple(done[0])} has returned (barriers must be "
                                  "in uniform control flow)")
            live = waiting


#: The ids ``Vec((x, 0, 0))`` for x below this are made once and kept for every later
#: launch (65536 vectors, about 7 MB): launches up to that size, such as a sort's many
#: passes, then make no ids at all.
ID_CACHE_MAX = 1 << 16
#: Ids beyond the cache are made this many at a time (about 2 MB), so a launch of any
#: size holds at most one chunk besides the cache.
ID_CHUNK = 1 << 14
_gid_prefix: list = []


def _make_ids(start: int, stop: int) -> list:
    # tuple.__new__ mapped in C: three times faster than calling Vec() per id
    n = stop - start
    return list(map(_tnew, repeat(S.Vec, n), zip(range(start, stop), repeat(0, n), repeat(0, n))))


def global_ids(n: int) -> Any:
    """Yield the 1-D global ids ``Vec((x, 0, 0))`` for x in ``range(n)``, in chunks:
    first from the shared cache, then in lists of ``ID_CHUNK`` made on the way."""
    global _gid_prefix
    cached = min(n, ID_CACHE_MAX)
    prefix = _gid_prefix
    if len(prefix) < cached:
        # A new list, not extend(): another thread may be iterating the old one.
        prefix = prefix + _make_ids(len(prefix), cached)
        _gid_prefix = prefix
    yield prefix if len(prefix) == cached else itertools.islice(prefix, cached)
    for start in range(cached, n, ID_CHUNK):
        yield _make_ids(start, min(n, start + ID_CHUNK))


def _call(fn: Any, args: Any, gid: Any) -> None:
    try:
        fn(*args)
    except Exception as e:
        if isinstance(e, LaunchError):
            raise
        where = tuple(gid) if isinstance(gid, tuple) else (gid, 0, 0)
        e.add_note(f"(in the invocation with global_id={where})")
        raise
