"""The ``"cpu"`` device: runs the Python emission of a kernel, one call per
invocation, with exact GPU fixed-width semantics.

Buffers become Python lists for the launch (fast element access, exact
binary32 floats) and are written back when the kernel writes them. A kernel
that calls ``barrier()`` is a generator: every invocation of a workgroup runs
up to its next barrier before any goes on, and an invocation that finishes
while others wait at a barrier is reported (a barrier in non-uniform control
flow hangs or misbehaves on a GPU).
"""

from __future__ import annotations

import inspect
import itertools
import platform
from typing import Any, Sequence

import numpy as np

from .. import types as T
from ..errors import LaunchError
from . import cpu_support as S
from .base import Compiled, Device, DeviceArray


class CpuArray(DeviceArray):
    """A device array of the CPU device: a numpy array."""

    def __init__(self, device: "CpuDevice", data: np.ndarray):
        self.device = device
        self.data = data
        self.dtype = data.dtype
        self.shape = data.shape

    def numpy(self) -> np.ndarray:
        """A copy of the data."""
        return self.data.copy()

    def write(self, data: np.ndarray) -> None:
        """Overwrite the contents."""
        self.data[...] = np.asarray(data, dtype=self.dtype).reshape(self.shape)


class CpuDevice(Device):
    """Runs kernels in the Python interpreter (the reference device)."""

    name = backend = "cpu"
    target = "python"
    max_groups_per_dim = 2**31 - 1

    def __init__(self) -> None:
        self.adapter = f"CPython {platform.python_version()} interpreter"
        self._namespaces: dict = {}

    def array(self, data: Any, dtype: Any = None) -> CpuArray:
        """Copy ``data`` into a new CPU array."""
        arr = np.array(data, dtype=dtype, copy=True)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        return CpuArray(self, arr)

    def zeros(self, shape: int | Sequence[int], dtype: Any = np.float32) -> CpuArray:
        """A zero-filled array."""
        return CpuArray(self, np.zeros(shape, dtype=dtype))

    def namespace(self, compiled: Compiled) -> dict:
        """The namespace of a compiled kernel's code, executed once and cached."""
        key = compiled.key or id(compiled)
        ns = self._namespaces.get(key)
        if ns is None:
            ns = {"__name__": "pyshade_kernel"}
            exec(compiled.binary, ns)  # noqa: S102 - our own generated code
            self._namespaces[key] = ns
        return ns

    def launch_compiled(self, compiled: Compiled, buffers: Sequence[DeviceArray],
                        params: bytes | None, groups: tuple[int, int, int]) -> None:
        """Run every invocation of the launch."""
        ns = self.namespace(compiled)
        prog = compiled.extra["program"]
        em = compiled.extra["emitter"]
        k = prog.kernel
        fn = ns[em.global_name(k.name)]
        conv = _Converter(ns, em)
        lists = []
        for arr, b in zip(buffers, k.buffers):
            if not isinstance(arr, CpuArray):
                raise LaunchError(f"buffer {b.name!r} is not a cpu array")
            lists.append(conv.to_py_list(b.type.elem, arr.data))
        values = {}
        if params is not None:
            for (name, off, _, _), (_, t) in zip(prog.param_block.placed, prog.param_block.types):
                raw = np.frombuffer(params, dtype=t.np_dtype, count=1, offset=off)[0]
                values[name] = conv.to_py(t, raw)
        bufs = iter(lists)
        args = [next(bufs) if isinstance(t, T.BufferType) else values[n] for n, t in k.params]
        shared_types = [(s.type) for s in k.shared.values()]
        ids = [i for i in ("global_id", "local_id", "group_id", "num_groups", "local_index")
               if i in k.ids_used]
        run_launch(fn, args, ids, shared_types, conv, k.workgroup_size, groups)
        for arr, b, lst in zip(buffers, k.buffers, lists):
            if b.written or b.atomic:
                conv.from_py_list(b.type.elem, lst, arr.data)


def run_launch(fn: Any, args: list, ids: list[str], shared_types: list, conv: "_Converter",
               wg: tuple[int, int, int], groups: tuple[int, int, int]) -> None:
    """Call ``fn`` for every invocation, workgroup by workgroup."""
    gen = inspect.isgeneratorfunction(fn)
    X, Y, Z = wg
    GX, GY, GZ = groups
    nwg = S.Vec((GX, GY, GZ))
    locals_ = [(x, y, z) for z in range(Z) for y in range(Y) for x in range(X)]
    simple = not gen and not shared_types and ids == ["global_id"] and Y == Z == 1 \
        and GY == GZ == 1
    if simple:
        # The common 1-D case, kept lean: one plain call per invocation, the id
        # vectors built once per launch size and reused by later launches.
        gids = _gid_cache.get(GX * X)
        if gids is None:
            gids = [S.Vec((x, 0, 0)) for x in range(GX * X)]
            if len(_gid_cache) > 8:
                _gid_cache.clear()
            _gid_cache[GX * X] = gids
        gid = gids[0] if gids else None
        try:
            for gid in gids:
                fn(gid, *args)
        except Exception as e:
            e.add_note(f"(in the invocation with global_id={tuple(gid)})")
            raise
        return
    for gz, gy, gx in itertools.product(range(GZ), range(GY), range(GX)):
        shared = [conv.zero(t) for t in shared_types]
        wid = S.Vec((gx, gy, gz))
        calls = []
        for li, (lx, ly, lz) in enumerate(locals_):
            vals = {"global_id": S.Vec((gx * X + lx, gy * Y + ly, gz * Z + lz)),
                    "local_id": S.Vec((lx, ly, lz)), "group_id": wid, "num_groups": nwg,
                    "local_index": li}
            calls.append(([vals[i] for i in ids] + shared + args, vals["global_id"]))
        if not gen:
            for a, g in calls:
                _call(fn, a, g)
            continue
        live = [(fn(*a), g) for a, g in calls]
        while live:
            waiting, done = [], []
            for it, g in live:
                try:
                    next(it)
                    waiting.append((it, g))
                except StopIteration:
                    done.append(g)
                except Exception as e:
                    e.add_note(f"(in the invocation with global_id={tuple(g)})")
                    raise
            if waiting and done:
                raise LaunchError(f"barrier() reached by only some invocations of workgroup "
                                  f"{tuple(wid)}: invocation {tuple(waiting[0][1])} waits at a "
                                  f"barrier while {tuple(done[0])} has returned (barriers must be "
                                  "in uniform control flow)")
            live = waiting


