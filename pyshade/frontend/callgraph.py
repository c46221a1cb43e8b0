"""Run the frontend for one specialisation: the kernel, then every helper it
reaches, each monomorphised per argument types (and per bound buffer).

``check_kernel`` is the frontend's entry point: source -> specialise ->
lower -> type check -> enums decayed (``decay.py``), returning a ``Program`` for the
emitters.
"""

from __future__ import annotations

import ast
import typing
from typing import Any

from .. import types as T
from .barrier_scope import device_ordered_buffers
from .decay import decay_enums
from .deep import copy_tree, recursion_headroom, too_deep
from .exprs import CT, decay
from .lower import lower
from .prelude_calls import in_prelude
from .program import BufferParam, FuncInfo, KernelInfo, Program
from .signature import annotations_of as _annotations
from .signature import kernel_params  # noqa: F401 - the kernel object's
from .source import FunctionSource, get_source, make_error
from .specialize import Specializer
from .tuples import coerce_arg
from .typecheck import Checker, ProgramBuilder


def check_kernel(fn: Any, target: str, typevars: dict, consts: dict,
                 workgroup_size: tuple[int, int, int], folded: bool = False) -> Program:
    """Translate ``fn``'s AST into a typed Program for ``target``."""
    src = get_source(fn)
    with recursion_headroom():
        try:
            return _check_kernel(src, fn, target, typevars, consts, workgroup_size, folded)
        except RecursionError:
            raise too_deep(src.filename, src.tree) from None


def _check_kernel(src: FunctionSource, fn: Any, target: str, typevars: dict, consts: dict,
                  workgroup_size: tuple[int, int, int], folded: bool) -> Program:
    tree = copy_tree(src.tree)
    builder = ProgramBuilder(target)
    builder.typevars = typevars
    ann = _annotations(fn)
    if tree.args.vararg or tree.args.kwarg or tree.args.kwonlyargs or tree.args.posonlyargs:
        raise src.error(tree, "kernels take plain positional parameters (no *args, **kwargs, "
                              "keyword-only or positional-only parameters)")
    params: list[tuple[str, T.Type]] = []
    buffers: list[BufferParam] = []
    values: list[tuple[str, T.Type]] = []
    for a in tree.args.args:
        annot = ann.get(a.arg)
        if annot is None:
            raise src.error(a, f"kernel parameter {a.arg!r} needs a type annotation "
                               "(ps.Buffer[T], a scalar, vector, struct or ps.Const[...])")
        if isinstance(annot, T.ConstAnnotation):
            if a.arg not in consts:
                raise src.error(a, f"no value for the Const parameter {a.arg!r}")
            continue
        try:
            t = T.resolve_type(annot, typevars, where=f"parameter {a.arg!r}")
        except T.TypeResolutionError as e:
            raise src.error(a, str(e)) from None
        if isinstance(t, T.ArrayType):
            raise src.error(a, "arrays cannot be kernel parameters: use ps.Buffer[T]")
        params.append((a.arg, t))
        if isinstance(t, T.BufferType):
            buffers.append(BufferParam(a.arg, t))
        else:
            values.append((a.arg, t))
        builder.use_type(t)
    tree = Specializer(src, consts, builder.view).visit(tree)
    tree = lower(src, tree)
    kinfo = KernelInfo(src=src, tree=tree, name=tree.name, params=params, is_kernel=True,
                       buffers=buffers, values=values, workgroup_size=workgroup_size,
                       folded=folded)
    builder.kernel = kinfo
    builder.stack.append((fn.__code__, tree))
    checker = Checker(builder, kinfo, consts)
    checker.prog_checker = _Helpers(builder)
    checker.run()
    builder.stack.pop()
    if kinfo.uses_barrier:
        from .uniformity import check_barriers  # barrier kernels only
        check_barriers(kinfo)
    kinfo.ordered_buffers = device_ordered_buffers(kinfo)
    _name_helpers(builder.order)
    prog = Program(kernel=kinfo, funcs=builder.order, structs=builder.structs,
                   enums=builder.enums, target=target, consts=dict(consts),
                   tables=builder.tables, asked=builder.view.asked)
    decay_enums(prog)
    return prog


def _name_helpers(funcs: list[FuncInfo]) -> None:
    by_name: dict[str, list[FuncInfo]] = {}
    for f in funcs:
        if in_prelude(f.src):
            # The prelude's names always carry their types, so that one operation reads the
            # same in every kernel (ps_min_float_f32) and instances never collide; one that
            # takes a buffer or shared array carries its name too.
            kinds = dict.fromkeys(t.name for _, t in f.params)
            f.emit_name = "_".join([f.name, *kinds, *f.buffer_params.values()])
            continue
        by_name.setdefault(f.name, []).append(f)
    for name, fs in by_name.items():
        if len(fs) == 1:
            fs[0].emit_name = name
            continue
        for f in fs:
            suffix = "_".join(t.name for _, t in f.params) or "v"
            globs = "_".join(f.buffer_params.values())
            f.emit_name = f"{name}_{suffix}" + (f"_{globs}" if globs else "")


