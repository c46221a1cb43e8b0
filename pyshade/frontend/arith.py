"""Arithmetic rules of the type checker: Python's numeric promotion of mixed operands,
the messages for operands that do not mix, and ``**``, shifts and ``@``. A mixin of
``ExprMixin``; the class using it provides ``error``, ``coerce``, ``cast_call``,
``route_binop`` and ``default``."""

from __future__ import annotations

import ast
from typing import Any

from .. import lang
from .. import types as T
from .typeutil import CT, call_at, decay, elem_of, is_int


class ArithMixin:
    """Mixed operands, ``**``, shifts and ``@``."""

    def operand_mismatch(self, node: ast.BinOp, lt: Any, rt: Any, sym: str) -> None:
        """``a OP b`` with different element types: name both and show the cast that fixes it."""
        le, re_ = elem_of(lt), elem_of(rt)
        if not (isinstance(le, T.ScalarType) and isinstance(re_, T.ScalarType)
                and "bool" not in (le.kind, re_.kind)):
            self.mismatch(node.right, lt, rt, f"the right side of {sym}")
        a, b = ast.unparse(node.left), ast.unparse(node.right)

        def conv(side: ast.expr, t: Any, elem: T.ScalarType) -> ast.expr:
            try:
                to = T.vector_of(elem, t.n) if isinstance(t, T.VectorType) else elem
            except KeyError:
                to = elem
            return ast.Call(ast.Name(to.name, ast.Load()), [side], [])

        # The suggestions are new AST nodes: ast.unparse parenthesises an operand by
        # precedence, so `(xmax - xmin) / nbins` keeps its parentheses.
        def fixed(left: ast.expr, right: ast.expr, to_int: bool) -> str:
            # integer arithmetic has no `/`: suggest `//` for it
            op = ast.FloorDiv() if to_int and isinstance(node.op, ast.Div) else node.op
            return ast.unparse(ast.BinOp(left, op, right))
        fix_a = fixed(conv(node.left, lt, re_), node.right, re_.is_int)
        fix_b = fixed(node.left, conv(node.right, rt, le), le.is_int)
        both = f"{a} is {T.host_type_name(lt)} and {b} is {T.host_type_name(rt)}"
        if le.is_int and re_.is_int:
            kind = "mixed signedness" if le.bits == re_.bits else "mixed integer widths"
            self.error(node, f"{kind} in {sym}: {both}; convert one side explicitly: "
                             f"{fix_b} or {fix_a}")
        if le.is_float and re_.is_float:
            self.error(node, f"mixed float widths in {sym}: {both}; convert one side "
                             f"explicitly: {fix_b} or {fix_a}")
        to_float, to_int = (fix_a, fix_b) if le.is_int else (fix_b, fix_a)
        self.error(node, f"ints and floats do not mix in {sym}: {both}; convert explicitly: "
                         f"{to_float} (or {to_int} for integer arithmetic)")

    def int_target_of_float(self, node: ast.AugAssign, x: str, result: str, tt: Any,
                            rt: Any) -> None:
        """Refuse ``x op= v`` where ``x`` is an integer and ``x op v`` a float (``v`` a
        float, or ``op`` the true division ``/``): Python would rebind a variable ``x``
        to a float (and an element or field keeps its type), while here the float would
        have to be converted silently. ``x`` and ``result`` are the target and ``x op v``
        as written."""
        conv = f"{x} = {T.host_type_name(tt)}({result})"
        if isinstance(node.target, ast.Name):
            fix = (f"Python would make {x} a float, but a variable keeps the type of its first "
                   f"assignment here: start {x} as a float ({x} = 0.0, say), or convert: {conv}")
        else:
            fix = f"an element or field keeps its type: convert explicitly: {conv}"
        if isinstance(node.op, ast.Div):
            fix += ", or use //= for integer division"
        self.error(node, f"{x} is {T.host_type_name(tt)} and {result} is {T.host_type_name(rt)}: "
                         f"{fix}")

    # -- Python's numeric promotion ---------------------------------------------------------
    def int_to_float(self, e: ast.expr, ft: T.ScalarType) -> ast.expr:
        """``e`` (an integer scalar) converted to float type ``ft``, as ``ft(e)`` would be;
        the conversion keeps ``e`` as ``ps_promoted`` (an augmented assignment checks the
        target's own type)."""
        out = self.cast_call(call_at(ft.name, [e], e), ft)
        out.ps_promoted = e
        return out

    def promote(self, node: ast.AST, a: str, b: str, true_div: bool = False) -> None:
        """Python's rule for mixed operands: an integer scalar next to a float (a float
        literal, scalar or vector) becomes that float type, and with ``true_div`` (``/``)
        two integers become f32, as Python's ``/`` gives a float. Integer vectors stay
        integer (a vector conversion is the user's to write)."""
        def get(attr: str) -> ast.expr:
            v = getattr(node, attr)
            return v[0] if isinstance(v, list) else v

        def put(attr: str, e: ast.expr) -> None:
            if isinstance(getattr(node, attr), list):
                getattr(node, attr)[0] = e
            else:
                setattr(node, attr, e)

        def float_of(t: Any) -> T.ScalarType | None:
            if t == T.abstract_float:
                return T.f32
            e = elem_of(t)
            return e if isinstance(e, T.ScalarType) and e.is_float else None

        def int_scalar(t: Any) -> bool:
            return is_int(t) and not isinstance(t, T.AbstractType)
        left, right = get(a), get(b)
        lt, rt = left.ps_type, right.ps_type
        for side, st, ot in ((a, lt, rt), (b, rt, lt)):
            ft = float_of(ot)
            if int_scalar(st) and ft is not None:
                put(side, self.int_to_float(get(side), ft))
                return
        if true_div and (int_scalar(lt) or int_scalar(rt)) and \
                all(int_scalar(t) or t == T.abstract_int for t in (lt, rt)):
            for side, t in ((a, lt), (b, rt)):
                if t == T.abstract_int:
                    self.coerce(get(side), T.f32)
                else:
                    put(side, self.int_to_float(get(side), T.f32))

    def power(self, node: ast.BinOp) -> ast.expr:
        """``x ** n``. A literal ``n`` of 0..64: multiplications (exact for integers, each
        rounded for floats). Otherwise, as Python computes it: a float on either side (or a
        negative literal exponent) makes it ``math.pow`` of floats; two integers with a
        variable ``u32`` exponent are exact square-and-multiply, wrapping."""
        r = node.right
        if not (isinstance(r.ps_type, T.AbstractType) and r.ps_type.kind == "int"
                and 0 <= r.value <= 64):
            return self.general_power(node)
        lt = node.left.ps_type
        if isinstance(lt, T.AbstractType):
            self.default(node.left)
        lt = decay(node.left.ps_type)
        if not isinstance(elem_of(lt), T.ScalarType) or elem_of(lt).kind == "bool" \
                or isinstance(lt, T.MatrixType):
            self.error(node, f"** is not defined for {lt}")
        r.ps_type = T.u32
        node.ps_type = lt
        return self.route_binop(node)

    def general_power(self, node: ast.BinOp) -> ast.expr:
        """``x ** y`` whose exponent is not a literal 0..64 (see ``power``)."""
        left, r = node.left, node.right
        for e in (left, r):
            if isinstance(e.ps_type, CT) or isinstance(decay(e.ps_type), T.MatrixType):
                self.error(node, f"** is not defined for {e.ps_type}")
        floaty = any(isinstance(elem_of(decay(e.ps_type)), T.ScalarType)
                     and elem_of(decay(e.ps_type)).is_float for e in (left, r)
                     if not isinstance(e.ps_type, T.AbstractType)) \
            or r.ps_type == T.abstract_float \
            or (r.ps_type == T.abstract_int and r.value < 0)
        if not floaty:
            if isinstance(left.ps_type, T.AbstractType):
                self.default(left)
            lt, rt = decay(left.ps_type), r.ps_type
            if isinstance(rt, T.AbstractType):      # a literal above 64: still exact
                self.coerce(r, T.u32)
            elif rt != T.u32:
                self.error(r, f"an integer ** needs a u32 exponent, got {rt} (a negative "
                              "exponent gives a float in Python): write x ** u32(n) for the "
                              "integer power, or f32(x) ** n for a float")
            if not is_int(elem_of(lt)):
                self.error(node, f"** is not defined for {lt}")
            node.ps_type = lt
            return self.route_binop(node)
        self.promote(node, "left", "right")
        if node.left.ps_type == T.abstract_int and r.ps_type == T.abstract_int:
            self.coerce(node.left, T.f32)       # 2 ** -1 is 0.5, as in Python
        call = call_at("pow", [node.left, node.right], node)
        return self.builtin_typed(call, lang.BY_NAME["math.pow"])

    def shift(self, node: ast.BinOp) -> ast.expr:
        """``<<`` or ``>>``: integer operands, a literal count in range; the left side's type."""
        if isinstance(node.left.ps_type, T.AbstractType):
            self.coerce(node.left, T.i32)
        if isinstance(node.right.ps_type, T.AbstractType):
            if node.right.value < 0:
                self.error(node.right, "negative shift count")
            self.coerce(node.right, T.u32)
        lt, rt = decay(node.left.ps_type), decay(node.right.ps_type)
        if not (is_int(elem_of(lt)) and is_int(elem_of(rt))):
            self.error(node, f"shifts need integers, got {lt} and {rt}")
        if isinstance(node.right, ast.Constant) and node.right.value >= elem_of(lt).bits:
            self.error(node.right, f"shift count {node.right.value} is out of range for {lt}")
        node.ps_type = lt
        return node

    def matmul(self, node: ast.BinOp) -> ast.expr:
        """``@``: matrix @ matrix, matrix @ vector or vector @ matrix of one size."""
        lt, rt = node.left.ps_type, node.right.ps_type
        if isinstance(lt, T.MatrixType) and (rt == lt or rt == lt.column):
            node.ps_type = rt
        elif isinstance(rt, T.MatrixType) and lt == rt.column:
            node.ps_type = lt
        else:
            self.error(node, f"@ needs matrix @ matrix, matrix @ vector or vector @ matrix "
                             f"of one size, got {lt} @ {rt}")
        return node
