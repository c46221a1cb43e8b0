"""Kernel objects and the @ps.func marker: specialisation cache; drive frontend -> emit ->
toolchains -> runtime.

Decorating is lazy: ``@ps.kernel`` only records the function. Translation
(and every TranslationError) happens at ``translate``, ``compile``, ``check``
or the first ``launch`` of a specialisation. A specialisation is the tuple of
TypeVar bindings, Const values and whether the launch folds its groups.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import types
import typing
from typing import Any

from . import targets
from . import types as T
from .artifact import Compiled
from .cache import LRU
from .errors import PyshadeError, TranslationError, user_traceback
from .interface import Layout, Spec, layout_of, param_layout
from .launch import BinderCache, bind_arguments, check_workgroup_size
from .runtime.base import Device

MAX_GROUPS_PER_DIM = 65535
# Values compared by equality when a watched name is rebound (a new float object of the
# same value needs no new translation); anything else by identity.
_PLAIN = (int, float, bool, str, bytes, complex)
_BY_VALUE = _PLAIN + (tuple, list)      # constant tables compare by value


def snapshot(v: Any) -> Any:
    """A watched value as ``refresh`` compares it later: a list (a constant table can be
    one, changed in place) copied, nested lists and tuples included."""
    if type(v) is list:
        return [snapshot(x) for x in v]
    if type(v) is tuple and any(type(x) in (list, tuple) for x in v):
        return tuple(snapshot(x) for x in v)
    return v
_GONE = object()
# Specialisations kept per kernel (programs, sources, compiled code), least recently
# used dropped first: a Const parameter swept over many values must not grow memory.
SPEC_CACHE_SIZE = 64


class Kernel:
    """A ``@ps.kernel`` function: translate, compile and launch it."""

    def __init__(self, fn: Any, workgroup_size: int | tuple = 64):
        from .frontend.source import capture_source
        # The source as Python just ran it: a later edit of the file changes nothing
        # until the module is reloaded (as for any Python function).
        capture_source(fn)
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
        self._frontends = LRU(SPEC_CACHE_SIZE)    # spec -> typed Programs (``_checked``)
        self._sources = LRU(SPEC_CACHE_SIZE)
        self._compiled = LRU(SPEC_CACHE_SIZE)
        self._binders = BinderCache(self)
        # The module globals and closure values translation read, as (container, name or
        # None for a cell, value): a launch that finds one changed translates again, on
        # every device (``generation`` is part of each pipeline's key).
        self._watch: dict = {}
        self._watched: tuple = ()
        self.generation = 0

    def __repr__(self) -> str:
        return f"<pyshade.Kernel {self.__qualname__} workgroup_size={self.workgroup_size}>"

    def _repr_html_(self) -> str:
        """A notebook's view: the signature and workgroup size, then the generated source
        of every target in its own collapsible section (highlighted by Pygments where it
        is installed), or why a target cannot be produced (a generic kernel shows its
        first binding of each TypeVar)."""
        from .notebook import kernel_html
        return kernel_html(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"kernel {self.__name__} runs on a device: use "
                        f"{self.__name__}.launch(..., threads=n, device=...)")

    # -- signature ------------------------------------------------------------------------
    @property
    def params(self) -> list[tuple[str, Any, Any]]:
        """(name, annotation object, default) per parameter."""
        if self._params is None:
            from .frontend.signature import kernel_params
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
                t = T.resolve_type(bindings.pop(tv.__name__))
                opts = T.typevar_options(tv)
                if opts and t not in opts:
                    raise TranslationError(
                        f"kernel {self.__name__}: {tv.__name__}={t} is not allowed (allowed: "
                        f"{', '.join(o.name for o in opts)})")
                tvs.append((tv, t))
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
            entry = targets.get(target)
            cls = entry.emitter_class()
            prog = self._checked(entry, spec).for_target(target)
            lengths = prog.lengths_used() if cls.explicit_lengths else []
            groups = cls.groups_in_block and (spec.folded or prog.uses_id("num_groups"))
            prog.param_block = param_layout(prog.kernel.values, lengths, groups)
            # The same offsets everywhere; how the block travels is the target's choice
            # (GLSL: push constants when they fit).
            prog.param_block.kind = cls.block_kind(prog.param_block)
            self._programs.put(key, prog)
        return prog

    def _checked(self, entry: targets.Target, spec: Spec) -> Any:
        """The frontend's typed Program of a specialisation for ``entry``: one already
        made for another target that answered the frontend's questions the same way
        (``frontend.target_view``), else a new one."""
        from .frontend.target_view import answers_hold
        made = self._frontends.get(spec)
        if made is None:
            made = self._frontends.put(spec, [])
        for prog in made:
            if answers_hold(prog.asked, entry):
                return prog
        from .frontend.callgraph import check_kernel
        prog = check_kernel(self.fn, entry.name, spec.typevar_dict, spec.const_dict,
                            self.workgroup_size, spec.folded)
        self._watch_reads([prog.kernel.src] + [f.src for f in prog.funcs])
        made.append(prog)
        return prog

    # -- module-level names and closure values, taken at launch ---------------------------
    def _watch_reads(self, sources: list) -> None:
        for src in sources:
            if str(src.globals.get("__name__", "")).startswith("pyshade"):
                continue                # pyshade's own prelude and library kernels
            for k, entry in src.reads.items():
                if not isinstance(entry[2], types.ModuleType):
                    self._watch[k] = (entry[0], entry[1], snapshot(entry[2]))
        self._watched = tuple(self._watch.values())

    def refresh(self) -> bool:
        """Translate again if a module-level name or closure value that the kernel read
        has changed since (True then): what every launch, ``translate`` and ``compile``
        do first, so the values at launch time are the ones that run, on every device."""
        for container, name, value in self._watched:
            try:
                now = container.cell_contents if name is None else container[name]
            except (KeyError, ValueError):
                now = _GONE
            if now is not value and not (type(now) is type(value) and type(value) in _BY_VALUE
                                         and now == value):
                self._forget()
                return True
        return False

    def _forget(self) -> None:
        self._programs = LRU(SPEC_CACHE_SIZE)
        self._frontends = LRU(SPEC_CACHE_SIZE)    # spec -> typed Programs (``_checked``)
        self._sources = LRU(SPEC_CACHE_SIZE)
        self._compiled = LRU(SPEC_CACHE_SIZE)
        self._binders = BinderCache(self)
        self._watch = {}
        self._watched = ()
        self.generation += 1

    def translate_spec(self, target: str, spec: Spec) -> Compiled:
        """The translation of a specialisation for ``target`` (cached): a ``Compiled``
        record whose ``binary`` is not set, what the target's toolchain compiles."""
        target = targets.get(target).name       # names are case-insensitive
        if self._watched:
            self.refresh()
        key = (spec, target)
        hit = self._sources.get(key)
        if hit is None:
            from .frontend.requirements import requirements_of
            entry = targets.get(target)
            prog = self.program(target, spec)
            em = entry.emitter_class()(prog)
            text = em.emit()
            k = prog.kernel
            hit = self._sources.put(key, Compiled(
                target, None, text, em.global_name(self.__name__), layout_of(
                    prog, self.workgroup_size, spec.folded),
                key=(id(self), self.generation, spec, target),
                files={os.path.basename(f.src.filename): f.src.filename
                       for f in [k, *prog.funcs]},
                requirements=requirements_of(prog), params=tuple(k.params),
                names={s.name: em.global_name(s.name) for s in prog.structs},
                line_map=tuple(em.line_map), filename=prog.filename, lineno=k.tree.lineno))
        return hit

    def source(self, target: str = "wgsl", **bindings: Any) -> str:
        """The generated source for ``target`` (same as ``ps.translate``)."""
        __tracebackhide__ = True
        try:
            return self.translate_spec(target, self.spec(bindings)).source
        except PyshadeError as e:
            raise user_traceback(e) from e.__cause__

    def layout(self, target: str, spec: Spec) -> Layout:
        """Bindings of a specialisation, for the runtime."""
        return self.translate_spec(target, spec).layout

    def compile_spec(self, target: str, spec: Spec, validate: Any = True) -> Compiled:
        """Compile a specialisation with the target's toolchain (cached)."""
        target = targets.get(target).name
        key = (spec, target, validate)
        hit = self._compiled.get(key)
        if hit is None:
            from . import diskcache
            from .toolchains import compile_source
            use_disk = diskcache.cache_dir() is not None
            if self._watched:
                self.refresh()
            if use_disk:
                hit = diskcache.load(self, target, spec, validate)
                if hit is not None:     # translated and compiled by an earlier process
                    self._sources.put((spec, target), dataclasses.replace(hit, binary=None))
                    return self._compiled.put(key, hit)
            translated = self.translate_spec(target, spec)
            binary, log = compile_source(translated, validate)
            hit = self._compiled.put(key, dataclasses.replace(translated, binary=binary,
                                                              log=log))
            if use_disk:
                diskcache.store(self, hit, self.program(target, spec), spec, validate)
        return hit

    # -- launch ---------------------------------------------------------------------------
    def launch(self, *args: Any, threads: int | None = None,
               groups: int | tuple | None = None, device: Any = None, **kwargs: Any) -> None:
        """Run the kernel: ``threads=n`` (1-D, bound-checked by the kernel) or ``groups=``.

        Every argument is checked before anything reaches the device (see
        ``pyshade.launch``); a bad one is a ``LaunchError`` naming the parameter.
        """
        __tracebackhide__ = True        # IPython and pytest: the user's call is the frame
        try:
            dev = device if isinstance(device, Device) else _get_device(device)
            if self._watched:
                self.refresh()
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
        except Exception as e:
            raise user_traceback(e) from e.__cause__


def _get_device(dev: Any) -> Device:
    from .runtime import get_device
    return get_device(dev)


def kernel(fn: Any = None, *, workgroup_size: int | tuple = 64) -> Any:
    """Decorator: ``@ps.kernel``, ``@ps.kernel(workgroup_size=256)`` or ``@ps.kernel(256)``
    (also a tuple: ``@ps.kernel((16, 16))``)."""
    if fn is None:
        return lambda f: Kernel(f, workgroup_size)
    if isinstance(fn, (int, tuple, list)) and not isinstance(fn, bool):
        size = fn
        return lambda f: Kernel(f, size)
    if not callable(fn):
        raise TypeError(f"@ps.kernel takes a function, or a workgroup size as in "
                        f"@ps.kernel(64) or @ps.kernel(workgroup_size=(8, 8)); got {fn!r}")
    return Kernel(fn, workgroup_size)


def func(fn: Any) -> Any:
    """Decorator marking a helper function; returns the function unchanged (its source
    is recorded now, as a kernel's is)."""
    from .frontend.source import capture_source
    capture_source(fn)
    fn.__pyshade_func__ = True
    return fn


__all__ = ["Kernel", "kernel", "func", "Spec", "PyshadeError"]
