"""The C++ base of the CUDA and MSL emitters.

Both targets are C++ (NVRTC's CUDA C++ and Metal's C++14 dialect), and what that
means is written here once, over each target's tables (``cuda_tables``,
``msl_tables``, the same names in both):

- the scalar rules (``cpp_ops``): signed ``+ - * <<`` and unary minus go through the
  unsigned type, since signed overflow is undefined in C++ and both compilers
  (NVVM, Apple's LLVM) optimise on it while the kernel language wraps; a functional
  cast whose operand is itself one becomes ``static_cast`` (``ctor``); f32 literals
  carry ``f``, inf and NaN come from their bits;
- the formula functions (``mix``, ``dot``... as generated functions that round each
  operation as the CPU device does, where a vector library might fuse or reorder);
- the struct layout: explicit ``unsigned char`` padding members and ``alignas`` of the
  canonical alignment, a constructor of all fields, ``static_assert``s of size and
  offsets; bool is a ``uint`` in memory;
- the parameter block as one struct laid out the same way, its fields copied into
  locals at the kernel's entry;
- hidden helper arguments: buffers are parameters of the kernel, not globals, so a
  helper that touches a buffer (or ``len`` of one) gets the pointers, and the block,
  after the invocation ids, under the same names;
- ``#line N "file.py"`` before statements (``line_directives``), so that the
  compiler's errors name the Python line.

Each target adds its entry point, resources, vector operators and builtins.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from ..frontend.deep import walk
from ..frontend.program import FuncInfo
from .clike import CLikeEmitter, array_parts
from .cpp_ops import CppOps


def is_vec3(t: Any) -> bool:
    """True for a 3-component vector (a 16-byte slot in arrays, struct fields and
    ``Buffer[bvec3]``; other 3-vector buffers are packed: ``packed.py``)."""
    return isinstance(t, T.VectorType) and t.n == 3


class CppEmitter(CppOps, CLikeEmitter):
    """What the CUDA and MSL emitters share: C++ scalar rules, struct layout, the
    parameter block, hidden helper arguments and ``#line`` directives."""

    explicit_lengths = True
    line_directives = True
    DEVICE = ""                     # the qualifier of a struct constructor
    BLOCK_PARAM = "const {}&"       # the parameter block as a helper's hidden parameter
    ENUM_CONST = "constexpr {type} {name} = {value};"

    def __init__(self, prog: Any):
        super().__init__(prog)
        self.uses: dict[str, tuple[list[str], bool]] = {}   # helper -> (buffers, block)
        for f in prog.funcs:                                 # callees first
            self.uses[f.emit_name] = self._resource_use(f)

    def _resource_use(self, f: FuncInfo) -> tuple[list[str], bool]:
        """The buffers a helper reads or writes and whether it needs the parameter
        block (``len`` of a buffer), its callees' included."""
        bufs, block = set(), False
        order = self.resource_names()
        names = set(order)
        for n in walk(f.tree):
            ref = getattr(n, "ps_ref", None)
            if isinstance(n, ast.Name) and ref and ref[0] == "global" and ref[1] in names:
                bufs.add(ref[1])
            call = getattr(n, "ps_call", None)
            if call and call[0] == "func":
                b2, p2 = self.uses.get(call[1].emit_name, ((), False))
                bufs |= set(b2)
                block |= p2
            elif call and call[0] == "builtin" and call[1].name == "len" and \
                    isinstance(n.args[0].ps_type, T.BufferType):
                block = True
        return [n for n in order if n in bufs], block

    def resource_names(self) -> list[str]:
        """The kernel-scope resources a helper gets as hidden arguments: the buffers (an
        MSL threadgroup array, declared in the kernel, is one too)."""
        return [b.name for b in self.k.buffers]

    # -- types ----------------------------------------------------------------------------
    def cpp_layout(self, t: T.Type) -> tuple[int, int]:
        """(size, alignment) of ``t``'s storage type in C++, to place padding members."""
        if isinstance(t, T.VectorType):
            return self.tables.VEC_LAYOUT[t.n]
        if isinstance(t, T.ArrayType):
            if is_vec3(t.elem):
                return t.size, 16
            return t.size, self.cpp_layout(t.elem)[1]
        return t.size, t.align          # scalars, matrices, structs: the canonical alignment

    # -- values ---------------------------------------------------------------------------
    def table_decl(self, name: str, t: T.ArrayType, values: tuple) -> None:
        """A constant table as a C array, ``TABLE_CONST`` (``float W[3] = {...}``)."""
        base, dims = array_parts(t)
        self.line(self.TABLE_CONST.format(decl=f"{self.type_name(base)} {name}{dims}",
                                          init=self.table_init(t, values)))

    def zero_value(self, t: T.Type, node: ast.AST | None = None) -> str:
        """A scalar's zero literal, else ``T{}`` (value-initialised: all zeros).

        Braces, not ``T()``: inside parentheses C++ reads ``(T()[i] ...`` as the type-id
        "function returning an array of T" and rejects it (fuzz seed 8477057602848859271:110)."""
        if isinstance(t, T.ScalarType):
            return self.literal(0, T.u32 if t == T.bool_ else t)
        return f"{self.type_name(t, node, storage=True)}{{}}"

    # -- declarations ---------------------------------------------------------------------
    def padded_members(self, name: str, members: list, size: int) -> tuple[list, list]:
        """Member lines placing each (member, type, offset) at its canonical offset with
        ``unsigned char`` padding, then the static_asserts of ``size`` and the offsets."""
        lines, asserts, off, pads = [], [], 0, 0
        for i, (member, t, want) in enumerate(members):
            room = (members[i + 1][2] if i + 1 < len(members) else size) - want
            tname, csize, calign = self.member_type(t, room)
            natural = (off + calign - 1) // calign * calign
            if want > natural:
                lines.append(f"    unsigned char _ps_pad{pads}[{want - natural}];")
                pads += 1
            lines.append(f"    {tname} {member};")
            asserts.append(f"static_assert(PS_OFFSETOF({name}, {member}) == {want}, "
                           f'"offset of {name}.{member}");')
            off = want + csize
        if asserts:
            asserts = ["#ifdef PS_OFFSETOF", *asserts, "#endif"]
        return lines, [f'static_assert(sizeof({name}) == {size}, "size of {name}");'] + asserts

    def member_type(self, t: T.Type, room: int) -> tuple[str, int, int]:
        """(type name, C++ size, alignment) of a struct member of type ``t`` that has
        ``room`` bytes before the next member (a target with wide 3-vectors packs them)."""
        return (self.type_name(t, storage=True), *self.cpp_layout(t))

    def struct_decl(self, s: T.StructType) -> None:
        """A struct with the canonical layout (padding members, ``alignas``), bool fields
        as uint, a constructor of all fields, and static_asserts of the layout."""
        name = self.global_name(s.name)
        fields = [(self.field_name(s.name, f, [n for n, _ in s.fields]), ft, s.offsets[f])
                  for f, ft in s.fields]
        members, asserts = self.padded_members(name, fields, s.size)
        self.line(f"struct alignas({s.align}) {name} {{")
        for ln in members:
            self.line(ln)
        params = ", ".join(f"{self.type_name(t, storage=True)} {m}" for m, t, _ in fields)
        inits = ", ".join(f"{m}({m})" for m, _, _ in fields)
        self.line(f"    {name}() = default;")
        self.line(f"    {self.DEVICE}{name}({params}) : {inits} {{}}")
        self.line("};")
        for ln in asserts:
            self.line(ln)
        self.line()

    def param_struct(self) -> None:
        """The parameter block's struct, laid out as ``ParamBlock`` says."""
        pb = self.prog.param_block
        if pb.types:
            name = self.globals.name("_ps_Params")
            names = [n for n, _ in pb.types]
            fields = [(self.field_name("_ps_Params", n, names), t, off)
                      for (n, t), (_, off, _a, _s) in zip(pb.types, pb.placed)]
            members, asserts = self.padded_members(name, fields, pb.size)
            self.line(f"struct alignas(16) {name} {{")
            for ln in members:
                self.line(ln)
            self.line("};")
            for ln in asserts:
                self.line(ln)

    # -- functions ------------------------------------------------------------------------
    def helper_header(self, f: FuncInfo, qualifiers: str) -> None:
        """A helper's first line: ``qualifiers``, its parameters, then the ids, buffers and
        parameter block it uses as hidden parameters (``id_args``)."""
        params = [f"{self.type_name(t, f.tree)} {self.local(name)}" for name, t in f.params]
        params += [f"{self.tables.IDS[w][0]} {self.id_value(w)}" for w in sorted(f.ids_used)]
        bufs, block = self.uses[f.emit_name]
        params += [self.buffer_param(b) for b in bufs]
        if block:
            params.append(f"{self.BLOCK_PARAM.format(self.globals.name('_ps_Params'))} "
                          f"{self.globals.name('_ps_params')}")
        ret = self.type_name(f.ret, f.tree) if f.ret is not None else "void"
        self.line(f"{qualifiers}{ret} {self.global_name(f.emit_name)}({', '.join(params)}) {{",
                  f.tree)

    def buffer_param(self, name: str) -> str:
        """The parameter declaration of a buffer (or other kernel resource) ``name``."""
        raise NotImplementedError

    def id_args(self, info: FuncInfo) -> list[str]:
        """The hidden arguments of a helper call: the ids, buffers and block it uses."""
        bufs, block = self.uses.get(info.emit_name, ((), False))
        extra = [self.global_name(b) for b in bufs]
        if block:
            extra.append(self.globals.name("_ps_params"))
        return super().id_args(info) + extra

    # -- statements -----------------------------------------------------------------------
    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """``T name = 0;`` for a scalar, ``T name = {};`` (all zeros) otherwise."""
        t = self.func.locals[name]
        zero = self.literal(0, t) if isinstance(t, T.ScalarType) else "{}"
        self.line(f"{self.type_name(t, node)} {self.local(name)} = {zero};", node)

    # -- places and components -----------------------------------------------------------
    def member(self, node: ast.Attribute) -> str:
        """A struct field's name, or a vector component as x/y/z/w."""
        if isinstance(node.value.ps_type, T.VectorType):
            return "".join(self.tables.COMPONENTS["rgba".find(c)] if c in "rgba" else c
                           for c in node.attr)
        return super().member(node)

    def place(self, target: ast.expr) -> str:
        """A store place; a vector component through ``vector_index``."""
        if isinstance(target, ast.Subscript) and isinstance(target.value.ps_type, T.VectorType):
            return self.vector_index(self.place(target.value), target.slice,
                                     target.value.ps_type)
        return super().place(target)

    def table_chain(self, node: ast.expr) -> str | None:
        """``K[i][j]`` as C indexing where ``node`` is a constant table or an element or
        row of one; None for anything else."""
        if isinstance(node, ast.Name) and getattr(node, "ps_ref", ("",))[0] == "table":
            return self.ref(node)
        if isinstance(node, ast.Subscript):
            base = self.table_chain(node.value)
            if base is not None:
                return f"{base}[{self.expr(node.slice)}]"
        return None

    def table_value(self, s: str, t: T.Type) -> str:
        """A table (a C array) or one of its rows, ``s``, as a value of the array type
        that locals and parameters have: ``T{s[0], s[1], s[2]}``; an element is ``s``."""
        if not isinstance(t, T.ArrayType):
            return s
        items = ", ".join(self.table_value(f"{s}[{k}]", t.elem) for k in range(t.n))
        return f"{self.type_name(t)}{{{items}}}"

    def ex_Name(self, node: ast.Name) -> str:
        """A variable; a constant table read whole, as a value (``table_value``)."""
        s = self.table_chain(node)
        return super().ex_Name(node) if s is None else self.table_value(s, node.ps_type)

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]``; a vector component through ``vector_index``; an element or row of a
        constant table through ``table_chain``."""
        s = self.table_chain(node)
        if s is not None:
            return self.table_value(s, node.ps_type)
        if isinstance(node.value.ps_type, T.VectorType):
            return self.vector_index(self.sub(node.value), node.slice, node.value.ps_type)
        return super().ex_Subscript(node)

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor (without arguments ``T{}``, zero: see ``zero_value``
        for why not ``T()``)."""
        if not node.args:
            return f"{self.tn(t)}{{}}"
        return super().call_construct(node, t)
