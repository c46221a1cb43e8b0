"""Shared emission: statement lowering, expression dispatch, names, helpers.

``Emitter`` walks a typed ``Program`` (see ``pyshade.frontend.program``) and
writes text. It owns everything that is the same in every target: the order
of the output (enums, structs, resources, helpers, functions, kernel), where
locals are declared, how ``match`` becomes an if-chain, how augmented
assignment and loops over ``range`` are lowered, and the ``// file.py:LINE``
comment on every statement. Subclasses provide the syntax through small hooks
and tables; ``CLikeEmitter`` is the brace-language base of WGSL, GLSL, HLSL,
MSL and CUDA.
"""

from __future__ import annotations

import ast
import os
from typing import Any

from .. import types as T
from ..errors import TranslationError
from ..frontend.program import FuncInfo, Program
from ..frontend.source import make_error
from .names import Namer


class Emitter(ast.NodeVisitor):
    """Base of every emitter. ``emit()`` returns the whole source text."""

    target = "?"
    comment = "//"

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

    # -- errors -----------------------------------------------------------------------
    def error(self, node: ast.AST, message: str) -> TranslationError:
        return make_error(self.prog.filename, node, message, self.target)

    # -- output -------------------------------------------------------------------------
    def line(self, text: str = "", node: ast.AST | None = None) -> None:
        """Append one output line; statements get the Python line as a comment."""
        lineno = getattr(node, "lineno", None) if node is not None else None
        pad = "    " * self.depth
        if lineno and text:
            text = f"{text}  {self.comment} {self.file}:{lineno}"
        self.out.append(pad + text if text else "")
        self.line_map.append(lineno or self.cur_line)

    def text(self) -> str:
        return "\n".join(self.out).rstrip() + "\n"

    def helper(self, key: str, make: Any) -> str:
        """Name of a generated helper function, created once by ``make(name)``."""
        name = self.globals.name("_ps_" + key)
        if name not in self.helpers:
            self.helpers[name] = ""          # reserve the slot (helpers may nest)
            self.helpers[name] = make(name)
        return name

    # -- names --------------------------------------------------------------------------
    def local(self, name: str) -> str:
        return self.names.name(name)

    def ref(self, node: ast.AST) -> str:
        kind, name = getattr(node, "ps_ref", ("local", node.id))
        if kind == "global":
            return self.global_name(name)
        return self.local(name)

    def global_name(self, name: str) -> str:
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
        self.name_globals()
        self.header()
        for e in self.prog.enums:
            self.enum_decl(e)
        for s in self.prog.structs:
            self.struct_decl(s)
        self.resources()
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
        for e in self.prog.enums:
            for m in e.members:
                self.globals.name(f"{e.name}_{m}")
        for s in self.prog.structs:
            self.globals.name(s.name)
        for b in self.k.buffers:
            self.globals.name(b.name)
        for s in self.k.shared:
            self.globals.name(s)
        for f in self.prog.funcs:
            self.globals.name(f.emit_name)
        self.globals.name(self.k.name)

    def header(self) -> None:
        self.line(f"{self.comment} Generated by pyshade from {self.file}: kernel "
                  f"{self.k.name!r}, target {self.target}")

    def enum_decl(self, e: T.EnumType) -> None: ...
    def struct_decl(self, s: T.StructType) -> None: ...
    def resources(self) -> None: ...

    def function(self, f: FuncInfo) -> None:
        self.func = f
        self.names = self.globals.child()
        self.function_header(f)
        self.depth += 1
        self.function_prologue(f)
        self.block(f.tree.body)
        self.depth -= 1
        self.function_footer(f)
        self.line()

    def function_header(self, f: FuncInfo) -> None: ...
    def function_prologue(self, f: FuncInfo) -> None: ...
    def function_footer(self, f: FuncInfo) -> None: ...

    # -- statements ---------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        for name in self.func.block_decl.get(id(stmts), []):
            self.declare_default(name)
        for s in stmts:
            self.cur_line = getattr(s, "lineno", self.cur_line)
            self.visit(s)

    def generic_visit(self, node: ast.AST) -> None:
        raise self.error(node, f"internal: the {self.target} emitter cannot emit "
                               f"{type(node).__name__}")

    def is_inline_decl(self, stmt: ast.stmt, name: str) -> bool:
        return name in self.func.inline_decl.get(id(stmt), [])

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Expr(self, node: ast.Expr) -> None:
        if getattr(node, "ps_docstring", False):
            return
        self.call_statement(node.value, node)

    def visit_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        if getattr(node, "ps_shared", False):
            return
        if isinstance(target, ast.Name) and self.is_inline_decl(node, target.id):
            return self.declare(target.id, target.ps_type, node.value, node)
        self.assign(target, node.value, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        name = node.target.id
        if node.value is None:
            if self.is_inline_decl(node, name):
                self.declare_default(name, node)
            return
        if self.is_inline_decl(node, name):
            return self.declare(name, node.target.ps_type, node.value, node)
        self.assign(node.target, node.value, node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.assign(node.target, node.ps_binop, node)

    def visit_If(self, node: ast.If) -> None:
        self.begin_if(self.cond(node.test), node)
        self.nested(node.body)
        orelse = node.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ast.If) and \
                not self.func.block_decl.get(id(orelse)):
            elif_ = orelse[0]
            self.begin_elif(self.cond(elif_.test), elif_)
            self.nested(elif_.body)
            orelse = elif_.orelse
        if orelse:
            self.begin_else()
            self.nested(orelse)
        self.end_block()

    def nested(self, stmts: list[ast.stmt]) -> None:
        self.depth += 1
        self.block(stmts)
        if not stmts:
            self.empty_body()
        self.depth -= 1

    def empty_body(self) -> None: ...

    def visit_While(self, node: ast.While) -> None:
        self.begin_while(self.cond(node.test), node)
        self.nested(node.body)
        self.end_block()

    def visit_Break(self, node: ast.Break) -> None:
        self.line(self.stmt_end("break"), node)

    def visit_Continue(self, node: ast.Continue) -> None:
        self.line(self.stmt_end("continue"), node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is None:
            self.line(self.stmt_end("return"), node)
        else:
            self.line(self.stmt_end(f"return {self.value(node.value)}"), node)

    def visit_Match(self, node: ast.Match) -> None:
        # Every target gets an if-chain: a C `switch` would turn a `break` inside a case
        # into a break out of the switch, not out of the enclosing loop as in Python.
        subj = node.subject
        if isinstance(subj, (ast.Name, ast.Constant)) or (
                isinstance(subj, ast.Attribute) and isinstance(subj.value, ast.Name)):
            s = self.expr(subj)
        else:
            s = self.names.fresh("subject")
            self.declare_temp(s, subj.ps_type, self.expr(subj), node)
        first = True
        for case in node.cases:
            values = getattr(case, "ps_values", None)
            if values is None:
                if first:   # only `case _:`
                    self.begin_if(self.literal(True, T.bool_), case)
                else:
                    self.begin_else()
            else:
                test = f" {self.bool_ops[ast.Or]} ".join(
                    self.compare_eq(s, self.expr(v)) for v in values) \
                    if len(values) > 1 else self.compare_eq(s, self.expr(values[0]))
                (self.begin_if if first else self.begin_elif)(test, case.pattern)
            self.nested(case.body)
            first = False
        if not first:
            self.end_block()

    def compare_eq(self, a: str, b: str) -> str:
        return f"{a} == {b}"

    def visit_Assert(self, node: ast.Assert) -> None:
        self.line(f"{self.comment} assert {ast.unparse(node.test)}  (checked on the CPU device)",
                  node)

    def visit_For(self, node: ast.For) -> None:
        args = node.iter.args
        t = node.iter.ps_type
        start_node = args[0] if len(args) > 1 else None
        stop = args[0] if len(args) == 1 else args[1]
        step = args[2] if len(args) == 3 else None
        name = node.target.id
        if step is not None and not (isinstance(step, ast.Constant) and abs(step.value) == 1):
            return self.counted_for(node, t, start_node, stop, step)
        direct = name in self.func.direct_loop_vars
        start = self.value(start_node) if start_node is not None else self.literal(0, t)
        # range() is evaluated once in Python: hoist bounds that could change.
        stop_s = self.hoist(stop, "end", node)
        step_s = self.literal(1, t) if step is None else self.expr(step)
        var = self.local(name) if direct else self.names.fresh(name)
        # With a step of +-1, `i < stop` (`i > stop`) keeps i + step inside the type.
        up = step is None or step.value > 0
        cond = f"{var} < {stop_s}" if up else f"{var} > {stop_s}"
        self.begin_for(var, t, start, cond, step_s, node)
        self.depth += 1
        if not direct:
            self.line(self.stmt_end(f"{self.local(name)} = {var}"), node)
        self.block(node.body)
        self.depth -= 1
        self.end_block()

    def counted_for(self, node: ast.For, t: T.Type, start_node: ast.expr | None,
                    stop: ast.expr, step: ast.expr) -> None:
        """range() with |step| > 1 or a runtime step: iterate over the count of values,
        as Python's range does, since ``i += step`` could wrap past the type's limit."""
        name = node.target.id
        ut = T.u32 if t.bits == 32 else T.u64
        u = (lambda s: s) if t == ut else (lambda s: self.cast(s, ut))
        zero, one = self.literal(0, ut), self.literal(1, ut)
        start = self.hoist(start_node, "start", node) if start_node is not None \
            else self.literal(0, t)
        stop_s = self.hoist(stop, "end", node)
        step_s = self.hoist(step, "step", node)
        up = self.select(zero, f"{u(stop_s)} - {u(start)}", f"{stop_s} > {start}")
        down = self.select(zero, f"{u(start)} - {u(stop_s)}", f"{start} > {stop_s}")
        if isinstance(step, ast.Constant):
            diff = up if step.value > 0 else down
            mag = self.literal(abs(step.value), ut)
        else:
            neg = f"{step_s} < {self.literal(0, t)}"
            diff = self.select(up, down, neg)
            mag = self.names.fresh("stride")
            self.declare_temp(mag, ut, self.select(u(step_s), f"{zero} - {u(step_s)}", neg), node)
        span = self.names.fresh("span")
        self.declare_temp(span, ut, diff, node)
        count = self.names.fresh("count")
        self.declare_temp(count, ut, f"{span} / {mag} + "
                          f"{self.select(zero, one, f'{span} % {mag} != {zero}')}", node)
        if name in self.func.direct_loop_vars:
            self.declare_default(name, node)
        c = self.names.fresh(name)
        self.begin_for(c, ut, zero, f"{c} < {count}", one, node)
        self.depth += 1
        cv = c if t == ut else self.cast(c, t)
        self.line(self.stmt_end(f"{self.local(name)} = {start} + {cv} * {step_s}"), node)
        self.block(node.body)
        self.depth -= 1
        self.end_block()

    def hoist(self, node: ast.expr, hint: str, stmt: ast.stmt) -> str:
        if isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and
                                              node.id not in self.func.mutated):
            return self.sub(node)
        name = self.names.fresh(hint)
        self.declare_temp(name, node.ps_type, self.value(node), stmt)
        return name

    # -- statement hooks (per syntax family) --------------------------------------------
    def begin_if(self, cond: str, node: ast.AST) -> None: ...
    def begin_elif(self, cond: str, node: ast.AST) -> None: ...
    def begin_else(self) -> None: ...
    def end_block(self) -> None: ...
    def begin_while(self, cond: str, node: ast.AST) -> None: ...
    def begin_for(self, var: str, t: T.Type, start: str, cond: str, step: str,
                  node: ast.AST) -> None: ...
    def stmt_end(self, text: str) -> str:
        return text

    def cast(self, text: str, t: T.Type) -> str:
        """A value conversion to ``t`` in the target's syntax."""
        raise NotImplementedError

    def select(self, if_false: str, if_true: str, cond: str) -> str:
        """``if_true if cond else if_false`` (both sides simple and pure)."""
        raise NotImplementedError

    def declare(self, name: str, t: T.Type, value: ast.expr, node: ast.AST) -> None: ...
    def declare_default(self, name: str, node: ast.AST | None = None) -> None: ...
    def declare_temp(self, name: str, t: T.Type, value: str, node: ast.AST) -> None: ...
    def assign(self, target: ast.expr, value: ast.expr, node: ast.AST) -> None: ...
    def call_statement(self, call: ast.expr, node: ast.AST) -> None: ...

    # -- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr) -> str:
        meth = getattr(self, "ex_" + type(node).__name__, None)
        if meth is None:
            raise self.error(node, f"internal: cannot emit {type(node).__name__}")
        return meth(node)

    def value(self, node: ast.expr) -> str:
        """An expression used as a stored value (targets may need a copy)."""
        return self.expr(node)

    def cond(self, node: ast.expr) -> str:
        return self.expr(node)

    def sub(self, node: ast.expr) -> str:
        """An operand: parenthesised unless it is atomic."""
        s = self.expr(node)
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.UnaryOp)):
            return f"({s})"
        if isinstance(node, ast.Constant) and s.startswith("-"):
            return f"({s})"
        return s

    def ex_Name(self, node: ast.Name) -> str:
        return self.ref(node)

    def ex_Constant(self, node: ast.Constant) -> str:
        enum_member = getattr(node, "ps_enum", None)
        if enum_member is not None:
            return self.global_name(f"{type(enum_member).__name__}_{enum_member.name}")
        return self.literal(node.value, node.ps_type)

    def literal(self, value: Any, t: T.Type) -> str:
        raise NotImplementedError

    def ex_BoolOp(self, node: ast.BoolOp) -> str:
        op = self.bool_ops[type(node.op)]
        return f" {op} ".join(self.sub(v) for v in node.values)

    def ex_Compare(self, node: ast.Compare) -> str:
        a, b = node.left, node.comparators[0]
        return self.compare(type(node.ops[0]), a, b, node)

    def ex_IfExp(self, node: ast.IfExp) -> str:
        return f"{self.sub(node.test)} ? {self.sub(node.body)} : {self.sub(node.orelse)}"

    def ex_Subscript(self, node: ast.Subscript) -> str:
        return f"{self.sub(node.value)}[{self.expr(node.slice)}]"

    def ex_Attribute(self, node: ast.Attribute) -> str:
        return f"{self.sub(node.value)}.{node.attr}"

    def ex_Call(self, node: ast.Call) -> str:
        kind, what = node.ps_call
        return getattr(self, "call_" + kind)(node, what)

    def call_func(self, node: ast.Call, info: FuncInfo) -> str:
        args = [self.value(a) for (pname, _), a in zip(info.all_params, node.ps_args)
                if pname not in info.buffer_params]
        args += self.id_args(info)
        return f"{self.globals.name(info.emit_name)}({', '.join(args)})"

    def id_args(self, info: FuncInfo) -> list[str]:
        """Invocation ids are passed to helpers that use them, as hidden arguments."""
        return [self.id_value(i) for i in sorted(info.ids_used)]

    def id_value(self, which: str) -> str:
        return self.names.name("_ps_" + which)

    def call_builtin(self, node: ast.Call, b: Any) -> str:
        spell = b.spell.get(self.target)
        if spell is None:
            raise self.error(node, f"{b.name}() is not available on {self.target}")
        if callable(spell):
            return spell(self, node)
        args = [self.value(a) for a in node.args]
        return spell.format(*args, **self.spell_extras(node, b, args))

    def spell_extras(self, node: ast.Call, b: Any, args: list[str]) -> dict:
        return {}
