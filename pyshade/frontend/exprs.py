"""Type inference of expressions (a mixin of the type checker).

Untyped literals are "abstract" (as in WGSL): an expression made only of
literals is folded to one ``ast.Constant`` at once, and takes the type its
context needs when it meets a typed value (``x + 1`` with ``x: u32``).
Every typed node gets ``ps_type``.
"""

from __future__ import annotations

import ast
import enum
import linecache
import math
import operator
import struct
from typing import Any

import numpy as np

from .. import lang
from .. import types as T
from ..structs import tuple_elems
from . import ndindex
from .arith import ArithMixin
from .tuples import UNPACK_HINT, describe, unpack_part
from .typeutil import CT, decay, elem_of, is_int  # noqa: F401 - re-exported

ARITH = (ast.Add, ast.Sub, ast.Mult)
_PY_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_CMP_OPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
# struct format and largest finite value of each float type: a constant that rounds
# past it is an error (nothing silently wrong), not an infinity.
_FLOAT_LIMITS = {"f16": ("<e", "65504.0"), "f32": ("<f", "3.4028235e+38"),
                 "f64": ("<d", "1.7976931348623157e+308")}
OP_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
             ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
             ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.MatMult: "@"}

NO_EXPR = {
    ast.Lambda: "lambda is not supported in kernels: define a helper function with def",
    ast.ListComp: "list comprehensions are not supported in kernels: use ps.array(T, N) and a loop",
    ast.SetComp: "set comprehensions are not supported in kernels: use ps.array(T, N) and a loop",
    ast.DictComp: "dict comprehensions are not supported in kernels: use ps.array(T, N) and a "
                  "loop",
    ast.GeneratorExp: "generator expressions are not supported in kernels: use a loop",
    ast.List: "a list literal is only supported as a variable's value (w = [a, b, c] is a "
              "local array)",
    ast.Dict: "dict literals are not supported in kernels: use a @ps.struct or ps.array(T, N)",
    ast.Set: "set literals are not supported in kernels: use ps.array(T, N)",
    ast.Tuple: "a tuple is only unpacked (a, b = x, y), returned by a helper or passed to one "
               "(f((a, b))): use a vector or struct",
    ast.JoinedStr: "f-strings are not supported in kernels: pass values to print() separately",
    ast.Await: "await is not supported in kernels: kernels and helpers are plain functions",
    ast.Yield: "yield is not supported in kernels: write results to a Buffer",
    ast.YieldFrom: "yield is not supported in kernels: write results to a Buffer",
    ast.NamedExpr: "assignment expressions (:=) are not supported in kernels",
    ast.Starred: "starred expressions are not supported in kernels",
    ast.Slice: "slices are not supported in kernels: index one element at a time",
}


IDS = ("global_id", "local_id", "group_id", "num_groups", "local_index")


_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)


