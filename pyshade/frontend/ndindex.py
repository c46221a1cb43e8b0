"""Multi-dimensional indexing: ``a[i, j]`` of a ``Buffer[T, 2]`` (or 3) and of a 2-D/3-D
local or shared array, and ``a.shape[k]`` of a buffer.

- An N-D array (``ps.array(T, (4, 4))``, ``ps.shared_array(f32, (16, 17))``) is an array
  of arrays in every target, so ``tile[y, x]`` becomes ``tile[y][x]`` here, once.
- An N-D buffer is one flat array of elements in C order on every GPU target: ``a[i, j]``
  becomes ``a[u32(i) * a.shape[1] + u32(j)]``, where ``a.shape[k]`` is a ``len`` call
  with ``ps_axis = k`` (the launch path packs the size of each axis that is read, as it
  packs ``len``). The python target keeps ``a[i, j]`` so that the cpu device checks the
  bounds of each axis (``_ixn`` in its support code).
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from .. import types as T
from .typeutil import call_at


def shape_access(tc: Any, node: ast.Subscript) -> ast.expr | None:
    """``a.shape[k]`` of a buffer (k a constant): the size of axis k as a u32, else None
    (not a ``.shape``)."""
    attr = node.value
    if not (isinstance(attr, ast.Attribute) and attr.attr == "shape"):
        return None
    base = copy.deepcopy(attr.value)
    bt = tc.tx(attr.value).ps_type
    if not isinstance(bt, T.BufferType):
        return None
    k = tc.tx(node.slice)
    if not (isinstance(k, ast.Constant) and isinstance(k.value, int)
            and not isinstance(k.value, bool)):
        tc.error(node.slice, f"the axis of {ast.unparse(attr)}[...] must be a constant "
                             f"integer (0 to {bt.ndim - 1})")
    if not 0 <= k.value < bt.ndim:
        tc.error(node.slice, f"{ast.unparse(attr.value)} is a {bt.ndim}-D buffer: its "
                             f"axes are 0 to {bt.ndim - 1}, not {k.value}")
    return axis_length(tc, base, k.value, node)


def axis_length(tc: Any, buf: ast.expr, axis: int, where: ast.AST) -> ast.expr:
    """The typed call ``len(buf)`` that stands for the size of ``buf``'s axis ``axis``."""
    call = tc.tx(call_at("len", [copy.deepcopy(buf)], where))
    call.ps_axis = axis
    return call


def bare_shape(tc: Any, node: ast.Attribute) -> None:
    """``a.shape`` not indexed: an error that says to index it."""
    tc.error(node, f"{ast.unparse(node)} is read one axis at a time: "
                   f"{ast.unparse(node)}[0], {ast.unparse(node)}[1]")


def tuple_index(tc: Any, node: ast.Subscript) -> ast.expr:
    """``a[i, j]`` (``node.slice`` a Tuple): a typed subscript of the element."""
    base = copy.deepcopy(node.value)
    node.value = tc.tx(node.value)
    vt = node.value.ps_type
    idx = node.slice.elts
    if any(isinstance(e, (ast.Slice, ast.Starred)) for e in idx):
        tc.error(node.slice, "slices are not supported: index one element, a[i, j]")
    if isinstance(vt, T.ArrayType):
        depth, t = 0, vt
        while isinstance(t, T.ArrayType):
            depth, t = depth + 1, t.elem
        if len(idx) > depth:
            tc.error(node.slice, f"{ast.unparse(node.value)} is a {depth}-D array "
                                 f"({vt}): it takes {depth} indices, not {len(idx)}")
        # tile[y, x] is tile[y][x]: each level checked as a 1-D index.
        out: ast.expr = node.value
        for e in idx:
            sub = ast.copy_location(ast.Subscript(out, e, ast.Load()), node)
            out = _typed_subscript(tc, sub)
        out.ctx = node.ctx
        return out
    if not isinstance(vt, T.BufferType) or vt.ndim == 1:
        tc.error(node.slice, f"{ast.unparse(node.value)} is a {vt}, which takes one index: "
                             "index a ps.Buffer[T, 2] (or 3), or a ps.array(T, (rows, cols)), "
                             "with several")
    if len(idx) != vt.ndim:
        tc.error(node.slice, f"{ast.unparse(node.value)} is a {vt.ndim}-D buffer: it takes "
                             f"{vt.ndim} indices, not {len(idx)}")
    typed = [tc.index(e) for e in idx]
    node.ps_type = vt.elem
    if tc.view.is_("python"):
        node.slice.elts = typed
        node.slice.ps_type = T.u32
        node.ps_nd = True
        return node
    flat = _as_u32(tc, typed[0])
    for axis, e in enumerate(typed[1:], start=1):
        size = axis_length(tc, base, axis, e)
        flat = _binop(_binop(flat, ast.Mult(), size, e), ast.Add(), _as_u32(tc, e), e)
    node.slice = flat
    return node


def _typed_subscript(tc: Any, sub: ast.Subscript) -> ast.expr:
    """One level of an array subscript whose value is typed already."""
    at = sub.value.ps_type
    sub.slice = tc.index(sub.slice)
    if not isinstance(at, T.ArrayType):
        tc.error(sub, f"a {at} value cannot be indexed")
    if isinstance(sub.slice, ast.Constant) and sub.slice.value >= at.n:
        tc.error(sub.slice, f"index {sub.slice.value} is out of range for {at}")
    sub.ps_type = at.elem
    return sub


def _as_u32(tc: Any, e: ast.expr) -> ast.expr:
    if T.decayed(e.ps_type) == T.u32:
        return e
    return tc.cast_call(call_at("u32", [e], e), T.u32)


def _binop(a: ast.expr, op: ast.operator, b: ast.expr, where: ast.AST) -> ast.expr:
    n = ast.copy_location(ast.BinOp(a, op, b), where)
    n.ps_type = T.u32
    return n
