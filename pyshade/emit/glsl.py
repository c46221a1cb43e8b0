"""GLSL emitter: GLSL 4.50 compute shaders for Vulkan (glslang -> SPIR-V).

Design notes:
- Mostly tables (``VEC_PREFIX``, ``LITERAL_SUFFIX``, ``SPECIAL_FLOAT``, ``IDS``,
  ``BITCASTS``, ``COMPARE_FUNCS``) over the shared brace-language code of
  ``clike.py``; statement lowering stays in ``base.py``. Builtins are spelled by
  the ``clike`` family's table in ``spellings/`` and ``spellings/glsl.py`` only where
  GLSL differs (``roundEven``, two-argument ``atan``, ``bitCount``,
  ``atomicCompSwap``...).
- Resources follow ``runtime/vulkan.py``: every ``Buffer[T]`` is a std430
  storage block at ``set = 0, binding = i`` (``readonly`` when not written,
  ``coherent`` when the kernel has a barrier, so that stores before it are
  seen by the workgroup); the parameter block keeps the offsets that
  ``kernel.param_layout`` computed for every target, written as explicit
  ``layout(offset = N)`` members, in a push-constant block when it fits the
  128 bytes every Vulkan device has, else in a read-only std430 storage block.
  ``len(buf)`` reads the hidden length member (``.length()`` would count the
  binding's padding).
- ``bool`` is stored as ``uint`` in buffers, parameters and struct fields.
- GLSL locals are not zero-initialised: every default declaration gets the
  type's zero (``ps.array(T, N)`` and structs included), in the local's own form
  (``zero_local``: ``bool b = false;``, not the ``0u`` that memory holds). GLSL has no
  ``T()``: a constructor without arguments is that zero too.
- GLSL's ``==``/``<`` on vectors are not element-wise (``==`` compares the whole
  vector), and ``&``/``|``/``!`` do not take bools: vector comparisons use
  ``lessThan``/``equal``..., bool vectors go through ``uvec``, ``select`` with a
  vector condition is ``mix``.
- ``#line N "file.py"`` (GL_GOOGLE_cpp_style_line_directive) precedes every
  statement whose Python line differs from the line glslang would count, so
  glslang's own errors name the Python file and line.
- Atomic elements are read with ``atomicAdd(x, 0)`` and stored with
  ``atomicExchange``, as WGSL's atomicLoad/atomicStore: a plain access would
  race with the atomics of other invocations.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .. import types as T
from ..frontend.program import FuncInfo
from .clike import CLikeEmitter, elem_type
from .features import DeviceChecks
from .precise import PreciseFloats
from .spellings.glsl import SPELLINGS

PUSH_CONSTANT_LIMIT = 128          # bytes: maxPushConstantsSize is at least this everywhere

VEC_PREFIX = {"bool": "b", "i32": "i", "u32": "u", "f32": "", "f16": "f16", "f64": "d",
              "i64": "i64", "u64": "u64"}
# Invocation ids: (GLSL type, built-in variable).
IDS = {"global_id": ("uvec3", "gl_GlobalInvocationID"),
       "local_id": ("uvec3", "gl_LocalInvocationID"),
       "group_id": ("uvec3", "gl_WorkGroupID"),
       "num_groups": ("uvec3", "gl_NumWorkGroups"),
       "local_index": ("uint", "gl_LocalInvocationIndex")}
# bitcast(dst, x) by (source, destination); a pair missing here is a value conversion,
# which keeps the bits between integers of one width.
BITCASTS = {("f32", "u32"): "floatBitsToUint", ("f32", "i32"): "floatBitsToInt",
            ("u32", "f32"): "uintBitsToFloat", ("i32", "f32"): "intBitsToFloat",
            ("f64", "u64"): "doubleBitsToUint64", ("f64", "i64"): "doubleBitsToInt64",
            ("u64", "f64"): "uint64BitsToDouble", ("i64", "f64"): "int64BitsToDouble"}
COMPARE_FUNCS = {ast.Eq: "equal", ast.NotEq: "notEqual", ast.Lt: "lessThan",
                 ast.LtE: "lessThanEqual", ast.Gt: "greaterThan", ast.GtE: "greaterThanEqual"}
# Arrays longer than this are zeroed by a loop rather than one constructor.
ZERO_CONSTRUCTOR_MAX = 8


def glslang_constant(node: ast.expr) -> bool:
    """Whether glslang may see ``node`` as a constant expression: it reads no variable,
    parameter, buffer or shared array (a constant table's ``const`` array and an enum's
    ``const`` count as constants). Errs towards constant: the cost is a function call,
    which spirv-opt inlines."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and getattr(sub, "ps_ref", ("table",))[0] != "table":
            return False
    return True