_gid_cache: dict[int, list] = {}


def _call(fn: Any, args: Any, gid: Any) -> None:
    try:
        fn(*args)
    except Exception as e:
        where = tuple(gid) if isinstance(gid, tuple) else (gid, 0, 0)
        e.add_note(f"(in the invocation with global_id={where})")
        raise


class _Converter:
    """numpy values <-> the Python values the emitted code works with."""

    def __init__(self, ns: dict, em: Any):
        self.ns = ns
        self.em = em

    def struct_cls(self, t: T.StructType) -> Any:
        """The generated Python class of struct ``t``."""
        return self.ns[self.em.global_name(t.name)]

    def zero(self, t: T.Type) -> Any:
        """The zero value of ``t`` as the generated code represents it."""
        return eval(self.em.zero(t), self.ns)  # noqa: S307 - generated expression

    def to_py_list(self, t: T.Type, data: np.ndarray) -> list:
        """The elements of ``data`` (of type ``t``) as a list of Python values."""
        if isinstance(t, T.ScalarType) and t.kind != "bool" or isinstance(t, T.EnumType):
            return data.reshape(-1).tolist()
        rows = data.reshape(-1) if isinstance(t, T.StructType) else \
            data.reshape((-1,) + data.shape[1:])     # vectors/matrices: one row per element
        return [self.to_py(t, v) for v in rows]

    def to_py(self, t: T.Type, v: Any) -> Any:
        """One numpy value of type ``t`` as the generated code's Python value."""
        if isinstance(t, T.ScalarType):
            return bool(v) if t.kind == "bool" else v.item() if hasattr(v, "item") else v
        if isinstance(t, T.EnumType):
            return int(v)
        if isinstance(t, T.VectorType):
            vals = np.asarray(v).tolist()
            return S.Vec(tuple(bool(x) for x in vals) if t.elem == T.bool_ else tuple(vals))
        if isinstance(t, T.MatrixType):
            cols = np.asarray(v).tolist()
            return S._mat(t.n, *[S.Vec(tuple(c[:t.n])) for c in cols])
        if isinstance(t, T.ArrayType):
            arr = np.asarray(v)
            if arr.dtype.names == ("v",):
                arr = arr["v"]
            return [self.to_py(t.elem, x) for x in arr]
        if isinstance(t, T.StructType):
            cls = self.struct_cls(t)
            return cls(**{f: self.to_py(ft, v[f]) for f, ft in t.fields})
        raise TypeError(f"cannot convert {t}")

    def from_py_list(self, t: T.Type, lst: list, out: np.ndarray) -> None:
        """Write a list of Python values of type ``t`` into the numpy array ``out``."""
        if isinstance(t, T.ScalarType) and t.kind != "bool" or isinstance(t, T.EnumType):
            out.reshape(-1)[...] = np.array(lst, dtype=out.dtype)
            return
        flat = out.reshape((-1,) + out.shape[1:]) if not isinstance(t, T.StructType) \
            else out.reshape(-1)
        for i, v in enumerate(lst):
            flat[i] = self.from_py(t, v)

    def from_py(self, t: T.Type, v: Any) -> Any:
        """One Python value of type ``t`` as a value numpy can store (a record for a struct)."""
        if isinstance(t, T.ScalarType):
            return int(v) if t.kind == "bool" else v
        if isinstance(t, T.EnumType):
            return int(v)
        if isinstance(t, T.VectorType):
            return [int(x) if t.elem == T.bool_ else x for x in v]
        if isinstance(t, T.MatrixType):
            out = np.zeros(t.np_dtype.shape, dtype=np.float32)
            for i, c in enumerate(v):
                out[i, :t.n] = c
            return out
        if isinstance(t, T.ArrayType):
            target = np.zeros(t.n, dtype=t.elem.np_dtype)
            for i, x in enumerate(v):
                target[i] = self.from_py(t.elem, x)
            if t.np_dtype.base.names == ("v",):
                out = np.zeros(t.n, dtype=t.np_dtype.base)
                out["v"] = target
                return out
            return target
        if isinstance(t, T.StructType):
            rec = np.zeros((), dtype=t.np_dtype)
            for f, ft in t.fields:
                rec[f] = self.from_py(ft, getattr(v, f))
            return rec
        raise TypeError(f"cannot convert {t}")
