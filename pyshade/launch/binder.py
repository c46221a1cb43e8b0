"""The one launch path of every device: argument binding, checking and packing.

``Kernel.launch`` looks up a ``Binder`` by (device, argument signature): the
kinds, dtypes and trailing shapes of the arrays, the Python types of the
values and the Const values. Everything that depends only on those (the
specialisation, compilation, the device's pipeline, dtype and shape checks,
TypeVar binding, workgroup limits) is done once, when the binder is made. Per
call a binder only checks values (ranges, enum membership, writability,
aliasing, the device of each array) and packs the parameter block with one
generated function and one ``struct.pack``. Every check raises a
``LaunchError`` of the form ``k(): parameter 'a' is f32 and got 1e300, which is
out of range for f32``.

Binders are immutable after construction and hold no per-call state, so one
binder serves several threads at once; devices serialise what they record.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Callable

import numpy as np

from .. import types as T
from ..errors import LaunchError
from ..interface import BufferSlot, Spec, bind_typevar
from ..runtime.base import DeviceArray
from .packer import _PackerBuilder
from .values import _desc, _plain_int

# Binders per kernel, the oldest dropped first: each holds a compiled
# specialisation and the device's pipeline.
BINDER_CACHE_SIZE = 256

# ------------------------------------------------------------------ launch configuration

def check_workgroup_size(ws: Any, kname: str) -> tuple[int, int, int]:
    """``workgroup_size`` as (x, y, z) of positive ints, else a LaunchError."""
    dims = (ws,) if not isinstance(ws, (tuple, list)) else tuple(ws)
    if not 1 <= len(dims) <= 3 or not all(_plain_int(d) and d >= 1 for d in dims):
        raise LaunchError(f"kernel {kname}: workgroup_size must be a positive int or a tuple "
                          f"of 1 to 3 positive ints, got {_desc(ws)}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # type: ignore[return-value]


def check_device_workgroup(ws: tuple[int, int, int], dev: Any, kname: str) -> None:
    """Refuse a workgroup size over the device's limits, before any driver sees it."""
    lim = getattr(dev, "max_workgroup_size", None)
    if lim is not None:
        for axis, n, m in zip("xyz", ws, lim):
            if n > m:
                raise LaunchError(f"{kname}(): workgroup_size {ws} has {n} invocations in {axis}; "
                                  f"{dev.name} ({dev.adapter}) allows at most {m}")
    total = ws[0] * ws[1] * ws[2]
    mx = getattr(dev, "max_workgroup_invocations", None)
    if mx is not None and total > mx:
        raise LaunchError(f"{kname}(): workgroup_size {ws} has {total} invocations; "
                          f"{dev.name} ({dev.adapter}) allows at most {mx} per workgroup")


def _count(v: Any, what: str, kname: str) -> int:
    if not _plain_int(v) or v < 0:
        raise LaunchError(f"{kname}(): {what} must be a non-negative integer, got {_desc(v)}")
    return int(v)


