"""Kernel objects and the @ps.func marker: specialisation cache; drive frontend -> emit ->
toolchains -> runtime.

Decorating is lazy: ``@ps.kernel`` only records the function. Translation
(and every TranslationError) happens at ``translate``, ``compile``, ``check``
or the first ``launch`` of a specialisation. A specialisation is the tuple of
TypeVar bindings, Const values and whether the launch folds its groups.
"""

from __future__ import annotations

import inspect
import math
import typing
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import types as T
from .errors import LaunchError, PyshadeError, TranslationError
from .runtime.base import BufferSlot, Compiled, DeviceArray, Layout, ParamBlock

MAX_GROUPS_PER_DIM = 65535


@dataclass(frozen=True)
class Spec:
    """One specialisation of a kernel."""

    typevars: tuple          # ((TypeVar, Type), ...)
    consts: tuple            # ((name, value), ...)
    folded: bool = False

    @property
    def typevar_dict(self) -> dict:
        """The TypeVar bindings as a dict: TypeVar -> Type."""
        return dict(self.typevars)

    @property
    def const_dict(self) -> dict:
        """The Const parameter values as a dict: name -> value."""
        return dict(self.consts)


def _round_up(a: int, n: int) -> int:
    return (n + a - 1) // a * a


def _uniform_ok(t: T.Type) -> bool:
    if isinstance(t, T.StructType):
        for f, ft in t.fields:
            if isinstance(ft, (T.StructType, T.ArrayType)) and t.offsets[f] % 16:
                return False
            if not _uniform_ok(ft):
                return False
    if isinstance(t, T.ArrayType):
        return t.stride % 16 == 0 and _uniform_ok(t.elem)
    return True


@dataclass
class ParamLayout:
    """Offsets of scalar/struct parameters in the parameter block."""

    placed: list            # (name, offset, align attribute or None, size attribute or None)
    size: int
    kind: str               # "uniform" or "storage"
    types: list             # (name, type)


def param_layout(values: list[tuple[str, T.Type]]) -> ParamLayout:
    """Lay out kernel value parameters by WGSL's uniform rules (std140-like)."""
    off, placed, kind = 0, [], "uniform"
    for name, t in values:
        a, size = t.align, t.size
        align_attr = size_attr = None
        if isinstance(t, (T.StructType, T.ArrayType)):
            if _round_up(16, a) != a:
                a = align_attr = _round_up(16, a)
            if _round_up(16, size) != size:
                size = size_attr = _round_up(16, size)
            if not _uniform_ok(t):
                kind = "storage"
        off = _round_up(a, off)
        placed.append((name, off, align_attr, size_attr))
        off += size
    return ParamLayout(placed, _round_up(16, max(off, 16)), kind, list(values))


def pack_value(t: T.Type, v: Any, name: str) -> bytes:
    """Host value -> bytes in the canonical layout, with range checks."""
    if isinstance(t, T.StructType):
        if isinstance(v, np.ndarray) and v.dtype == t.np_dtype:
            return v.tobytes()
        if not isinstance(v, t.cls):
            raise LaunchError(f"parameter {name!r} needs a {t.name} instance, got "
                              f"{type(v).__name__}")
        return v.to_numpy().tobytes()
    if isinstance(t, T.EnumType):
        if isinstance(v, t.cls):
            v = int(v)
        if not isinstance(v, (int, np.integer)) or int(v) not in t.members.values():
            raise LaunchError(f"parameter {name!r} needs a {t.name} member, got {v!r}")
        return np.array(int(v), dtype=t.base.np_dtype).tobytes()
    if isinstance(t, T.ScalarType):
        if t.kind == "bool":
            return np.array(int(bool(v)), dtype=np.uint32).tobytes()
        if t.is_int:
            if isinstance(v, (float, np.floating)) or not isinstance(v, (int, np.integer, bool)):
                raise LaunchError(f"parameter {name!r} is {t.name}, got {v!r} "
                                  f"({type(v).__name__})")
            if not t.min <= int(v) <= t.max:
                raise LaunchError(f"parameter {name!r}: {int(v)} does not fit {t.name} "
                                  f"(range {t.min}..{t.max})")
            return np.array(int(v), dtype=t.np_dtype).tobytes()
        if not isinstance(v, (int, float, np.integer, np.floating)):
            raise LaunchError(f"parameter {name!r} is {t.name}, got {type(v).__name__}")
        return np.array(v, dtype=t.np_dtype).tobytes()
    if isinstance(t, (T.VectorType, T.MatrixType)):
        arr = np.asarray(v, dtype=t.elem.np_dtype)
        if isinstance(t, T.MatrixType):
            if arr.shape != (t.n, t.n):
                raise LaunchError(f"parameter {name!r} needs a {t.n}x{t.n} array (columns)")
            out = np.zeros(t.np_dtype.shape, dtype=np.float32)
            out[:, :t.n] = arr
            return out.tobytes()
        if arr.shape != (t.n,):
            raise LaunchError(f"parameter {name!r} needs {t.n} components, got shape {arr.shape}")
        return arr.tobytes()
    raise LaunchError(f"cannot pass a value for parameter {name!r} of type {t}")