class GlslEmitter(PreciseFloats, DeviceChecks, CLikeEmitter):
    """Writes a Program as a GLSL 4.50 compute shader for Vulkan."""

    target = "glsl"
    spellings = SPELLINGS
    explicit_lengths = True
    line_directives = True
    # Float arithmetic that flows into a precise variable, buffer or function result is
    # NoContraction in glslang's SPIR-V (``precise.py``).
    PRECISE = "precise "
    TABLE_CONSTRUCTED = True        # a table's initializer is float[3](...)
    # barrier(): stores to shared and storage memory made before it are visible after it;
    # shared memory only where no buffer needs it (frontend/barrier_scope.py). GLSL 4.60
    # 8.16: barrier() synchronizes shared variables, other memory needs a memory barrier
    # too; memoryBarrierShared() states the shared half explicitly. glslang: barrier() is
    # OpControlBarrier(Workgroup, Workgroup, AcquireRelease|WorkgroupMemory), each
    # memoryBarrier*() an OpMemoryBarrier(Device, AcquireRelease|WorkgroupMemory or
    # |UniformMemory) before it.
    BARRIER = ("memoryBarrierShared()", "memoryBarrierBuffer()", "barrier()")
    BARRIER_SHARED = ("memoryBarrierShared()", "barrier()")
    # The scalar names are clike's; arrays are T[N], as C writes them.
    VECTOR = "{elem}vec{n}"
    VECTOR_ELEM = VEC_PREFIX
    MATRIX = "mat{n}"
    LITERAL_SUFFIX = {"i32": "", "u32": "u", "f32": "", "f16": "hf", "f64": "lf", "i64": "l",
                      "u64": "ul"}
    # An f16 literal as its f16's value written as f32 (``0.30004883hf`` for f16(0.3)):
    # glslang rounds a ``hf`` literal's decimal to f32, then truncates to f16
    # (``makeFloat16Constant``, round toward zero), so ``0.3hf`` was 0x34cc, not 0x34cd
    # (``bench/probes/glslang_f16_literal_probe.py``); from the f16 value both roundings
    # are exact. glslang also keeps a literal's decimal and folds the emitter's own
    # conversions from it (``float(0.1hf)``, an f16 argument of an f32-only prelude
    # function such as ``ps_fmod``): the f32 0.1 where the f16 is 0.0999755859375 (fuzz
    # seed 20263327 kernel 14); from the f16's value that fold is exact too.
    HALF_LITERAL = "{}hf"
    # inf and NaN: no literal; the f32 bits, converted to f16 or f64.
    SPECIAL_FLOAT = {"f32": "uintBitsToFloat({f32:#010x}u)",
                     "f16": "float16_t(uintBitsToFloat({f32:#010x}u))",
                     "f64": "double(uintBitsToFloat({f32:#010x}u))"}
    ID_VALUES = IDS             # a kernel names the built-in variables of the ids it uses
    RAW_IDS = {which: builtin for which, (_, builtin) in IDS.items()}
    # Atomic elements: a read adds zero (GLSL has no atomicLoad without the Vulkan memory
    # model), a store exchanges, its old value unused.
    ATOMIC_LOAD = "atomicAdd({place}, {zero})"
    # GLSL's double functions (genDType): no trigonometry, exp, log or pow.
    F64_MATH = frozenset({"math.sqrt", "math.floor", "math.ceil", "math.trunc", "math.fabs",
                          "round"})
    ATOMIC_STORE = "atomicExchange({place}, {value})"
    # f32 atomics (GL_EXT_shader_atomic_float) are a device feature: f32 atomic elements
    # are uint, accessed through their bits (``AtomicBits``).
    FLOAT_BITS = ("floatBitsToUint({})", "uintBitsToFloat({})")

    def function(self, f: FuncInfo) -> None:
        """One function, its literals inside constant operations marked first
        (``mark_folded``)."""
        mark_folded(f.tree)
        super().function(f)

    def ex_Constant(self, node: ast.Constant) -> str:
        """A float literal inside an operation on constants, which glslang folds in
        double precision from the literal's decimal value: written with its float's exact
        decimal (``0.20000000298023224`` for the f32 0.2), so that the fold starts from
        the value the kernel means (``bench/probes/glslang_fold_probe.py``: ``vec4(10.0) *
        vec4(-0.001)`` was 1 ulp off). Inside a chain of operations (which glslang rounds
        once, at the end) or one that makes an f16 value (whose fold glslang truncates to
        f16: ``bench/probes/glslang_f16_literal_probe.py``), from its bits
        (``SPECIAL_FLOAT``), which glslang does not fold: spirv-opt and the driver fold or
        compute it, each operation rounded in its type. Elsewhere the short form (an f16
        from its value: ``HALF_LITERAL``)."""
        t = node.ps_type
        folded = getattr(node, "ps_folded", False)
        if folded and t in (T.f32, T.f16) \
                and isinstance(node.value, (int, float)) and np.isfinite(node.value):
            v = float(np.float32(node.value) if t == T.f32 else np.float16(node.value))
            if folded == "bits":
                return self.special_float(v, t)
            return repr(v) + self.LITERAL_SUFFIX[t.name]
        return super().ex_Constant(node)

    @classmethod
    def block_kind(cls, layout: Any) -> str:
        """Push constants when the block fits the guaranteed 128 bytes, else a read-only
        std430 storage block (same offsets either way)."""
        return "push" if layout.size <= PUSH_CONSTANT_LIMIT else "storage"

    # -- values ---------------------------------------------------------------------------
    def zero_value(self, t: T.Type, node: ast.AST | None = None) -> str:
        """The zero of ``t`` in its storage form, spelled out (GLSL has no ``T()``)."""
        if isinstance(t, T.ScalarType):
            return self.literal(0, T.u32 if t == T.bool_ else t)
        if isinstance(t, (T.VectorType, T.MatrixType)):
            e = T.u32 if t.elem == T.bool_ else t.elem
            return f"{self.type_name(t, node, storage=True)}({self.literal(0, e)})"
        if isinstance(t, T.ArrayType):
            z = self.zero_value(t.elem, node)
            return f"{self.type_name(t, node, storage=True)}({', '.join([z] * t.n)})"
        if isinstance(t, T.StructType):
            zs = [self.zero_value(T.decayed(ft), node) for _, ft in t.fields]
            return f"{self.global_name(t.name)}({', '.join(zs)})"
        raise self.error(node or self.func_node(), f"internal: no GLSL zero for {t}")

    def zero_local(self, t: T.Type, node: ast.AST | None = None) -> str:
        """The zero of ``t`` as a local holds it: bools (and bool vectors, arrays of bools)
        as bools, where ``zero_value`` gives the u32 that memory holds; a struct is its
        storage form, which is also its only form."""
        if t == T.bool_:
            return "false"
        if isinstance(t, T.VectorType) and t.elem == T.bool_:
            return f"{self.type_name(t, node)}(false)"
        if isinstance(t, T.ArrayType):
            z = self.zero_local(t.elem, node)
            return f"{self.type_name(t, node)}({', '.join([z] * t.n)})"
        return self.zero_value(t, node)

    # -- declarations ---------------------------------------------------------------------
    def header(self) -> None:
        """``#version 450``, the line-directive extension, the extensions of the types used."""
        self.line("#version 450")
        self.line("#extension GL_GOOGLE_cpp_style_line_directive : require")
        used = self.collect_features()
        if used & {"f16", "i64", "u64"}:
            self.line("#extension GL_EXT_shader_explicit_arithmetic_types : require")
        if "f16" in used:
            self.line("#extension GL_EXT_shader_16bit_storage : require")
        super().header()

    def struct_decl(self, s: T.StructType) -> None:
        """A ``struct`` of the fields' storage types (bool fields as uint); GLSL's std430
        layout of it is the canonical layout."""
        self.line(f"struct {self.global_name(s.name)} {{")
        for f, ft in s.fields:
            fname = self.field_name(s.name, f, [n for n, _ in s.fields])
            self.line(f"    {self.type_name(ft, storage=True)} {fname};")
        self.line("};")
        self.line()

    def resources(self) -> None:
        """The storage blocks, the parameter block and the shared arrays."""
        k = self.k
        for i, b in enumerate(k.buffers):
            elem = self.type_name(self.storage_elem(self.buffer_elem(b), b.atomic), storage=True)
            qual = "" if b.written or b.atomic else "readonly "
            if k.uses_barrier and (b.written or b.atomic) and self.coherent(b):
                qual = "coherent "
            block = self.globals.name(f"_ps_{b.name}_block")
            prec = self.store_qualifier(self.buffer_elem(b), b.atomic) if b.written else ""
            self.line(f"layout(std430, set = 0, binding = {i}) {qual}buffer {block} "
                      f"{{ {prec}{elem} {self.global_name(b.name)}[]; }};")
        pb = self.prog.param_block
        if pb.types:
            names = [n for n, _ in pb.types]
            if pb.kind == "push":
                self.line(f"layout(push_constant, std430) uniform {self.globals.name('_ps_Params')} {{")
            else:
                self.line(f"layout(std430, set = 0, binding = {len(k.buffers)}) readonly buffer "
                          f"{self.globals.name('_ps_Params')} {{")
            for (name, t), (_, off, _a, _s) in zip(pb.types, pb.placed):
                member = self.field_name("_ps_Params", name, names)
                self.line(f"    layout(offset = {off}) {self.type_name(t, storage=True)} {member};")
            self.line(f"}} {self.globals.name('_ps_params')};")
        for name, sh in k.shared.items():
            elem = self.type_name(self.storage_elem(sh.type.elem, sh.atomic), storage=True)
            prec = self.store_qualifier(sh.type.elem, sh.atomic)
            self.line(f"{prec}shared {elem} {self.global_name(name)}[{sh.type.n}];")
        self.line()

    # -- functions ------------------------------------------------------------------------
    def function_header(self, f: FuncInfo) -> None:
        """The kernel is ``void main()`` after its ``local_size`` layout (glslang renames
        it to the kernel's name); a helper gets its parameters and the ids it uses."""
        if f.is_kernel:
            x, y, z = f.workgroup_size
            self.line(f"layout(local_size_x = {x}, local_size_y = {y}, local_size_z = {z}) in;")
            self.line("void main() {", f.tree)
            return
        params = [f"{self.type_name(t, f.tree)} {self.local(name)}" for name, t in f.params]
        params += [f"{IDS[w][0]} {self.id_value(w)}" for w in sorted(f.ids_used)]
        ret = self.type_name(f.ret, f.tree) if f.ret is not None else "void"
        self.line(f"{self.result_qualifier(f)}{ret} {self.global_name(f.emit_name)}"
                  f"({', '.join(params)}) {{", f.tree)

    # -- statements -----------------------------------------------------------------------
    def declare_default(self, name: str, node: ast.AST | None = None) -> None:
        """``T name = zero;`` (GLSL leaves locals undefined); a long array is zeroed by a loop."""
        t = self.func.locals[name]
        var = self.local(name)
        head = f"{self.local_qualifier(var, t, node)}{self.type_name(t, node)} {var}"
        if isinstance(t, T.ArrayType) and t.n > ZERO_CONSTRUCTOR_MAX:
            self.line(f"{head};", node)
            i = self.names.fresh("i")
            self.line(f"for (uint {i} = 0u; {i} < {t.n}u; {i}++) {{ {var}[{i}] = "
                      f"{self.zero_local(t.elem, node)}; }}", node)
            return
        self.line(f"{head} = {self.zero_local(t, node)};", node)

    def call_statement(self, call: ast.expr, node: ast.AST) -> None:
        """``barrier()`` on one line (one ``#line`` for the three calls)."""
        kind, what = call.ps_call
        if kind == "builtin" and what.name == "barrier":
            self.line(" ".join(f"{s};" for s in self.barrier_statements()), node)
            return
        super().call_statement(call, node)

    # -- expressions ----------------------------------------------------------------------
    def call_construct(self, node: ast.Call, t: T.Type) -> str:
        """A vector or matrix constructor; without arguments its zero (glslang refuses
        ``vec2()``: "not enough data provided for construction")."""
        if not node.args:
            return self.zero_local(t, node)
        return super().call_construct(node, t)

    def compare(self, op: type, a: ast.expr, b: ast.expr, node: ast.AST) -> str:
        """Scalars: ``a OP b``; vectors: ``lessThan(a, b)``... (element-wise, a scalar side
        broadcast)."""
        t = node.ps_type
        if not isinstance(t, T.VectorType):
            return super().compare(op, a, b, node)
        want = a.ps_type if isinstance(a.ps_type, T.VectorType) else b.ps_type
        sa = self.broadcast(self.expr(a), a.ps_type, want)
        sb = self.broadcast(self.expr(b), b.ps_type, want)
        return f"{COMPARE_FUNCS[op]}({sa}, {sb})"

    def ex_UnaryOp(self, node: ast.UnaryOp) -> str:
        """``not`` of a bool vector is ``not(v)``."""
        if isinstance(node.op, ast.Not) and isinstance(node.ps_type, T.VectorType):
            return f"not({self.expr(node.operand)})"
        return super().ex_UnaryOp(node)

    # f64 ``round`` and ``trunc`` from ``floor``: lavapipe (Mesa 22.3) rounds the f64
    # halves of odd integers toward zero (``roundEven(3.5lf)`` is 3.0) and leaves
    # ``roundEven``/``trunc`` of values from 2^49 up unrounded (1e15 + 0.5), where
    # ``floor`` and ``ceil`` are right (``bench/probes/lavapipe_f64_round_probe.py``,
    # fuzz seed 4417005 kernel 43). A zero result keeps the argument's sign, as
    # ``roundEven`` and ``trunc`` do (``round(-0.3)`` is -0.0), set in its bits: lavapipe
    # gave ``x * 0.0`` the wrong sign there.
    F64_ROUNDING = {
        "round": ("double r = floor(x);\n"
                  "    double d = x - r;\n"
                  "    if (d > 0.5lf || (d == 0.5lf && r - 2.0lf * floor(r * 0.5lf) != 0.0lf))"
                  " r += 1.0lf;\n"),
        "trunc": "double r = x < 0.0lf ? ceil(x) : floor(x);\n",
    }

    def f64_rounding(self, node: ast.Call, which: str, native: str) -> str:
        """``round`` or ``trunc`` of ``node``: the ``native`` GLSL function, or of an f64
        (a scalar: the language has no f64 vectors) a generated function
        (``F64_ROUNDING``)."""
        arg = self.value(node.args[0])
        if elem_type(node.ps_type).name != "f64":
            return f"{native}({arg})"

        def make(name: str) -> str:
            return (f"double {name}(double x) {{\n    {self.F64_ROUNDING[which]}"
                    f"    return r == 0.0lf ? packDouble2x32(uvec2(0u, "
                    f"unpackDouble2x32(x).y & 0x80000000u)) : r;\n}}")
        return f"{self.helper(f'{which}_f64', make)}({arg})"

    def round_call(self, node: ast.Call) -> str:
        """``round(x)``: ``roundEven`` (ties to even, as Python); of an f64 a generated
        function of ``floor``, as lavapipe's f64 ``roundEven`` is wrong at halves; of an
        argument that glslang may fold (``glslang_constant``), ``roundEven`` in a generated
        function: glslang folds ``roundEven`` of a constant with a zero's sign flipped
        (``roundEven(0.1)`` is -0.0; ``bench/probes/glslang_round_even_probe.py``), and
        folds no call of a function of the shader. The frontend folds ``round`` of a
        literal itself; this covers the constant expressions it leaves (``vec2(0.1).y``,
        ``0.1 * 3.0``, a table's element: fuzz seed 8985045185412620368 kernel 22).
        spirv-opt inlines the function and does not fold ``RoundEven``; the drivers round
        the constant right."""
        arg = node.args[0]
        if elem_type(node.ps_type).name == "f64" or not glslang_constant(arg):
            return self.f64_rounding(node, "round", "roundEven")
        ty = self.type_name(node.ps_type)

        def make(name: str) -> str:
            return f"{ty} {name}({ty} x) {{\n    return roundEven(x);\n}}"
        return f"{self.helper(f'round_even_{ty}', make)}({self.value(arg)})"

    def trunc_call(self, node: ast.Call) -> str:
        """``math.trunc(x)``: ``trunc``; of an f64 a generated function of ``floor`` and
        ``ceil``, as lavapipe's f64 ``trunc`` leaves values from 2^49 up unrounded."""
        return self.f64_rounding(node, "trunc", "trunc")

    def ex_BinOp(self, node: ast.BinOp) -> str:
        """A binary operator; ``matrix / scalar`` divides each column in a generated
        function: glslang writes ``m / s`` as ``m * (1.0 / s)`` (SPIR-V has no matrix
        division), which rounds twice (lavapipe: 1 ulp off in a fifth of the elements)."""
        if isinstance(node.op, ast.Div) and isinstance(node.left.ps_type, T.MatrixType):
            n = node.left.ps_type.n

            def make(name: str) -> str:
                cols = ", ".join(f"m[{j}] / s" for j in range(n))
                return f"{self.PRECISE}mat{n} {name}(mat{n} m, float s) {{\n" \
                       f"    return mat{n}({cols});\n}}"
            return f"{self.helper(f'div_mat{n}', make)}({self.expr(node.left)}, " \
                   f"{self.expr(node.right)})"
        return super().ex_BinOp(node)

    def bool_bitop(self, node: ast.BinOp, op: type) -> str:
        """Bool ``&``/``|``/``^``: GLSL's bit operators take no bools. Scalars use
        ``&&``/``||`` (through uint when the right side has effects, which Python
        evaluates), bool vectors go through uvec."""
        t = node.ps_type
        if isinstance(t, T.VectorType):
            if op is ast.BitXor:
                return f"notEqual({self.expr(node.left)}, {self.expr(node.right)})"
            u = f"uvec{t.n}"
            sym = "&" if op is ast.BitAnd else "|"
            return f"bvec{t.n}({u}({self.expr(node.left)}) {sym} {u}({self.expr(node.right)}))"
        a, b = self.sub(node.left), self.sub(node.right)
        if op is ast.BitXor:
            return f"{a} != {b}"
        if self.has_side_effects(node.right):
            sym = "&" if op is ast.BitAnd else "|"
            return f"bool(uint({a}) {sym} uint({b}))"
        return f"{a} {'&&' if op is ast.BitAnd else '||'} {b}"

    # -- builtins with a GLSL shape (the Methods of spellings/glsl.py) --------------------
    def select_call(self, node: ast.Call) -> str:
        """``select(f, t, c)``: a ternary, or ``mix`` for a bool-vector condition."""
        f, t, c = (self.value(a) for a in node.args)
        if isinstance(node.args[2].ps_type, T.VectorType):
            want = node.ps_type
            f = self.broadcast(f, node.args[0].ps_type, want)
            t = self.broadcast(t, node.args[1].ps_type, want)
            return f"mix({f}, {t}, {c})"
        return f"({c} ? {t} : {f})"

    def bitcast_call(self, node: ast.Call) -> str:
        """``bitcast(T, x)`` through ``floatBitsToUint`` and kin (``BITCASTS``)."""
        src, dst = elem_type(node.args[1].ps_type), elem_type(node.ps_type)
        if src == dst:
            return self.sub(node.args[1])
        x = self.value(node.args[1])
        fn = BITCASTS.get((src.name, dst.name))
        if fn is None:
            if src.kind == "float" or dst.kind == "float":
                raise self.error(node, f"bitcast {src} -> {dst} is not supported by GLSL")
            fn = self.type_name(dst)
        return f"{fn}({x})"

    def clz_call(self, node: ast.Call) -> str:
        """``count_leading_zeros`` over ``findMSB`` of the unsigned value (-1 for 0)."""
        t = node.ps_type
        u = "uint" if t.bits == 32 else "uint64_t"
        return f"{self.type_name(t)}({t.bits - 1} - findMSB({u}({self.value(node.args[0])})))"


