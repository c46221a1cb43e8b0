"""Generated WGSL text the kernel language cannot express (a mixin of the WGSL
emitter): non-finite constants and the strong compare-exchange.

Python's semantics of operators and builtins are in ``pyshade.prelude``,
written once for every target; what is left here is WGSL's own. Each helper
is written once into the output (``Emitter.helper``), before the functions
that call it.
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

    def matrix_div(self, node: ast.BinOp) -> str:
        """``m / s``: WGSL has no matrix / scalar operator, so a helper divides each column
        (``m * (1.0 / s)`` would round twice)."""
        n = node.left.ps_type.n
        mt = self.type_name(node.left.ps_type)

        def make(name: str) -> str:
            cols = ", ".join(f"m[{j}] / s" for j in range(n))
            return (f"fn {name}(m: {mt}, s: f32) -> {mt} {{\n"
                    f"    return {mt}({cols});\n}}")
        return f"{self.helper(f'div_mat{n}', make)}({self.expr(node.left)}, {self.expr(node.right)})"

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