class _Helpers:
    """Monomorphisation of helper functions (one instance per argument types)."""

    def __init__(self, builder: ProgramBuilder):
        self.b = builder

    def helper(self, caller: Checker, node: ast.Call, fn: Any, src: FunctionSource,
               args: list) -> FuncInfo:
        """Type a call of helper ``fn``: fill in defaults, bind the parameter types, and return
        the FuncInfo of that instance (checked once per argument types)."""
        tree0 = src.tree
        pnames = [a.arg for a in tree0.args.args]
        if tree0.args.vararg or tree0.args.kwarg or tree0.args.kwonlyargs:
            caller.error(node, f"{fn.__name__}() has *args/**kwargs/keyword-only parameters: "
                               "helpers take plain positional parameters")
        defaults = tree0.args.defaults
        if not len(pnames) - len(defaults) <= len(args) <= len(pnames):
            caller.error(node, f"{fn.__name__}() takes {len(pnames)} arguments, "
                               f"got {len(args)}")
        if len(args) < len(pnames):
            extra = []
            for d in defaults[len(defaults) - (len(pnames) - len(args)):]:
                extra.append(caller.tx(copy_tree(d)))
            args = list(args) + extra
            node.args = list(node.args) + extra
            node.ps_defaults = extra        # the emitters read node.ps_args
        ann = _annotations(fn)
        tv: dict = dict(self.b.typevars)
        ptypes: list[tuple[str, T.Type]] = []
        globs: dict[str, str] = {}
        for pname, a in zip(pnames, args):
            annot = ann.get(pname)
            at = a.ps_type
            if isinstance(at, CT):
                caller.error(a, f"cannot pass {ast.unparse(a)} to a helper: pass a value "
                                "(Const types are used directly, as cmp.before(...))")
            ref = getattr(a, "ps_ref", None)
            if isinstance(at, T.BufferType) or (isinstance(at, T.ArrayType) and at.shared):
                if not (ref and ref[0] == "global"):
                    caller.error(a, "pass a Buffer or shared array by its name")
                globs[pname] = ref[1]
                if annot is not None:
                    want = annot.elem if isinstance(annot, T.BufferAnnotation) else None
                    if isinstance(want, typing.TypeVar):
                        self.bind(caller, a, want, at.elem, tv)
                ptypes.append((pname, at))
                continue
            if annot is None:
                t = caller.default(a).ps_type
            elif isinstance(annot, typing.TypeVar):
                if isinstance(at, T.AbstractType):
                    t = tv.get(annot) or caller.default(a).ps_type
                else:
                    t = decay(at) if isinstance(at, T.EnumType) and at not in T.typevar_options(annot) \
                        else at
                self.bind(caller, a, annot, t, tv)
                t = tv[annot]
            else:
                try:
                    t = T.resolve_type(annot, tv, where=f"parameter {pname!r} of {fn.__name__}")
                except T.TypeResolutionError as e:
                    caller.error(a, str(e))
            coerce_arg(caller, a, t, f"parameter {pname!r} of {fn.__name__}()")
            caller.coerce(a, t, f"parameter {pname!r} of {fn.__name__}()")
            ptypes.append((pname, t))
        ret_ann = ann.get("return", "missing")
        key = (fn.__code__, tuple(t for _, t in ptypes), tuple(sorted(globs.items())))
        if key in self.b.funcs:
            return self.b.funcs[key]
        tree = copy_tree(tree0)
        tree.args.defaults = []
        tree = Specializer(src, {}, self.b.view).visit(tree)
        tree = lower(src, tree)
        info = FuncInfo(src=src, tree=tree, name=tree.name,
                        params=[(n, t) for n, t in ptypes if n not in globs], key=key,
                        buffer_params=globs)
        info.all_params = ptypes
        if ret_ann not in ("missing", None):
            try:
                info.ret = T.resolve_type(ret_ann, tv, where=f"return of {fn.__name__}")
            except T.TypeResolutionError as e:
                raise make_error(src.filename, tree, str(e)) from None
            info.ret_declared = True
            self.b.use_type(info.ret)
        elif ret_ann is None:
            info.ret_declared = True
        self.b.stack.append((fn.__code__, tree))
        saved = self.b.typevars
        self.b.typevars = tv
        sub = Checker(self.b, info, {})
        sub.params = dict(ptypes)
        sub.prog_checker = self
        sub.run()
        self.b.typevars = saved
        self.b.stack.pop()
        self.b.funcs[key] = info
        self.b.order.append(info)
        return info

    def bind(self, caller: Checker, node: ast.AST, var: typing.TypeVar, t: T.Type,
             tv: dict) -> None:
        """Bind TypeVar ``var`` to ``t`` in ``tv``; an error if bound to another type or not allowed."""
        if var in tv:
            if tv[var] != t:
                caller.error(node, f"TypeVar {var.__name__} is already bound to {tv[var]} "
                                   f"in this call, got {t}")
            return
        opts = T.typevar_options(var)
        if opts and t not in opts:
            caller.error(node, f"{t} is not allowed for TypeVar {var.__name__} "
                               f"(allowed: {', '.join(o.name for o in opts)})")
        tv[var] = t