def launch_grid(threads: Any, groups: Any, wg: tuple[int, int, int], limit: int,
                kname: str) -> tuple[tuple[int, int, int], bool]:
    """(group counts, folded) for ``threads=`` or ``groups=``, every value checked."""
    if (threads is None) == (groups is None):
        raise LaunchError(f"{kname}(): launch needs exactly one of threads=n or "
                          "groups=(gx, gy, gz)")
    if threads is not None:
        n = threads if threads.__class__ is int and threads >= 0 else \
            _count(threads, "threads", kname)
        total = -(-n // wg[0])
        if total <= limit:
            return (total, 1, 1), False
        gy = -(-total // limit)
        if gy > limit:
            raise LaunchError(f"{kname}(): threads={n} needs {total} workgroups, more than "
                              f"{limit} x {limit}")
        return (-(-total // gy), gy, 1), True
    dims = (groups,) if not isinstance(groups, (tuple, list)) else tuple(groups)
    if not 1 <= len(dims) <= 3 or not all(_plain_int(d) and d >= 0 for d in dims):
        raise LaunchError(f"{kname}(): groups must be a non-negative int or a tuple of 1 to 3 "
                          f"of them, got {_desc(groups)}")
    g = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    if max(g) > limit:
        raise LaunchError(f"{kname}(): groups={g} exceeds this device's limit of {limit} "
                          "workgroups per dimension")
    return g, False  # type: ignore[return-value]

# ------------------------------------------------------------------ array arguments

def array_signature(v: Any) -> Any:
    """The part of an array argument that a binder depends on (class, dtype, trailing shape)."""
    if isinstance(v, DeviceArray):
        return (v.__class__, v.dtype, v.shape[1:])
    if isinstance(v, np.ndarray):
        return (np.ndarray, v.dtype, v.shape[1:])
    if is_foreign_array(v):
        # A CuPy array or torch tensor: its own dtype object (numpy's or torch's) and
        # trailing shape, so that the binder's type checks hold for every call.
        return (v.__class__, v.dtype, tuple(v.shape[1:]))
    return v.__class__


def is_foreign_array(v: Any) -> bool:
    """A GPU array of another library (CuPy, torch, numba...): a device with ``adopt``
    uses it in place."""
    return not isinstance(v, (DeviceArray, np.ndarray)) and (
        hasattr(v, "__cuda_array_interface__") or hasattr(v, "__dlpack__"))


def check_array_type(v: Any, slot: BufferSlot, kname: str) -> None:
    """An array fits a slot when its dtype is the element's, or, for vector and
    matrix elements (numpy keeps no sub-array dtype), when it is the component
    dtype with the element's shape as trailing dimensions: (n, 4) for vec4, (n, 3)
    for vec3 (packed, as numpy lays it out, on every target)."""
    if not isinstance(v, (DeviceArray, np.ndarray)):
        if hasattr(v, "__cuda_array_interface__") or hasattr(v, "__dlpack__"):
            raise LaunchError(f"{kname}(): parameter '{slot.name}' got a "
                              f"{type(v).__name__} (a GPU array of another library), which "
                              "this device cannot use in place: pass a device array or numpy "
                              "array")
        raise LaunchError(f"{kname}(): parameter '{slot.name}' is a Buffer and got "
                          f"{_desc(v)}, which is not a device array or numpy array")
    sub = slot.dtype.subdtype
    nd = slot.ndim
    if v.dtype == slot.dtype and (sub is not None or v.dtype.fields is None
                                  or _same_fields(v.dtype, slot.dtype)):
        if len(v.shape) != nd and sub is None:
            fix = " (pass arr.reshape(-1))" if nd == 1 else ""
            raise LaunchError(f"{kname}(): parameter '{slot.name}' needs a {nd}-D array, got "
                              f"shape {tuple(v.shape)}{fix}")
        return
    if sub is not None and v.dtype == sub[0] and tuple(v.shape[nd:]) == sub[1] and \
            len(v.shape) == nd + len(sub[1]):
        if sub[1] == (3,) and slot.elem is not None and not T.packed_vec3(slot.elem):
            raise LaunchError(f"{kname}(): parameter '{slot.name}' is a buffer of bool "
                              "3-component vectors, whose elements are 16 bytes apart on a "
                              "GPU: use a 4-component vector buffer")
        return
    lead = "n" if nd == 1 else ", ".join(f"n{k}" for k in range(nd))
    want = (f"{sub[0]} with shape ({lead}, {', '.join(map(str, sub[1]))})" if sub
            else f"dtype {slot.dtype}")
    raise LaunchError(f"{kname}(): parameter '{slot.name}' needs {want}, got {v.dtype} with "
                      f"shape {tuple(v.shape)}")


def _same_fields(a: np.dtype, b: np.dtype) -> bool:
    """Structured dtypes must match field by field (names, formats, offsets), not only in
    size: numpy's == already compares those, this also refuses padding-only differences."""
    return a.names == b.names and a.itemsize == b.itemsize and \
        all(a.fields[n][:2] == b.fields[n][:2] for n in a.names)  # type: ignore[index]


# ------------------------------------------------------------------ the binder

class Binder:
    """Checks and packs one kernel's arguments for one device and argument signature."""

    def __init__(self, kernel: Any, dev: Any, args: tuple):
        self.kernel = kernel
        self.dev = dev
        kname = kernel.__name__
        self.kname = kname
        params = kernel.params
        tv: dict = {}
        consts = []
        for (name, ann, _), v in zip(params, args):
            if isinstance(ann, T.ConstAnnotation):
                consts.append((name, v))
            else:
                bind_typevar(kname, name, ann, v, tv)
        self.typevars = tuple((t, tv[t]) for t in kernel.typevars() if t in tv)
        self.consts = tuple(consts)
        check_device_workgroup(kernel.workgroup_size, dev, kname)
        self.limit = int(dev.max_groups_per_dim)
        self._variants: dict[bool, tuple] = {}
        self._lock = threading.Lock()
        # Type-only checks on the arrays: their kinds, dtypes and trailing shapes
        # are part of the binder's key.
        compiled = self.variant(False)[0]
        index = {p[0]: i for i, p in enumerate(params)}
        self.slots = [(index[s.name], s) for s in compiled.layout.buffers]
        adopt = getattr(dev, "adopt", None)
        for i, slot in self.slots:
            v = args[i]
            if adopt is not None and is_foreign_array(v):
                v = self._adopt(v, slot)
            check_array_type(v, slot, kname)
        self.written = [s.writable for _, s in self.slots]
        self.check_alias = len(self.slots) > 1
        self.plain = self.variant(False)
        self.wg0 = kernel.workgroup_size[0]
        self.max_threads = self.limit * self.wg0    # beyond it the groups are folded
        self.fast = self._fast_call(args)

    def variant(self, folded: bool) -> tuple:
        """(compiled, device handle, packer, param size) of the unfolded or folded launch."""
        hit = self._variants.get(folded)
        if hit is not None:
            return hit
        with self._lock:
            hit = self._variants.get(folded)
            if hit is None:
                hit = self._variants[folded] = self._make_variant(folded)
        return hit

    def _make_variant(self, folded: bool) -> tuple:
        k = self.kernel
        spec = Spec(self.typevars, self.consts, folded)
        compiled = k.compile_spec(self.dev.target, spec, validate=self.dev.compile_with)
        handle = self.dev.prepare(compiled)
        pb = compiled.layout.params
        packer = None
        if pb is not None:
            index = {p[0]: i for i, p in enumerate(k.params)}
            pk = _PackerBuilder(self.kname, pb.size)
            for name, off, t in pb.fields:
                if name in index:
                    pk.value(f"args[{index[name]}]", t, off, name)
            for bi, off, axis in pb.lengths:
                pk.length(bi, off, axis)
            packer = pk.build()
        return compiled, handle, packer

    def __call__(self, args: tuple, threads: Any, groups: Any) -> None:
        """Check the values, pack, and run on the device."""
        # The common case inline: a 1-D launch that needs no folding.
        if threads.__class__ is int and groups is None and 0 <= threads <= self.max_threads:
            grid = (-(-threads // self.wg0), 1, 1)
            compiled, handle, packer = self.plain
        else:
            grid, folded = launch_grid(threads, groups, self.kernel.workgroup_size,
                                       self.limit, self.kname)
            compiled, handle, packer = self.variant(folded)
        dev = self.dev
        bufs = []
        back = None
        for (i, slot), w in zip(self.slots, self.written):
            v = args[i]
            if v.__class__ is np.ndarray:
                if w and not v.flags.writeable:
                    raise LaunchError(f"{self.kname}(): parameter '{slot.name}' is written by "
                                      "the kernel and got a read-only numpy array")
                arr = dev.array(np.ascontiguousarray(v).reshape((-1,) + v.shape[1:]))
                if w:
                    back = back or []
                    back.append((v, arr))
                bufs.append(arr)
                continue
            if v.__class__ is not np.ndarray and not isinstance(v, DeviceArray) \
                    and is_foreign_array(v) and hasattr(dev, "adopt"):
                v = self._adopt(v, slot)
            if v.device is not dev and not dev.shares_arrays(v.device):
                raise LaunchError(f"{self.kname}(): parameter '{slot.name}' is an array on "
                                  f"{v.device.name}, the launch is on {dev.name}: copy it with "
                                  "dev.array(arr.numpy())")
            bufs.append(v)
        if self.check_alias:
            self._check_aliasing(args, bufs)
        params = packer(args, bufs) if packer is not None else None
        if grid[0] and grid[1] and grid[2]:
            dev.run_prepared(handle, bufs, params, grid)
        if back:
            for host, arr in back:
                host[...] = arr.numpy().reshape(host.shape)

    def _adopt(self, v: Any, slot: BufferSlot) -> DeviceArray:
        """A foreign GPU array as this device's array, in place (the device checks it)."""
        try:
            return self.dev.adopt(v)
        except LaunchError as e:
            raise LaunchError(f"{self.kname}(): parameter '{slot.name}': {e}") from None

    def _fast_call(self, args: tuple) -> Callable:
        """``self.__call__`` specialised for this binder when every buffer argument is a
        device array (the key guarantees it for every call that reaches this binder):
        one generated function, no loops; anything unusual (another device, an aliased
        array, a grid that folds or is not a plain int) goes the general way."""
        if any(args[i].__class__ is np.ndarray or not isinstance(args[i], DeviceArray)
               for i, _ in self.slots):
            return self.__call__
        _, handle, packer = self.plain
        names = [f"a{i}" for i, _ in self.slots]
        lines = ["def fast(args, threads, groups):",
                 "    if threads.__class__ is not int or groups is not None or "
                 f"not 0 < threads <= {self.max_threads}:",
                 "        return slow(args, threads, groups)"]
        for n, (i, _) in zip(names, self.slots):
            lines.append(f"    {n} = args[{i}]")
        if names:
            lines.append(f"    if {' or '.join(f'{n}.device is not dev' for n in names)}:")
            lines.append("        return slow(args, threads, groups)")
        # one array bound to two parameters goes the general way (which refuses it) only
        # where one of them is written: two read-only bindings of it are fine, and a
        # library launch passing an unread placeholder twice keeps the fast path
        w = self.written
        pairs = [f"{a} is {b}" for k, a in enumerate(names) for j, b in enumerate(names)
                 if j > k and (w[k] or w[j])]
        if pairs:
            lines.append(f"    if {' or '.join(pairs)}:")
            lines.append("        return slow(args, threads, groups)")
        lines.append(f"    bufs = [{', '.join(names)}]")
        pack = "pack(args, bufs)" if packer is not None else "None"
        lines.append(f"    run(handle, bufs, {pack}, (-(-threads // {self.wg0}), 1, 1))")
        env = {"slow": self.__call__, "dev": self.dev, "run": self.dev.run_prepared,
               "handle": handle, "pack": packer}
        exec(compile("\n".join(lines) + "\n", f"<pyshade launch {self.kname}>", "exec"),
             env)  # noqa: S102 - generated from the kernel's layout
        return env["fast"]

    def _check_aliasing(self, args: tuple, bufs: list) -> None:
        ids = [id(b) for b in bufs]
        hosts = [args[i] for i, _ in self.slots]
        if len(set(ids)) == len(ids) and sum(h.__class__ is np.ndarray for h in hosts) < 2 \
                and not any(map(is_foreign_array, hosts)):
            return
        for a in range(len(bufs)):
            for b in range(a + 1, len(bufs)):
                if not (self.written[a] or self.written[b]):
                    continue
                ha, hb = hosts[a], hosts[b]
                pa, pb = getattr(bufs[a], "ptr", None), getattr(bufs[b], "ptr", None)
                same = bufs[a] is bufs[b] or (pa is not None and pa == pb) or (
                    ha.__class__ is np.ndarray and hb.__class__ is np.ndarray
                    and np.shares_memory(ha, hb))
                if same:
                    na, nb = self.slots[a][1].name, self.slots[b][1].name
                    wr = na if self.written[a] else nb
                    raise LaunchError(f"{self.kname}(): parameters '{na}' and '{nb}' are the "
                                      f"same array, and the kernel writes '{wr}': pass "
                                      "separate arrays (the result would depend on the GPU)")


def bind_arguments(kernel: Any, args: tuple, kwargs: dict) -> tuple:
    """All arguments in parameter order, Const defaults filled in; unknown, repeated and
    missing arguments are errors."""
    params = kernel.params
    kname = kernel.__name__
    names = [p[0] for p in params]
    if len(args) > len(names):
        raise LaunchError(f"{kname}() takes {len(names)} arguments, got {len(args)}")
    out = list(args) + [_MISSING] * (len(names) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise LaunchError(f"{kname}() has no parameter {k!r} (parameters: "
                              f"{', '.join(names)})")
        i = names.index(k)
        if i < len(args):
            raise LaunchError(f"{kname}(): parameter {k!r} given twice")
        out[i] = v
    for i, (name, ann, default) in enumerate(params):
        if out[i] is _MISSING:
            if isinstance(ann, T.ConstAnnotation) and default is not inspect.Parameter.empty:
                out[i] = default
            else:
                raise LaunchError(f"{kname}(): missing argument {name!r}")
    return tuple(out)


_MISSING = object()


class BinderCache:
    """Binders of one kernel by (device, argument signature); at most
    ``BINDER_CACHE_SIZE``, the oldest dropped first."""

    def __init__(self, kernel: Any):
        self.kernel = kernel
        self.map: dict = {}
        self.lock = threading.Lock()
        self._key: Callable | None = None

    def key(self, dev: Any, args: tuple) -> tuple:
        """What a binder depends on: the device and each argument's signature."""
        if self._key is None:
            # One generated expression per kernel: a buffer contributes its array
            # signature, a Const its value, any other value its Python class.
            parts = []
            for i, (_, ann, _) in enumerate(self.kernel.params):
                if isinstance(ann, T.BufferAnnotation):
                    parts.append(f"_sig(a[{i}])")
                elif isinstance(ann, T.ConstAnnotation):
                    parts.append(f"(a[{i}].__class__, a[{i}])")
                else:
                    parts.append(f"a[{i}].__class__")
            env = {"_sig": array_signature}
            exec(f"def key(dev, a): return (dev, {', '.join(parts)}{',' if parts else ''})",
                 env)  # noqa: S102 - generated from the kernel's signature
            self._key = env["key"]
        return self._key(dev, args)

    def get(self, dev: Any, args: tuple) -> Binder:
        """The binder for these arguments (made on first use)."""
        key = self.key(dev, args)
        try:
            b = self.map.get(key)
        except TypeError:              # an unhashable Const value: no caching
            return Binder(self.kernel, dev, args)
        if b is not None:
            return b
        b = Binder(self.kernel, dev, args)
        with self.lock:
            self.map[key] = b
            while len(self.map) > BINDER_CACHE_SIZE:
                del self.map[next(iter(self.map))]
        return b
