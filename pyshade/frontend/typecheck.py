"""Type checking of statements, definite assignment, helpers and the kernel.

``check_kernel`` runs the whole frontend for one specialisation and returns
a ``Program``. A ``Checker`` walks one function in source order: the first
assignment of a name fixes its type; a set of definitely-assigned names is
carried through every statement (intersected where control flow joins) so
that a read of a possibly-unassigned variable is an error, as it would be a
NameError/UnboundLocalError in Python. Helpers are checked once per distinct
argument types (monomorphisation); a call back into a function on the call
stack is reported as recursion.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from .. import lang
from .. import types as T
from ..structs import tuple_elems
from . import tuples
from .calls import CallMixin
from .deep import copy_tree, walk
from .exprs import CT, ExprMixin, decay
from .loops import LoopMixin
from .matching import MatchMixin
from .prelude_calls import PreludeMixin
from .program import FuncInfo, KernelInfo, SharedArray
from .scoping import join_assigned, place_declarations
from .source import make_error
from .tables import TableMixin
from .target_view import TargetView

_NO_STMT = {
    ast.Try: "try/except is not supported in kernels (GPUs have no exceptions): check "
             "conditions with if, or use assert (checked on the CPU)",
    ast.With: "with is not supported in kernels: a kernel cannot open files, locks or other "
              "context managers",
    ast.AsyncWith: "async with is not supported in kernels",
    ast.AsyncFor: "async for is not supported in kernels",
    ast.Global: "global is not supported in kernels: pass values as parameters",
    ast.Nonlocal: "nonlocal is not supported in kernels: use a local variable, or pass "
                  "values as parameters",
    ast.FunctionDef: "nested function definitions are not supported in kernels: define the "
                     "helper at module level",
    ast.AsyncFunctionDef: "nested function definitions are not supported in kernels",
    ast.ClassDef: "class definitions are not supported in kernels: define the class at "
                  "module level",
    ast.Delete: "del is not supported in kernels",
    ast.Raise: "raise is not supported in kernels: use assert (checked on the CPU)",
    ast.Import: "import is not supported in kernels: import at module level",
    ast.ImportFrom: "import is not supported in kernels: import at module level",
}
if hasattr(ast, "TryStar"):
    _NO_STMT[ast.TryStar] = "try/except is not supported in kernels"

_UNREACHABLE = None   # the "assigned" state after return/break/continue


class ProgramBuilder:
    """State shared by all the functions of one specialisation."""

    def __init__(self, target: str):
        # Every question about the target goes through the view, which records it (see
        # ``target_view.py``): what lets one Program serve several targets.
        self.view = TargetView(target)
        self.funcs: dict[tuple, FuncInfo] = {}
        self.order: list[FuncInfo] = []
        self.structs: list[T.StructType] = []
        self.enums: list[T.EnumType] = []
        self.stack: list[tuple[Any, ast.AST]] = []
        self.kernel: KernelInfo | None = None
        self.tables: dict[str, tuple] = {}      # constant tables: name -> (type, values)

    def use_type(self, t: Any) -> None:
        """Record the structs (fields' types first) and enums ``t`` needs declared."""
        if isinstance(t, (T.BufferType, T.ArrayType)):
            self.use_type(t.elem)
        elif isinstance(t, T.StructType):
            if t not in self.structs:
                for _, ft in t.fields:
                    self.use_type(ft)
                if t not in self.structs:
                    self.structs.append(t)
        elif isinstance(t, T.EnumType):
            if t not in self.enums:
                self.enums.append(t)

    @property
    def target(self) -> str:
        """The target's name (a recorded question: ``TargetView.name``)."""
        return self.view.name


class Checker(ExprMixin, CallMixin, MatchMixin, LoopMixin, PreludeMixin, TableMixin):
    """Type-check one function (kernel or helper)."""

    def __init__(self, prog: ProgramBuilder, func: FuncInfo, consts: dict[str, Any]):
        self.prog = prog
        self.func = func
        self.src = func.src
        self.view = prog.view
        self.consts = consts
        self.assigned: set[str] | None = set()
        self.loops: list[tuple[list, list]] = []  # per loop: the states at its breaks, continues
        # name -> (loop, "for"/"while", why) of a loop that may not run, after which ``name``
        # is not assigned although its body assigns it (see ``loops.py``)
        self.loop_only: dict[str, tuple[ast.AST, str, str]] = {}
        self.block_path: list[int] = []
        self.occ: dict[str, list[tuple[tuple, ast.stmt, ast.For | None]]] = {}
        self.decl_count: dict[str, int] = {}
        self.stmt: ast.stmt | None = None
        self.for_targets: list[ast.For] = []
        self.is_kernel = func.is_kernel
        self.params = {n: t for n, t in func.params}

    @property
    def target(self) -> str:
        """The target's name (a recorded question: ``TargetView.name``)."""
        return self.view.name

    # -- errors -------------------------------------------------------------------------
    def error(self, node: ast.AST | None, message: str, target: str | None = None) -> None:
        """Raise a TranslationError at ``node``."""
        raise make_error(self.src.filename, node, message, target)

    def use_type(self, t: Any) -> None:
        """Record a type this function uses (``ProgramBuilder.use_type``)."""
        self.prog.use_type(t)

    # -- names ------------------------------------------------------------------------------
    def note(self, name: str) -> None:
        """Record an occurrence of local ``name`` (block, statement, loop) to place its declaration."""
        loop_for = next((f for f in reversed(self.for_targets) if f.target.id == name), None)
        self.occ.setdefault(name, []).append((tuple(self.block_path), self.stmt, loop_for))

    def name_load(self, node: ast.Name) -> ast.expr:
        """Type a name read: a local or parameter (assigned on every path), a Const, or a
        module-level or builtin object."""
        name = node.id
        f = self.func
        if name in f.locals or name in self.params:
            if self.assigned is not None and name not in self.assigned and name not in self.params:
                self.unassigned(node, name)
            node.ps_type = f.locals.get(name) or self.params[name]
            node.ps_ref = ("local", name)
            if name in f.buffer_params:
                node.ps_ref = ("global", f.buffer_params[name])
            elif self.is_kernel and isinstance(node.ps_type, T.BufferType):
                node.ps_ref = ("global", name)
            elif self.is_kernel and self.prog.kernel and name in self.prog.kernel.shared:
                node.ps_ref = ("global", name)
            if node.ps_ref[0] == "local":
                self.note(name)
            return node
        if name in self.consts:
            return self.value_node(node, self.consts[name])
        if name in self.assigned_anywhere:
            self.error(node, f"variable {name!r} is used before it is assigned")
        found, obj = self.src.lookup(name)
        if not found:
            self.error(node, f"unknown name {name!r}: it is not a parameter, a local variable, "
                             "a module-level name or a builtin (a typo, or a missing import?)")
        if obj is lang.target:
            return self.const(node, self.target, CT(str))
        return self.value_node(node, obj)

    def unassigned(self, node: ast.Name, name: str) -> None:
        """The error of a read of ``name`` where it may be unassigned: it names the loop that
        may not run, where one dropped it."""
        if name in self.loop_only:
            loop, kind, why = self.loop_only[name]
            self.error(node, f"variable {name!r} may be used before it is assigned: it is "
                             f"assigned in the {kind} loop on line {loop.lineno}, which {why}; "
                             "assign it before the loop")
        self.error(node, f"variable {name!r} may be used before it is assigned "
                         "(assign it on every path first)")

    def declare(self, node: ast.Name, t: T.Type) -> None:
        """Declare local ``node.id`` of type ``t`` (an abstract literal type defaults to i32/f32)."""
        f = self.func
        if node.id in self.consts:
            self.error(node, f"{node.id!r} is a Const parameter and cannot be assigned")
        if isinstance(t, T.AbstractType):
            t = T.i32 if t.kind == "int" else T.f32
        if isinstance(t, (T.BufferType, CT)) or t is None:
            self.error(node, f"cannot assign a {t} to a variable")
        f.locals[node.id] = t
        self.use_type(t)

    def store_name(self, target: ast.Name, value: ast.expr | None, t: T.Type | None = None) -> None:
        """Assign to a name: its first assignment declares it, a later one must match its type."""
        name = target.id
        f = self.func
        known = f.locals.get(name) or self.params.get(name)
        if known is None:
            self.declare(target, t if t is not None else value.ps_type)
            if value is not None:
                self.coerce(value, f.locals[name], f"variable {name!r}")
        else:
            if isinstance(known, T.BufferType) or name in f.buffer_params:
                self.error(target, f"cannot assign to the Buffer parameter {name!r}")
            if self.prog.kernel and self.is_kernel and name in self.prog.kernel.shared:
                self.error(target, f"cannot assign to the shared array {name!r} as a whole")
            if t is not None and t != known:
                self.error(target, f"variable {name!r} is {known}, annotated here as {t}")
            if value is not None:
                self.coerce(value, known, f"variable {name!r}")
            f.mutated.add(name)
        target.ps_type = f.locals.get(name) or self.params[name]
        target.ps_ref = ("local", name)
        self.decl_count[name] = self.decl_count.get(name, 0) + 1
        if name in self.params and not self.is_kernel and isinstance(
                known, (T.StructType, T.ArrayType)):
            pass
        if self.assigned is not None:
            self.assigned.add(name)
        self.loop_only.pop(name, None)
        self.note(name)

    # -- statements ----------------------------------------------------------------------
    def body(self, stmts: list[ast.stmt]) -> None:
        """Check a statement list, tracking the block path."""
        self.block_path.append(id(stmts))
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.List) and \
                    len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                stmts[i:i + 1] = self.expand_list(s)     # a local array (tables.py)
                s = stmts[i]
            self.statement(s)
            i += 1
        self.block_path.pop()

    def statement(self, node: ast.stmt) -> None:
        """Check one statement, dispatched to ``st_<NodeType>``; unsupported statements are errors."""
        for bad, msg in _NO_STMT.items():
            if isinstance(node, bad):
                self.error(node, msg)
        meth = getattr(self, "st_" + type(node).__name__, None)
        if meth is None:
            self.error(node, f"{type(node).__name__} statements are not supported in kernels")
        prev, self.stmt = self.stmt, node
        meth(node)
        self.stmt = prev

    def st_Pass(self, node: ast.Pass) -> None:
        """``pass``: nothing to check."""
        pass

    def st_Expr(self, node: ast.Expr) -> None:
        """An expression statement: docstrings and ``...`` are skipped, anything else must be a call."""
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            node.ps_docstring = True
            return
        if isinstance(node.value, ast.Constant) and node.value.value is Ellipsis:
            node.ps_docstring = True
            return
        if not isinstance(node.value, ast.Call):
            self.tx(node.value)   # unsupported syntax (yield, await...) is reported first
            self.error(node, "this expression statement has no effect: assign its value to "
                             "a variable or remove it")
        node.value = self.tx(node.value)

    def st_Assign(self, node: ast.Assign) -> None:
        """``target = value``; ``ps.array``/``ps.shared_array`` go to ``local_array``."""
        target = node.targets[0]
        at = getattr(node.value, "ps_list_type", None)
        if at is not None:      # w = [a, b, c], expanded by ``expand_list``
            node.value.ps_type = at
            node.value.ps_call = ("array", at)
            if target.id in self.func.locals:
                self.error(node, f"{target.id!r} is already declared: arrays cannot be "
                                 "reassigned")
            return self.store_name(target, None, at)
        if isinstance(node.value, ast.Call):
            obj = self.static_callee(node.value)
            if obj in (T.array, T.shared_array):
                return self.local_array(node, target, obj is T.shared_array)
        node.value = self.tx(node.value)
        if isinstance(node.value.ps_type, CT) or node.value.ps_type is None:
            self.error(node.value, "this value cannot be assigned to a variable")
        if getattr(node, "ps_unpack", 0):
            tuples.check_unpack(self, node.value, node.ps_unpack)
        elif tuple_elems(node.value.ps_type) is not None:
            tuples.not_unpacked(self, node.value, node.value.ps_type)
        self.store(target, node.value)

    def st_AnnAssign(self, node: ast.AnnAssign) -> None:
        """``x: T`` declares ``x``; ``x: T = v`` assigns with the annotated type."""
        if not isinstance(node.target, ast.Name):
            self.error(node, "annotations are only allowed on simple names")
        t = self.eval_type(node.annotation)
        if node.value is None:
            name = node.target.id
            if name in self.func.locals and self.func.locals[name] != t:
                self.error(node, f"variable {name!r} is already {self.func.locals[name]}")
            self.declare(node.target, t)
            node.target.ps_type = t
            node.target.ps_ref = ("local", name)
            self.note(name)
            return
        node.value = self.tx(node.value)
        if tuple_elems(t) is not None or tuple_elems(node.value.ps_type) is not None:
            tuples.not_unpacked(self, node.value, node.value.ps_type)
        self.store_name(node.target, node.value, t)   # coerces to t, naming the variable

    def st_AugAssign(self, node: ast.AugAssign) -> None:
        """``target op= value``: typed as ``target op value`` (kept as ``ps_binop``), then stored."""
        written = ast.unparse(node.target), ast.unparse(ast.BinOp(node.target, node.op, node.value))
        load = copy_tree(node.target)
        for n in walk(load):
            if hasattr(n, "ctx"):
                n.ctx = ast.Load()
        binop = ast.copy_location(ast.BinOp(load, node.op, node.value), node)
        binop = self.tx(binop)
        if isinstance(binop, ast.Constant):
            self.error(node, "augmented assignment to a constant")
        # a routed operator is a prelude call that keeps its two sides
        left, right = getattr(binop, "ps_operands", None) or (binop.left, binop.right)
        promoted = getattr(left, "ps_promoted", None)
        if promoted is not None:    # an integer target next to a float: Python's x becomes a float
            self.int_target_of_float(node, *written, promoted.ps_type, binop.ps_type)
        tt = left.ps_type
        if decay(binop.ps_type) != decay(tt):
            self.mismatch(node.value, tt, binop.ps_type, "augmented assignment")
        node.value = right
        node.ps_binop = binop
        self.store(node.target, None, already=left)

    def store(self, target: ast.expr, value: ast.expr | None, already: ast.expr | None = None) -> None:
        """Check an assignment target: a name, or an element, field or component of a variable or
        a global (marked written)."""
        if isinstance(target, ast.Name):
            if value is None:
                t = self.func.locals.get(target.id) or self.params.get(target.id)
                if t is None:
                    self.error(target, f"variable {target.id!r} is used before it is assigned")
                self.name_load(ast.copy_location(ast.Name(target.id, ast.Load()), target))
                target.ps_type = t
                target.ps_ref = ("local", target.id)
                self.func.mutated.add(target.id)
                self.note(target.id)
                return
            return self.store_name(target, value)
        if not isinstance(target, (ast.Subscript, ast.Attribute)):
            self.error(target, "cannot assign to this expression")
        typed = already if already is not None else self.tx(_as_load(target))
        # Copy the typing of the load onto the store target's nodes.
        _copy_types(typed, target)
        if isinstance(target, ast.Attribute) and isinstance(target.value.ps_type, T.VectorType) \
                and len(target.attr) > 1:
            self.error(target, "assignment to a multi-component swizzle is not supported: "
                               "assign the components one by one")
        root = target
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if not isinstance(root, ast.Name):
            self.error(target, "cannot assign through this expression")
        ref = getattr(root, "ps_ref", ("local", root.id))
        if ref[0] == "table":
            self.error(target, f"{root.id!r} is a constant table (a module-level tuple or "
                               "list): it cannot be assigned in a kernel; copy it into a "
                               "local array first")
        if ref[0] == "global":
            self.mark_written(ref[1])
            self.func.pure = False
        else:
            if root.id in self.params and not self.is_kernel and isinstance(
                    self.params[root.id], (T.StructType, T.ArrayType)):
                self.error(target, f"a helper cannot modify its argument {root.id!r} (structs "
                                   "and arrays are passed by value on GPUs): return a new value")
            self.func.mutated.add(root.id)
        if value is not None:
            self.coerce(value, target.ps_type, "the assignment")

    def mark_written(self, global_name: str, atomic: bool = False) -> None:
        """Mark the buffer ``global_name`` written; with ``atomic``, the buffer or shared array
        atomic."""
        k = self.prog.kernel
        for b in k.buffers:
            if b.name == global_name:
                b.written = True
                b.atomic = b.atomic or atomic
        if global_name in k.shared:
            k.shared[global_name].atomic = k.shared[global_name].atomic or atomic

    def local_array(self, node: ast.Assign, target: ast.expr, shared: bool) -> None:
        """``x = ps.array(T, N)`` or ``ps.shared_array(T, N)``: a local or workgroup array."""
        call = node.value
        if not isinstance(target, ast.Name):
            self.error(node, "assign ps.array(...) to a plain variable")
        if len(call.args) != 2 or call.keywords:
            self.error(call, "ps.array(T, N) takes a type and a constant length")
        et = self.eval_type(call.args[0])
        dims = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
        if not dims or len(dims) > 3:
            self.error(call.args[1], "an array shape has 1 to 3 sizes, as (16, 16)")
        sizes = [self.array_length(d, shared) for d in dims]
        at = et
        for n in reversed(sizes):       # (rows, cols): an array of rows
            at = T.ArrayType(at, n, shared)
        call.ps_type = at
        call.ps_call = ("array", at)
        if shared:
            if not self.is_kernel or len(self.block_path) != 1:
                self.error(node, "ps.shared_array(...) must be declared at the top level of "
                                 "the kernel body")
            if target.id in self.prog.kernel.shared or target.id in self.func.locals:
                self.error(node, f"{target.id!r} is already declared")
            self.prog.kernel.shared[target.id] = SharedArray(target.id, at)
            self.use_type(at)
            node.ps_shared = True
            target.ps_ref = ("global", target.id)
            target.ps_type = at
            self.func.locals[target.id] = at
            if self.assigned is not None:
                self.assigned.add(target.id)
            return
        if target.id in self.func.locals:
            self.error(node, f"{target.id!r} is already declared: arrays cannot be reassigned")
        self.store_name(target, None, at)

    def array_length(self, node: ast.expr, shared: bool) -> int:
        """The length of ``ps.array(T, N)``: a compile-time integer of at least 1 (a literal,
        a module constant, a ``Const`` parameter or arithmetic of them, folded by ``tx``);
        a run-time value is an error that names it and says how to make it a constant."""
        what = f"ps.{'shared_array' if shared else 'array'}(T, N)"
        n = self.tx(node)
        if not isinstance(n, ast.Constant):
            self.error(node, f"the length of {what} must be a compile-time constant, but "
                             f"{_runtime_part(n, self.params)} is only known at run time: make "
                             "it a ps.Const[int] parameter or a module-level constant (or "
                             "arithmetic of them)")
        v = n.value
        if isinstance(v, bool) or not isinstance(v, int):
            self.error(node, f"the length of {what} must be an integer, got {v!r}")
        if v < 1:
            text = self.literal_text(node, v)
            self.error(node, f"the length of {what} must be at least 1, got {v}"
                             + (f" ({text})" if text != str(v) else ""))
        return v

    def st_If(self, node: ast.If) -> None:
        """``if``: a bool test; assigned names are joined over both branches."""
        node.test = self.tx(node.test)
        if node.test.ps_type != T.bool_:
            self.error(node.test, f"a condition must be bool, got {node.test.ps_type}: compare "
                                  "explicitly (x != 0)")
        before = self.copy_state()
        self.body(node.body)
        after_body = self.assigned
        self.assigned = before
        self.body(node.orelse)
        self.assigned = join_assigned(after_body, self.assigned)

    def st_Return(self, node: ast.Return) -> None:
        """``return``: no value in a kernel; a helper's first value fixes an undeclared return type."""
        f = self.func
        if node.value is None:
            if f.ret is not None and not self.is_kernel:
                self.error(node, f"this function returns {f.ret}: 'return' needs a value")
        else:
            if self.is_kernel:
                self.error(node, "a kernel cannot return a value: write results to a Buffer")
            if isinstance(node.value, ast.Tuple):
                tuples.return_tuple(self, node)
                self.assigned = _UNREACHABLE
                return
            node.value = self.tx(node.value)
            if f.ret is None and not getattr(f, "ret_declared", False):
                f.ret = self.default(node.value).ps_type
                self.use_type(f.ret)
            tuples.check_return(self, node)
            self.coerce(node.value, f.ret, "the return value")
        self.assigned = _UNREACHABLE

    def st_Assert(self, node: ast.Assert) -> None:
        """``assert``: a bool test and an optional string literal message."""
        node.test = self.tx(node.test)
        if node.test.ps_type != T.bool_:
            self.error(node.test, f"assert needs a bool, got {node.test.ps_type}")
        if node.msg is not None and not (isinstance(node.msg, ast.Constant)
                                         and isinstance(node.msg.value, str)):
            self.error(node.msg, "an assert message must be a string literal")

    def copy_state(self) -> set[str] | None:
        """A copy of the set of definitely assigned names (None where unreachable)."""
        return None if self.assigned is None else set(self.assigned)

    # -- compile-time evaluation --------------------------------------------------------------
    def static_callee(self, call: ast.Call) -> Any:
        """The object a call's function expression names, if it is compile-time."""
        node = call.func
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.func.locals or node.id in self.params:
            return None
        if node.id in self.consts:
            obj = self.consts[node.id]
        else:
            found, obj = self.src.lookup(node.id)
            if not found:
                return None
        for p in reversed(parts):
            obj = getattr(obj, p, None)
        return obj

    def eval_type(self, node: ast.expr) -> T.Type:
        """Evaluate an annotation in the function's namespace and resolve it to a Type."""
        ns = dict(self.src.globals)
        ns.update(self.src.closure)
        ns.update(self.consts)
        try:
            obj = eval(compile(ast.Expression(_as_load(copy_tree(node))), self.src.filename,
                               "eval"), ns)  # noqa: S307 - the user's own annotation
        except Exception as e:  # noqa: BLE001 - any failure is the annotation's
            self.error(node, f"cannot evaluate the annotation {ast.unparse(node)}: {e}")
        try:
            t = T.resolve_type(obj, self.prog.typevars)
        except T.TypeResolutionError as e:
            self.error(node, str(e))
        self.use_type(t)
        return t

    @property
    def assigned_anywhere(self) -> set[str]:
        """Every name assigned somewhere in the function (cached)."""
        if not hasattr(self, "_assigned_anywhere"):
            self._assigned_anywhere = {n.id for n in walk(self.func.tree)
                                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        return self._assigned_anywhere

    # -- whole function -------------------------------------------------------------------------
    def run(self) -> None:
        """Check the body, that a helper returning a value cannot reach its end, then place the
        declarations."""
        tree = self.func.tree
        self.body(tree.body)
        f = self.func
        if f.ret is not None and self.assigned is not None and not f.is_kernel:
            self.error(tree, f"function {f.name!r} may end without returning a {f.ret}")
        self.place_declarations()

    def place_declarations(self) -> None:
        """Where each local is declared: see FuncInfo.inline_decl / block_decl."""
        place_declarations(self.func, self.occ, self.params)


def _runtime_part(node: ast.expr, params: dict) -> str:
    """What makes the typed expression ``node`` a run-time value, for a message: the first
    parameter, local variable or call in it (else the whole expression)."""
    for n in walk(node):
        ref = getattr(n, "ps_ref", None)
        if isinstance(n, ast.Name) and ref is not None and ref[0] == "local":
            kind = "the parameter" if n.id in params else "the local variable"
            return f"{kind} {n.id!r}"
        if isinstance(n, ast.Call):
            return ast.unparse(n)
    return ast.unparse(node)


def _as_load(node: ast.expr) -> ast.expr:
    node = copy.copy(node)
    for n in walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return node


def _copy_types(src: ast.AST, dst: ast.AST) -> None:
    """Give a store target the typing of its load copy ``src``: its own ps_*
    annotations, and the typed subtrees (constants in them may have been folded)."""
    for k, v in vars(src).items():
        if k.startswith("ps_"):
            setattr(dst, k, v)
    if isinstance(dst, ast.Subscript):
        dst.slice = src.slice
    dst.value = src.value