class Kernel:
    """A ``@ps.kernel`` function: translate, compile and launch it."""

    def __init__(self, fn: Any, workgroup_size: int | tuple = 64):
        self.fn = fn
        if isinstance(workgroup_size, int):
            workgroup_size = (workgroup_size, 1, 1)
        ws = tuple(workgroup_size) + (1,) * (3 - len(tuple(workgroup_size)))
        if len(ws) != 3 or any(not isinstance(x, int) or x < 1 for x in ws):
            raise ValueError(f"workgroup_size must be a positive int or (x, y, z), got "
                             f"{workgroup_size!r}")
        self.workgroup_size = ws
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._params: list | None = None
        self._programs: dict = {}
        self._sources: dict = {}
        self._compiled: dict = {}

    def __repr__(self) -> str:
        return f"<pyshade.Kernel {self.__qualname__} workgroup_size={self.workgroup_size}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"kernel {self.__name__} runs on a device: use "
                        f"{self.__name__}.launch(..., threads=n, device=...)")

    # -- signature ------------------------------------------------------------------------
    @property
    def params(self) -> list[tuple[str, Any, Any]]:
        """(name, annotation object, default) per parameter."""
        if self._params is None:
            from .frontend.callgraph import kernel_params
            self._params = kernel_params(self.fn)
        return self._params

    def typevars(self) -> list[typing.TypeVar]:
        """The TypeVars in the kernel's signature, in order."""
        out: list = []
        for _, ann, _ in self.params:
            for obj in (ann, getattr(ann, "elem", None)):
                if isinstance(obj, typing.TypeVar) and obj not in out:
                    out.append(obj)
        return out

    def spec(self, bindings: dict[str, Any], folded: bool = False, strict: bool = True) -> Spec:
        """A Spec from keyword bindings: TypeVar names and Const parameter names."""
        bindings = dict(bindings)
        tvs = []
        for tv in self.typevars():
            if tv.__name__ in bindings:
                v = bindings.pop(tv.__name__)
                tvs.append((tv, T.resolve_type(v)))
            elif strict:
                opts = ", ".join(getattr(c, "name", str(c)) for c in tv.__constraints__)
                raise TranslationError(f"kernel {self.__name__} is generic: bind its TypeVar "
                                       f"{tv.__name__} (e.g. {tv.__name__}=ps.u32"
                                       f"{'; allowed: ' + opts if opts else ''})")
        consts = []
        for name, ann, default in self.params:
            if isinstance(ann, T.ConstAnnotation):
                if name in bindings:
                    consts.append((name, bindings.pop(name)))
                elif default is not inspect.Parameter.empty:
                    consts.append((name, default))
                else:
                    raise TranslationError(f"kernel {self.__name__}: no value for the Const "
                                           f"parameter {name!r}")
        if bindings:
            raise TranslationError(f"kernel {self.__name__} has no TypeVar or Const parameter "
                                   f"named {', '.join(map(repr, bindings))}")
        return Spec(tuple(tvs), tuple(consts), folded)

    # -- frontend / emit ------------------------------------------------------------------
    def program(self, target: str, spec: Spec) -> Any:
        """The typed Program of a specialisation (cached)."""
        key = (spec, target)
        if key not in self._programs:
            from .frontend.callgraph import check_kernel
            prog = check_kernel(self.fn, target, spec.typevar_dict, spec.const_dict,
                                self.workgroup_size, spec.folded)
            prog.param_block = param_layout(prog.kernel.values)
            self._programs[key] = prog
        return self._programs[key]

    def translate_spec(self, target: str, spec: Spec) -> tuple[str, Any]:
        """(source text, emitter) of a specialisation for ``target``."""
        key = (spec, target)
        if key not in self._sources:
            from .emit import emitter_class
            cls = emitter_class(target)
            prog = self.program(target, spec)
            em = cls(prog)
            text = em.emit()
            self._sources[key] = (text, em)
        return self._sources[key]

    def source(self, target: str = "wgsl", /, **bindings: Any) -> str:
        """The generated source for ``target`` (same as ``ps.translate``)."""
        return self.translate_spec(target, self.spec(bindings))[0]

    def layout(self, target: str, spec: Spec) -> Layout:
        """Bindings of a specialisation, for the runtime."""
        prog = self.program(target, spec)
        k = prog.kernel
        slots = tuple(BufferSlot(b.name, i, b.type.elem.np_dtype, b.written or b.atomic,
                                 b.atomic) for i, b in enumerate(k.buffers))
        pb = None
        if k.values:
            pl = prog.param_block
            pb = ParamBlock(len(slots), pl.size, pl.kind,
                            tuple((n, off, t) for (n, off, _, _), (_, t) in
                                  zip(pl.placed, pl.types)))
        return Layout(slots, pb, self.workgroup_size, spec.folded)

    def compile_spec(self, target: str, spec: Spec, validate: bool = True) -> Compiled:
        """Compile a specialisation with the target's toolchain (cached)."""
        key = (spec, target, validate)
        if key not in self._compiled:
            text, em = self.translate_spec(target, spec)
            from .toolchains import compile_source
            binary, log = compile_source(target, text, em, validate)
            self._compiled[key] = Compiled(target, binary, text, em.global_name(self.__name__)
                                           if target != "python" else self.__name__,
                                           self.layout(target, spec),
                                           key=(id(self), spec, target), log=log,
                                           extra={"emitter": em,
                                                  "program": self.program(target, spec)})
        return self._compiled[key]

    # -- launch ---------------------------------------------------------------------------
    def launch(self, *args: Any, threads: int | None = None,
               groups: int | tuple | None = None, device: Any = None, **kwargs: Any) -> None:
        """Run the kernel: ``threads=n`` (1-D, bound-checked by the kernel) or ``groups=``."""
        from .runtime import get_device
        dev = get_device(device)
        names = [p[0] for p in self.params]
        if len(args) > len(names):
            raise LaunchError(f"{self.__name__}() takes {len(names)} arguments, got {len(args)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise LaunchError(f"{self.__name__}() has no parameter {k!r}")
            if k in bound:
                raise LaunchError(f"{self.__name__}(): {k!r} given twice")
            bound[k] = v
        tv: dict = {}
        consts = []
        for name, ann, default in self.params:
            if name not in bound:
                if isinstance(ann, T.ConstAnnotation) and default is not inspect.Parameter.empty:
                    consts.append((name, default))
                    continue
                raise LaunchError(f"{self.__name__}(): missing argument {name!r}")
            v = bound[name]
            if isinstance(ann, T.ConstAnnotation):
                consts.append((name, v))
                continue
            self._bind_typevars(name, ann, v, tv)
        if (threads is None) == (groups is None):
            raise LaunchError("launch needs exactly one of threads=n or groups=(gx, gy, gz)")
        wg = self.workgroup_size
        folded = False
        if threads is not None:
            if threads < 0:
                raise LaunchError("threads must be >= 0")
            total = math.ceil(threads / wg[0])
            limit = getattr(dev, "max_groups_per_dim", MAX_GROUPS_PER_DIM)
            if total > limit:
                gy = math.ceil(total / limit)
                grid = (math.ceil(total / gy), gy, 1)
                if grid[1] > limit:
                    raise LaunchError(f"threads={threads} needs too many workgroups")
                folded = True
            else:
                grid = (total, 1, 1)
        else:
            grid = (groups, 1, 1) if isinstance(groups, int) else tuple(groups) + (1,) * (
                3 - len(tuple(groups)))
        tvs = tuple((t, tv[t]) for t in self.typevars() if t in tv)
        spec = Spec(tvs, tuple(consts), folded)
        compiled = self.compile_spec(dev.target, spec, validate=False)
        prog = compiled.extra["program"]
        bufs, copy_back, params = [], [], bytearray(prog.param_block.size)
        for slot in compiled.layout.buffers:
            v = bound[slot.name]
            arr, back = _as_device_array(dev, v, slot, self.__name__)
            bufs.append(arr)
            if back is not None and slot.writable:
                copy_back.append((back, arr))
        for (name, off, _, _), (_, t) in zip(prog.param_block.placed, prog.param_block.types):
            b = pack_value(t, bound[name], name)
            params[off:off + len(b)] = b
        if any(g == 0 for g in grid):
            return
        dev.launch_compiled(compiled, bufs, bytes(params) if prog.kernel.values else None, grid)
        for host, arr in copy_back:
            host[...] = arr.numpy().reshape(host.shape)

    def _bind_typevars(self, name: str, ann: Any, v: Any, tv: dict) -> None:
        if isinstance(ann, T.BufferAnnotation) and isinstance(ann.elem, typing.TypeVar):
            dt = getattr(v, "dtype", None)
            if dt is None:
                raise LaunchError(f"parameter {name!r} needs an array")
            try:
                t = T.type_of_dtype(dt)
            except T.TypeResolutionError as e:
                raise LaunchError(f"parameter {name!r}: {e}") from None
            _bind(tv, ann.elem, t, name)
        elif isinstance(ann, typing.TypeVar):
            if isinstance(v, np.generic):
                t = T.type_of_dtype(v.dtype)
            elif isinstance(v, bool):
                t = T.bool_
            elif isinstance(v, int):
                t = tv.get(ann, T.i32)
            elif isinstance(v, float):
                t = tv.get(ann, T.f32)
            else:
                raise LaunchError(f"parameter {name!r}: cannot infer a type from {v!r}")
            _bind(tv, ann, t, name)


def _bind(tv: dict, var: typing.TypeVar, t: T.Type, name: str) -> None:
    if var in tv and tv[var] != t:
        raise LaunchError(f"parameter {name!r} binds TypeVar {var.__name__} to {t}, but it "
                          f"is already {tv[var]}")
    opts = T.typevar_options(var)
    if opts and t not in opts:
        raise LaunchError(f"parameter {name!r}: {t} is not allowed for {var.__name__} "
                          f"(allowed: {', '.join(o.name for o in opts)})")
    tv[var] = t


def _check_dtype(v: Any, slot: BufferSlot, kname: str) -> None:
    """An array fits a slot when its dtype is the element's, or, for vector and
    matrix elements (numpy keeps no sub-array dtype), when it is the component
    dtype with the element's shape as trailing dimensions: (n, 4) for vec4."""
    if v.dtype == slot.dtype:
        return
    sub = slot.dtype.subdtype
    if sub is not None and v.dtype == sub[0] and tuple(v.shape[1:]) == sub[1]:
        if sub[1] == (3,):
            raise LaunchError(f"{kname}(): {slot.name!r} is a buffer of 3-component vectors, "
                              "whose elements are 16 bytes apart on a GPU: use a 4-component "
                              "vector buffer, or a @ps.struct with a vec3 field")
        return
    want = (f"{sub[0]} with shape (n, {', '.join(map(str, sub[1]))})" if sub
            else f"dtype {slot.dtype}")
    raise LaunchError(f"{kname}(): {slot.name!r} needs {want}, got {v.dtype} with shape "
                      f"{tuple(v.shape)}")


def _as_device_array(dev: Any, v: Any, slot: BufferSlot, kname: str) -> tuple:
    if isinstance(v, DeviceArray):
        if v.device is not dev:
            raise LaunchError(f"{kname}(): array {slot.name!r} lives on {v.device.name}, the "
                              f"launch is on {dev.name}: copy it with dev.array(arr.numpy())")
        _check_dtype(v, slot, kname)
        return v, None
    if isinstance(v, np.ndarray):
        _check_dtype(v, slot, kname)
        return dev.array(v), v
    if hasattr(v, "__cuda_array_interface__") and hasattr(dev, "from_cuda"):
        return dev.from_cuda(v), None
    raise LaunchError(f"{kname}(): {slot.name!r} needs a device array or numpy array, got "
                      f"{type(v).__name__}")


def kernel(fn: Any = None, *, workgroup_size: int | tuple = 64) -> Any:
    """Decorator: ``@ps.kernel`` or ``@ps.kernel(workgroup_size=256)``."""
    if fn is None:
        return lambda f: Kernel(f, workgroup_size)
    return Kernel(fn, workgroup_size)


def func(fn: Any) -> Any:
    """Decorator marking a helper function; returns the function unchanged."""
    fn.__pyshade_func__ = True
    return fn


__all__ = ["Kernel", "kernel", "func", "Spec", "PyshadeError"]
