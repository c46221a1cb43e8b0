"""Python emitter: the kernel as plain Python for the CPU device.

The output reproduces GPU fixed-width semantics by calling helpers
(``_u32(a * b)`` wraps, ``_f32(a + b)`` rounds to binary32, shifts check their
count, signed indices refuse negatives) that the cpu device puts in the
namespace it runs the code in (``pyshade.runtime.cpu_support``): the emitter
only writes their names. The
text is compiled with the user's file name and line numbers (``compile_code``),
so tracebacks, pdb and coverage show the user's own source lines. A kernel
that calls ``barrier()`` becomes a generator that yields at each barrier.
Structs are values on a GPU: reading a struct or array into a variable,
passing or storing it copies it (``_copy``).
"""

from __future__ import annotations

import ast
import math
import struct
from typing import Any

from .. import types as T
from ..frontend.exprs import IDS
from ..frontend.program import FuncInfo
from .base import CMP_SYMBOLS, Emitter, IdNames
from .spellings.python import SPELLINGS

WRAP = {"i32": "_i32", "u32": "_u32", "i64": "_i64", "u64": "_u64", "f32": "_f32",
        "f16": "_f16"}
ROUND = {"f32": "_f32", "f16": "_f16", "f64": "_f64"}


def _scalar(t: T.Type) -> T.Type:
    return t.elem if isinstance(t, (T.VectorType, T.MatrixType)) else t


