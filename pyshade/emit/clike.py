"""Brace-language syntax shared by WGSL, GLSL, HLSL, MSL and CUDA C.

Written once here, from each target's tables (class attributes, C's spellings by
default): type names, literals, enum constants, declarations, the kernel's prologue
(its ids and the copy of its parameters out of the parameter block), atomic element
accesses (f32 ones through the bits of a u32 element where the target has no f32
atomics: ``FLOAT_BITS``), ``select``; buffers of 3-vectors as numpy's packed ``(n, 3)``
(``packed.py``); and the places, values, statements and calls every brace target writes
alike.
"""

from __future__ import annotations

import ast
import math
import struct
from typing import Any

import numpy as np

from .. import types as T
from ..errors import TranslationError
from ..frontend.deep import walk
from ..frontend.program import FuncInfo
from ..frontend.requirements import declared_types
from ..prelude_math import PRELUDE
from .atomic_bits import AtomicBits
from .base import CMP_SYMBOLS, Emitter, IdNames
from .packed import PackedVec3
from .textutil import any_float, array_parts, elem_type, shortest_f32  # noqa: F401 - re-exported

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "*", ast.Div: "/",
          ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
          ast.RShift: ">>"}
ID_NAMES = ("global_id", "local_id", "group_id", "num_groups", "local_index")


