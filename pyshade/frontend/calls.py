"""Typing of calls (a mixin of the type checker): builtins, casts, vector,
matrix and struct constructors, atomics, print, and calls of helper
functions and struct methods (monomorphised by ``callgraph``).
"""

from __future__ import annotations

import ast
import enum
import inspect
import math
import types as pytypes
import typing
from typing import Any

from .. import lang
from .. import types as T
from ..errors import TranslationError
from .exprs import CT, IDS, NO_EXPR, decay, is_int
from .source import get_source
from .tuples import tuple_arg
from .typeutil import call_at


def _constant_tree(node: ast.expr) -> bool:
    """A Constant, or a vector constructor of such trees (what ``round`` folds)."""
    if isinstance(node, ast.Constant):
        return getattr(node, "ps_enum", None) is None
    return isinstance(node, ast.Call) and getattr(node, "ps_call", ("",))[0] == "construct" \
        and bool(node.args) and all(_constant_tree(a) for a in node.args)


def in_precision(v: float, t: T.Type) -> float:
    """The float constant ``v`` (a Constant holds the literal's double) rounded to the
    precision of ``t``: f32 and f16 round, f64 and abstract floats keep it."""
    import numpy as np
    dtype = {"f16": np.float16, "f32": np.float32}.get(getattr(t, "name", ""))
    if dtype is None:
        return v
    with np.errstate(all="ignore"):
        return float(dtype(v))