class PythonEmitter(Emitter):
    """Writes a Program as Python for the CPU interpreter."""

    target = "python"
    spellings = SPELLINGS
    comment = "#"
    bool_ops = {ast.And: "and", ast.Or: "or"}

    # -- program -------------------------------------------------------------------------
    def header(self) -> None:
        """The header comment, then the imports of the generated module."""
        super().header()
        self.line("# The _-prefixed helpers it calls are supplied by the cpu device.")
        self.line("import math")
        self.line()

    def enum_decl(self, e: T.EnumType) -> None:
        """One module-level constant per enum member."""
        for m, v in e.members.items():
            self.line(f"{self.global_name(f'{e.name}_{m}')} = {v}")
        self.line()

    def table_decl(self, name: str, t: T.ArrayType, values: tuple) -> None:
        """A constant table: a module-level list (of lists), an array's form on the cpu
        device (the frontend refuses stores into it)."""
        def lit(t: T.Type, v: object) -> str:
            if isinstance(t, T.ArrayType):
                return f"[{', '.join(lit(t.elem, x) for x in v)}]"
            return self.literal(v, t)
        self.line(f"{name} = {lit(t, values)}")

    def struct_decl(self, s: T.StructType) -> None:
        """A struct class from ``make_struct_class`` with the fields' zero values as defaults."""
        name = self.global_name(s.name)
        fields = [f for f, _ in s.fields]
        defaults = ", ".join(f"{f!r}: {self.zero(t)}" for f, t in s.fields)
        self.line(f"{name} = make_struct_class({name!r}, {fields!r}, {{{defaults}}})")
        self.line()

    def zero(self, t: T.Type) -> str:
        """Python expression of the zero value of ``t`` (a struct field's enum: its base's)."""
        t = T.decayed(t)
        if isinstance(t, T.ScalarType):
            return "False" if t.kind == "bool" else ("0.0" if t.is_float else "0")
        if isinstance(t, T.VectorType):
            return f"Vec(({self.zero(t.elem)},) * {t.n})"
        if isinstance(t, T.MatrixType):
            return f"_mat({t.n})"
        if isinstance(t, T.StructType):
            return f"{self.global_name(t.name)}()"
        if isinstance(t, T.ArrayType):
            z = self.zero(t.elem)
            if isinstance(t.elem, (T.StructType, T.ArrayType)):
                return f"[{z} for _ in range({t.n})]"
            return f"[{z}] * {t.n}"
        raise self.error(self.k.tree, f"internal: no zero for {t}")

    def function_header(self, f: FuncInfo) -> None:
        """``def name(...):``: a kernel takes the ids it uses, its shared arrays and
        parameters; a helper its parameters, then the ids it uses."""
        params = []
        if f.is_kernel:
            params += [self.id_value(i) for i in IDS if i in f.ids_used]
            params += [self.global_name(s) for s in f.shared]
            params += [self.local(n) if not isinstance(t, T.BufferType) else self.global_name(n)
                       for n, t in f.params]
            name = self.global_name(f.name)
        else:
            self.rev_buffers = {g: p for p, g in f.buffer_params.items()}
            params += [self.local(n) for n, _ in f.all_params]
            params += [self.id_value(i) for i in sorted(f.ids_used)]
            name = self.global_name(f.emit_name)
        self.out.append(f"def {name}({', '.join(params)}):")
        self.line_map.append(f.tree.lineno)

    def function_prologue(self, f: FuncInfo) -> None:
        """In a kernel, clear ``rev_buffers``: globals go by their own names there."""
        if f.is_kernel:
            self.rev_buffers = {}

    def ref(self, node: ast.AST) -> str:
        """As ``Emitter.ref``, but in a helper a global is the parameter that carries it."""
        kind, name = getattr(node, "ps_ref", ("local", node.id))
        if kind == "table":
            return self.global_name(name)
        if kind == "global":
            if not self.func.is_kernel:
                return self.local(self.rev_buffers[name])
            return self.global_name(name)
        return self.local(name)

    def empty_body(self) -> None:
        """An empty block holds ``pass``."""
        self.line("pass")

    def visit_Pass(self, node: ast.Pass) -> None:
        """``pass`` is kept, with its line."""
        self.line("pass", node)

    # -- statements ---------------------------------------------------------------------
    def begin_if(self, cond: str, node: ast.AST) -> None:
        """``if cond:``."""
        self.line(f"if {cond}:", node)

    def begin_elif(self, cond: str, node: ast.AST) -> None:
        """``elif cond:``."""
        self.line(f"elif {cond}:", node)

    def begin_else(self, node: ast.AST | None = None) -> None:
        """``else:``."""
        self.line("else:", node)

    def end_block(self) -> None:
        """Nothing: indentation closes a Python block."""
        pass

    def begin_while(self, cond: str, node: ast.AST) -> None:
        """``while cond:``."""
        self.line(f"while {cond}:", node)

    def visit_For(self, node: ast.For) -> None:
        """``for i in range(...)`` stays a Python ``range`` loop."""
        args = ", ".join(self.expr(a) for a in node.iter.args)
        self.line(f"for {self.local(node.target.id)} in range({args}):", node)
        self.nested(node.body)

    def visit_Assert(self, node: ast.Assert) -> None:
        """``assert`` is kept, with its message: the CPU device checks it."""
        msg = f", {node.msg.value!r}" if node.msg is not None else ""
        self.line(f"assert {self.expr(node.test)}{msg}", node)

    def declare(self, name: str, t: T.Type, value: ast.expr, node: ast.AST) -> None:
        """``name = value``: Python needs no declaration."""
        self.line(f"{self.local(name)} = {self.value(value)}", node)

    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """Nothing: Python needs no declaration."""
        pass

    def declare_temp(self, name: str, t: T.Type, value: str, node: ast.AST) -> None:
        """``name = value``."""
        self.line(f"{name} = {value}", node)

    def assign(self, target: ast.expr, value: ast.expr, node: ast.AST) -> None:
        """``target = value`` through ``store`` (vectors and matrices are rebuilt)."""
        self.line(self.store(target, self.value(value)), node)

    def store(self, target: ast.expr, v: str) -> str:
        """``target = v`` where vectors and matrices are immutable values."""
        if isinstance(target, ast.Attribute) and isinstance(target.value.ps_type, T.VectorType):
            return self.store(target.value, f"_vset({self.expr(target.value)}, "
                                            f"{target.attr!r}, {v})")
        if isinstance(target, ast.Subscript) and isinstance(target.value.ps_type, T.VectorType):
            comps = "'xyzw'[" + self.index(target.slice) + "]"
            return self.store(target.value, f"_vset({self.expr(target.value)}, {comps}, {v})")
        if isinstance(target, ast.Subscript) and isinstance(target.value.ps_type, T.MatrixType):
            return self.store(target.value, f"_mset({self.expr(target.value)}, "
                                            f"{self.index(target.slice)}, {v})")
        return f"{self.expr(target)} = {v}"

    def call_statement(self, call: ast.expr, node: ast.AST) -> None:
        """A call statement; ``barrier()`` becomes ``yield`` (the kernel is a generator)."""
        kind, what = call.ps_call
        if kind == "builtin" and what.name == "barrier":
            self.line("yield", node)
            return
        self.line(self.expr(call), node)

    # -- expressions -------------------------------------------------------------------
    def value(self, node: ast.expr) -> str:
        """As ``expr``, but a struct or array read from a variable, field or element is copied."""
        s = self.expr(node)
        if isinstance(node.ps_type, (T.StructType, T.ArrayType)) and \
                isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            return f"_copy({s})"
        return s

    def literal(self, value: Any, t: T.Type) -> str:
        """A Python literal; f32/f16 values rounded to that precision, inf and nan via ``math``."""
        if isinstance(value, bool) or t == T.bool_:
            return "True" if value else "False"
        if isinstance(t, T.ScalarType) and t.is_float or isinstance(value, float):
            v = float(value)
            if isinstance(t, T.ScalarType) and t.name in ("f32", "f16") and math.isfinite(v):
                # the constant is in range (the frontend checked): round it to t here
                fmt = "<f" if t.name == "f32" else "<e"
                try:
                    v = struct.unpack(fmt, struct.pack(fmt, v))[0]
                except OverflowError:       # rounds past the largest finite value
                    v = math.copysign(math.inf, v)
            if math.isnan(v):
                return "math.nan"
            if math.isinf(v):
                return "math.inf" if v > 0 else "-math.inf"
            return repr(v)
        return str(int(value))

    def sub(self, node: ast.expr) -> str:
        """As ``Emitter.sub``, without parentheses around a single helper call."""
        s = super().sub(node)
        # `(_f32(a * b))`: a helper call needs no parentheses of its own.
        inner = s[1:-1] if s.startswith("(") and s.endswith(")") else None
        if inner and _one_call(inner):
            return inner
        return s

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]`` with the index through ``index``; ``a[i, j]`` of an N-D buffer through
        ``_ixn``, which checks each axis."""
        if getattr(node, "ps_nd", False):
            a = self.sub(node.value)
            idx = ", ".join(self.expr(e) for e in node.slice.elts)
            return f"{a}[_ixn({a}.shape, {idx})]"
        return f"{self.sub(node.value)}[{self.index(node.slice)}]"

    def index(self, node: ast.expr) -> str:
        """An index; a non-constant integer goes through ``_idx`` (negative indices are errors)."""
        s = self.expr(node)
        t = _scalar(node.ps_type)
        if isinstance(t, T.ScalarType) and t.kind == "int" and not isinstance(node, ast.Constant):
            return f"_idx({s})"
        return s

    def ex_Attribute(self, node: ast.Attribute) -> str:
        """``a.name``; an enum's ``.value`` is the enum value itself."""
        if getattr(node.value, "ps_enum_type", None) is not None:
            return self.expr(node.value)
        return f"{self.sub(node.value)}.{node.attr}"

    def ex_IfExp(self, node: ast.IfExp) -> str:
        """Python's own ``x if c else y``."""
        return f"{self.sub(node.body)} if {self.sub(node.test)} else {self.sub(node.orelse)}"

    def ex_UnaryOp(self, node: ast.UnaryOp) -> str:
        """``not`` and unary ``+`` as is; ``-`` and ``~`` wrapped to the type (element-wise)."""
        if isinstance(node.op, ast.Not):
            return f"not {self.sub(node.operand)}"
        if isinstance(node.op, ast.UAdd):
            return self.expr(node.operand)
        op = "-" if isinstance(node.op, ast.USub) else "~"
        return self.elementwise(node.ps_type, lambda a: self.wrap(node.ps_type, f"{op}{a}"),
                                [self.sub(node.operand)], [node.operand.ps_type])

    def wrap(self, t: T.Type, s: str) -> str:
        """``s`` through the wrapping/rounding helper of ``t``'s scalar (``_u32``, ``_f32``...),
        or unchanged where there is none."""
        w = WRAP.get(_scalar(t).name)
        return f"{w}({s})" if w else s

    def rnd(self, t: T.Type) -> str:
        """Name of the float rounding helper for ``t``'s scalar (``_f32`` by default)."""
        return ROUND.get(_scalar(t).name, "_f32")

    def elementwise(self, t: T.Type, scalar: Any, args: list[str], types: list) -> str:
        """Apply a scalar expression builder to scalars, or map it over vectors."""
        if any(isinstance(a, T.VectorType) for a in types):
            names = ["a", "b", "c"][:len(args)]
            return f"_vmap(lambda {', '.join(names)}: {scalar(*names)}, {', '.join(args)})"
        return scalar(*args)

    def ex_BinOp(self, node: ast.BinOp) -> str:
        """A binary operator with GPU semantics: wrapping, rounding, float division and modulo
        helpers, checked shifts, matrix operations."""
        op = type(node.op)
        t = node.ps_type
        lt, rt = node.left.ps_type, node.right.ps_type
        a, b = self.sub(node.left), self.sub(node.right)
        if op is ast.MatMult:
            return f"_matmul({a}, {b}, _f32)"
        if isinstance(lt, T.MatrixType) or isinstance(rt, T.MatrixType):
            return self.matrix_op(node, a, b)
        if op is ast.Pow:
            w = WRAP.get(_scalar(t).name) or "float"
            if not isinstance(node.right, ast.Constant):    # integers, a u32 exponent
                m = 2 ** _scalar(t).bits
                return self.elementwise(t, lambda x: f"{w}(pow({x}, {b}, {m}))", [a], [lt])
            fn = self.pow_helper()
            return self.elementwise(t, lambda x: f"{fn}({x}, {node.right.value}, {w})", [a], [lt])
        e = _scalar(t)
        sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}.get(op)
        if sym:
            f = lambda x, y: self.wrap(t, f"{x} {sym} {y}")  # noqa: E731
        elif op is ast.Div:
            f = lambda x, y: f"{self.rnd(t)}(_fdiv({x}, {y}))"  # noqa: E731
        elif op is ast.FloorDiv:
            if e.is_float:
                f = lambda x, y: f"_ffloordiv({x}, {y}, {self.rnd(t)})"  # noqa: E731
            else:
                f = lambda x, y: self.wrap(t, f"{x} // {y}")  # noqa: E731
        elif op is ast.Mod:
            if e.is_float:
                f = lambda x, y: f"_fmod({x}, {y}, {self.rnd(t)})"  # noqa: E731
            else:
                f = lambda x, y: f"{x} % {y}"  # noqa: E731
        elif op is ast.LShift:
            f = lambda x, y: self.wrap(t, f"_shl({x}, {y}, {e.bits})")  # noqa: E731
        elif op is ast.RShift:
            f = lambda x, y: f"_shr({x}, {y}, {e.bits})"  # noqa: E731
        else:
            s2 = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}[op]
            f = lambda x, y: f"{x} {s2} {y}"  # noqa: E731
        return self.elementwise(t, f, [a, b], [lt, rt])

    def matrix_op(self, node: ast.BinOp, a: str, b: str) -> str:
        """``+``, ``-`` or ``*`` with a matrix operand: column by column with a matrix or a
        broadcast scalar; ``matrix / scalar`` divides each element."""
        lt, rt = node.left.ps_type, node.right.ps_type
        n = (lt if isinstance(lt, T.MatrixType) else rt).n
        if isinstance(node.op, ast.Div):
            return (f"_mat({n}, *(_vmap(lambda x, y: _f32(_fdiv(x, y)), c, d) "
                    f"for c, d in zip({a}, ({b},) * {n})))")
        sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}[type(node.op)]
        if isinstance(lt, T.MatrixType) and isinstance(rt, T.MatrixType):
            return (f"_mat({n}, *(_vmap(lambda x, y: _f32(x {sym} y), c, d) "
                    f"for c, d in zip({a}, {b})))")
        m, s = (a, b) if isinstance(lt, T.MatrixType) else (b, a)
        # The scalar goes through zip (evaluated outside the generator): a user variable
        # named c or d must not be shadowed by the generator's own names.
        return (f"_mat({n}, *(_vmap(lambda x, y: _f32(x {sym} y), c, d) "
                f"for c, d in zip({m}, ({s},) * {n})))")

    def pow_helper(self) -> str:
        """Name of the generated ``x ** n`` helper (repeated multiplication, wrapped each step)."""
        def make(name: str) -> str:
            return (f"def {name}(x, n, wrap):\n"
                    f"    # x ** n for a constant n: n - 1 multiplications, left to right\n"
                    f"    if n == 0:\n        return wrap(1)\n"
                    f"    r = x\n    for _ in range(n - 1):\n        r = wrap(r * x)\n"
                    f"    return r")
        return self.helper("powi", make)

    def compare(self, op: type, a: ast.expr, b: ast.expr, node: ast.AST) -> str:
        """A comparison, element-wise on vectors."""
        sym = CMP_SYMBOLS[op]
        return self.elementwise(node.ps_type, lambda x, y: f"{x} {sym} {y}",
                                [self.sub(a), self.sub(b)], [a.ps_type, b.ps_type])

    # -- calls ----------------------------------------------------------------------------
    def call_func(self, node: ast.Call, info: FuncInfo) -> str:
        """A helper call: buffers and shared arrays as is, other values copied, then the ids."""
        args = []
        for (pname, _), a in zip(info.all_params, node.ps_args):
            args.append(self.expr(a) if pname in info.buffer_params else self.value(a))
        args += self.id_args(info)
        return f"{self.globals.name(info.emit_name)}({', '.join(args)})"

    def call_cast(self, node: ast.Call, t: T.Type) -> str:
        """A conversion ``T(x)`` with the kernel's semantics; a conversion to an enum checks
        that the value is a member."""
        a = node.args[0]
        src, dst = _scalar(a.ps_type), _scalar(t)
        s = self.expr(a)
        enum = getattr(node, "ps_enum_type", None)
        if enum is not None and getattr(a, "ps_enum_type", None) != enum:
            # A GPU keeps any bit pattern; the CPU device finds the bug: not a member.
            return f"{self.enum_check(enum)}({self.wrap(dst, s) if src != dst else s})"
        if src == dst:
            return self.sub(a)      # the call was atomic: keep `(x if c else y)` grouped
        if dst.kind == "bool":      # an operand: `n if c else 0 != 0` compares the 0 alone
            return f"({self.sub(a)} != 0)"
        if dst.is_int:
            if src.kind == "bool":
                return f"int({s})"
            if src.is_float:
                return f"_ftoi({s}, {dst.min}, {dst.max})"
            return self.wrap(dst, s)
        return f"{self.rnd(dst)}({s})" if dst.name != "f64" else f"float({s})"

    def enum_check(self, t: T.EnumType) -> str:
        """Name of a generated helper raising ValueError for a value not a member of ``t``."""
        values = tuple(sorted(set(t.members.values())))

        def make(name: str) -> str:
            return (f"def {name}(v):\n"
                    f"    # {t.name}(v) on a value that is not a member is an error in Python\n"
                    f"    if v not in {values!r}:\n"
                    f"        raise ValueError(f'{{v}} is not a valid {t.name}')\n"
                    f"    return v")
        return self.helper(f"enum_{t.name}", make)

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor: zero, splat, conversion of a vector, or components."""
        if isinstance(t, T.MatrixType):
            return f"_mat({t.n}{''.join(', ' + self.expr(a) for a in node.args)})"
        args = node.args
        if not args:
            return self.zero(t)
        if len(args) == 1 and isinstance(args[0].ps_type, T.VectorType):
            src = args[0].ps_type
            if src == t:
                return self.expr(args[0])
            conv = ast.Call(ast.Name("x", ast.Load()), [], [])
            x = ast.Name("x", ast.Load())
            x.ps_type = src.elem
            x.ps_ref = ("raw", "x")
            conv.args = [x]
            inner = self.call_cast(conv, t.elem)
            return f"_vmap(lambda x: {inner}, {self.expr(args[0])})"
        if len(args) == 1:
            return f"Vec(({self.expr(args[0])},) * {t.n})"
        parts = [self.expr(a) for a in args]
        for k, a in enumerate(args):
            if isinstance(a.ps_type, T.VectorType):
                # a star takes an or-expression: `*a if c else b` is not Python
                loose = isinstance(a, (ast.IfExp, ast.Compare, ast.BoolOp, ast.Lambda,
                                       ast.NamedExpr)) or (isinstance(a, ast.UnaryOp)
                                                           and isinstance(a.op, ast.Not))
                parts[k] = f"*({parts[k]})" if loose else f"*{parts[k]}"
        return f"Vec(({', '.join(parts)}))"

    def ex_Name(self, node: ast.Name) -> str:
        """A variable reference; a ``raw`` name (made by ``call_construct``) is used as is."""
        if getattr(node, "ps_ref", ("",))[0] == "raw":
            return node.id
        return self.ref(node)

    def call_struct(self, node: ast.Call, st: T.StructType) -> str:
        """A struct construction with keyword fields (values copied)."""
        vals = [f"{f}={self.value(a)}" for f, a in node.ps_fields if a is not None]
        return f"{self.global_name(st.name)}({', '.join(vals)})"

    def call_array(self, node: ast.Call, at: T.ArrayType) -> str:
        """``ps.array(T, N)``: its zero value."""
        return self.zero(at)

    def call_builtin(self, node: ast.Call, b: Any) -> str:
        """A builtin from its ``python`` spelling: print, element-wise math, abs/min/max,
        or a format string."""
        spell = self.spelling(b) or ""
        if callable(spell):
            return spell(self, node)
        t = node.ps_type
        if spell == "{convert}":     # the prelude's raw conversion: an in-range cast
            return self.call_cast(_cast_of(node.args[1]), t) if not isinstance(
                t, T.VectorType) else self.call_construct(_cast_of(node.args[1]), t)
        if b.name == "print":      # before args: strings are no values
            parts = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     else None for a in node.args]
            shown = [repr(p) if p is not None else self.expr(a) for p, a in zip(parts, node.args)]
            return f"print({', '.join(shown)})"
        args = [self.value(a) for a in node.args]
        if b.name.startswith("atomic_") or b.name == "len":   # the array itself, not a copy
            args[0] = self.expr(node.args[0])
        at = node.args[0].ps_type if node.args else None
        if b.name == "len" and isinstance(at, T.BufferType) and at.ndim > 1:
            return f"{args[0]}.shape[{getattr(node, 'ps_axis', 0)}]"
        types = [a.ps_type for a in node.args]
        if spell.startswith("{map}(") or spell.startswith("{pred}("):
            fn = spell[spell.index("(") + 1:-1]
            rnd = self.rnd(t) if spell.startswith("{map}") else ""
            return self.elementwise(t, lambda *xs: f"{rnd}({fn}({', '.join(xs)}))" if rnd
                                    else f"{fn}({', '.join(xs)})", args, types)
        if b.name in ("abs", "min", "max"):
            fn = b.name
            if b.name == "abs" and _scalar(t).is_int:
                return self.elementwise(t, lambda x: self.wrap(t, f"abs({x})"), args, types)
            return self.elementwise(t, lambda *xs: f"{fn}({', '.join(xs)})", args, types)
        extras = {"r": self.rnd(t) if t is not None else "_f32",
                  "wrap": WRAP.get(_scalar(t).name, "int") if t is not None else "int",
                  "ids": IdNames(self)}
        if b.name == "bitcast":
            extras["T"] = _scalar(t).name
            extras["src"] = _scalar(types[1]).name
        if node.args and isinstance(_scalar(types[0]), T.ScalarType):
            extras["bits"] = _scalar(types[0]).bits
        if b.name.startswith("atomic_") and b.name != "atomic_compare_exchange":
            extras["wrap"] = WRAP.get(_scalar(t).name, "int")
        return spell.format(*args, **extras)


def _cast_of(arg: ast.expr) -> ast.Call:
    """A conversion call node of ``arg`` (for ``call_cast``/``call_construct``)."""
    return ast.Call(ast.Name("convert", ast.Load()), [arg], [])


def _one_call(s: str) -> bool:
    """True for text of the form ``name(...)`` whose first ``(`` closes at the end."""
    i = s.find("(")
    if i <= 0 or not (s[:i].replace("_", "a").replace(".", "a").isalnum()) or s[-1] != ")":
        return False
    depth = 0
    for j, ch in enumerate(s[i:], i):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return j == len(s) - 1
    return False


