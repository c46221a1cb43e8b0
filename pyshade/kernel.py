"""Kernel objects and the @ps.func marker: specialisation cache; drive frontend -> emit ->
toolchains -> runtime.

Decorating is lazy: ``@ps.kernel`` only records the function. Translation
(and every TranslationError) happens at ``translate``, ``compile``, ``check``
or the first ``launch`` of a specialisation. A specialisation is the tuple of
TypeVar bindings, Const values and whether the launch folds its groups.
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import types as T
from .cache import LRU
from .errors import LaunchError, PyshadeError, TranslationError
from .launch import BinderCache, bind_arguments, check_workgroup_size
from .runtime.base import BufferSlot, Compiled, Device, Layout, ParamBlock

MAX_GROUPS_PER_DIM = 65535
# Specialisations kept per kernel (programs, sources, compiled code), least recently
# used dropped first: a Const parameter swept over many values must not grow memory.
SPEC_CACHE_SIZE = 64


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
    kind: str               # "uniform" or "storage"; "push" where the emitter chooses it
    types: list             # (name, type): the value parameters, then the hidden lengths
    lengths: dict           # buffer name -> name of its hidden u32 length member
    groups: str | None = None   # name of the hidden uvec3 of group counts, if any


def param_layout(values: list[tuple[str, T.Type]],
                 lengths: list[str] = (),  # type: ignore[assignment]
                 groups: bool = False) -> ParamLayout:
    """Lay out kernel value parameters by WGSL's uniform rules (std140-like), followed by
    a hidden u32 element count for each buffer in ``lengths`` (targets whose own
    buffer length counts binding padding get ``len(buf)`` from there) and, with
    ``groups``, a hidden uvec3 of the launch's group counts (HLSL has no built-in for
    them: the device writes them there at each dispatch)."""
    taken = {n for n, _ in values}

    def hidden_name(name: str) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        return name
    hidden = {b: hidden_name(f"_ps_len_{b}") for b in lengths}
    values = list(values) + [(hidden[b], T.u32) for b in lengths]
    groups_name = None
    if groups:
        groups_name = hidden_name("_ps_num_groups")
        values.append((groups_name, T.uvec3))
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
    return ParamLayout(placed, _round_up(16, max(off, 16)), kind, values, hidden, groups_name)


class Kernel:
    """A ``@ps.kernel`` function: translate, compile and launch it."""

    def __init__(self, fn: Any, workgroup_size: int | tuple = 64):
        self.fn = fn
        self.workgroup_size = check_workgroup_size(workgroup_size, fn.__name__)
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._params: list | None = None
        self._nparams = -1
        self._tails: dict[int, tuple] = {}
        self._programs = LRU(SPEC_CACHE_SIZE)
        self._sources = LRU(SPEC_CACHE_SIZE)
        self._compiled = LRU(SPEC_CACHE_SIZE)
        self._binders = BinderCache(self)

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
            self._nparams = len(self._params)
            # Positional calls that leave out trailing Const parameters with defaults:
            # the defaults to append, by the number of arguments given.
            self._tails = {}
            for k in range(len(self._params) - 1, -1, -1):
                _, ann, default = self._params[k]
                if not isinstance(ann, T.ConstAnnotation) or default is inspect.Parameter.empty:
                    break
                self._tails[k] = tuple(d for _, _, d in self._params[k:])
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
        prog = self._programs.get(key)
        if prog is None:
            from .emit import emitter_class
            from .frontend.callgraph import check_kernel
            prog = check_kernel(self.fn, target, spec.typevar_dict, spec.const_dict,
                                self.workgroup_size, spec.folded)
            cls = emitter_class(target)
            lengths = prog.lengths_used() if cls.explicit_lengths else []
            groups = cls.groups_in_block and (spec.folded or prog.uses_id("num_groups"))
            prog.param_block = param_layout(prog.kernel.values, lengths, groups)
            # The same offsets everywhere; how the block travels is the target's choice
            # (GLSL: push constants when they fit).
            prog.param_block.kind = cls.block_kind(prog.param_block)
            self._programs.put(key, prog)
        return prog

    def translate_spec(self, target: str, spec: Spec) -> tuple[str, Any]:
        """(source text, emitter) of a specialisation for ``target``."""
        key = (spec, target)
        hit = self._sources.get(key)
        if hit is None:
            from .emit import emitter_class
            cls = emitter_class(target)
            prog = self.program(target, spec)
            em = cls(prog)
            text = em.emit()
            hit = self._sources.put(key, (text, em))
        return hit

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
        pl = prog.param_block
        if pl.types:
            offsets = {n: off for n, off, _, _ in pl.placed}
            index = {b.name: i for i, b in enumerate(k.buffers)}
            pb = ParamBlock(len(slots), pl.size, pl.kind,
                            tuple((n, off, t) for (n, off, _, _), (_, t) in
                                  zip(pl.placed, pl.types)),
                            tuple((index[b], offsets[m]) for b, m in pl.lengths.items()),
                            offsets[pl.groups] if pl.groups else -1)
        return Layout(slots, pb, self.workgroup_size, spec.folded)

    def compile_spec(self, target: str, spec: Spec, validate: bool = True) -> Compiled:
        """Compile a specialisation with the target's toolchain (cached)."""
        key = (spec, target, validate)
        hit = self._compiled.get(key)
        if hit is None:
            text, em = self.translate_spec(target, spec)
            from .toolchains import compile_source
            binary, log = compile_source(target, text, em, validate)
            hit = self._compiled.put(key, Compiled(target, binary, text, em.global_name(self.__name__)
                                           if target != "python" else self.__name__,
                                           self.layout(target, spec),
                                           key=(id(self), spec, target), log=log,
                                           extra={"emitter": em,
                                                  "program": self.program(target, spec)}))
        return hit

    # -- launch ---------------------------------------------------------------------------
    def launch(self, *args: Any, threads: int | None = None,
               groups: int | tuple | None = None, device: Any = None, **kwargs: Any) -> None:
        """Run the kernel: ``threads=n`` (1-D, bound-checked by the kernel) or ``groups=``.

        Every argument is checked before anything reaches the device (see
        ``pyshade.launch``); a bad one is a ``LaunchError`` naming the parameter.
        """
        dev = device if isinstance(device, Device) else _get_device(device)
        if kwargs or len(args) != self._nparams:
            tail = None if kwargs else self._tails.get(len(args))
            args = args + tail if tail is not None else bind_arguments(self, args, kwargs)
        binders = self._binders
        try:
            b = binders.map.get(binders._key(dev, args))   # type: ignore[misc]
        except TypeError:               # no key function yet, or an unhashable Const
            b = None
        if b is None:
            b = binders.get(dev, args)
        b.fast(args, threads, groups)

    def _bind_typevars(self, name: str, ann: Any, v: Any, tv: dict) -> None:
        if isinstance(ann, T.BufferAnnotation) and isinstance(ann.elem, typing.TypeVar):
            dt = getattr(v, "dtype", None)
            if dt is None or not hasattr(v, "shape"):
                raise LaunchError(f"{self.__name__}(): parameter {name!r} is a Buffer and got "
                                  f"{type(v).__name__}, which is not an array")
            try:
                t = T.type_of_dtype(dt)
            except T.TypeResolutionError as e:
                raise LaunchError(f"{self.__name__}(): parameter {name!r}: {e}") from None
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
                raise LaunchError(f"{self.__name__}(): parameter {name!r} is generic "
                                  f"({ann.__name__}) and got {v!r}, whose type cannot bind it")
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


def _get_device(dev: Any) -> Device:
    from .runtime import get_device
    return get_device(dev)


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