# The typed calls glslang folds when every argument is a constant: builtins, conversions,
# vector and matrix constructors (a helper call is not folded: glslang does not inline).
_FOLDED_CALLS = ("builtin", "cast", "construct")


def _half(node: ast.AST) -> bool:
    """Whether ``node`` makes an f16 value (a scalar, vector or matrix of f16)."""
    t = getattr(node, "ps_type", None)
    return isinstance(t, T.Type) and elem_type(t) == T.f16


def _zero_divisor(node: ast.AST) -> bool:
    """Whether ``node`` divides by a constant with a zero in it: glslang folds ``x / 0.0``
    to the infinity of ``x``'s sign, whatever the zero's (``1.0 / -0.0`` is +inf;
    ``bench/probes/glslang_zero_divisor_probe.py``)."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and any(
        isinstance(k, ast.Constant) and not isinstance(k.value, bool) and k.value == 0
        for k in ast.walk(node.right))


def mark_folded(tree: ast.AST) -> None:
    """Mark ``ps_folded`` on every Constant inside an operation on constants that
    computes (an operator or a builtin; a constructor, conversion or swizzle alone only
    converts each literal once), which glslang folds in double precision;
    ``GLSLEmitter.ex_Constant`` writes those exactly. ``"bits"`` where the operation
    computes on a computed value (glslang folds the chain in double and rounds once) or
    something in it makes an f16 value (glslang truncates a folded f16:
    ``makeFloat16Constant`` rounds toward zero): those literals are written as bits,
    which glslang does not fold; so are those of a division by a constant zero
    (``_zero_divisor``)."""
    def constant(node: ast.AST) -> tuple[bool, bool]:
        """(only constants below, something below computes)."""
        if isinstance(node, ast.Constant):
            return True, False
        kids = list(ast.iter_child_nodes(node))
        computes = isinstance(node, (ast.BinOp, ast.UnaryOp))
        if isinstance(node, ast.Call):
            kids = list(node.args)
            kind, what = getattr(node, "ps_call", ("", None))
            ok = kind in _FOLDED_CALLS and bool(kids) and getattr(what, "pure", True)
            computes = kind == "builtin"
        else:
            ok = isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Attribute, ast.Subscript,
                                   ast.IfExp, ast.Compare, ast.BoolOp))
        below = [constant(k) for k in kids if isinstance(k, ast.expr)]
        if not (ok and all(c for c, _ in below)):
            return False, False
        chain = computes and any(m for _, m in below)
        computes = computes or any(m for _, m in below)
        if computes:
            bits = chain or _zero_divisor(node) or any(_half(k) for k in ast.walk(node)
                                                       if not isinstance(k, ast.Constant))
            for k in ast.walk(node):
                if isinstance(k, ast.Constant) and getattr(k, "ps_folded", False) != "bits":
                    k.ps_folded = "bits" if bits else True
        return True, computes

    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            for k in ast.iter_child_nodes(node):
                if isinstance(k, ast.expr):
                    constant(k)
