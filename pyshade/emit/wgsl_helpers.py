"""Generated WGSL helper functions that reproduce Python semantics (a mixin of
the WGSL emitter).

Each helper is written once per type into the output (``Emitter.helper``),
before the functions that call it. Several work around behaviour seen on real
drivers; the probes that showed it are in ``bench/probes/`` (see
``bench/README.md``).
"""

from __future__ import annotations

import ast
import struct

from .. import types as T


class WgslHelpers:
    """Helper-function factories; the class using it provides ``helper`` and ``type_name``."""

    def special_float(self, v: float, t: T.Type) -> str:
        """inf or nan from its bits, through a helper function: a constant expression
        (even ``bitcast<f32>(0x7f800000u)``) whose value is not finite is a shader-creation
        error for Tint, and a call of a user function is never a constant expression.
        f16 converts the f32 value (naga has no bitcast from u32 to vec2<f16>)."""
        if t == T.f16:
            return f"f16({self.special_float(v, T.f32)})"
        bits = struct.unpack("<I", struct.pack("<f", v))[0]

        def make(name: str) -> str:
            return ("// f32 from its bits at run time (Tint rejects a constant inf or nan)\n"
                    f"fn {name}(b: u32) -> f32 {{\n"
                    "    return bitcast<f32>(b);\n}")
        return f"{self.helper('f32_from_bits', make)}({bits:#010x}u)"

    def py_div_helper(self, kind: str, t: T.Type) -> str:
        """Name of the generated helper for Python's ``//`` or ``%`` (``kind``) on ``t``."""
        tn = self.type_name(t)
        key = f"{kind}_{_key(tn)}"
        zero = f"{tn}()"

        def make(name: str) -> str:
            # The remainder is a - q * b, not WGSL's `%`: on NVIDIA's Vulkan driver
            # (through naga) i32 `%` gave unsigned remainders for negative operands
            # (bench/probes/floordiv_probe.py); `/` was right.
            e = t.elem if isinstance(t, T.VectorType) else t
            if kind == "floordiv" and e.kind == "float":
                one = f"{tn}(1)"
                return (f"// Python's float floor division: floor(a / b) corrected by the\n"
                        f"// remainder, since GPU division may be off by ulps (Vulkan: 2.5)\n"
                        f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                        f"    let q = floor(a / b);\n"
                        f"    let r = a - q * b;\n"
                        f"    let pos = b > {zero};\n"
                        f"    let dec = select(r > {zero}, r < {zero}, pos);\n"
                        f"    let inc = select((b < {zero}) & (r <= b), r >= b, pos);\n"
                        f"    return select(select(q, q + {one}, inc), q - {one}, dec);\n}}")
            if kind == "floordiv":
                return (f"// Python's floor division (rounds toward -inf)\n"
                        f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                        f"    let q = a / b;\n"
                        f"    let r = a - q * b;\n"
                        f"    return select(q, q - {tn}(1), (r != {zero}) & "
                        f"((r < {zero}) != (b < {zero})));\n}}")
            if e.kind == "float":
                fd = self.py_div_helper("floordiv", t)
                return (f"// Python's float modulo (sign of the divisor)\n"
                        f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                        f"    return a - b * {fd}(a, b);\n}}")
            return (f"// Python's modulo (sign of the divisor)\n"
                    f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                    f"    let r = a - (a / b) * b;\n"
                    f"    return select(r, r + b, (r != {zero}) & ((r < {zero}) != (b < {zero})));\n}}")
        return self.helper(key, make)

    def pow_helper(self, t: T.Type) -> str:
        """Name of the generated ``x ** n`` helper for ``t``."""
        tn = self.type_name(t)
        key = f"powi_{_key(tn)}"

        def make(name: str) -> str:
            one = f"{tn}(1)"
            return (f"// x ** n for a constant integer n: n - 1 multiplications, left to right\n"
                    f"fn {name}(x: {tn}, n: u32) -> {tn} {{\n"
                    f"    if (n == 0u) {{ return {one}; }}\n"
                    f"    var r = x;\n"
                    f"    for (var i = 1u; i < n; i += 1u) {{ r = r * x; }}\n"
                    f"    return r;\n}}")
        return self.helper(key, make)

    def ftoi_helper(self, src: T.Type, dst: T.Type) -> str | None:
        """f32 -> i32/u32 (scalar or vector) as the CPU does it: WGSL saturates to the
        largest f32 below 2^31 (2^32), Python's reference to the integer maximum, and
        NaN gives 0. None when no helper is needed."""
        se = src.elem if isinstance(src, T.VectorType) else src
        de = dst.elem if isinstance(dst, T.VectorType) else dst
        if se != T.f32 or de not in (T.i32, T.u32):
            return None
        stn, dtn = self.type_name(src), self.type_name(dst)
        limit, top = ("2147483648.0", "2147483647i") if de == T.i32 else \
            ("4294967296.0", "4294967295u")
        key = f"ftoi_{_key(dtn)}"
        bits = self.type_name(T.vector_of(T.u32, src.n) if isinstance(src, T.VectorType)
                              else T.u32)

        def make(name: str) -> str:
            # nan is tested on the bits: drivers may assume x != x is false
            return (f"// float -> int truncating, saturating at the integer maximum, nan -> 0\n"
                    f"fn {name}(x: {stn}) -> {dtn} {{\n"
                    f"    let nan = (bitcast<{bits}>(x) & {bits}(0x7fffffffu)) > "
                    f"{bits}(0x7f800000u);\n"
                    f"    return select(select({dtn}(x), {dtn}({top}), x >= {stn}({limit})), "
                    f"{dtn}(), nan);\n}}")
        return self.helper(key, make)

    def min_max(self, which: str, t: T.Type, args: list[str]) -> str:
        """``min``, ``max`` or ``clamp`` (= min(max(x, lo), hi)) of ``args`` for ``t``.

        Floats and signed integers use generated select() helpers, not WGSL's
        min/max. Floats: WGSL leaves the result for NaN unspecified and may
        return either zero for -0.0 and 0.0, while Python's ``min(a, b)`` is
        ``b if b < a else a`` (``max``: ``b > a``), which the helper computes
        with one ordered comparison. Signed integers: on NVIDIA's Vulkan driver
        a nested ``min(a, min(b, c))`` of i32 gave wrong results while each
        pairwise min was right (bench/probes/nvidia_last_line_probe.py);
        selects were right. Unsigned integers keep WGSL's min/max.
        """
        e = t.elem if isinstance(t, T.VectorType) else t

        def fn(op: str) -> str:
            return op if e.kind == "uint" else self.select_minmax(t, op)
        if which == "clamp":
            return f"{fn('min')}({fn('max')}({args[0]}, {args[1]}), {args[2]})"
        return f"{fn(which)}({args[0]}, {args[1]})"

    def select_minmax(self, t: T.Type, which: str) -> str:
        """Name of the generated select-based ``min``/``max`` helper for ``t`` (a float or
        signed-integer scalar or vector)."""
        tn = self.type_name(t)
        op = "<" if which == "min" else ">"
        e = t.elem if isinstance(t, T.VectorType) else t

        def make(name: str) -> str:
            if e.kind == "float" and e != T.f16:
                # Python's order of the test: with NaN on either side, or -0.0 against
                # 0.0, the comparison is false and the first argument is the result.
                # The comparison is made on the bits: NVIDIA's driver turned
                # select(a, b, b < a) into a min instruction (min(0.0, -0.0) gave -0.0),
                # and drivers may flush subnormals in float comparisons.
                n = t.n if isinstance(t, T.VectorType) else 0
                it = f"vec{n}<i32>" if n else "i32"
                c = (lambda v: f"{it}({v})") if n else (lambda v: v)  # noqa: E731
                low, inf = c("0x7fffffff"), c("0x7f800000")
                sh = f"vec{n}<u32>(31u)" if n else "31u"
                return (f"// Python's {which}(a, b) = b if b {op} a else a (NaN, signed zeros),\n"
                        f"// compared on order-preserving integer keys of the bits\n"
                        f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                        f"    let ia = bitcast<{it}>(a);\n"
                        f"    let ib = bitcast<{it}>(b);\n"
                        f"    let ka = ia ^ ((ia >> {sh}) & {low});\n"
                        f"    let kb = ib ^ ((ib >> {sh}) & {low});\n"
                        f"    let nan = ((ia & {low}) > {inf}) | ((ib & {low}) > {inf});\n"
                        f"    let zeros = ((ia | ib) & {low}) == {c('0')};\n"
                        f"    return select(a, b, (kb {op} ka) & !(nan | zeros));\n}}")
            if e.kind == "float":
                return (f"// Python's {which}(a, b) = b if b {op} a else a (NaN, signed zeros)\n"
                        f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                        f"    return select(a, b, b {op} a);\n}}")
            return (f"// {which} of signed integers with select (see min_max in emit/wgsl.py)\n"
                    f"fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n"
                    f"    return select(b, a, a {op} b);\n}}")
        return self.helper(f"{which}_{_key(tn)}", make)

    def abs_helper(self, t: T.Type) -> str:
        """Name of the generated signed-integer ``abs`` helper for ``t``."""
        tn = self.type_name(t)

        def make(name: str) -> str:
            # Not WGSL's abs: Mesa (llvmpipe) assumes abs(x) >= 0 and folds what follows
            # (abs(abs(x) >> 31) gave -1 for x = -2**31); Python wraps abs(-2**31) to -2**31.
            return (f"// abs of a signed integer; abs(-2**31) wraps to -2**31\n"
                    f"fn {name}(x: {tn}) -> {tn} {{\n"
                    f"    return select(x, -x, x < {tn}());\n}}")
        return self.helper(f"abs_{_key(tn)}", make)

    def cas(self, node: ast.Call, args: list[str]) -> str:
        """A call of the generated strong compare-exchange helper (retries
        ``atomicCompareExchangeWeak``)."""
        buf = args[0]
        t = self.type_name(node.ps_type)

        def make(name: str) -> str:
            # WGSL only has the weak form, which may fail spuriously: retry until the
            # value really differs or the exchange happened (Python's strong semantics).
            # (naga rejects a function that ends in a loop: break, then return.)
            return (f"fn {name}(i: u32, expected: {t}, desired: {t}) -> {t} {{\n"
                    f"    var old: {t};\n"
                    f"    loop {{\n"
                    f"        let r = atomicCompareExchangeWeak(&{buf}[i], expected, desired);\n"
                    f"        old = r.old_value;\n"
                    f"        if (r.exchanged || r.old_value != expected) {{ break; }}\n"
                    f"    }}\n"
                    f"    return old;\n}}")
        fn = self.helper(f"cas_{buf}", make)
        idx = args[1] if node.args[1].ps_type == T.u32 else f"u32({args[1]})"
        return f"{fn}({idx}, {args[2]}, {args[3]})"


def _key(type_name: str) -> str:
    """A WGSL type name as part of a helper's name: ``vec3<i32>`` -> ``vec3_i32``."""
    return type_name.replace("<", "_").replace(">", "")
