"""Constant tables: a module-level (or closure) tuple or list of numbers, or of
equal-length tuples of numbers, read in a kernel is a constant array of every target
(docs/language.md, "Constant tables")."""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from .deep import copy_tree, walk
from .typeutil import CT, decay


def table_shape(obj: Any) -> tuple[list, list[int]] | str:
    """The flat numbers of a table and its shape (outermost first), or the reason it is
    not one (for the message)."""
    if not isinstance(obj, (tuple, list)):
        return "not a tuple or list"
    if not obj:
        return "that is empty"
    if all(isinstance(v, (tuple, list)) for v in obj):
        rows = [table_shape(v) for v in obj]
        for r in rows:
            if isinstance(r, str):
                return r
        shapes = {tuple(r[1]) for r in rows}
        if len(shapes) != 1:
            return "whose rows have different lengths or shapes"
        return [x for r in rows for x in r[0]], [len(obj)] + rows[0][1]
    if any(isinstance(v, (tuple, list)) for v in obj):
        return "mixing numbers and tuples"
    for v in obj:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return f"holding {type(v).__name__} values"
    return list(obj), [len(obj)]


def table_elem(flat: list) -> T.ScalarType | str:
    """The element type of a table's numbers: f32 if any is a float, else i32 where all fit,
    else u32 where all fit; or the reason none fits."""
    if any(isinstance(v, float) for v in flat):
        return T.f32
    for t in (T.i32, T.u32):
        if all(t.min <= v <= t.max for v in flat):
            return t
    return "holding integers that fit neither i32 nor u32"


def table_type(obj: Any) -> tuple[T.Type, Any] | str:
    """The array type of a table and its values (nested tuples, converted to the element
    type), or the reason it is not a table."""
    shape = table_shape(obj)
    if isinstance(shape, str):
        return shape
    flat, dims = shape
    elem = table_elem(flat)
    if isinstance(elem, str):
        return elem
    t: T.Type = elem
    for n in reversed(dims):
        t = T.ArrayType(t, n)

    def conv(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return tuple(conv(x) for x in v)
        return float(v) if elem.is_float else int(v)
    return t, conv(obj)


class TableMixin:
    """``value_node``'s case of a tuple or list: a table (the Checker provides ``error``,
    ``prog``)."""

    def table_node(self, node: ast.expr, obj: Any) -> ast.expr:
        """The table ``obj`` read through ``node`` (a name or attribute): registered on the
        program under its name (a different table of the same name gets ``name_2``...)."""
        made = table_type(obj)
        if isinstance(made, str):
            self.error(node, f"{ast.unparse(node)} is a {type(obj).__name__} {made}: a "
                             "constant table is a non-empty tuple or list of numbers, or of "
                             "equal-length tuples of numbers")
        t, values = made
        tables = self.prog.tables
        base = ast.unparse(node).replace(".", "_")
        name, i = base, 1
        while name in tables and tables[name] != (t, values):
            i += 1
            name = f"{base}_{i}"
        tables[name] = (t, values)
        node.ps_type = t
        node.ps_ref = ("table", name)
        return node

    def expand_list(self, node: ast.Assign) -> list[ast.stmt]:
        """``w = [a, b, c]``: a local array of 3 elements, as the declaration ``w`` (zeroed,
        marked ``ps_list_type``) then ``w[0] = a``, ``w[1] = b``, ``w[2] = c``. The element
        type is the first typed element's, else f32 where a literal is a float, else i32."""
        target, lst = node.targets[0], node.value
        if not lst.elts:
            self.error(lst, "an empty list literal has no length or element type: use "
                            "ps.array(T, N)")
        types = []
        prev, self.stmt = self.stmt, node
        for e in lst.elts:
            if isinstance(e, (ast.List, ast.Tuple, ast.Starred)):
                self.error(e, "the elements of a list literal must be values (nested lists "
                              "are not supported: use ps.array(ps.array(T, M), N))")
            t = self.tx(copy_tree(e)).ps_type
            if isinstance(t, CT) or t is None:
                self.error(e, "this value cannot be an array element")
            types.append(t)
        self.stmt = prev
        concrete = [t for t in types if not isinstance(t, T.AbstractType)]
        if concrete:
            elem = decay(concrete[0])
        else:
            elem = T.f32 if any(t.kind == "float" for t in types) else T.i32
        at = T.ArrayType(elem, len(lst.elts))
        decl = ast.copy_location(ast.Assign([target], ast.copy_location(
            ast.Call(ast.Name("_ps_list", ast.Load()), [], []), lst)), node)
        decl.value.ps_list_type = at
        out: list[ast.stmt] = [decl]
        for k, e in enumerate(lst.elts):
            dst = ast.copy_location(ast.Subscript(ast.Name(target.id, ast.Store()),
                                                  ast.Constant(k), ast.Store()), e)
            out.append(ast.copy_location(ast.Assign([dst], e), e))
        for s in out:
            for n in walk(s):
                if not hasattr(n, "lineno"):
                    ast.copy_location(n, e if n is not decl else node)
        return out
