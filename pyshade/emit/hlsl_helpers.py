"""Generated HLSL text the kernel language cannot express (a mixin of the HLSL
emitter): statement-only intrinsics as functions, and DXC's gaps.

Each helper is written once into the output (``Emitter.helper``), before the
functions that call it, so that every use stays an expression (inside a
``while`` condition or an ``and``/``or`` operand as well):

* atomics: ``Interlocked*`` return the old value through an ``out`` parameter;
  one function per (operation, buffer or shared array) takes the index;
* struct values: HLSL has no constructor expression for a struct;
* array values: the zero of an array type, and a typedef for each array type a
  function returns (glslang's HLSL front end takes neither ``(float[4])0`` nor
  C's ``float f()[4]``);
* ``select`` with a bool-vector condition: HLSL 2021 refuses a vector ``?:``
  and this DXC has no SPIR-V for the ``select`` intrinsic;
* ``fma``: ``mad`` in a function of its own (a ``mad`` in code that never runs
  makes DXC write invalid SPIR-V);
* ``round``: DXC writes it as GLSL.std.450 ``Round`` for SPIR-V (ties away from
  zero or not, as the driver likes), DXIL's ``round`` is ``Round_ne``;
* 64-bit ``popcount``/``reverse_bits``/``count_leading_zeros``: DXC's SPIR-V for
  them is invalid (Vulkan's bit instructions take 32-bit operands), and f64
  bitcasts (HLSL's ``asuint``/``asdouble`` split a double in two words).
"""

from __future__ import annotations

import ast

from .. import types as T
from .clike import array_parts
from .hlsl_tables import ATOMICS, GLSL_STD_450_ROUND_EVEN