class ExprMixin(ArithMixin):
    """Expression rules; the class using it provides ``error``, ``lookup_name``..."""

    # -- helpers ------------------------------------------------------------------------
    def const(self, like: ast.AST, value: Any, t: T.Type) -> ast.Constant:
        """A typed Constant node at ``like``'s location."""
        node = ast.copy_location(ast.Constant(value), like)
        node.end_lineno = getattr(like, "end_lineno", None)
        node.end_col_offset = getattr(like, "end_col_offset", None)
        node.ps_type = t
        if isinstance(t, T.ScalarType) and t.is_int and not isinstance(value, bool):
            self.check_range(like, int(value), t)
        if isinstance(t, T.ScalarType) and t.is_float:
            self.check_float_range(like, value, t)
        return node

    def check_float_range(self, node: ast.AST, v: Any, t: T.ScalarType) -> float:
        """``v`` as a float constant of ``t``; raise unless it rounds to a finite value of
        ``t`` (infinities and NaN, e.g. ``math.inf``, pass: only overflow is an error)."""
        fmt, largest = _FLOAT_LIMITS[t.name]
        try:
            f = float(v)
            if math.isfinite(f):
                struct.pack(fmt, f)     # raises when rounding to t overflows
            return f
        except OverflowError:
            self.error(node, f"{self.literal_text(node, v)} is out of range for {t.name} "
                             f"(largest finite value {largest})")

    def literal_text(self, node: ast.AST, v: Any) -> str:
        """The constant as the user wrote it (its source text: ``1e300``, ``10 ** 40``),
        else its Python repr."""
        line = linecache.getline(self.src.filename, getattr(node, "lineno", 0) or 0)
        end = getattr(node, "end_col_offset", None)
        if line and node.lineno == getattr(node, "end_lineno", None) and end is not None:
            text = line[node.col_offset:end].strip()
            if text:
                return text
        return repr(v)

    def check_range(self, node: ast.AST, v: int, t: T.ScalarType) -> None:
        """Raise unless the integer constant ``v`` fits ``t``."""
        if not t.min <= v <= t.max:
            hint = f"; write {t.name}({v}) to wrap it" if t.is_int else ""
            self.error(node, f"integer constant {v} does not fit {t.name}{hint}")

    def types_of(self, nodes: list) -> list:
        """Types of already-typed nodes."""
        return [getattr(n, "ps_type", None) for n in nodes]

    def default(self, node: ast.AST) -> ast.AST:
        """Give an abstract literal its default type (i32 or f32)."""
        t = node.ps_type
        if isinstance(t, T.AbstractType):
            return self.coerce(node, T.i32 if t.kind == "int" else T.f32) and node
        return node

    def coerce(self, node: ast.AST, want: T.Type, what: str = "") -> T.Type:
        """Make ``node`` (already typed) have type ``want`` or raise a TranslationError."""
        t = node.ps_type
        if t == want:
            return want
        if isinstance(t, T.AbstractType) and isinstance(node, ast.Constant):
            w = decay(want)
            if isinstance(w, T.ScalarType) and w.is_int and t.kind == "int":
                self.check_range(node, int(node.value), w)
                node.ps_type = want
                return want
            if isinstance(w, T.ScalarType) and w.is_float:
                node.value = self.check_float_range(node, node.value, w)
                node.ps_type = want
                return want
            if isinstance(w, T.ScalarType) and w.is_int:
                self.error(node, f"float literal {node.value!r} where {w.name} is needed: "
                                 f"write an integer or convert with int(...)")
        if isinstance(t, T.EnumType) and decay(t) == want:
            return want
        self.mismatch(node, want, t, what)
        return want

    def mismatch(self, node: ast.AST, want: Any, got: Any, what: str = "") -> None:
        """Raise a type mismatch error, with the explicit conversion that fixes it where known."""
        w, g = decay(want), decay(got)
        where = f" for {what}" if what else ""
        msg = f"expected {T.host_type_name(want)}{where}, got {T.host_type_name(got)}"
        if isinstance(w, T.ScalarType) and isinstance(g, T.ScalarType):
            if w.is_int and g.is_int:
                kind = "mixed signedness" if w.bits == g.bits else "mixed integer widths"
                msg += f" ({kind}: convert explicitly with {w.name}(...))"
            elif w.is_int and g.is_float and isinstance(node, ast.BinOp) \
                    and isinstance(node.op, ast.Div):
                msg += (" (/ is true division, which gives a float as in Python: use // for "
                        f"integer division, or convert with {w.name}(...))")
            elif w.kind != g.kind and "bool" not in (w.kind, g.kind):
                cast = "float(...)" if w == T.f32 else ("int(...)" if w == T.i32 else f"{w.name}(...)")
                msg += f" (ints and floats do not mix: convert explicitly with {cast})"
            elif w.bits != g.bits:
                msg += f" (convert explicitly with {w.name}(...))"
        self.error(node, msg)

    def unify(self, node: ast.AST, args: list, what: str, default: T.Type | None = None) -> T.Type:
        """Give already-typed ``args`` one common type (literals follow typed values)."""
        ts = self.types_of(args)
        concrete = [t for t in ts if not isinstance(t, T.AbstractType)]
        if concrete:
            want = decay(concrete[0])
            for a in args:
                if a.ps_type != want:
                    self.coerce(a, want, what)
            return want
        if default is None:
            default = T.f32 if any(t.kind == "float" for t in ts) else T.i32
        for a in args:
            self.coerce(a, default, what)
        return default

    def require_float(self, node: ast.AST, t: T.Type) -> None:
        """Raise unless ``t`` (or its element type) is a float."""
        if not (isinstance(elem_of(t), T.ScalarType) and elem_of(t).is_float):
            self.error(node, f"{self.callee_name(node)}() needs a float argument, got {t}: "
                             "convert with float(...)")

    def require_numeric(self, node: ast.AST, t: T.Type) -> None:
        """Raise unless ``t``'s element type is a number (not bool)."""
        e = elem_of(t)
        if not (isinstance(e, T.ScalarType) and e.kind != "bool"):
            self.error(node, f"{self.callee_name(node)}() needs numbers, got {t}")

    def arity(self, node: ast.Call, n: int) -> None:
        """Raise unless the call has exactly ``n`` positional arguments and no keywords."""
        if node.keywords:
            self.error(node.keywords[0], f"{self.callee_name(node)}() takes no keyword arguments")
        if len(node.args) != n:
            self.error(node, f"{self.callee_name(node)}() takes {n} argument"
                             f"{'s' if n != 1 else ''}, got {len(node.args)}")

    def callee_name(self, node: ast.AST) -> str:
        """The called expression as source text, for messages ("this call" for a non-call)."""
        if isinstance(node, ast.Call):
            return ast.unparse(node.func)
        return "this call"

    # -- dispatch -------------------------------------------------------------------------
    def tx(self, node: ast.expr, want: T.Type | None = None) -> ast.expr:
        """Type ``node``; returns the (possibly replaced) node with ``ps_type``."""
        for bad, msg in NO_EXPR.items():
            if isinstance(node, bad):
                self.error(node, msg)
        meth = getattr(self, "tx_" + type(node).__name__, None)
        if meth is None:
            self.error(node, f"{type(node).__name__} expressions are not supported in kernels")
        out = meth(node)
        if want is not None and out.ps_type is not None and not isinstance(out.ps_type, CT):
            self.coerce(out, want)
        return out

    def tx_Constant(self, node: ast.Constant) -> ast.expr:
        """A literal: bool, or an abstract int or float; strings and others are errors."""
        v = node.value
        if isinstance(v, bool):
            node.ps_type = T.bool_
        elif isinstance(v, int):
            node.ps_type = T.abstract_int
        elif isinstance(v, float):
            if math.isinf(v) and not getattr(node, "ps_const_param", False):
                # Python itself read the literal as inf (1e400): too large for every type
                self.error(node, f"{self.literal_text(node, v)} is out of range for every "
                                 "float type (Python reads it as inf): write math.inf for "
                                 "infinity")
            node.ps_type = T.abstract_float
        elif isinstance(v, str):
            self.error(node, "strings are only allowed as print() arguments (kernels have no "
                             "string type)")
        else:
            self.error(node, f"{v!r} is not supported in kernels")
        return node

    def tx_Name(self, node: ast.Name) -> ast.expr:
        """A name read (see ``name_load``)."""
        return self.name_load(node)

    def value_node(self, node: ast.expr, obj: Any) -> ast.expr:
        """A compile-time object used as a value: a constant, enum member or CT."""
        if isinstance(obj, enum.Enum):
            if not isinstance(obj, enum.IntEnum):
                self.error(node, f"{obj!r}: only IntEnum members can be used in kernels")
            et = T.EnumType(type(obj))
            self.use_type(et)
            c = self.const(node, int(obj.value), et)
            c.ps_enum = obj
            return c
        if isinstance(obj, bool):
            return self.const(node, obj, T.bool_)
        if isinstance(obj, int):
            return self.const(node, obj, T.abstract_int)
        if isinstance(obj, float):
            return self.const(node, obj, T.abstract_float)
        if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":
            t = T.type_of_dtype(obj.dtype)
            return self.const(node, obj.item(), t)
        if isinstance(obj, (tuple, list)):
            return self.table_node(node, obj)
        if isinstance(obj, (str, dict, set, np.ndarray)):
            self.error(node, f"{ast.unparse(node)} is a {type(obj).__name__}: only numbers, "
                             "constant tables (tuples or lists of numbers), enums, types and "
                             "functions can be used from outside a kernel")
        node.ps_type = CT(obj)
        return node

    def tx_Attribute(self, node: ast.Attribute) -> ast.expr:
        """An attribute: of a compile-time object, a struct field, a vector swizzle or an
        enum's ``.value``."""
        if not hasattr(node.value, "ps_type"):      # tx_Call may have typed it already
            node.value = self.tx(node.value)
        vt = node.value.ps_type
        if isinstance(vt, CT):
            try:
                obj = getattr(vt.obj, node.attr)
            except AttributeError:
                self.error(node, f"{ast.unparse(node.value)} has no attribute {node.attr!r}")
            if obj is lang.target:
                return self.const(node, self.target, CT(str))
            return self.value_node(node, obj)
        if isinstance(vt, T.StructType):
            if tuple_elems(vt) is not None and not getattr(node, "ps_unpack", False):
                self.error(node.value, f"a tuple ({describe(vt)}) has no attributes: {UNPACK_HINT}")
            if node.attr in vt.field_types:
                node.ps_type = vt.field_types[node.attr]
                self.use_type(node.ps_type)
                return node
            self.error(node, f"struct {vt.name} has no field {node.attr!r} "
                             f"(fields: {', '.join(vt.field_types)})")
        if isinstance(vt, T.VectorType):
            comps = node.attr
            sets = ("xyzw"[:vt.n], "rgba"[:vt.n])
            if not any(all(c in s for c in comps) for s in sets) or len(comps) > 4:
                self.error(node, f"{vt.name} has no component or swizzle {comps!r}")
            node.ps_type = vt.elem if len(comps) == 1 else T.vector_of(vt.elem, len(comps))
            inner = node.value
            if isinstance(inner, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                    isinstance(getattr(inner.value, "ps_type", None), T.VectorType):
                # a swizzle of a swizzle, composed: v.xwz.yx is v.wx (MSL's stand-in, and
                # any reader, takes one swizzle; fuzz seed 20261204 kernel 120)
                first = [("xyzw".find(c) + 1 or "rgba".find(c) + 1) - 1 for c in inner.attr]
                node.attr = "".join("xyzw"[first[("xyzw".find(c) + 1 or "rgba".find(c) + 1) - 1]]
                                    for c in comps)
                node.value = inner.value
            return node
        if isinstance(vt, T.EnumType) and node.attr == "value":
            node.ps_type = vt.base
            return node
        if isinstance(vt, T.BufferType) and node.attr == "shape":
            ndindex.bare_shape(self, node)
        self.error(node, f"a {vt} value has no attribute {node.attr!r}")

    def tx_Subscript(self, node: ast.Subscript) -> ast.expr:
        """Indexing a buffer, array or vector (an element) or a matrix (a column)."""
        if getattr(node, "ps_unpack", False):
            return unpack_part(self, node)
        shape = ndindex.shape_access(self, node)
        if shape is not None:
            return shape
        if isinstance(node.slice, ast.Tuple):
            return ndindex.tuple_index(self, node)
        node.value = self.tx(node.value)
        vt = node.value.ps_type
        if tuple_elems(vt) is not None:
            self.error(node, f"a tuple ({describe(vt)}) cannot be indexed: {UNPACK_HINT}")
        if isinstance(vt, T.BufferType) and vt.ndim > 1:
            self.error(node.slice, f"{ast.unparse(node.value)} is a {vt.ndim}-D buffer: "
                                   f"index it with {vt.ndim} indices, as a[i, j]")
        if isinstance(node.slice, ast.Slice):
            self.error(node.slice, "slices are not supported")
        node.slice = self.index(node.slice)
        if isinstance(vt, (T.BufferType, T.ArrayType)):
            node.ps_type = vt.elem
        elif isinstance(vt, T.VectorType):
            node.ps_type = vt.elem
            inner = node.value
            if isinstance(node.slice, ast.Constant) and isinstance(node.ctx, ast.Load) and \
                    isinstance(inner, ast.Attribute) and node.slice.value < len(inner.attr) \
                    and isinstance(getattr(inner.value, "ps_type", None), T.VectorType):
                # one component of a swizzle, composed as in tx_Attribute: v.zyx[0] is
                # v.z (MSL's stand-in and CUDA's swizzle functions take no component of a
                # swizzle; fuzz seed 5255634946121578419 kernel 80)
                one = ast.Attribute(value=inner.value, attr=inner.attr[node.slice.value],
                                    ctx=ast.Load())
                one.ps_type = vt.elem  # type: ignore[attr-defined]
                return ast.copy_location(one, node)
        elif isinstance(vt, T.MatrixType):
            node.ps_type = vt.column
        else:
            self.error(node, f"a {vt} value cannot be indexed")
        if isinstance(vt, T.ArrayType) and isinstance(node.slice, ast.Constant):
            if node.slice.value >= vt.n:
                self.error(node.slice, f"index {node.slice.value} is out of range for {vt}")
        return node

    def index(self, node: ast.expr) -> ast.expr:
        """Type an index: i32 or u32 (a literal becomes u32 and must not be negative)."""
        node = self.tx(node)
        t = node.ps_type
        if isinstance(t, T.AbstractType):
            if t.kind != "int":
                self.error(node, "an index must be an integer")
            if node.value < 0:
                self.error(node, "negative indices do not count from the end in kernels")
            self.coerce(node, T.u32)
        elif not (is_int(t) and decay(t).bits == 32):
            self.error(node, f"an index must be i32 or u32, got {t}")
        return node

    # -- operators ------------------------------------------------------------------------
    def fold(self, node: ast.AST, f: Any, *vals: Any) -> ast.expr:
        """Evaluate ``f(*vals)`` at compile time into a Constant node (abstract int/float or bool)."""
        try:
            v = f(*vals)
        except ZeroDivisionError:
            self.error(node, "division by zero in a constant expression")
        except (ValueError, OverflowError) as e:
            self.error(node, f"invalid constant expression: {e}")
        t = T.abstract_float if isinstance(v, float) else (
            T.bool_ if isinstance(v, bool) else T.abstract_int)
        return self.const(node, v, t)

    def tx_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        """``not``, ``-``, ``+``, ``~``: folded on literals, else type-checked."""
        node.operand = self.tx(node.operand)
        t = node.operand.ps_type
        if isinstance(node.op, ast.Not):
            if t != T.bool_:
                self.error(node, f"'not' needs a bool, got {t}: compare explicitly (x != 0)")
            if isinstance(node.operand, ast.Constant):
                return self.const(node, not node.operand.value, T.bool_)
            node.ps_type = T.bool_
            return node
        if isinstance(t, T.AbstractType):
            f = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
            if isinstance(node.op, ast.Invert) and t.kind != "int":
                self.error(node, "~ needs an integer")
            return self.fold(node, f[type(node.op)], node.operand.value)
        e = elem_of(t)
        if not isinstance(e, T.ScalarType) or e.kind == "bool":
            self.error(node, f"unary {type(node.op).__name__} is not defined for {t}")
        if isinstance(node.op, ast.Invert) and not e.is_int:
            self.error(node, f"~ needs an integer, got {t}")
        node.ps_type = decay(t)
        return node

    def tx_BinOp(self, node: ast.BinOp) -> ast.expr:
        """A binary operator: literals folded or given the other side's type; element types
        and shapes checked."""
        node.left = self.tx(node.left)
        node.right = self.tx(node.right)
        lt, rt = node.left.ps_type, node.right.ps_type
        op = type(node.op)
        sym = OP_SYMBOL.get(op, op.__name__)
        if isinstance(lt, CT) or isinstance(rt, CT):
            self.error(node, f"operator {sym} cannot be applied to {lt} and {rt}")
        if isinstance(lt, T.AbstractType) and isinstance(rt, T.AbstractType):
            if op is ast.MatMult:
                self.error(node, "@ needs matrices")
            return self.fold(node, _PY_OPS[op], node.left.value, node.right.value)
        if op is ast.Pow:
            return self.power(node)
        if op in (ast.LShift, ast.RShift):
            return self.shift(node)
        if op is ast.MatMult:
            return self.matmul(node)
        if op in _ARITH:
            self.promote(node, "left", "right", true_div=op is ast.Div)
            lt, rt = node.left.ps_type, node.right.ps_type
        # Literals take the element type of the other side.
        for lit, other in ((node.left, node.right), (node.right, node.left)):
            ot = elem_of(other.ps_type)
            if lit.ps_type == T.abstract_float and is_int(ot):
                o, ft = ast.unparse(other), other.ps_type
                to = T.vector_of(T.f32, ft.n).name if isinstance(ft, T.VectorType) else "f32"
                self.error(node, f"ints and floats do not mix in {sym}: {o} is "
                                 f"{T.host_type_name(decay(ft))} and {ast.unparse(lit)} is a "
                                 f"float; convert explicitly with {to}({o}), or write an "
                                 "integer literal")
        if isinstance(lt, T.AbstractType):
            self.coerce(node.left, elem_of(rt))
        elif isinstance(rt, T.AbstractType):
            self.coerce(node.right, elem_of(lt))
        lt, rt = decay(node.left.ps_type), decay(node.right.ps_type)
        le, re_ = elem_of(lt), elem_of(rt)
        if le != re_:
            self.operand_mismatch(node, lt, rt, sym)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor):
            if not (le.is_int or le.kind == "bool"):
                self.error(node, f"{sym} needs integers or bools, got {lt}")
        elif le.kind == "bool":
            self.error(node, f"{sym} is not defined for bool")
        if op is ast.Div and not le.is_float:
            self.error(node, f"'/' on integers ({lt}) is not allowed: use '//' for floor "
                             "division, or convert with float(...)")
        if op in (ast.FloorDiv, ast.Mod) and isinstance(lt, T.MatrixType):
            self.error(node, f"{sym} is not defined for matrices")
        # Shapes: same vector/matrix type, or one scalar broadcast.
        if lt != rt and not (isinstance(lt, T.ScalarType) or isinstance(rt, T.ScalarType)):
            self.error(node, f"{sym} needs operands of one shape, got {lt} and {rt}")
        if op is ast.Div and (isinstance(lt, T.MatrixType) or isinstance(rt, T.MatrixType)):
            if not isinstance(rt, T.ScalarType):
                self.error(node, "/ with a matrix needs matrix / scalar (each element divided)")
        elif isinstance(lt, T.MatrixType) or isinstance(rt, T.MatrixType):
            if op not in (ast.Add, ast.Sub, ast.Mult) or (op is not ast.Mult and lt != rt):
                self.error(node, f"{sym} on a matrix needs another matrix of the same size "
                                 "(use @ for the matrix product)")
            if op is ast.Mult and lt == rt:
                self.error(node, "* of two matrices is ambiguous (element-wise in numpy, the "
                                 "matrix product in shading languages): use @ for the product")
        node.ps_type = lt if not isinstance(lt, T.ScalarType) else rt
        return self.route_binop(node)

    def tx_Compare(self, node: ast.Compare) -> ast.expr:
        """One comparison: operands of one type, bools only with == and !=; bool vector for vectors."""
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
            self.error(node, f"'{type(op).__name__.lower()}' comparisons are not supported: "
                             "use == or !=")
        node.left = self.tx(node.left)
        node.comparators = [self.tx(node.comparators[0])]
        a, b = node.left, node.comparators[0]
        at, bt = a.ps_type, b.ps_type
        if isinstance(at, CT) or isinstance(bt, CT):
            if isinstance(a, ast.Constant) and isinstance(b, ast.Constant):
                return self.const(node, _CMP_OPS[type(op)](a.value, b.value), T.bool_)
            self.error(node, f"cannot compare {at} with {bt}")
        if isinstance(at, T.AbstractType) and isinstance(bt, T.AbstractType):
            return self.fold(node, _CMP_OPS[type(op)], a.value, b.value)
        if isinstance(at, T.EnumType) and isinstance(bt, T.EnumType) and at != bt:
            self.error(node, f"cannot compare {at.name} with {bt.name}")
        self.promote(node, "left", "comparators")
        a, b = node.left, node.comparators[0]
        at, bt = a.ps_type, b.ps_type
        if isinstance(at, T.AbstractType):
            self.coerce(a, decay(bt))
        elif isinstance(bt, T.AbstractType):
            self.coerce(b, decay(at))
        at, bt = decay(a.ps_type), decay(b.ps_type)
        if at != bt:
            self.mismatch(b, at, bt, "the comparison")
        if isinstance(at, (T.StructType, T.MatrixType, T.ArrayType, T.BufferType)):
            self.error(node, f"{at} values cannot be compared")
        if at == T.bool_ and not isinstance(op, (ast.Eq, ast.NotEq)):
            self.error(node, "bools can only be compared with == and !=")
        node.ps_type = T.vector_of(T.bool_, at.n) if isinstance(at, T.VectorType) else T.bool_
        return node

    def tx_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        """``and``/``or`` of bools."""
        vals = []
        for v in node.values:
            v = self.tx(v)
            if v.ps_type != T.bool_:
                self.error(v, f"'{type(node.op).__name__.lower()}' needs bool operands, got "
                              f"{v.ps_type}: compare explicitly (x != 0)")
            vals.append(v)
        node.values = vals
        node.ps_type = T.bool_
        return node

    def tx_IfExp(self, node: ast.IfExp) -> ast.expr:
        """``x if c else y``: a bool condition and branches of one type."""
        node.test = self.tx(node.test)
        if node.test.ps_type != T.bool_:
            self.error(node.test, f"a condition must be bool, got {node.test.ps_type}")
        node.body = self.tx(node.body)
        node.orelse = self.tx(node.orelse)
        if node.body.ps_type == node.orelse.ps_type and \
                not isinstance(node.body.ps_type, T.AbstractType):
            node.ps_type = node.body.ps_type      # keeps an enum (or struct) type
            return node
        node.ps_type = self.unify(node, [node.body, node.orelse], "both branches")
        return node
