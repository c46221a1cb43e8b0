"""HLSL emitter: Shader Model 6 compute shaders for DXC, to SPIR-V (Vulkan) and DXIL (D3D12).

Design notes:
- Mostly tables (``hlsl_tables``) over the shared brace-language code of
  ``clike.py``; statement lowering stays in ``base.py``, Python's semantics in
  the prelude. Builtins are spelled by the ``clike`` family's table in
  ``spellings/`` and ``spellings/hlsl.py`` only where HLSL differs (``lerp``,
  ``mad``, the ``Interlocked`` atomics...). What HLSL can only say as statements
  (atomics, struct values) or what DXC gets wrong (``round``, ``mad`` in dead
  code, 64-bit bit operations) are generated functions (``hlsl_helpers``), so
  every use stays an expression.
- The language is HLSL 2021 (``-HV 2021``): there ``&&``, ``||`` and ``?:``
  short-circuit on scalars as Python's ``and``/``or``/``if else`` do (HLSL 2018
  evaluates both sides). DXC 1.7's SPIR-V does not keep that: where the later
  operand matters, ``lazy.py`` writes the node as statements. Shader model 6.0,
  6.2 where 16-bit types are used (``float16_t`` needs ``-enable-16bit-types``);
  ``toolchains/dxc.py`` picks both.
- Resources (``hlsl_tables.registers``): ``Buffer`` i is a ``StructuredBuffer``
  (read only) or ``RWStructuredBuffer`` at ``[[vk::binding(i, 0)]]`` and the
  D3D12 register of its class; the parameter block is
  ``[[vk::push_constant]] ConstantBuffer`` when it fits 128 bytes, else a
  ``StructuredBuffer`` at binding ``len(buffers)``, as ``runtime/vulkan.py``
  binds GLSL. ``globallycoherent`` where the kernel has a barrier (GLSL's
  ``coherent``). ``len(buf)`` reads the hidden length member (``GetDimensions``
  would count the padding the runtime binds: buffers are at least 16 bytes);
  ``num_groups()`` a hidden member the device fills at each dispatch (HLSL has
  no semantic for it).
- Layout: every struct (the parameter block too) gets explicit padding members, so
  that each field sits at its canonical offset (``types.StructType.offsets``,
  ``kernel.param_layout``) under DXC's Vulkan rules (std430 for structured
  buffers and push constants) and under D3D's packed structured-buffer rules
  alike. Where D3D packs differently whatever the padding (arrays of vec3 and mat3
  in structured buffers, arrays with a stride under 16 in a constant buffer), the
  d3d12 device refuses the kernel (``runtime/d3d12.py``).
- Matrices: pyshade's column-major ``matN`` is an HLSL ``floatNxN`` whose rows are
  the columns, stored ``row_major`` (``#pragma pack_matrix``), so memory matches
  every other target and ``m[i]`` is column i; ``m @ v`` is ``mul(v, m)``,
  ``a @ b`` is ``mul(b, a)``.
- ``bool`` is stored as ``uint`` in buffers, parameters and struct fields; locals
  are zero-initialised (``(T)0``), as GLSL's are.
- ``#line N "file.py"`` precedes every statement whose Python line differs from
  the line DXC would count, so DXC's errors name the Python file and line.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from ..frontend.deep import walk
from ..frontend.program import FuncInfo
from .base import CMP_SYMBOLS
from .clike import BINOPS, CLikeEmitter, elem_type
from .features import DeviceChecks
from .hlsl_helpers import HlslHelpers
from .hlsl_tables import BITCASTS, F64_TO_INT_VIA, IDS, LITERAL_SUFFIX, registers
from .lazy import LazyLogic
from .precise import PreciseFloats
from .spellings.hlsl import SPELLINGS

PUSH_CONSTANT_LIMIT = 128          # bytes: maxPushConstantsSize is at least this everywhere


def _has_matrix(t: Any) -> bool:
    """True when ``t`` is or contains a matrix."""
    if isinstance(t, T.MatrixType):
        return True
    if isinstance(t, (T.ArrayType, T.BufferType)):
        return _has_matrix(t.elem)
    if isinstance(t, T.StructType):
        return any(_has_matrix(ft) for _, ft in t.fields)
    return False


class HlslEmitter(LazyLogic, PreciseFloats, DeviceChecks, HlslHelpers, CLikeEmitter):
    """Writes a Program as an HLSL (Shader Model 6) compute shader."""

    target = "hlsl"
    spellings = SPELLINGS
    explicit_lengths = True
    groups_in_block = True
    line_directives = True
    # Float arithmetic that flows into a precise variable, buffer or function result is
    # NoContraction in DXC's SPIR-V (``precise.py``); D3D12's DXIL carries the same text.
    PRECISE = "precise "
    # DXC's SPIR-V evaluates both sides of && || ?: (lazy.py writes them as statements)
    eager_logic = True
    # barrier(): device and group memory, then the workgroup's execution (GLSL's three);
    # group memory only where no buffer needs it (frontend/barrier_scope.py).
    BARRIER = ("AllMemoryBarrierWithGroupSync()",)
    BARRIER_SHARED = ("GroupMemoryBarrierWithGroupSync()",)
    # The scalar names are clike's; arrays are T[N] as C writes them, and a declaration
    # puts the sizes after the name (float a[4]).
    SIZES_AFTER_NAME = True
    FLOAT_NE = "!({a} == {b})"
    # DXC took bool(uint(x)) of a uint x as x itself: uint(bool(uint(len))) gave len
    # (fuzz seed 20261204 kernel 100; bench/probes/dxc_bool_cast_probe.py)
    INT_TO_BOOL_NE = True
    LITERAL_SUFFIX = LITERAL_SUFFIX
    # inf and NaN: no literal; an f32's bits (converted to f16), an f64's two words.
    SPECIAL_FLOAT = {"f32": "asfloat({f32:#010x}u)", "f16": "float16_t(asfloat({f32:#010x}u))",
                     "f64": "asdouble({lo:#010x}u, {hi:#010x}u)"}
    # -0.0 too: HLSL has no negative literal, and DXC at -O0 (the exact SPIR-V) writes
    # -0.0f as OpFNegate of 0.0, which lavapipe turns into a product with +0.0 that its
    # gallivm short-cuts to +0.0 before negating: x * -0.0 came out -0.0 for x < 0 (fuzz
    # seed 4808303094374983443 kernel 89; bench/probes/lavapipe_signed_zero_probe.py).
    # A constant made from bits reaches the driver as the constant -0.0, as GLSL's does.
    NEG_ZERO_FROM_BITS = True
    ENUM_CONST = "static const {type} {name} = {value};"
    TABLE_CONST = "static const {decl} = {init};"
    BROADCAST = "({type})({value})"     # float3(s) wants three components
    # f32 Interlocked* need Shader Model 6.6 (and no SPIR-V for most): f32 atomic elements
    # are uint, accessed through their bits (``AtomicBits``).
    FLOAT_BITS = ("asuint({})", "asfloat({})")
    # DXC converts a double to float for every other intrinsic (floor and sqrt included:
    # its SPIR-V has OpFConvert around GLSL.std.450's float Floor).
    F64_MATH = frozenset({"math.fabs"})

    @classmethod
    def block_kind(cls, layout: Any) -> str:
        """Push constants when the block fits the guaranteed 128 bytes, else a read-only
        storage buffer (same offsets either way), as the GLSL route."""
        return "push" if layout.size <= PUSH_CONSTANT_LIMIT else "storage"

    # -- values ---------------------------------------------------------------------------
    def negate(self, node: ast.UnaryOp) -> str:
        """Unary minus; of an unsigned value ``(0u - x)``: DXC 1.7 folds ``-(x / C)`` into
        ``x / -C``, right for signed division and wrong for unsigned (its SPIR-V divided by
        0xffffffff; ``bench/probes/hlsl_negate_probe.py``)."""
        t = node.ps_type
        elem = t.elem if isinstance(t, T.VectorType) else t
        if isinstance(elem, T.ScalarType) and elem.is_int and not elem.signed:
            return f"({self.literal(0, elem)} - {self.sub(node.operand)})"
        return super().negate(node)

    def zero_value(self, t: T.Type, node: ast.AST | None = None) -> str:
        """The zero of ``t`` in its storage form: a literal, an array's zero function,
        else ``(T)0``."""
        if isinstance(t, T.ScalarType):
            return self.literal(0, T.u32 if t == T.bool_ else t)
        if isinstance(t, T.ArrayType):
            return self.zero_array(t, storage=True)
        return f"({self.type_name(t, node, storage=True)})0"

    def zero_local(self, t: T.Type, node: ast.AST | None = None) -> str:
        """The zero of ``t`` as a local holds it (bools as bools)."""
        if isinstance(t, T.ArrayType):
            return self.zero_array(t)
        if isinstance(t, T.ScalarType):
            return self.literal(0 if t != T.bool_ else False, t)
        return f"({self.type_name(t, node)})0"

    def temp_zero(self, t: T.Type) -> str:
        """An if-else temporary starts as the zero of its type (``lazy``)."""
        return self.zero_local(t)

    # -- declarations ---------------------------------------------------------------------
    def header(self) -> None:
        """The generated-by comment; ``row_major`` matrices where the program has any."""
        super().header()
        self.collect_features()
        types = self.all_types() + [getattr(n, "ps_type", None)
                                    for f in [self.k] + self.prog.funcs
                                    for n in walk(f.tree)]
        if any(_has_matrix(t) for t in types):
            self.line("#pragma pack_matrix(row_major)")

    def padded_members(self, struct: str, members: list[tuple[str, T.Type, int]],
                       size: int) -> list[str]:
        """Member declarations of ``members`` (name, type, canonical offset), with padding
        words in every gap and up to ``size``, so each member sits at its offset."""
        items: list[tuple[str | None, Any]] = []     # (field, type) or (None, pad type)
        end = 0
        for name, t, off in members + [(None, None, size)]:
            gap = off - end
            if gap > 0:
                words = []
                if end % 4:                          # after a 16-bit member
                    words.append("uint16_t")
                    gap -= 2
                words += ["uint"] * (gap // 4) + ["uint16_t"] * (gap % 4 // 2)
                items += [(None, w) for w in words]
            if t is not None:
                items.append((name, t))
                end = off + t.size
        pads = [f"_ps_pad{i}" for i in range(sum(n is None for n, _ in items))]
        fields = [n for n, _, _ in members] + pads
        out, k = [], 0
        for name, t in items:
            if name is None:
                out.append(f"{t} {self.field_name(struct, pads[k], fields)};")
                k += 1
            else:
                out.append(self.declarator(t, self.field_name(struct, name, fields),
                                           storage=True) + ";")
        return out

    def struct_decl(self, s: T.StructType) -> None:
        """A ``struct`` of the fields' storage types (bool fields as uint), padded to the
        canonical offsets and size."""
        self.line(f"struct {self.global_name(s.name)} {{")
        for m in self.padded_members(s.name, [(f, ft, s.offsets[f]) for f, ft in s.fields],
                                     s.size):
            self.line(f"    {m}")
        self.line("};")
        self.line()

    def resources(self) -> None:
        """The structured buffers, the parameter block and the groupshared arrays."""
        k = self.k
        pb = self.prog.param_block
        regs, preg = registers([b.written or b.atomic for b in k.buffers],
                               pb.kind if pb.types else None)
        for i, b in enumerate(k.buffers):
            elem = self.type_name(self.storage_elem(self.buffer_elem(b), b.atomic), storage=True)
            kind = "RWStructuredBuffer" if b.written or b.atomic else "StructuredBuffer"
            if k.uses_barrier and (b.written or b.atomic) and self.coherent(b):
                kind = "globallycoherent " + kind
            if b.written:
                kind = self.store_qualifier(self.buffer_elem(b), b.atomic) + kind
            self.line(f"[[vk::binding({i}, 0)]] {kind}<{elem}> {self.global_name(b.name)} : "
                      f"register({regs[i]});")
        if pb.types:
            pname = self.globals.name("_ps_Params")
            self.line(f"struct {pname} {{")
            members = [(n, t, off) for (n, t), (_, off, _a, _s) in zip(pb.types, pb.placed)]
            for m in self.padded_members("_ps_Params", members, members[-1][2]
                                         + members[-1][1].size):
                self.line(f"    {m}")
            self.line("};")
            params = self.globals.name("_ps_params")
            if pb.kind == "push":
                self.line(f"[[vk::push_constant]] ConstantBuffer<{pname}> {params} : "
                          f"register({preg});")
            else:
                self.line(f"[[vk::binding({len(k.buffers)}, 0)]] StructuredBuffer<{pname}> "
                          f"{params} : register({preg});")
        for name, sh in k.shared.items():
            t = T.ArrayType(self.storage_elem(sh.type.elem, sh.atomic), sh.type.n, shared=True) \
                if sh.atomic else sh.type
            self.line(f"{self.store_qualifier(sh.type.elem, sh.atomic)}groupshared "
                      f"{self.declarator(t, self.global_name(name), storage=True)};")
        self.line()

    def param_block_ref(self) -> str:
        """The parameter block: the constant buffer, or the storage buffer's element 0."""
        params = self.globals.name("_ps_params")
        return params if self.prog.param_block.kind == "push" else f"{params}[0]"

    # -- functions ------------------------------------------------------------------------
    def function_header(self, f: FuncInfo) -> None:
        """The kernel is ``[numthreads(x, y, z)] void NAME(...)`` taking the ids it uses as
        system values; a helper gets its parameters and the ids it uses."""
        if f.is_kernel:
            x, y, z = f.workgroup_size
            self.line(f"[numthreads({x}, {y}, {z})]")
            if f.folded:       # the raw ids, from which unfold_ids rebuilds the 1-D ones
                wanted = ["group_id", "local_id"] + (
                    ["local_index"] if "local_index" in f.ids_used else [])
                self._raw = {w: self.names.name("_ps_sv_" + w) for w in wanted}
            else:
                wanted = [w for w in IDS if w in f.ids_used and IDS[w][1]]
                self._raw = {w: self.id_value(w) for w in wanted}
            params = [f"{IDS[w][0]} {self._raw[w]} : {IDS[w][1]}" for w in wanted]
            self.line(f"void {self.global_name(self.k.name)}({', '.join(params)}) {{", f.tree)
            return
        params = [self.declarator(t, self.local(name), f.tree) for name, t in f.params]
        params += [f"{IDS[w][0]} {self.id_value(w)}" for w in sorted(f.ids_used)]
        ret = self.type_name(f.ret, f.tree) if f.ret is not None else "void"
        if isinstance(f.ret, T.ArrayType):
            ret = self.array_typedef(f.ret)
        self.line(f"{self.result_qualifier(f)}{ret} {self.global_name(f.emit_name)}"
                  f"({', '.join(params)}) {{", f.tree)

    def declare_ids(self, f: FuncInfo) -> None:
        """The group counts, from the parameter block (the other ids are system values the
        entry point takes under their names)."""
        if "num_groups" in f.ids_used:
            self.declare_temp(self.id_value("num_groups"), T.uvec3, self.raw_id("num_groups"),
                              None)

    def raw_id(self, which: str) -> str:
        """The id as the entry point receives it: a system-value parameter, or the group
        counts' member of the parameter block."""
        if which == "num_groups":
            return self.param_member(self.prog.param_block.groups)
        return self._raw[which]

    # -- statements -----------------------------------------------------------------------
    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """``T name = (T)0;`` (HLSL leaves locals undefined)."""
        t = self.func.locals[name]
        var = self.local(name)
        self.line(f"{self.local_qualifier(var, t, node)}{self.declarator(t, var, node)} = "
                  f"{self.zero_local(t, node)};", node)

    def atomic_load(self, s: str, node: ast.AST, t: T.Type | None = None) -> str:
        """An atomic read through its helper (``InterlockedOr`` with 0)."""
        fn = self.atomic_fn("load", node.value, t or node.ps_type)
        return f"{fn}({self.index_arg(node.slice)})"

    def atomic_store(self, place: str, v: str, node: ast.AST, t: T.Type | None = None) -> None:
        """An atomic store through its helper (``InterlockedExchange``)."""
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        fn = self.atomic_fn("store", target.value, t or target.ps_type)
        self.line(f"{fn}({self.index_arg(target.slice)}, {v});", node)

    # -- expressions ----------------------------------------------------------------------
    def untyped(self, node: ast.expr) -> bool:
        """True for an i32 expression that HLSL types as a "literal int" (64 bits, taking
        the type of the other operand: ``-3 >> s`` with a uint ``s`` shifts logically):
        a literal, or an operation of such."""
        if node.ps_type != T.i32 or id(node) in self.emitted:
            return False
        if isinstance(node, ast.Constant):
            return getattr(node, "ps_enum", None) is None
        if isinstance(node, ast.UnaryOp):
            return self.untyped(node.operand)
        if isinstance(node, ast.BinOp):
            shift = isinstance(node.op, (ast.LShift, ast.RShift))
            return self.untyped(node.left) and (shift or self.untyped(node.right))
        if isinstance(node, ast.IfExp):
            return self.untyped(node.body) and self.untyped(node.orelse)
        return False

    def typed_sub(self, node: ast.expr) -> str:
        """An operand, as ``int(...)`` where HLSL would not type it i32 (``untyped``)."""
        return f"int({self.expr(node)})" if self.untyped(node) else self.sub(node)

    def ex_BinOp(self, node: ast.BinOp) -> str:
        """``@`` as ``mul`` with the operands swapped (HLSL's rows are pyshade's columns);
        an operation of i32 literals made i32 (``untyped``)."""
        if isinstance(node.op, ast.MatMult):
            return f"mul({self.value(node.right)}, {self.value(node.left)})"
        if not isinstance(node.op, (ast.LShift, ast.RShift)) and self.untyped(node.left) \
                and self.untyped(node.right):
            return f"{self.typed_sub(node.left)} {BINOPS[type(node.op)]} {self.sub(node.right)}"
        return super().ex_BinOp(node)

    def shift(self, node: ast.BinOp, op: type) -> str:
        """``a << b`` / ``a >> b``, an i32 literal ``a`` made i32 (``untyped``)."""
        return f"{self.typed_sub(node.left)} {BINOPS[op]} {self.sub(node.right)}"

    def compare(self, op: type, a: ast.expr, b: ast.expr, node: ast.AST) -> str:
        """``a OP b``; of two i32 literals, the first made i32 (``untyped``)."""
        if self.untyped(a) and self.untyped(b):
            return f"{self.typed_sub(a)} {CMP_SYMBOLS[op]} {self.sub(b)}"
        return super().compare(op, a, b, node)

    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor: ``(T)0`` without arguments, ``(T)x`` for one
        scalar (HLSL's ``float3(x)`` wants three components)."""
        # Parenthesised whole: a cast binds looser than a subscript, so ``mat2()[0]`` as
        # ``(float2x2)0[0u]`` would subscript the 0 (DXC: "subscripted value is not an
        # array"; fuzz seed 2 kernel 3).
        if not node.args:
            return f"({self.zero_local(t, node)})"
        if len(node.args) == 1 and not isinstance(node.args[0].ps_type, T.VectorType):
            return f"(({self.type_name(t, node)})({self.value(node.args[0])}))"
        return super().call_construct(node, t)

    # -- builtins with an HLSL shape (the Methods of spellings/hlsl.py) -------------------
    def atomic_call(self, node: ast.Call) -> str:
        """``atomic_<op>(buf, i, v...)`` through the (op, buffer) helper."""
        kind, what = node.ps_call
        op = what.kinds[1]
        fn = self.atomic_fn(op, node.args[0], node.ps_type)
        rest = ", ".join(self.value(a) for a in node.args[2:])
        return f"{fn}({self.index_arg(node.args[1])}, {rest})"

    def select_call(self, node: ast.Call) -> str:
        """``select(f, t, c)``: a ternary, or the component-wise helper for a bool-vector
        condition."""
        f, t, c = (self.value(a) for a in node.args)
        if isinstance(node.args[2].ps_type, T.VectorType):
            want = node.ps_type
            f = self.broadcast(f, node.args[0].ps_type, want)
            t = self.broadcast(t, node.args[1].ps_type, want)
            return f"{self.select_vector(want)}({f}, {t}, {c})"
        if self.untyped(node.args[0]) and self.untyped(node.args[1]):
            return f"({c} ? int({t}) : {f})"
        return f"({c} ? {t} : {f})"

    def bitcast_call(self, node: ast.Call) -> str:
        """``bitcast(T, x)``: ``asuint``/``asint``/``asfloat``, f64 through its helpers, a
        value conversion between integers of one width."""
        src, dst = elem_type(node.args[1].ps_type), elem_type(node.ps_type)
        if src == dst:
            return self.sub(node.args[1])
        x = self.value(node.args[1])
        if src == T.f64:
            bits = f"{self.f64_bits(True)}({x})"
            return bits if dst == T.u64 else f"int64_t({bits})"
        if dst == T.f64:
            return f"{self.f64_bits(False)}({x if src == T.u64 else f'uint64_t({x})'})"
        fn = BITCASTS.get((src.name, dst.name))
        if fn is None:
            if src.kind == "float" or dst.kind == "float":
                raise self.error(node, f"bitcast {src} -> {dst} is not supported by HLSL")
            fn = self.type_name(dst)
        return f"{fn}({x})"

    def convert_call(self, node: ast.Call) -> str:
        """``convert(T, x)``: ``T(x)``; an f64 to a 32-bit integer through the 64-bit integer
        of the same signedness (``F64_TO_INT_VIA``: DXC converts a double through float)."""
        t = node.ps_type
        x = self.value(node.args[1])
        via = F64_TO_INT_VIA.get(elem_type(t).name) \
            if elem_type(node.args[1].ps_type) == T.f64 else None
        if via is not None:      # f64 is scalar only
            x = f"{self.type_name(T.SCALARS[via])}({x})"
        return f"{self.type_name(t, node)}({x})"

    def round_call(self, node: ast.Call) -> str:
        """``round(x)``: ties to even (``round_even``)."""
        return f"{self.round_even(node.ps_type)}({self.value(node.args[0])})"

    def fma_call(self, node: ast.Call) -> str:
        """``fma(a, b, c)``: HLSL's ``mad``, inside a generated function of the type
        (``fma_fn``): DXC writes invalid SPIR-V for a ``mad`` in code that never runs."""
        args = ", ".join(self.value(a) for a in node.args)
        return f"{self.fma_fn(node.ps_type)}({args})"

    def bit_call(self, node: ast.Call, what: str) -> str:
        """``popcount``, ``reverse_bits``, ``count_leading_zeros`` ("popcount", "reverse",
        "clz"): HLSL's intrinsics on 32 bits, the halves' helpers on 64."""
        t = node.ps_type
        x = self.value(node.args[0])
        if t.bits == 64:
            return f"{self.type_name(t)}({self.bits64(what)}(uint64_t({x})))"
        if what == "popcount":
            return f"{self.type_name(t)}(countbits({x}))"
        if what == "reverse":     # DXC's reversebits of an int is a uint: back to int
            return f"reversebits({x})" if not t.signed else f"int(reversebits(uint({x})))"
        # firstbithigh of an unsigned value; of 0 it is 0xffffffff: 31u - it wraps to 32
        return f"{self.type_name(t)}(31u - firstbithigh(uint({x})))"