class HlslHelpers:
    """Helper-function factories; the class using it provides ``helper``, ``type_name``,
    ``declarator``, ``value``, ``expr``, ``global_name`` and ``field_name``."""

    def index_arg(self, node: ast.expr) -> str:
        """An index as the ``uint`` the helpers take."""
        s = self.value(node)
        return s if node.ps_type == T.u32 else f"uint({s})"

    def atomic_fn(self, op: str, target: ast.expr, t: T.Type) -> str:
        """The helper doing atomic ``op`` ("add"... "cas", "load", "store") on an element
        of the buffer or shared array ``target`` (a name) whose elements are ``t``."""
        arr = self.expr(target)
        ty = self.type_name(t)

        # The helpers' own names start with _ps, which no user name is given: a buffer
        # named like one of them stays visible.
        def make(name: str) -> str:
            if op == "load":       # an atomic read: or with 0 (the value is unchanged)
                return (f"{ty} {name}(uint _ps_i) {{\n    {ty} _ps_old;\n"
                        f"    InterlockedOr({arr}[_ps_i], 0, _ps_old);\n    return _ps_old;\n}}")
            if op == "store":      # an atomic write: an exchange, its old value unused
                return (f"void {name}(uint _ps_i, {ty} _ps_v) {{\n    {ty} _ps_old;\n"
                        f"    InterlockedExchange({arr}[_ps_i], _ps_v, _ps_old);\n}}")
            if op == "cas":        # strong: fails only when the value differs
                return (f"{ty} {name}(uint _ps_i, {ty} _ps_expected, {ty} _ps_desired) {{\n"
                        f"    {ty} _ps_old;\n"
                        f"    InterlockedCompareExchange({arr}[_ps_i], _ps_expected, "
                        f"_ps_desired, _ps_old);\n    return _ps_old;\n}}")
            v = "_ps_v"
            if op == "sub":
                v = "-_ps_v" if t.kind == "int" else "0u - _ps_v"
            return (f"{ty} {name}(uint _ps_i, {ty} _ps_v) {{\n    {ty} _ps_old;\n"
                    f"    {ATOMICS[op]}({arr}[_ps_i], {v}, _ps_old);\n    return _ps_old;\n}}")
        return self.helper(f"atomic_{op}_{arr}", make)

    def struct_constructor(self, st: T.StructType) -> str:
        """The function building a ``st`` value from its fields (storage types), padding
        zeroed."""
        sname = self.global_name(st.name)

        def make(name: str) -> str:
            params = [self.declarator(ft, f"_ps_a{i}", storage=True)
                      for i, (_, ft) in enumerate(st.fields)]
            lines = [f"{sname} {name}({', '.join(params)}) {{",
                     f"    {sname} _ps_s = ({sname})0;"]
            for i, (f, _) in enumerate(st.fields):
                lines.append(f"    _ps_s.{self.field_name(st.name, f)} = _ps_a{i};")
            lines += ["    return _ps_s;", "}"]
            return "\n".join(lines)
        return self.helper(f"make_{sname}", make)

    def array_typedef(self, t: T.ArrayType, storage: bool = False) -> str:
        """A ``typedef`` name for the array type ``t`` (bool elements as uint where
        ``storage``)."""
        base, dims = array_parts(t)
        elem = self.type_name(base, storage=storage)

        def make(name: str) -> str:
            return f"typedef {elem} {name}{dims};"
        return self.helper(f"array_{elem}_{dims.replace('][', '_').strip('[]')}", make)

    def zero_array(self, t: T.ArrayType, storage: bool = False) -> str:
        """A call of the function returning the zero of the array type ``t``."""
        zero = self.zero_value(t.elem) if storage else self.zero_local(t.elem)
        ty = self.array_typedef(t, storage)   # both before the helper: helpers come out
                                              # in the order they are made

        def make(name: str) -> str:
            return (f"{ty} {name}() {{\n    {ty} _ps_z;\n"
                    f"    for (uint _ps_i = 0u; _ps_i < {t.n}u; _ps_i++) {{ _ps_z[_ps_i] = {zero}; }}\n"
                    "    return _ps_z;\n}")
        return self.helper(f"zero_{ty}", make) + "()"

    def select_vector(self, t: T.VectorType) -> str:
        """``select(f, t, c)`` for a bool-vector ``c``, component by component."""
        ty = self.type_name(t)
        cty = self.type_name(T.vector_of(T.bool_, t.n))

        def make(name: str) -> str:
            parts = ", ".join(f"c.{x} ? t.{x} : f.{x}" for x in "xyzw"[:t.n])
            return f"{ty} {name}({ty} f, {ty} t, {cty} c) {{\n    return {ty}({parts});\n}}"
        return self.helper(f"select_{ty}", make)

    def round_even(self, t: T.Type) -> str:
        """``round`` with ties to even, for the float scalar or vector type ``t``."""
        ty = self.type_name(t)

        def make(name: str) -> str:
            return ("#ifdef __spirv__\n"
                    "// GLSL.std.450 RoundEven: DXC writes round() as Round, whose ties are the\n"
                    "// driver's choice\n"
                    f"[[vk::ext_instruction({GLSL_STD_450_ROUND_EVEN}, \"GLSL.std.450\")]]\n"
                    f"{ty} {name}({ty} x);\n"
                    "#else\n"
                    "// DXIL's round is Round_ne: ties to even\n"
                    f"{ty} {name}({ty} x) {{ return round(x); }}\n"
                    "#endif")
        return self.helper(f"round_even_{ty}", make)

    def fma_fn(self, t: T.Type) -> str:
        """``mad`` of the float scalar or vector type ``t``, in a function of its own. DXC
        1.7 decorates a ``mad``'s result ``NoContraction`` as it writes it; in code that
        never runs (after a ``return``/``break``/``continue`` of the block, one inside an
        ``if (true)`` too: DXC folds the test) it drops the instruction and keeps the
        decoration: invalid SPIR-V at ``-O0``, a crash without. A call there is harmless:
        ``bench/probes/dxc_mad_dead_code_probe.py`` (fuzz seed 20263131 kernel 18)."""
        ty = self.type_name(t)

        def make(name: str) -> str:
            return f"precise {ty} {name}({ty} a, {ty} b, {ty} c) {{ return mad(a, b, c); }}"
        return self.helper(f"fma_{ty}", make)

    def bits64(self, what: str) -> str:
        """A 64-bit bit operation over the two 32-bit halves: "popcount", "reverse" or
        "clz" of a ``uint64_t`` (the result is a ``uint64_t``)."""
        body = {
            "popcount": "return uint64_t(countbits(uint(x)) + countbits(uint(x >> 32)));",
            "reverse": "return (uint64_t(reversebits(uint(x))) << 32) | "
                       "uint64_t(reversebits(uint(x >> 32)));",
            # firstbithigh(0) is 0xffffffff: 63u - it wraps to 64 for x == 0
            "clz": "uint hi = uint(x >> 32);\n    return uint64_t(hi != 0u ? "
                   "31u - firstbithigh(hi) : 63u - firstbithigh(uint(x)));",
        }[what]

        def make(name: str) -> str:
            return f"uint64_t {name}(uint64_t x) {{\n    {body}\n}}"
        return self.helper(f"{what}64", make)

    def f64_bits(self, to_bits: bool) -> str:
        """The bits of a double as ``uint64_t`` (``to_bits``), or the double of such bits."""
        def make(name: str) -> str:
            if to_bits:
                return (f"uint64_t {name}(double x) {{\n    uint lo, hi;\n"
                        "    asuint(x, lo, hi);\n    return (uint64_t(hi) << 32) | lo;\n}")
            return (f"double {name}(uint64_t b) {{\n"
                    "    return asdouble(uint(b), uint(b >> 32));\n}")
        return self.helper("f64_bits" if to_bits else "f64_from_bits", make)