class CLikeEmitter(PackedVec3, AtomicBits, Emitter):
    """Blocks in braces, statements ending in ``;``, ``&&``/``||``/``!``.

    Subclasses give the spellings as tables (the class attributes in capitals: types,
    literals, enum constants, ids, ``BARRIER``...; the defaults are C's where there is
    one) and a few hooks: ``zero_value``, ``decl_head``, ``atomic_load``/``atomic_store``
    (f32 elements through ``AtomicBits``), ``resources`` and the function header.
    """

    bool_ops = {ast.And: "&&", ast.Or: "||"}
    families = ("clike",)
    # -- type spellings (``type_name``) --
    # Scalar name -> spelling (GLSL's and HLSL's: C's names, with uint and the 16/64-bit
    # types); a scalar without a row is the TranslationError ``UNSUPPORTED``.
    SCALARS = {"bool": "bool", "i32": "int", "u32": "uint", "f32": "float", "f16": "float16_t",
               "f64": "double", "i64": "int64_t", "u64": "uint64_t"}
    UNSUPPORTED = "{name} is not supported by this target: use another type or target"
    VECTOR = "{elem}{n}"            # a vector type, its element spelled by VECTOR_ELEM
    VECTOR_ELEM: dict[str, str] | None = None       # None: the element's own type name
    MATRIX = "float{n}x{n}"
    ARRAY: str | None = None        # "array<{elem}, {n}>"; None: C's "T[n]" (outermost first)
    SIZES_AFTER_NAME = False        # True: a declaration puts array sizes after the name
    # -- literals (``literal``) --
    LITERAL_SUFFIX = {"i32": "", "u32": "u", "f32": "f", "f64": "", "i64": "ll", "u64": "ull"}
    MIN_LITERAL = "({v}{s} - 1{s})"     # the most negative integer, from v = MIN + 1
    # inf and NaN by float type, from their bits: {bits} at the type's width, {f32} as f32,
    # {lo} and {hi} the words of an f64.
    SPECIAL_FLOAT: dict[str, str] = {}
    NEG_ZERO_FROM_BITS = False      # True: -0.0 written through SPECIAL_FLOAT too
    FLOAT_NE: str | None = None     # "!({a} == {b})": float != written as a negated ==
    INT_TO_BOOL_NE = False          # an integer -> bool conversion written as x != 0
    HALF_LITERAL: str | None = None     # an f16 literal from its value as an f32 literal
    BOOL_TO_U32 = "uint({})"        # a bool as the u32 that stores it (1 or 0)
    ENUM_CONST = "const {type} {name} = {value};"
    TABLE_CONST = "const {decl} = {init};"      # a constant table at program scope
    TABLE_CONSTRUCTED = False       # True: its initializer is T(a, b, c); False: {a, b, c}
    # -- the kernel's prologue (``declare_ids``): id -> (type, value) of an id variable --
    ID_VALUES: dict[str, tuple[str, str]] = {}
    RAW_IDS: dict[str, str] = {}    # id -> the built-in that ``unfold_ids`` starts from
    # -- statements and expressions --
    ATOMIC_LOAD = "atomicLoad(&{place})"        # {zero}: the zero of the element type
    ATOMIC_STORE = "atomicStore(&{place}, {value})"
    SELECT = "({cond} ? {if_true} : {if_false})"
    # The ``math`` builtins (and ``round``) the target computes in f64 (None: every one);
    # any other of an f64 is a TranslationError (GLSL has no double transcendentals; DXC
    # computes HLSL's float intrinsics of a double in f32).
    F64_MATH: frozenset[str] | None = None
    BROADCAST = "{type}({value})"   # a scalar as a vector
    # True where the target's compiler takes C preprocessor ``#line N "file"`` directives:
    # ``line`` then writes them, so that the compiler's own errors name the Python line.
    line_directives = False
    _cpp_line: tuple[str, int] | None = None     # what the compiler counts for the next line

    def line(self, text: str = "", node: ast.AST | None = None) -> None:
        """One output line; with ``line_directives``, preceded by ``#line N "file.py"`` where
        the compiler's count would differ from the statement's Python line."""
        if not self.line_directives:
            return super().line(text, node)
        lineno = getattr(node, "lineno", None) if node is not None else None
        if lineno and text:
            where = (self.func_file().replace('"', "'"), lineno)
            if self._cpp_line != where:
                self.out.append(f'#line {lineno} "{where[0]}"')
                self.line_map.append(None)
            self._cpp_line = where
        super().line(text, node)
        if self._cpp_line is not None:
            self._cpp_line = (self._cpp_line[0], self._cpp_line[1] + 1)

    def func_node(self) -> ast.AST:
        """The tree of the function being emitted (else the kernel's), to place errors."""
        return self.func.tree if self.func else self.k.tree

    def all_types(self) -> list:
        """Every type the program declares: buffer elements, parameters, locals and struct
        fields (``frontend.requirements.declared_types``, which the device requirements
        scan too)."""
        return declared_types(self.prog)

    # -- hooks with C-like defaults -----------------------------------------------------
    def zero_value(self, t: T.Type, node: ast.AST | None = None) -> str:
        """The zero of ``t`` in its storage form: ``T()``."""
        return f"{self.type_name(t, node, storage=True)}()"

    def bool_to_u32(self, v: str) -> str:
        """A bool value as the u32 that stores it (1 or 0): ``BOOL_TO_U32``."""
        return self.BOOL_TO_U32.format(v)

    def atomic_load(self, s: str, node: ast.AST, t: T.Type | None = None) -> str:
        """Reading the atomic element ``s`` (``ATOMIC_LOAD``) of type ``t`` (the node's
        unless given: u32 for the bits of an f32 element)."""
        return self.ATOMIC_LOAD.format(place=s, zero=self.literal(0, t or node.ps_type))

    def atomic_store(self, place: str, v: str, node: ast.AST, t: T.Type | None = None) -> None:
        """The statement storing ``v`` in the atomic element ``place`` (``ATOMIC_STORE``) of
        type ``t`` (the assigned element's unless given: u32 for the bits of an f32)."""
        self.line(self.ATOMIC_STORE.format(place=place, value=v) + ";", node)

    def discard(self, text: str, call: ast.expr) -> str:
        """A call statement whose result (if any) is unused."""
        return text

    def stmt_end(self, text: str) -> str:
        """A simple statement ends with ``;``."""
        return text + ";"

    def begin_if(self, cond: str, node: ast.AST) -> None:
        """``if (cond) {``."""
        self.line(f"if ({cond}) {{", node)

    def begin_elif(self, cond: str, node: ast.AST) -> None:
        """``} else if (cond) {``."""
        self.line(f"}} else if ({cond}) {{", node)

    def begin_else(self, node: ast.AST | None = None) -> None:
        """``} else {``."""
        self.line("} else {", node)

    def begin_block(self, node: ast.AST) -> None:
        """A plain ``{`` block: unlike ``if (true)``, naga and Tint see that it always runs
        (a function whose body ends in it needs no return after it)."""
        self.line("{", node)

    def end_block(self) -> None:
        """``}``."""
        self.line("}")

    # -- types and literals, from the tables ---------------------------------------------
    def type_name(self, t: T.Type, node: ast.AST | None = None, storage: bool = False) -> str:
        """The spelling of ``t`` (bool as the u32 type where ``storage``: memory holds
        bools as u32); a scalar the target lacks is a TranslationError at ``node``."""
        if isinstance(t, T.EnumType):   # a host record's (struct field, kernel parameter)
            return self.type_name(t.base)
        if isinstance(t, T.ScalarType):
            if t.name not in self.SCALARS:
                raise self.unsupported(t.name, node or self.func_node())
            return self.SCALARS["u32" if t.kind == "bool" and storage else t.name]
        if isinstance(t, T.VectorType):
            e = T.u32 if t.elem == T.bool_ and storage else t.elem
            elem = self.VECTOR_ELEM[e.name] if self.VECTOR_ELEM is not None \
                else self.type_name(e, node)
            return self.VECTOR.format(elem=elem, n=t.n)
        if isinstance(t, T.MatrixType):
            return self.MATRIX.format(n=t.n)
        if isinstance(t, T.ArrayType):
            if self.ARRAY is None:
                base, dims = array_parts(t)
                return self.type_name(base, node, storage) + dims
            return self.ARRAY.format(elem=self.type_name(t.elem, node, storage), n=t.n)
        if isinstance(t, T.StructType):
            return self.global_name(t.name)
        raise self.error(node or self.func_node(),
                         f"internal: no {self.target.upper()} type for {t}")

    def unsupported(self, name: str, node: ast.AST) -> TranslationError:
        """The TranslationError of a use of the scalar type ``name``, which the target
        lacks (``UNSUPPORTED``)."""
        return self.error(node, self.UNSUPPORTED.format(name=name))

    def literal(self, value: Any, t: T.Type) -> str:
        """A literal of exactly type ``t``: ``LITERAL_SUFFIX`` (``1u``, ``1.5f``), the most
        negative integer through ``MIN_LITERAL``, inf and NaN (and -0.0 where
        ``NEG_ZERO_FROM_BITS``) through ``special_float``, f16 through ``HALF_LITERAL`` where
        the target has one; a vector repeats it."""
        if isinstance(t, T.VectorType):
            return self.vector_text(t, [self.literal(value, t.elem)] * t.n)
        if t == T.bool_ or isinstance(value, bool):
            return "true" if value else "false"
        if t.is_int:
            return self.int_literal(value, t, self.LITERAL_SUFFIX[t.name])
        v = float(value)
        if math.isnan(v) or math.isinf(v) or (
                self.NEG_ZERO_FROM_BITS and v == 0.0 and math.copysign(1.0, v) < 0):
            return self.special_float(v, t)
        if t == T.f16 and self.HALF_LITERAL:   # the f16 value, exact in f32: one rounding
            return self.HALF_LITERAL.format(shortest_f32(float(np.float16(v))))
        return (shortest_f32(v) if t == T.f32 else repr(v)) + self.LITERAL_SUFFIX[t.name]

    def int_literal(self, value: Any, t: T.Type, suffix: str) -> str:
        """An integer literal of type ``t`` with the target's ``suffix``; the most negative
        value as ``(MIN + 1) - 1`` (``MIN_LITERAL``), since ``-MIN`` is not a literal of the
        type."""
        v = int(value)
        if t.kind == "int" and v == t.min:
            return self.MIN_LITERAL.format(v=v + 1, s=suffix)
        return f"{v}{suffix}"

    def special_float(self, v: float, t: T.Type) -> str:
        """inf or NaN of the float type ``t``, from its bits (``SPECIAL_FLOAT``)."""
        bits = int.from_bytes(struct.pack({"f32": "<f", "f64": "<d", "f16": "<e"}[t.name], v),
                              "little")
        f32 = struct.unpack("<I", struct.pack("<f", v))[0]
        return self.SPECIAL_FLOAT[t.name].format(bits=bits, f32=f32, lo=bits & 0xffffffff,
                                                 hi=bits >> 32)

    # -- declarations ---------------------------------------------------------------------
    def enum_decl(self, e: T.EnumType) -> None:
        """One constant per enum member (``ENUM_CONST``)."""
        for m, v in e.members.items():
            self.line(self.ENUM_CONST.format(type=self.type_name(e.base),
                                             name=self.global_name(f"{e.name}_{m}"),
                                             value=self.literal(v, e.base)))
        self.line()

    def table_decl(self, name: str, t: T.ArrayType, values: tuple) -> None:
        """A constant table: ``TABLE_CONST`` of its declarator and ``table_init``."""
        self.line(self.TABLE_CONST.format(decl=self.declarator(t, name),
                                          init=self.table_init(t, values)))

    def table_init(self, t: T.Type, values: Any) -> str:
        """A table's initializer: ``{a, b, c}`` (``TABLE_CONSTRUCTED``: ``T(a, b, c)``),
        nested for rows."""
        if isinstance(t, T.ArrayType):
            items = ", ".join(self.table_init(t.elem, v) for v in values)
            return f"{self.type_name(t)}({items})" if self.TABLE_CONSTRUCTED else f"{{{items}}}"
        return self.literal(values, t)

    def declarator(self, t: T.Type, name: str, node: ast.AST | None = None,
                   storage: bool = False) -> str:
        """``T name``: the type and name of a declaration (``SIZES_AFTER_NAME``: an array's
        sizes after the name, ``float a[4]``)."""
        if self.SIZES_AFTER_NAME:
            base, dims = array_parts(t)
            return f"{self.type_name(base, node, storage)} {name}{dims}"
        return f"{self.type_name(t, node, storage)} {name}"

    def decl_head(self, name: str, t: T.Type, mutable: bool, node: ast.AST | None = None) -> str:
        """A local's declaration before its `` = value``: ``T name`` (WGSL: ``let`` or, where
        ``mutable``, ``var``)."""
        return self.declarator(t, name, node)

    # -- the kernel's prologue ------------------------------------------------------------
    def function_prologue(self, f: FuncInfo) -> None:
        """A kernel names the ids it uses (``declare_ids``; folded groups: ``unfold_ids``)
        and copies its parameters out of the parameter block (``copy_params``)."""
        if not f.is_kernel:
            return
        if f.folded:
            self.unfold_ids(f)
        else:
            self.declare_ids(f)
        self.copy_params(f)

    def declare_ids(self, f: FuncInfo) -> None:
        """A variable for each id the kernel uses, from ``ID_VALUES`` (none where the entry
        point takes the ids as parameters under their names)."""
        for which, (t, value) in self.ID_VALUES.items():
            if which in f.ids_used:
                self.line(f"{t} {self.id_value(which)} = {value};")

    def copy_params(self, f: FuncInfo) -> None:
        """The kernel's scalar and struct parameters, copied out of the parameter block
        into locals (bools stored as u32)."""
        for name, t in f.values:
            v = self.param_member(name)
            if t == T.bool_:
                v = f"({v} != 0u)"
            self.line(f"{self.decl_head(self.local(name), t, name in f.mutated)} = {v};")

    def param_member(self, name: str) -> str:
        """``block.member`` of the parameter block's member ``name``."""
        names = [n for n, _ in self.prog.param_block.types]
        return f"{self.param_block_ref()}.{self.field_name('_ps_Params', name, names)}"

    # -- C-family statements (WGSL overrides them with its own forms) ------------------

    def function_footer(self, f: FuncInfo) -> None:
        """``}``."""
        self.line("}")

    def cast(self, text: str, t: T.Type) -> str:
        """``T(text)``."""
        return f"{self.type_name(t)}({text})"

    def begin_for(self, var: str, t: T.Type, start: str, cond: str, step: str,
                  node: ast.AST) -> None:
        """``for (T v = start; cond; v += step) {``."""
        self.line(f"for ({self.decl_head(var, t, True)} = {start}; {cond}; {var} += {step}) {{",
                  node)

    def declare(self, name: str, t: T.Type, value: ast.expr, node: ast.AST) -> None:
        """``T name = value;``; ``ps.array(T, N)`` is a zeroed declaration."""
        if isinstance(t, T.ArrayType) and getattr(value, "ps_call", (None,))[0] == "array":
            return self.declare_default(name, node)
        head = self.decl_head(self.local(name), t, name in self.func.mutated, node)
        self.line(f"{head} = {self.value(value)};", node)

    def declare_temp(self, name: str, t: T.Type, value: str, node: ast.AST) -> None:
        """``T name = value;``."""
        self.line(f"{self.decl_head(name, t, False, node)} = {value};", node)

    def select(self, if_false: str, if_true: str, cond: str) -> str:
        """``(cond ? if_true : if_false)`` (``SELECT``)."""
        return self.SELECT.format(if_false=if_false, if_true=if_true, cond=cond)

    def begin_while(self, cond: str, node: ast.AST) -> None:
        """``while (cond) {``."""
        self.line(f"while ({cond}) {{", node)

    def ex_UnaryOp(self, node: ast.UnaryOp) -> str:
        """``not`` as ``!``, ``~``, unary ``+`` dropped; unary minus through ``negate``."""
        if isinstance(node.op, ast.Not):
            return f"!{self.sub(node.operand)}"
        if isinstance(node.op, ast.UAdd):
            return self.expr(node.operand)
        if isinstance(node.op, ast.Invert):
            return f"~{self.sub(node.operand)}"
        return self.negate(node)

    def unfold_ids(self, f: Any) -> None:
        """Groups beyond the per-dimension limit are folded into y/z by the runtime: the
        kernel rebuilds the 1-D ids from the raw builtins (``raw_id``, per target)."""
        wid, nwg, lid = (self.raw_id(w) for w in ("group_id", "num_groups", "local_id"))
        v3 = lambda *parts: self.vector_text(T.uvec3, parts)  # noqa: E731
        x = f.workgroup_size[0]
        lin = self.id_value("group_id")
        self.declare_temp(lin, T.uvec3, v3(f"{wid}.x + {wid}.y * {nwg}.x + {wid}.z * "
                                           f"{nwg}.x * {nwg}.y", "0u", "0u"), None)
        if "num_groups" in f.ids_used:
            self.declare_temp(self.id_value("num_groups"), T.uvec3,
                              v3(f"{nwg}.x * {nwg}.y * {nwg}.z", "1u", "1u"), None)
        if "global_id" in f.ids_used:
            self.declare_temp(self.id_value("global_id"), T.uvec3,
                              v3(f"{lin}.x * {x}u + {lid}.x", f"{lid}.y", f"{lid}.z"), None)
        if "local_id" in f.ids_used:
            self.declare_temp(self.id_value("local_id"), T.uvec3, lid, None)
        if "local_index" in f.ids_used:
            self.declare_temp(self.id_value("local_index"), T.u32, self.raw_id("local_index"),
                              None)

    def raw_id(self, which: str) -> str:
        """The id ``which`` as the entry point receives it (``RAW_IDS``), for
        ``unfold_ids``."""
        return self.RAW_IDS[which]

    def vector_text(self, t: T.Type, parts: Any) -> str:
        """The vector ``t`` built from one text per component: ``T(a, b, c)``."""
        return f"{self.type_name(t)}({', '.join(parts)})"

    def negate(self, node: ast.UnaryOp) -> str:
        """Unary minus: ``-x``."""
        return f"-{self.sub(node.operand)}"

    def compare(self, op: type, a: ast.expr, b: ast.expr, node: ast.AST) -> str:
        """``a OP b`` for one comparison operator ``op`` (an ``ast`` class); float ``!=`` as
        ``FLOAT_NE`` says (DXC's and naga's ``!=`` of a NaN gave false on lavapipe)."""
        if op is ast.NotEq and self.FLOAT_NE and any_float(a.ps_type, b.ps_type):
            return self.FLOAT_NE.format(a=self.sub(a), b=self.sub(b))
        return f"{self.sub(a)} {CMP_SYMBOLS[op]} {self.sub(b)}"

    # -- places and values shared by the brace targets ---------------------------------
    def place(self, target: ast.expr) -> str:
        """A reference expression (store side)."""
        if isinstance(target, ast.Name):
            return self.ref(target)
        if isinstance(target, ast.Subscript):
            return f"{self.place(target.value)}[{self.expr(target.slice)}]"
        return f"{self.place(target.value)}.{self.member(target)}"

    def member(self, node: ast.Attribute) -> str:
        """A struct field's target name, or a vector component/swizzle as written."""
        st = node.value.ps_type
        if isinstance(st, T.StructType):
            return self.field_name(st.name, node.attr, [n for n, _ in st.fields])
        return node.attr

    def atomic_element(self, node: ast.expr) -> bool:
        """True when ``node`` indexes a buffer or shared array that is used atomically."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            return False
        ref = getattr(node.value, "ps_ref", None)
        if not ref or ref[0] != "global":
            return False
        for b in self.k.buffers:
            if b.name == ref[1]:
                return b.atomic
        sh = self.k.shared.get(ref[1])
        return bool(sh and sh.atomic)

    def has_side_effects(self, node: ast.AST) -> bool:
        """True when evaluating ``node`` may write memory (a store, an atomic, a helper
        that writes): such a side may not be evaluated speculatively or skipped."""
        for n in walk(node):
            call = getattr(n, "ps_call", None)
            if call and call[0] in ("builtin", "func") and not call[1].pure:
                return True
        return False

    def broadcast(self, s: str, t: T.Type, want: T.Type) -> str:
        """``s`` converted to the vector type ``want`` when its type ``t`` is a scalar."""
        if isinstance(want, T.VectorType) and not isinstance(t, T.VectorType):
            return self.BROADCAST.format(type=self.type_name(want), value=s)
        return s


    # -- statements and expressions shared by the brace targets --------------------------
    def assign(self, target: ast.expr, value: ast.expr, node: ast.AST) -> None:
        """An assignment; an atomic element through ``atomic_store``, a bool struct field
        stored as u32; an element of a packed 3-vector buffer through ``packed_store``."""
        if self.packed_store(target, value, node):
            return
        v = self.value(value)
        if isinstance(target, ast.Attribute) and target.value.ps_type is not None and \
                isinstance(target.value.ps_type, T.StructType) and target.ps_type == T.bool_:
            v = self.bool_to_u32(v)
        if self.atomic_element(target):
            if self.bits_view(target.ps_type):
                return self.atomic_store(self.place(target), self.FLOAT_BITS[0].format(v),
                                         node, T.u32)
            return self.atomic_store(self.place(target), v, node)
        self.line(f"{self.place(target)} = {v};", node)

    def call_statement(self, call: ast.expr, node: ast.AST) -> None:
        """A call statement: ``barrier()`` is the ``barrier_statements`` (``BARRIER`` or
        ``BARRIER_SHARED``); other calls go through ``discard``."""
        kind, what = call.ps_call
        if kind == "builtin" and what.name == "barrier":
            for stmt in self.barrier_statements():
                self.line(f"{stmt};", node)
            return
        self.line(f"{self.discard(self.expr(call), call)};", node)

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]``, through ``atomic_load`` for an atomic element."""
        s = f"{self.sub(node.value)}[{self.expr(node.slice)}]"
        if self.atomic_element(node):
            if self.bits_view(node.ps_type):
                return self.FLOAT_BITS[1].format(self.atomic_load(s, node, T.u32))
            return self.atomic_load(s, node)
        return s

    def ex_Attribute(self, node: ast.Attribute) -> str:
        """A struct field (a bool field read from u32), a vector component, or an enum's
        ``.value``."""
        vt = node.value.ps_type
        if getattr(node.value, "ps_enum_type", None) is not None:       # .value
            return self.expr(node.value)
        s = f"{self.sub(node.value)}.{self.member(node)}"
        if isinstance(vt, T.StructType) and node.ps_type == T.bool_:
            return f"({s} != 0u)"
        return s

    def ex_BinOp(self, node: ast.BinOp) -> str:
        """A binary operator from ``BINOPS``; shifts through ``shift``, bool ``& | ^``
        through ``bool_bitop`` (``//``, ``%`` and ``**`` are prelude calls by now)."""
        op = type(node.op)
        if op not in BINOPS:
            raise self.error(node, "internal: //, % and ** reach the emitter as prelude calls")
        if op in (ast.LShift, ast.RShift):
            return self.shift(node, op)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor) and elem_type(node.ps_type) == T.bool_:
            return self.bool_bitop(node, op)
        return f"{self.sub(node.left)} {BINOPS[op]} {self.sub(node.right)}"

    def shift(self, node: ast.BinOp, op: type) -> str:
        """``a << b`` / ``a >> b`` (arithmetic on signed types in every C-like target)."""
        return f"{self.sub(node.left)} {BINOPS[op]} {self.sub(node.right)}"

    def bool_bitop(self, node: ast.BinOp, op: type) -> str:
        """Bool ``&``/``|`` (both sides evaluated) and ``^`` as ``!=``."""
        a, b = self.sub(node.left), self.sub(node.right)
        return f"{a} != {b}" if op is ast.BitXor else f"{a} {BINOPS[op]} {b}"

    # -- calls --------------------------------------------------------------------------
    def call_builtin(self, node: ast.Call, b: Any) -> str:
        """A builtin call (``Emitter.call_builtin``); a ``math`` function of an f64 that the
        target has only for f32 (``F64_MATH``), or not at all (``PRELUDE``: the prelude is
        written for f32), is a TranslationError."""
        math_like = b.name.startswith("math.") or b.name == "round"
        f64_refused = self.F64_MATH is not None and b.name not in self.F64_MATH
        if math_like and node.args and elem_type(node.args[0].ps_type) == T.f64 and \
                (f64_refused or self.spelling(b) is PRELUDE):
            raise self.error(node, f"{b.name}() of f64 is not available on {self.target}: it "
                                   "has no double-precision version (use f32, or the cuda "
                                   "target)")
        return super().call_builtin(node, b)

    def call_cast(self, node: ast.Call, t: T.Type) -> str:
        """A conversion ``T(x)`` (f32 -> int is a prelude call by now); float -> bool as
        ``x != 0`` where ``FLOAT_NE`` says (HLSL's ``bool(nan)`` was false), integer ->
        bool as ``x != 0`` where ``INT_TO_BOOL_NE`` says."""
        a = node.args[0]
        if self.FLOAT_NE and t == T.bool_ and any_float(a.ps_type):
            return self.FLOAT_NE.format(a=self.sub(a), b=self.zero_value(a.ps_type, node))
        if self.INT_TO_BOOL_NE and elem_type(t) == T.bool_ and \
                elem_type(a.ps_type).kind in ("int", "uint"):
            return f"({self.sub(a)} != {self.zero_value(a.ps_type, node)})"
        return f"{self.type_name(t, node)}({self.expr(a)})"

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor."""
        return f"{self.type_name(t, node)}({', '.join(self.value(a) for a in node.args)})"

    def call_struct(self, node: ast.Call, st: T.StructType) -> str:
        """A struct constructor with every field (a missing one zero, bools as u32)."""
        vals = []
        for f, a in node.ps_fields:
            ft = st.field_types[f]
            if a is None:
                vals.append(self.zero_value(T.decayed(ft), node))
            elif ft == T.bool_:
                vals.append(self.bool_to_u32(self.value(a)))
            else:
                vals.append(self.value(a))
        return f"{self.struct_constructor(st)}({', '.join(vals)})"

    def struct_constructor(self, st: T.StructType) -> str:
        """What a struct value is built with: its name (HLSL: a generated maker)."""
        return self.global_name(st.name)

    def call_array(self, node: ast.Call, at: T.ArrayType) -> str:
        """``ps.array(T, N)``: its zero value."""
        return self.zero_value(at, node)

    def param_block_ref(self) -> str:
        """The expression naming the parameter block, whose members are ``.field``: the
        block's variable (a target that binds it as an array element says so)."""
        return self.globals.name("_ps_params")

    def unsigned_abs(self, node: ast.Call) -> str:
        """``abs`` of an unsigned value is the value (GLSL has no unsigned abs, HLSL's
        converts to int first); of a float, ``abs`` (signed integers go through the
        prelude)."""
        if elem_type(node.ps_type).kind == "uint":
            return self.sub(node.args[0])       # an operand where the call stood: parenthesised
        return f"abs({self.value(node.args[0])})"

    def spell_extras(self, node: ast.Call, b: Any, args: list[str]) -> dict:
        """Fields of builtin format strings: ``ids``, ``len`` and the result type ``T``."""
        extras: dict[str, Any] = {}
        if b.name in ID_NAMES:
            extras["ids"] = IdNames(self)
        if b.name == "len":
            t = node.args[0].ps_type
            if not isinstance(t, T.BufferType):
                extras["len"] = f"{t.n}u"
            else:
                # The element count the launch path stores: the target's own length
                # would count the padding of small buffers (a binding is at least 16 bytes).
                extras["len"] = self.param_member(
                    self.prog.param_block.lengths[(node.args[0].ps_ref[1],
                                                   getattr(node, "ps_axis", 0))])
        if b.name in ("bitcast", "prelude.bits", "prelude.from_bits", "prelude.convert",
                      "popcount", "count_leading_zeros"):
            extras["T"] = self.type_name(node.ps_type, node)
        return extras

