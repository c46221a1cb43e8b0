"""Shared emission: statement lowering, expression dispatch, names, helpers.

``Emitter`` walks a typed ``Program`` (see ``pyshade.frontend.program``) and
writes text. It owns everything that is the same in every target: the order
of the output (enums, structs, resources, helpers, functions, kernel), where
locals are declared, how ``match`` becomes an if-chain, how augmented
assignment and loops over ``range`` are lowered (the ``match`` and loop rules in the
``lowering.ControlFlow`` mixin), and the ``// file.py:LINE`` comment on every
statement. Subclasses provide the syntax through small hooks
and tables; ``CLikeEmitter`` is the brace-language base of WGSL, GLSL, HLSL,
MSL and CUDA. Builtin calls are spelled from the tables of ``emit/spellings/``:
each emitter class names its own (``spellings``) and its families' (``families``),
and ``spelling`` looks them up in that order.
"""

from __future__ import annotations

import ast
import os
from typing import Any

from .. import types as T
from ..errors import TranslationError
from ..frontend.deep import recursion_headroom, too_deep
from ..frontend.program import FuncInfo, Program
from ..frontend.source import make_error
from .deep import DeepSplit
from .lowering import ControlFlow
from .names import Namer
from .spellings import FAMILIES

# Comparison operators are spelled alike in Python and every C-like target.
CMP_SYMBOLS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
               ast.GtE: ">="}