class CallMixin:
    """Call rules; the class using it provides ``tx``, ``error``, ``coerce``..."""

    def tx_Call(self, node: ast.Call) -> ast.expr:
        """Type a call by what it calls: builtin, cast, constructor, struct, enum, helper or method."""
        for kw in node.keywords:
            if kw.arg is None:
                self.error(kw, "**kwargs is not supported in kernels")
        # Unsupported syntax in an argument (sum(x for ...), print(f"...")) is the error to
        # report, not what the call does with it.
        lists = [a for a in node.args if isinstance(a, ast.List)]
        if lists and isinstance(self.static_callee(node), (T.VectorType, T.MatrixType)):
            fn = ast.unparse(node.func)
            self.error(lists[0], f"{fn}() takes the components themselves, not a list: write "
                                 f"{fn}({', '.join(ast.unparse(e) for e in lists[0].elts)})")
        for a in [*node.args, *(kw.value for kw in node.keywords)]:
            for bad, msg in NO_EXPR.items():
                if isinstance(a, bad) and bad is not ast.Starred and not (
                        bad is ast.Tuple and isinstance(self.static_callee(node),
                                                        pytypes.FunctionType)):
                    self.error(a, msg)
        if isinstance(node.func, ast.Attribute):
            # obj.method(...): type obj once; a struct's method is not one of its fields.
            node.func.value = self.tx(node.func.value)
            vt = node.func.value.ps_type
            if isinstance(vt, T.StructType) and node.func.attr not in vt.field_types:
                return self.method_call(node)
        node.func = self.tx(node.func)
        ft = node.func.ps_type
        if not isinstance(ft, CT):
            self.error(node, f"a {ft} value is not callable")
        obj = ft.obj
        if isinstance(obj, typing.TypeVar):     # T(x) in a generic helper: T's binding
            obj = self.bound_typevar(node.func, obj)
        b = lang.lookup(obj)
        if b is not None:
            return self.builtin_call(node, b)
        if isinstance(obj, T.ScalarType):
            return self.cast_call(node, obj)
        if isinstance(obj, (T.VectorType, T.MatrixType)):
            return self.construct(node, obj)
        if T.is_newtype(obj):
            return self.cast_call(node, T.resolve_type(obj))
        if isinstance(obj, type) and issubclass(obj, enum.IntEnum):
            et = T.EnumType(obj)
            self.use_type(et)
            return self.cast_call(node, et)
        if T.struct_type(obj) is not None:
            return self.struct_construct(node, T.struct_type(obj))
        if obj in (T.array, T.shared_array):
            self.error(node, f"ps.{obj.__name__}(...) must be assigned to a variable on its own")
        if obj is range:
            self.error(node, "range() is only allowed in 'for ... in range(...)'")
        if isinstance(obj, (pytypes.FunctionType, staticmethod)):
            return self.user_call(node, getattr(obj, "__func__", obj), node.args)
        if isinstance(obj, type) and issubclass(obj, (int, float, bool)):
            self.error(node, f"{obj.__name__}() is not supported here")
        name = getattr(obj, "__name__", None)
        alt = getattr(math, name, None) if isinstance(name, str) else None
        hint = f"; use math.{name}(...) instead" if lang.lookup(alt) is not None else ""
        self.error(node, f"cannot call {ast.unparse(node.func)} in a kernel: it is not a "
                         "pyshade builtin and has no Python source to translate (kernels can "
                         "call ps.* and math.* builtins, types, and functions written in "
                         f"Python){hint}")

    def builtin_call(self, node: ast.Call, b: lang.Builtin) -> ast.expr:
        """Type a builtin call with its typer; records ids used, purity and barriers."""
        if b.name == "tid":
            return self.tid_call(node)
        if b.name not in ("print",):
            node.args = [self.tx(a) for a in node.args] if b.name not in ("bitcast",) else \
                [node.args[0], self.tx(node.args[1])] if len(node.args) == 2 else node.args
        return self.builtin_typed(node, b)

    def builtin_typed(self, node: ast.Call, b: lang.Builtin) -> ast.expr:
        """``builtin_call`` of a call whose arguments are typed already (the checker's own
        calls: ``x ** y`` as ``math.pow``)."""
        node.ps_call = ("builtin", b)
        if b.name in IDS:
            self.func.ids_used.add(b.name)
        t = b.typer(self, node, [])
        if isinstance(t, ast.AST):   # casts fold to a replacement node
            return t
        node.ps_type = t
        if b.name == "round" and len(node.args) == 1 and _constant_tree(node.args[0]):
            return self.round_constant(node.args[0])
        if not b.pure:
            self.func.pure = False
        if "barrier" in b.kinds:
            self.barrier_call(node)
        return self.route_builtin(node, b.name)

    def round_constant(self, arg: ast.expr) -> ast.expr:
        """``round`` of a constant (or of a vector built of constants), folded exactly in
        the argument's precision, ties to even, the zero's sign kept (``round(-0.1)`` is
        -0.0), as every device computes it. Why fold: glslang folds ``roundEven`` of a
        constant with the zero's sign flipped (``roundEven(0.1)`` is -0.0;
        ``bench/probes/glslang_round_even_probe.py``), which ``bitcast`` turns into -2**31
        (fuzz seed 20261204 kernel 102; a vector: seed 20261206 kernel 12)."""
        import numpy as np
        if isinstance(arg, ast.Constant):
            t = arg.ps_type
            if not (isinstance(t, T.ScalarType) and t.is_float):
                return arg
            return self.const(arg, float(np.rint(in_precision(arg.value, t))), t)
        arg.args = [self.round_constant(a) for a in arg.args]
        return arg

    def tid_call(self, node: ast.Call) -> ast.expr:
        """``ps.tid()``: ``i32(global_id().x)``, built from typed nodes (no name lookups:
        the kernel's module need not import ``global_id``)."""
        self.arity(node, 0)
        gid = call_at("global_id", [], node)
        gid.func.ps_type = CT(lang.global_id)
        gid = self.builtin_call(gid, lang.BY_NAME["global_id"])
        x = self.tx(ast.copy_location(ast.Attribute(gid, "x", ast.Load()), node))
        return self.cast_call(call_at("i32", [x], node), T.i32)

    def bound_typevar(self, node: ast.AST, var: typing.TypeVar) -> T.Type:
        """The type TypeVar ``var`` is bound to in this function (an error where it is not)."""
        t = self.prog.typevars.get(var)
        if t is None:
            self.error(node, f"TypeVar {var.__name__} is not bound here: it must appear in "
                             "the function's parameter annotations")
        return t

    def type_argument(self, node: ast.expr) -> T.Type:
        """The Type named by a call argument (e.g. ``bitcast``'s first)."""
        node = self.tx(node)
        if not isinstance(node.ps_type, CT):
            self.error(node, "expected a type")
        if isinstance(node.ps_type.obj, typing.TypeVar):
            return self.bound_typevar(node, node.ps_type.obj)
        try:
            return T.resolve_type(node.ps_type.obj)
        except T.TypeResolutionError as e:
            self.error(node, str(e))

    def cast_call(self, node: ast.Call, t: T.Type) -> ast.expr:
        """A conversion ``T(x)``: a constant is folded (ints wrap, enum values must be members);
        other values must be scalars."""
        if node.keywords or len(node.args) > 1:
            self.error(node, f"{T.host_type_name(t)}() takes one argument")
        node.ps_call = ("cast", t)
        if not node.args:
            return self.const(node, 0 if t != T.bool_ else False, t)
        a = node.args[0] = self.tx(node.args[0]) if not hasattr(node.args[0], "ps_type") \
            else node.args[0]
        at = a.ps_type
        base = decay(t)
        if isinstance(at, T.AbstractType) or isinstance(a, ast.Constant) and \
                isinstance(at, T.ScalarType):
            v = a.value
            if base == T.bool_:
                return self.const(node, bool(v), t)
            if base.is_float:
                return self.const(node, float(v), t)
            if isinstance(t, T.EnumType):
                iv = int(math.trunc(v)) if isinstance(v, float) and math.isfinite(v) else v
                if iv not in t.members.values():
                    self.error(node, f"{iv} is not a member of {t.name}")
                c = self.const(node, iv, t)
                c.ps_enum = t.cls(iv)
                return c
            if isinstance(v, float):    # saturates as at run time; ints wrap (below)
                v = T.float_to_int(in_precision(v, at), base.min, base.max)
                return self.const(node, v, t)
            iv = int(v) & ((1 << base.bits) - 1)
            if base.kind == "int" and iv > base.max:
                iv -= 1 << base.bits
            return self.const(node, iv, t)
        if not isinstance(decay(at), T.ScalarType):
            self.error(node, f"cannot convert {at} to {T.host_type_name(t)}")
        node.ps_type = t
        return self.route_conversion(node, decay(at), t)

    def construct(self, node: ast.Call, t: T.Type) -> ast.expr:
        """A vector or matrix constructor: check the components' count and types."""
        if node.keywords:
            self.error(node, f"{t.name}() takes positional arguments")
        node.args = [self.tx(a) for a in node.args]
        node.ps_call = ("construct", t)
        node.ps_type = t
        if isinstance(t, T.VectorType):
            if len(node.args) == 1 and isinstance(node.args[0].ps_type, T.VectorType):
                src = node.args[0].ps_type
                if src.n != t.n:
                    self.error(node, f"cannot convert {src} to {t}")
                return self.route_conversion(node, src, t)
            count = 0
            for a in node.args:
                at = a.ps_type
                if isinstance(at, T.VectorType):
                    if at.elem != t.elem:
                        self.mismatch(a, T.vector_of(t.elem, at.n), at, f"{t.name}()")
                    count += at.n
                else:
                    self.coerce(a, t.elem, f"{t.name}()")
                    count += 1
            if count not in (0, 1, t.n):
                self.error(node, f"{t.name}() needs {t.n} components, got {count}")
            return node
        # matrices
        if not node.args:
            return node
        if all(a.ps_type == t.column for a in node.args) and len(node.args) == t.n:
            return node
        if len(node.args) != t.n * t.n:
            self.error(node, f"{t.name}() takes {t.n} column vectors or {t.n * t.n} floats "
                             "(column-major)")
        for a in node.args:
            self.coerce(a, T.f32, f"{t.name}()")
        return node

    def struct_construct(self, node: ast.Call, st: T.StructType) -> ast.expr:
        """A struct constructor: positional and keyword fields, each coerced to its type."""
        self.use_type(st)
        names = [f for f, _ in st.fields]
        given: dict[str, ast.expr] = {}
        if len(node.args) > len(names):
            self.error(node, f"{st.name}() takes at most {len(names)} positional arguments")
        for f, a in zip(names, node.args):
            given[f] = a
        for kw in node.keywords:
            if kw.arg not in st.field_types:
                self.error(kw, f"struct {st.name} has no field {kw.arg!r}")
            if kw.arg in given:
                self.error(kw, f"field {kw.arg!r} given twice")
            given[kw.arg] = kw.value
        for f, a in list(given.items()):
            a = self.tx(a)
            self.coerce(a, st.field_types[f], f"field {st.name}.{f}")
            given[f] = a
        for f in names:
            if f not in given and f in st.defaults:     # the class body's default
                d = st.defaults[f]
                given[f] = self.const(node, int(d) if isinstance(d, enum.IntEnum) else d,
                                      st.field_types[f])
        node.args = []
        node.keywords = [ast.keyword(arg=f, value=given[f]) for f in names if f in given]
        node.ps_fields = [(f, given.get(f)) for f in names]
        node.ps_call = ("struct", st)
        node.ps_type = st
        return node

    def barrier_call(self, node: ast.Call) -> None:
        """Check that ``barrier()`` is in the kernel body and mark the kernel as using it."""
        if not self.is_kernel:
            self.error(node, f"barrier() must be called in the kernel body, not in the helper "
                             f"{self.func.name!r}: move it into the kernel (it needs uniform "
                             "control flow)")
        self.func.uses_barrier = True

    def print_call(self, node: ast.Call) -> None:
        """Check ``print()`` (CPU and CUDA only): string literals and scalar or vector values."""
        if not self.view.prints:
            self.error(node, f"print() is not available on {self.target}: it works on the "
                             "CPU device and on CUDA; guard it with "
                             "'if ps.target == \"python\":'", target=self.target)
        if node.keywords:
            self.error(node.keywords[0], "print() keyword arguments are not supported")
        out = []
        for a in node.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                a.ps_type = CT(str)
                out.append(a)
                continue
            a = self.default(self.tx(a))
            if not isinstance(decay(a.ps_type), (T.ScalarType, T.VectorType)):
                self.error(a, f"print() cannot print a {a.ps_type}")
            out.append(a)
        node.args = out
        self.func.pure = False
        return None

    def atomic_call(self, node: ast.Call, nargs: int) -> T.Type:
        """Check an atomic's arguments and mark its buffer or shared array atomic; returns
        the element type."""
        self.arity(node, nargs)
        buf = node.args[0]
        bt = buf.ps_type
        ref = getattr(buf, "ps_ref", None)
        if not (isinstance(buf, ast.Name) and ref and ref[0] == "global"
                and isinstance(bt, (T.BufferType, T.ArrayType))
                and bt.elem in (T.u32, T.i32, T.f32)):
            self.error(buf, "atomics need a Buffer[u32], Buffer[i32], Buffer[f32] or a shared "
                            "array of u32/i32/f32 as first argument")
        op = node.ps_call[1].kinds[1]
        if bt.elem == T.f32 and op in ("and", "or", "xor"):
            self.error(node, f"atomic_{op} needs integer elements: {buf.id} holds f32 (f32 "
                             "elements take atomic_add, atomic_sub, atomic_min, atomic_max, "
                             "atomic_exchange and atomic_compare_exchange)")
        self.coerce(node.args[1], T.u32 if isinstance(node.args[1].ps_type, T.AbstractType)
                    else decay(node.args[1].ps_type))
        if not is_int(node.args[1].ps_type):
            self.error(node.args[1], "an index must be an integer")
        for a in node.args[2:]:
            self.coerce(a, bt.elem, "the atomic's value")
        self.mark_written(ref[1], atomic=True)
        return bt.elem

    def method_call(self, node: ast.Call) -> ast.expr:
        """A struct method call: a staticmethod gets the arguments, a method the struct first."""
        st = node.func.value.ps_type
        meth = getattr(st.cls, node.func.attr, None)
        raw = inspect.getattr_static(st.cls, node.func.attr, None)
        if meth is None or not callable(meth):
            self.error(node, f"struct {st.name} has no method {node.func.attr!r}")
        if isinstance(raw, staticmethod):
            return self.user_call(node, raw.__func__, node.args)
        return self.user_call(node, meth, [node.func.value] + list(node.args), bound=True)

    def user_call(self, node: ast.Call, fn: Any, args: list, bound: bool = False) -> ast.expr:
        """A call of a Python function: refuse recursion, type the arguments, monomorphise it."""
        if not isinstance(fn, pytypes.FunctionType):
            self.error(node, f"cannot call {ast.unparse(node.func)}: not a Python function")
        if node.keywords:
            self.error(node.keywords[0], "keyword arguments to helper functions are not "
                                         "supported: pass them positionally")
        for i, (key, _) in enumerate(self.prog.stack):
            if key is fn.__code__:
                names = [c.co_name for c, _ in self.prog.stack[i:]] + [fn.__name__]
                self.error(node, f"recursion is not supported on GPUs: {' -> '.join(names)}; "
                                 "rewrite it as a loop")
        try:
            src = get_source(fn)
        except TranslationError as e:
            self.error(node, f"cannot translate the call to {ast.unparse(node.func)}: "
                             f"{e.message if hasattr(e, 'message') else e}")
        typed_args = [a if hasattr(a, "ps_type") and bound and i == 0 else
                      tuple_arg(self, a) if isinstance(a, ast.Tuple) else self.tx(a)
                      for i, a in enumerate(args)]
        if bound:
            node.func.value = typed_args[0]
        else:
            node.args = typed_args
        info = self.prog_checker.helper(self, node, fn, src, typed_args)
        node.ps_call = ("func", info)
        node.ps_args = typed_args + getattr(node, "ps_defaults", [])
        node.ps_type = info.ret
        self.func.ids_used |= info.ids_used
        if not info.pure:
            self.func.pure = False
        return node
