"""Tuples: a helper's ``return a, b`` builds the tuple struct of its element types
(``structs.tuple_type``: ``ps_tuple_u32_f32`` with fields ``_0, _1``), and an unpacking
``a, b = value`` (lowered by ``lower.py`` to a temporary marked ``ps_unpack`` and one
``tmp[i]`` per target) reads the tuple's fields or the vector's components. A tuple is
only ever unpacked: any other use is an error that says so."""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from ..structs import tuple_elems, tuple_type
from .typeutil import CT, call_at

UNPACK_HINT = "unpack it into variables (a, b = f(x))"


def describe(t: T.Type) -> str:
    """A tuple struct as ``tuple[u32, f32]``, any other type by its name."""
    elems = tuple_elems(t)
    return f"tuple[{', '.join(e.name for e in elems)}]" if elems is not None else t.name


def return_tuple(ch: Any, node: ast.Return) -> None:
    """``return a, b`` in a helper: the tuple struct's constructor, of the same shape and
    types as every other return of the helper (the first fixes an undeclared type)."""
    f = ch.func
    elts = node.value.elts
    for e in elts:
        if isinstance(e, (ast.Tuple, ast.List, ast.Starred)):
            ch.error(e, "a returned tuple holds values, not nested tuples or starred items")
    elts = [ch.tx(e) for e in elts]
    for e in elts:
        if isinstance(e.ps_type, (CT, T.BufferType)) or e.ps_type is None:
            ch.error(e, "a returned tuple holds scalars, vectors and structs")
    if f.ret is None and not getattr(f, "ret_declared", False):
        f.ret = tuple_type([ch.default(e).ps_type for e in elts])
        ch.use_type(f.ret)
    want = tuple_elems(f.ret)
    if want is None or len(want) != len(elts):
        ch.error(node.value, f"{f.name}() returns {_shape(f.ret)}: this return gives "
                             f"{len(elts)} values (every return must have the same shape)")
    for i, (e, t) in enumerate(zip(elts, want)):
        ch.coerce(e, t, f"value {i} of the returned tuple")
    st = f.ret
    call = call_at(st.name, [], node.value)
    call.keywords = [ast.keyword(arg=f"_{i}", value=e) for i, e in enumerate(elts)]
    call.ps_fields = [(f"_{i}", e) for i, e in enumerate(elts)]
    call.ps_call = ("struct", st)
    call.ps_type = st
    node.value = call


def _shape(t: T.Type | None) -> str:
    elems = tuple_elems(t)
    if elems is None:
        return f"one value ({describe(t)})" if t is not None else "no value"
    return f"{len(elems)} values ({describe(t)})"


def check_return(ch: Any, node: ast.Return) -> None:
    """A returned single value where the helper returns a tuple (or the reverse): an error."""
    f, vt = ch.func, node.value.ps_type
    if (tuple_elems(f.ret) is not None or tuple_elems(vt) is not None) and vt != f.ret:
        ch.error(node.value, f"{f.name}() returns {_shape(f.ret)}: this return gives "
                             f"{_shape(vt)} (every return must have the same shape)")


def check_unpack(ch: Any, value: ast.expr, n: int) -> None:
    """The value of ``a, b = value``: a tuple of ``n`` values or a vector of ``n`` components."""
    t = value.ps_type
    elems = tuple_elems(t)
    if elems is not None:
        if len(elems) != n:
            ch.error(value, f"cannot unpack {len(elems)} values ({describe(t)}) into "
                            f"{n} targets")
    elif isinstance(t, T.VectorType):
        if t.n != n:
            ch.error(value, f"cannot unpack a {t.name} ({t.n} components) into {n} targets")
    else:
        ch.error(value, f"cannot unpack a {T.host_type_name(t)} value: unpack a vector or "
                        "the tuple a helper returns")


def unpack_part(ch: Any, node: ast.Subscript) -> ast.expr:
    """Element ``i`` of an unpacking (``tmp[i]`` made by ``lower.py``): the tuple's field
    ``_i`` or the vector's component."""
    i = node.slice.value
    probe = ch.tx(ast.copy_location(ast.Name(node.value.id, ast.Load()), node))
    attr = f"_{i}" if tuple_elems(probe.ps_type) is not None else "xyzw"[i]
    part = ast.copy_location(ast.Attribute(node.value, attr, ast.Load()), node)
    part.ps_unpack = True
    return ch.tx(part)


def not_unpacked(ch: Any, node: ast.AST, t: T.Type) -> None:
    """A tuple used other than by unpacking: an error."""
    ch.error(node, f"a tuple ({describe(t)}) cannot be used as a value: {UNPACK_HINT}")


def tuple_arg(ch: Any, node: ast.Tuple) -> ast.expr:
    """``f((a, b))``: the tuple struct's constructor, its elements typed; the helper's
    parameter type fixes their types (``coerce_arg``), else each element's own."""
    for e in node.elts:
        if isinstance(e, (ast.Tuple, ast.List, ast.Starred)):
            ch.error(e, "a tuple argument holds values, not nested tuples or starred items")
    elts = [ch.tx(e) for e in node.elts]
    types = []
    for e in elts:
        t = e.ps_type
        if isinstance(t, (CT, T.BufferType)) or t is None:
            ch.error(e, "a tuple argument holds scalars, vectors and structs")
        if isinstance(t, T.AbstractType):
            t = T.i32 if t.kind == "int" else T.f32
        types.append(t)
    call = call_at("tuple", [], node)
    call.ps_tuple_elts = elts
    _construct(call, tuple_type(types))
    return call


def _construct(call: ast.Call, st: T.StructType) -> None:
    elts = call.ps_tuple_elts
    call.keywords = [ast.keyword(arg=f"_{i}", value=e) for i, e in enumerate(elts)]
    call.ps_fields = [(f"_{i}", e) for i, e in enumerate(elts)]
    call.ps_call = ("struct", st)
    call.ps_type = st


def coerce_arg(ch: Any, arg: ast.expr, want: T.Type, what: str) -> None:
    """A tuple argument (``tuple_arg``) passed for a parameter of type ``want``: each element
    coerced to the parameter's element type."""
    elts = getattr(arg, "ps_tuple_elts", None)
    if elts is None:
        return
    wanted = tuple_elems(want)
    if wanted is None or len(wanted) != len(elts):
        ch.error(arg, f"{what} is {_shape(want)}: this argument is {_shape(arg.ps_type)}")
    for i, (e, t) in enumerate(zip(elts, wanted)):
        ch.coerce(e, t, f"value {i} of the tuple for {what}")
    _construct(arg, want)