class Emitter(ControlFlow, DeepSplit, ast.NodeVisitor):
    """Base of every emitter. ``emit()`` returns the whole source text."""

    target = "?"
    comment = "//"
    # True where the target's own buffer length would count binding padding (WGSL's
    # arrayLength of a buffer rounded up to 16 bytes): ``len(buf)`` then reads a
    # hidden u32 member of the parameter block that the launch path fills in.
    explicit_lengths = False
    # True where the target has no built-in for the launch's group counts: the parameter
    # block then carries them (``ParamBlock.groups``), when the kernel needs them.
    groups_in_block = False
    # The target's builtin spellings (its table in ``emit/spellings/``), looked up first.
    spellings: dict[str, Any] = {}
    # Spelling tables a builtin may share with other targets (``clike``), after the target's own.
    families: tuple[str, ...] = ()
    # ``barrier()``: the statements of a workgroup execution barrier that also orders
    # shared and device (buffer) memory, and of one that orders shared memory only (None:
    # the full one, as CUDA's ``__syncthreads()`` is both). ``barrier_statements`` picks
    # one from the frontend's ``KernelInfo.barrier_scope``.
    BARRIER: tuple[str, ...] = ()
    BARRIER_SHARED: tuple[str, ...] | None = None

    def __init__(self, prog: Program):
        self.prog = prog
        self.k = prog.kernel
        self.out: list[str] = []
        self.line_map: list[int | None] = []     # output line (0-based) -> Python line
        self.depth = 0
        self.globals = Namer()
        self.helpers: dict[str, str] = {}        # helper name -> text, in creation order
        self.func: FuncInfo | None = None
        self.names: Namer | None = None
        self.file = os.path.basename(prog.filename)
        self.cur_line: int | None = None
        self.emitted: dict[int, str] = {}        # id(expression) -> temporary holding it

    @classmethod
    def block_kind(cls, layout: Any) -> str:
        """How the parameter block ``layout`` (a ``kernel.ParamLayout``) travels: its own
        ``kind`` ("uniform", or "storage" where the uniform rules would move a field)."""
        return layout.kind

    # -- errors -----------------------------------------------------------------------
    def error(self, node: ast.AST, message: str) -> TranslationError:
        """A TranslationError at ``node`` for this target (returned: the caller raises it)."""
        return make_error(self.prog.filename, node, message, self.target)

    # -- output -------------------------------------------------------------------------
    def line(self, text: str = "", node: ast.AST | None = None) -> None:
        """Append one output line; statements get the Python line as a comment."""
        lineno = getattr(node, "lineno", None) if node is not None else None
        pad = "    " * self.depth
        if lineno and text:
            text = f"{text}  {self.comment} {self.func_file()}:{lineno}"
        self.out.append(pad + text if text else "")
        self.line_map.append(lineno or self.cur_line)

    def func_file(self) -> str:
        """Base name of the file the function being emitted comes from (a helper, e.g. the
        prelude's, may live in another file than the kernel)."""
        if self.func is None:
            return self.file
        return os.path.basename(self.func.src.filename)

    def text(self) -> str:
        """The output lines as one text, trailing whitespace removed, ending in one newline."""
        return "\n".join(self.out).rstrip() + "\n"

    def helper(self, key: str, make: Any) -> str:
        """Name of a generated helper function, created once by ``make(name)``."""
        name = self.globals.name("_ps_" + key)
        if name not in self.helpers:
            self.helpers[name] = ""          # reserve the slot (helpers may nest)
            self.helpers[name] = make(name)
        return name

    def barrier_statements(self) -> tuple[str, ...]:
        """The statements ``barrier()`` is: ``BARRIER_SHARED`` where the frontend found no
        buffer whose accesses the barriers must order (``frontend/barrier_scope.py``),
        else ``BARRIER``."""
        if self.k.barrier_scope == "workgroup" and self.BARRIER_SHARED is not None:
            return self.BARRIER_SHARED
        return self.BARRIER

    def coherent(self, b: Any) -> bool:
        """True for a buffer whose accesses the barriers order (``KernelInfo.ordered_buffers``):
        GLSL's ``coherent``, HLSL's ``globallycoherent``, so that another invocation's
        stores before a barrier are seen after it."""
        ordered = self.k.ordered_buffers
        return ordered is None or b.name in ordered

    # -- names --------------------------------------------------------------------------
    def local(self, name: str) -> str:
        """Target name of the local ``name`` in the current function's scope."""
        return self.names.name(name)

    def ref(self, node: ast.AST) -> str:
        """Target name of the variable a Name node refers to: a global or a local."""
        kind, name = getattr(node, "ps_ref", ("local", node.id))
        if kind in ("global", "table"):
            return self.global_name(name)
        return self.local(name)

    def global_name(self, name: str) -> str:
        """Target name of a global (enum member, struct, buffer, shared array, function)."""
        return self.globals.name(name)

    def field_name(self, struct: str, field: str, fields: list[str] | None = None) -> str:
        """Target name of a member of struct ``struct`` (a field may be a keyword of the
        target, e.g. ``loop``): one namer per struct, so the names are stable."""
        cache = self.__dict__.setdefault("_field_names", {})
        if struct not in cache:
            namer = Namer()
            cache[struct] = {f: namer.name(f) for f in fields or []}
        return cache[struct][field]

    # -- program ------------------------------------------------------------------------
    def emit(self) -> str:
        """Write the whole program: the order is the same for every target."""
        with recursion_headroom():
            try:
                return self.emit_all()
            except RecursionError:
                f = self.func or self.k
                raise too_deep(f.src.filename, f.tree, self.target) from None

    def emit_all(self) -> str:
        """``emit`` without the recursion guard."""
        self.name_globals()
        self.header()
        for e in self.prog.enums:
            self.enum_decl(e)
        for s in self.prog.structs:
            self.struct_decl(s)
        self.resources()
        for name, (t, values) in self.prog.tables.items():
            self.table_decl(self.global_name(name), t, values)
        if self.prog.tables:
            self.line()
        body_start = len(self.out)
        for f in self.prog.funcs:
            self.function(f)
        self.function(self.k)
        body = self.out[body_start:]
        body_map = self.line_map[body_start:]
        del self.out[body_start:]
        del self.line_map[body_start:]
        for h in self.helpers.values():
            for ln in h.rstrip("\n").split("\n"):
                self.out.append(ln)
                self.line_map.append(None)
            self.out.append("")
            self.line_map.append(None)
        self.out.extend(body)
        self.line_map.extend(body_map)
        return self.text()

    def name_globals(self) -> None:
        """Reserve the target names of every global before any function is emitted."""
        for e in self.prog.enums:
            for m in e.members:
                self.globals.name(f"{e.name}_{m}")
        for s in self.prog.structs:
            self.globals.name(s.name)
        for b in self.k.buffers:
            self.globals.name(b.name)
        for s in self.k.shared:
            self.globals.name(s)
        for s in self.prog.tables:
            self.globals.name(s)
        for f in self.prog.funcs:
            self.globals.name(f.emit_name)
        self.globals.name(self.k.name)

    def header(self) -> None:
        """Hook: the first line(s) of the output (default: a "Generated by pyshade" comment)."""
        self.line(f"{self.comment} Generated by pyshade from {self.file}: kernel "
                  f"{self.k.name!r}, target {self.target}")

    def enum_decl(self, e: T.EnumType) -> None:
        """Hook: declare the members of enum ``e`` (default: nothing)."""

    def struct_decl(self, s: T.StructType) -> None:
        """Hook: declare struct ``s`` (default: nothing)."""

    def table_decl(self, name: str, t: T.ArrayType, values: tuple) -> None:
        """Hook: declare the constant table ``name`` of type ``t`` holding ``values``
        (nested tuples of numbers)."""
        raise NotImplementedError

    def resources(self) -> None:
        """Hook: declare the kernel's buffers, parameter block and shared arrays (default: nothing)."""

    def function(self, f: FuncInfo) -> None:
        """Emit one helper or the kernel: header, prologue, body, footer, then a blank line."""
        self.func = f
        self.names = self.globals.child()
        self.function_header(f)
        self.depth += 1
        self.function_prologue(f)
        self.block(f.tree.body)
        self.depth -= 1
        self.function_footer(f)
        self.line()

    def function_header(self, f: FuncInfo) -> None:
        """Hook: the line(s) opening function ``f`` (default: nothing)."""

    def function_prologue(self, f: FuncInfo) -> None:
        """Hook: statements at the start of ``f``'s body, before its own (default: nothing)."""

    def function_footer(self, f: FuncInfo) -> None:
        """Hook: the line(s) closing function ``f`` (default: nothing)."""

    # -- statements ---------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        """Emit a statement list, after declaring the locals placed at the top of this block."""
        for name in self.func.block_decl.get(id(stmts), []):
            self.declare_default(name)
        for s in stmts:
            self.cur_line = getattr(s, "lineno", self.cur_line)
            self.before_statement(s)
            self.split_deep(s)
            self.visit(s)
            if isinstance(s, (ast.Return, ast.Break, ast.Continue)):
                # What follows in this block never runs (Python allows it; the frontend
                # has checked it). It is not written: DXC wrote SPIR-V with a forward
                # reference to an undefined id for a `mad` there (fuzz seed 4417001
                # kernel 65; HLSL's `fma_fn` says why, and covers a jump DXC finds
                # inside `if (true)`).
                break

    def before_statement(self, stmt: ast.stmt) -> None:
        """Hook: statements a target writes before ``stmt`` (default: none)."""

    def keeps_elif(self, test: ast.expr) -> bool:
        """Hook: False where ``test`` needs statements before it, so that an ``elif`` on it
        must be an ``else`` holding an ``if`` (default: True)."""
        return True

    def generic_visit(self, node: ast.AST) -> None:
        """Raise a TranslationError: this emitter has no ``visit_`` method for the node."""
        raise self.error(node, f"internal: the {self.target} emitter cannot emit "
                               f"{type(node).__name__}")

    def is_inline_decl(self, stmt: ast.stmt, name: str) -> bool:
        """True when ``stmt`` itself declares local ``name`` (not the top of a block)."""
        return name in self.func.inline_decl.get(id(stmt), [])

    def visit_Pass(self, node: ast.Pass) -> None:
        """``pass``: emits nothing."""
        pass

    def visit_Expr(self, node: ast.Expr) -> None:
        """An expression statement (a call); docstrings and ``...`` emit nothing."""
        if getattr(node, "ps_docstring", False):
            return
        self.call_statement(node.value, node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """``x = v``: a declaration where it is ``x``'s inline declaration, else an assignment;
        a shared array's declaration emits nothing here."""
        target = node.targets[0]
        if getattr(node, "ps_shared", False):
            return
        if isinstance(target, ast.Name) and self.is_inline_decl(node, target.id):
            return self.declare(target.id, target.ps_type, node.value, node)
        self.assign(target, node.value, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        """``x: T = v`` as ``visit_Assign``; ``x: T`` alone declares ``x`` if it is declared here."""
        name = node.target.id
        if node.value is None:
            if self.is_inline_decl(node, name):
                self.declare_default(name, node)
            return
        if self.is_inline_decl(node, name):
            return self.declare(name, node.target.ps_type, node.value, node)
        self.assign(node.target, node.value, node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        """``x op= v``: assigns the checker's ``x op v`` (``ps_binop``) to ``x``."""
        self.assign(node.target, node.ps_binop, node)

    def visit_If(self, node: ast.If) -> None:
        """An if/elif/else chain; an else holding only an ``if`` becomes an elif unless it declares
        locals (or its test needs statements before it)."""
        self.begin_if(self.cond(node.test), node)
        self.nested(node.body)
        orelse = node.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ast.If) and \
                not self.func.block_decl.get(id(orelse)) and self.keeps_elif(orelse[0].test):
            elif_ = orelse[0]
            self.begin_elif(self.cond(elif_.test), elif_)
            self.nested(elif_.body)
            orelse = elif_.orelse
        if orelse:
            self.begin_else()
            self.nested(orelse)
        self.end_block()

    def nested(self, stmts: list[ast.stmt]) -> None:
        """Emit a statement list one level deeper (``empty_body`` when it is empty)."""
        self.depth += 1
        self.block(stmts)
        if not stmts:
            self.empty_body()
        self.depth -= 1

    def empty_body(self) -> None:
        """Hook: the content of an empty block (default: nothing)."""

    def visit_While(self, node: ast.While) -> None:
        """A ``while`` loop."""
        self.begin_while(self.cond(node.test), node)
        self.nested(node.body)
        self.end_block()

    def visit_Break(self, node: ast.Break) -> None:
        """A ``break`` statement."""
        self.line(self.stmt_end("break"), node)

    def visit_Continue(self, node: ast.Continue) -> None:
        """A ``continue`` statement."""
        self.line(self.stmt_end("continue"), node)

    def visit_Return(self, node: ast.Return) -> None:
        """A ``return`` statement, with or without a value."""
        if node.value is None:
            self.line(self.stmt_end("return"), node)
        else:
            self.line(self.stmt_end(f"return {self.value(node.value)}"), node)

    # -- statement hooks (per syntax family) --------------------------------------------
    def begin_if(self, cond: str, node: ast.AST) -> None:
        """Hook: open an ``if`` block on ``cond``."""

    def begin_elif(self, cond: str, node: ast.AST) -> None:
        """Hook: close the previous branch and open an ``elif`` branch on ``cond``."""

    def begin_else(self, node: ast.AST | None = None) -> None:
        """Hook: close the previous branch and open the ``else`` branch (of ``node``, when it
        has a line of its own: a match case)."""

    def begin_block(self, node: ast.AST) -> None:
        """Hook: open a block that always runs (a match with nothing to test)."""
        self.begin_if(self.literal(True, T.bool_), node)

    def end_block(self) -> None:
        """Hook: close the current block."""

    def begin_while(self, cond: str, node: ast.AST) -> None:
        """Hook: open a ``while`` loop on ``cond``."""

    def begin_for(self, var: str, t: T.Type, start: str, cond: str, step: str,
                  node: ast.AST) -> None:
        """Hook: open a loop over ``var`` of type ``t`` from ``start`` while ``cond``, adding ``step``."""

    def stmt_end(self, text: str) -> str:
        """Hook: ``text`` as a complete simple statement (default: unchanged)."""
        return text

    def cast(self, text: str, t: T.Type) -> str:
        """A value conversion to ``t`` in the target's syntax."""
        raise NotImplementedError

    def select(self, if_false: str, if_true: str, cond: str) -> str:
        """``if_true if cond else if_false`` (both sides simple and pure)."""
        raise NotImplementedError

    def declare(self, name: str, t: T.Type, value: ast.expr, node: ast.AST) -> None:
        """Hook: declare local ``name`` of type ``t`` initialised with ``value``."""

    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """Hook: declare local ``name`` without an initial value."""

    def declare_temp(self, name: str, t: T.Type, value: str, node: ast.AST) -> None:
        """Hook: declare the temporary ``name`` of type ``t`` with the value text ``value``."""

    def assign(self, target: ast.expr, value: ast.expr, node: ast.AST) -> None:
        """Hook: the statement ``target = value``."""

    def call_statement(self, call: ast.expr, node: ast.AST) -> None:
        """Hook: a call used as a statement."""

    # -- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr) -> str:
        """Text of an expression, dispatched to the ``ex_<NodeType>`` method."""
        done = self.emitted.get(id(node))
        if done is not None:       # a piece of a deep expression, already in a temporary
            return done
        meth = getattr(self, "ex_" + type(node).__name__, None)
        if meth is None:
            raise self.error(node, f"internal: cannot emit {type(node).__name__}")
        return meth(node)

    def value(self, node: ast.expr) -> str:
        """An expression used as a stored value (targets may need a copy)."""
        return self.expr(node)

    def cond(self, node: ast.expr) -> str:
        """An expression used as a condition (if, elif, while)."""
        return self.expr(node)

    def sub(self, node: ast.expr) -> str:
        """An operand: parenthesised unless it is atomic."""
        s = self.expr(node)
        if id(node) in self.emitted:
            return s
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.UnaryOp)):
            return f"({s})"
        if isinstance(node, ast.Constant) and s.startswith("-"):
            return f"({s})"
        return s

    def ex_Name(self, node: ast.Name) -> str:
        """A variable reference."""
        return self.ref(node)

    def ex_Constant(self, node: ast.Constant) -> str:
        """A literal, or the global constant of an enum member."""
        enum_member = getattr(node, "ps_enum", None)
        if enum_member is not None:
            return self.global_name(f"{type(enum_member).__name__}_{enum_member.name}")
        return self.literal(node.value, node.ps_type)

    def literal(self, value: Any, t: T.Type) -> str:
        """Hook: ``value`` as a literal of type ``t`` in the target's syntax."""
        raise NotImplementedError

    def ex_BoolOp(self, node: ast.BoolOp) -> str:
        """``and``/``or`` with the target's operators (``bool_ops``)."""
        op = self.bool_ops[type(node.op)]
        return f" {op} ".join(self.sub(v) for v in node.values)

    def ex_Compare(self, node: ast.Compare) -> str:
        """A single comparison (chains were lowered), through ``compare``."""
        a, b = node.left, node.comparators[0]
        return self.compare(type(node.ops[0]), a, b, node)

    def ex_IfExp(self, node: ast.IfExp) -> str:
        """``x if c else y`` as ``c ? x : y``."""
        return f"{self.sub(node.test)} ? {self.sub(node.body)} : {self.sub(node.orelse)}"

    def ex_Subscript(self, node: ast.Subscript) -> str:
        """``a[i]``."""
        return f"{self.sub(node.value)}[{self.expr(node.slice)}]"

    def ex_Attribute(self, node: ast.Attribute) -> str:
        """``a.name``: a struct field or vector component."""
        return f"{self.sub(node.value)}.{node.attr}"

    def ex_Call(self, node: ast.Call) -> str:
        """A typed call, dispatched on its ``ps_call`` kind to ``call_<kind>``."""
        kind, what = node.ps_call
        return getattr(self, "call_" + kind)(node, what)

    def call_func(self, node: ast.Call, info: FuncInfo) -> str:
        """A helper call: its arguments except buffers and shared arrays, then the ids it uses."""
        args = [self.value(a) for (pname, _), a in zip(info.all_params, node.ps_args)
                if pname not in info.buffer_params]
        args += self.id_args(info)
        return f"{self.globals.name(info.emit_name)}({', '.join(args)})"

    def id_args(self, info: FuncInfo) -> list[str]:
        """Invocation ids are passed to helpers that use them, as hidden arguments."""
        return [self.id_value(i) for i in sorted(info.ids_used)]

    def id_value(self, which: str) -> str:
        """Target name of the invocation id ``which`` (e.g. ``global_id``) in this function."""
        return self.names.name("_ps_" + which)

    def call_builtin(self, node: ast.Call, b: Any) -> str:
        """A builtin call from the builtin's spelling for this target (format string or callable)."""
        spell = self.spelling(b)
        if spell is None:
            raise self.error(node, f"{b.name}() is not available on {self.target}")
        if callable(spell):
            return spell(self, node)
        args = [self.value(a) for a in node.args]
        return spell.format(*args, **self.spell_extras(node, b, args))

    def spelling(self, b: Any) -> Any:
        """``b``'s entry in this target's ``spellings``, else in the first of its ``families``'
        tables that has one: a format string, a ``Method`` (called as ``f(emitter, node)``), or
        None where ``b`` is not available (``spelling_for``)."""
        return self.spelling_for(b.name)

    @classmethod
    def spelling_for(cls, name: str) -> Any:
        """The spelling-table entry of the builtin ``name`` (see ``spelling``); the frontend
        reads it for the ``PRELUDE`` entries of ``math`` functions a target lacks."""
        for table in (cls.spellings, *(FAMILIES[f] for f in cls.families)):
            if name in table:
                return table[name]
        return None

    def spell_extras(self, node: ast.Call, b: Any, args: list[str]) -> dict:
        """Hook: extra named fields for a builtin's format string (default: none)."""
        return {}


class IdNames:
    """``{ids.global_id}`` in a builtin's spelling: the emitter's name for that id."""

    def __init__(self, em: Emitter):
        self.em = em

    def __getattr__(self, which: str) -> str:
        return self.em.id_value(which)
