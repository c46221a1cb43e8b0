"""Is every fuzz disagreement on NVIDIA's Vulkan routes the driver's division and square
root? Replay fuzz kernels with the NVIDIA Vulkan rules removed (``--strict``: no
``nvidia-vulkan-inexact``, no ``vulkan-reciprocal``), once as pyshade emits them and once
(``--exact``) with every f32 ``/`` and ``sqrt`` correctly rounded: on the GLSL and HLSL
routes computed in f64 and rounded once to f32.

Why that is exact: the quotient or square root of f32 values is never within 2^-48 of
an f32 rounding boundary (relative), and an f64 result, even 2.5 f64 ulp off (Vulkan's
allowance), is within 2^-50.7; so rounding it to f32 gives the correctly rounded f32,
the cpu device's. HLSL has no f64 ``sqrt``: there the f32 root is refined by one Newton
step in f64 (``y + (x / y - y) / 2`` from a root within 2 ulp: about 46 correct bits).

WGSL has no f64: there ``--exact`` computes the quotient in f32 from the driver's
reciprocal with a Newton step and two ``fma`` residual corrections, and moves a root to
its neighbour where an ``fma`` residual says the neighbour is nearer (``WGSL_DIV``,
``WGSL_SQRT``). ``--selftest`` checks all three routes bit for bit against numpy on the
device that runs them (the WGSL form needs a fused ``fma``: lavapipe's is not).

If a kernel disagrees strictly as emitted and agrees with ``--exact``, its difference is
the driver's f32 division or square root and nothing else (the ``vulkan_div_sqrt_probe``
limitation). A kernel that still disagrees with ``--exact`` is a finding, or on wgpu
another of WGSL's freedoms: ``--no-precise`` and ``--no-float-modes`` give the Vulkan
routes WGSL's contraction and its flushed subnormals and ignored zero signs
(``--like-wgsl``: both), and ``--pair`` compares two devices' outputs bit for bit.

    python bench/probes/vulkan_exact_division_replay.py --devices cpu,vulkan,vulkan-hlsl \\
        --strict [--exact] 20262319:47 20262317:32 ...
    python bench/probes/vulkan_exact_division_replay.py --devices cpu,wgpu,vulkan \\
        --exact --like-wgsl --pair 20262312:25

The patch lives here, in the probe: pyshade's emitters are not changed.
"""
import argparse
import ast
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["PYSHADE_CACHE"] = "0"       # the patched emitters' output must not be cached

import math  # noqa: E402

import numpy as np  # noqa: E402
from fuzz import driver, harness  # noqa: E402

import pyshade as ps  # noqa: E402
from pyshade import f32, vec3  # noqa: E402
from pyshade import types as T  # noqa: E402
from pyshade.emit.clike import elem_type  # noqa: E402
from pyshade.emit.glsl import GlslEmitter  # noqa: E402
from pyshade.emit.hlsl import HlslEmitter  # noqa: E402
from pyshade.emit.wgsl import WgslEmitter  # noqa: E402
from pyshade.runtime.vulkan_support import FloatModes  # noqa: E402


def _n(t: object) -> int:
    return t.n if isinstance(t, T.VectorType) else 1


def _glsl_t(t: object, wide: bool) -> str:
    n = _n(t)
    return ("double" if wide else "float") if n == 1 else ("dvec" if wide else "vec") + str(n)


def _hlsl_t(t: object, wide: bool) -> str:
    n = _n(t)
    return ("double" if wide else "float") + ("" if n == 1 else str(n))


def _is_f32(t: object) -> bool:
    return not isinstance(t, T.MatrixType) and elem_type(t) == T.f32


def _per_component(self, key: str, one: str, args: list[tuple[str, object]], t: object,
                   wgsl: bool) -> str:  # noqa: ANN001
    """The name of a generated function of type ``t`` that applies the scalar helper
    ``one`` to each component; ``args`` are its (name, type) parameters, a vector one
    taken per component, a scalar one whole (``vec / s``)."""
    tn = self.type_name(t)
    params = ", ".join(f"{a}: {self.type_name(at)}" if wgsl else f"{self.type_name(at)} {a}"
                       for a, at in args)
    head = f"fn {{name}}({params}) -> {tn}" if wgsl else f"{tn} {{name}}({params})"
    parts = ", ".join(
        f"{one}(" + ", ".join(f"{a}.{c}" if _n(at) > 1 else a for a, at in args) + ")"
        for c in "xyzw"[:_n(t)])
    return self.helper(key, lambda name: head.format(name=name) + f" {{ return {tn}({parts}); }}")


def _matrix_div(self, node, glsl: bool) -> str:  # noqa: ANN001
    """``matrix / scalar`` of f32, each element through f64."""
    n = node.left.ps_type.n
    tn = self.type_name(node.left.ps_type)
    if glsl:
        cols = ", ".join(f"vec{n}(dvec{n}(m[{j}]) / double(s))" for j in range(n))
        body = f"return {tn}({cols});"
    else:
        body = f"return ({tn})((double{n}x{n})(m) / (double)(s));"

    def make(name: str) -> str:
        return f"{tn} {name}({tn} m, float s) {{ {body} }}"
    return f"{self.helper(f'xdiv_mat{n}', make)}({self.expr(node.left)}, {self.expr(node.right)})"


def patch() -> None:
    """Route every f32 division and square root of the GLSL and HLSL emitters through f64."""
    for cls, tname in ((GlslEmitter, _glsl_t), (HlslEmitter, _hlsl_t)):
        old_binop, old_builtin = cls.ex_BinOp, cls.call_builtin

        def ex_BinOp(self, node, _old=old_binop, _t=tname, _cls=cls):  # noqa: ANN001, ANN202
            if isinstance(node.op, ast.Div) and isinstance(node.left.ps_type, T.MatrixType) \
                    and elem_type(node.left.ps_type) == T.f32:
                return _matrix_div(self, node, _cls is GlslEmitter)
            if isinstance(node.op, ast.Div) and _is_f32(node.ps_type) and \
                    not isinstance(node.left.ps_type, T.MatrixType):
                a = f"{_t(node.left.ps_type, True)}({self.expr(node.left)})"
                b = f"{_t(node.right.ps_type, True)}({self.expr(node.right)})"
                return f"{_t(node.ps_type, False)}({a} / {b})"
            return _old(self, node)

        def call_builtin(self, node, b, _old=old_builtin, _t=tname, _cls=cls):  # noqa: ANN001, ANN202
            if b.name == "math.sqrt" and _is_f32(node.ps_type):
                t = node.ps_type
                x = self.expr(node.args[0])
                if _cls is GlslEmitter:
                    return f"{_t(t, False)}(sqrt({_t(t, True)}({x})))"
                def scalar(name: str) -> str:
                    # one Newton step in f64 from the f32 root; 0 and inf stay as they are
                    return (f"float {name}(float x) {{\n"
                            f"    double y = double(sqrt(x));\n"
                            f"    double z = y + (double(x) / y - y) * 0.5;\n"
                            f"    return float((y > 0.0 && !isinf(y)) ? z : y);\n}}")

                one = self.helper("xsqrt1", scalar)
                if _n(t) == 1:
                    return f"{one}({x})"
                return f"{_per_component(self, f'xsqrt{_n(t)}', one, [('x', t)], t, False)}({x})"
            return _old(self, node, b)

        cls.ex_BinOp, cls.call_builtin = ex_BinOp, call_builtin


# WGSL has no f64: a quotient from the driver's reciprocal refined by one Newton step,
# then corrected twice by its residual (fma: exact); a root moved to its neighbour where
# the fma residual against the neighbour's midpoint says the neighbour is nearer. Both
# are checked bit for bit against numpy by ``--selftest`` on the device that runs them.
WGSL_DIV = """fn {name}(a: f32, b: f32) -> f32 {{
    let r0 = 1.0 / b;
    let r = fma(fma(-b, r0, 1.0), r0, r0);
    let q0 = a * r;
    let q1 = fma(fma(-b, q0, a), r, q0);
    let q2 = fma(fma(-b, q1, a), r, q1);
    let plain = a / b;
    let ok = abs(q0) < 1e37 && abs(q0) > 1e-36 && abs(b) < 1e37;
    return select(plain, q2, ok);
}}"""
WGSL_SQRT = """fn {name}(x: f32) -> f32 {{
    let s = sqrt(x);
    if (!(x > 1e-36) || !(x < 1e37)) {{ return s; }}
    let up = bitcast<f32>(bitcast<u32>(s) + 1u);
    let dn = bitcast<f32>(bitcast<u32>(s) - 1u);
    if (fma(s, up, -x) < 0.0) {{ return up; }}
    if (fma(dn, s, -x) >= 0.0) {{ return dn; }}
    return s;
}}"""


def patch_wgsl() -> None:
    """Correctly rounded f32 division and square root in the WGSL emitter, in f32."""
    old_binop, old_builtin = WgslEmitter.ex_BinOp, WgslEmitter.call_builtin

    def ex_BinOp(self, node):  # noqa: ANN001, ANN202
        if isinstance(node.op, ast.Div) and isinstance(node.left.ps_type, T.MatrixType) \
                and elem_type(node.left.ps_type) == T.f32:
            one = self.helper("xdiv", lambda name: WGSL_DIV.format(name=name))
            n = node.left.ps_type.n
            tn = self.type_name(node.left.ps_type)
            cols = ", ".join(f"vec{n}<f32>(" + ", ".join(f"{one}(m[{j}].{c}, s)" for c in "xyzw"[:n])
                             + ")" for j in range(n))

            def mk(name: str) -> str:
                return f"fn {name}(m: {tn}, s: f32) -> {tn} {{ return {tn}({cols}); }}"
            return f"{self.helper(f'xdiv_mat{n}', mk)}({self.expr(node.left)}, {self.expr(node.right)})"
        if isinstance(node.op, ast.Div) and _is_f32(node.ps_type) and \
                not isinstance(node.left.ps_type, T.MatrixType):
            one = self.helper("xdiv", lambda name: WGSL_DIV.format(name=name))
            lt, rt, t = node.left.ps_type, node.right.ps_type, node.ps_type
            if _n(t) == 1:
                return f"{one}({self.expr(node.left)}, {self.expr(node.right)})"
            name = _per_component(self, f"xdiv{_n(lt)}_{_n(rt)}", one, [("a", lt), ("b", rt)],
                                  t, True)
            return f"{name}({self.expr(node.left)}, {self.expr(node.right)})"
        return old_binop(self, node)

    def call_builtin(self, node, b):  # noqa: ANN001, ANN202
        if b.name == "math.sqrt" and _is_f32(node.ps_type):
            one = self.helper("xsqrt", lambda name: WGSL_SQRT.format(name=name))
            t, x = node.ps_type, self.expr(node.args[0])
            if _n(t) == 1:
                return f"{one}({x})"
            return f"{_per_component(self, f'xsqrt{_n(t)}', one, [('x', t)], t, True)}({x})"
        return old_builtin(self, node, b)

    WgslEmitter.ex_BinOp, WgslEmitter.call_builtin = ex_BinOp, call_builtin


def strict() -> None:
    """Remove the rules that accept NVIDIA's Vulkan quotients and roots."""
    harness.RULES = tuple(r for r in harness.RULES if r.name != "nvidia-vulkan-inexact")
    harness.RECIPROCAL_VULKAN = harness.Rule("vulkan-reciprocal-off", "none", "", "reciprocal", "")


def no_precise() -> None:
    """No ``precise`` on the Vulkan routes, and no ``NoContraction`` added to every float
    operation after compiling (``toolchains/spirv.no_contraction``, which the first run of
    this probe left on, so that it allowed no contraction): the driver may contract, as
    through WGSL."""
    from pyshade.toolchains import glslang, spirv
    GlslEmitter.PRECISE = ""
    HlslEmitter.PRECISE = ""
    glslang.no_contraction = spirv.no_contraction = lambda binary: binary


def no_float_modes() -> None:
    """None of the float-control modes (DenormPreserve, SignedZeroInfNanPreserve) the
    vulkan device adds and naga's SPIR-V cannot have: subnormals may be flushed and
    zero signs ignored, as through WGSL."""
    FloatModes.__bool__ = lambda self: False


def pair(specs: list[str], devs: list) -> None:
    """Each kernel on the first two non-cpu devices: are their outputs the same bits?"""
    (la, da), (lb, db) = [(label, d) for label, d in devs if label != "cpu"][:2]
    work = Path(tempfile.mkdtemp())
    for spec in specs:
        seed, j = map(int, spec.split(":"))
        k = harness.make_kernel(seed, j)
        mod = harness.load(harness.module_source([k]), work, f"pair_{seed}_{j}")
        fn, params, inputs = harness.kernel_of(mod, k, seed, j)
        try:
            ga = harness.launch(params, k.meta, fn, mod, da, inputs)
            gb = harness.launch(params, k.meta, fn, mod, db, inputs)
        except Exception as e:  # noqa: BLE001 - reported, the next kernel goes on
            print(f"PAIR {spec} error {type(e).__name__}: {str(e)[:200]}")
            continue
        diff = {b: int(harness.differ(ga[b], gb[b]).sum()) for b in ga}
        n = sum(diff.values())
        print(f"PAIR {spec} {'same' if n == 0 else 'differ'} {la} {lb} "
              f"{ {b: c for b, c in diff.items() if c} }")


@ps.kernel(workgroup_size=64)
def _div_sqrt(a: ps.Buffer[f32], b: ps.Buffer[f32], q: ps.Buffer[f32], r: ps.Buffer[f32],
              q3: ps.Buffer[vec3], r3: ps.Buffer[vec3]) -> None:
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] / b[i]
        r[i] = math.sqrt(b[i])
    if i < len(q3):
        v = vec3(a[3 * i], a[3 * i + 1], a[3 * i + 2])
        w = vec3(b[3 * i], b[3 * i + 1], b[3 * i + 2])
        q3[i] = v / w
        r3[i] = math.sqrt(w)


def selftest(devs: list) -> None:
    """2^20 quotients and roots of random f32 over a wide range, on each device, against
    numpy's correctly rounded ones: how many differ."""
    rng = np.random.default_rng(20261205)
    n = 1 << 20
    a = (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-8, 8, n)).astype(np.float32)
    b = (10.0 ** rng.uniform(-8, 8, n)).astype(np.float32)
    wq, wr = a / b, np.sqrt(b)
    for label, dev in devs:
        q, r = np.zeros(n, np.float32), np.zeros(n, np.float32)
        q3, r3 = np.zeros((n // 3, 3), np.float32), np.zeros((n // 3, 3), np.float32)
        _div_sqrt.launch(a, b, q, r, q3, r3, threads=n, device=dev)
        bad = [int((x.view(np.uint32) != w.view(np.uint32)).sum()) for x, w in (
            (q, wq), (r, wr), (q3.reshape(-1), wq[:n // 3 * 3]), (r3.reshape(-1), wr[:n // 3 * 3]))]
        print(f"SELFTEST {label}: of {n} a / b {bad[0]} differ, sqrt {bad[1]}; "
              f"vec3 of {n // 3 * 3}: {bad[2]}, {bad[3]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", help="SEED:INDEX")
    ap.add_argument("--devices", default="cpu,vulkan,vulkan-hlsl")
    ap.add_argument("--exact", action="store_true", help="f32 / and sqrt through f64")
    ap.add_argument("--strict", action="store_true", help="no NVIDIA Vulkan rules")
    ap.add_argument("--like-wgsl", action="store_true",
                    help="no precise and no float-control modes on the Vulkan routes")
    ap.add_argument("--no-precise", action="store_true", help="no precise (Vulkan routes)")
    ap.add_argument("--no-float-modes", action="store_true",
                    help="no DenormPreserve or SignedZeroInfNanPreserve (Vulkan routes)")
    ap.add_argument("--pair", action="store_true",
                    help="compare the first two non-cpu devices' outputs bit for bit")
    ap.add_argument("--selftest", action="store_true", help="check / and sqrt, then stop")
    a = ap.parse_args()
    if a.exact:
        patch()
        patch_wgsl()
    if a.like_wgsl or a.no_precise:
        no_precise()
    if a.like_wgsl or a.no_float_modes:
        no_float_modes()
    if a.strict:
        strict()
    devs = driver.devices(set(a.devices.split(",")))
    mode = ("exact" if a.exact else "as-emitted") + (" strict" if a.strict else "") + \
        (" like-wgsl" if a.like_wgsl else "") + (" no-precise" if a.no_precise else "") + \
        (" no-float-modes" if a.no_float_modes else "")
    if a.selftest:
        selftest([(label, d) for label, d in devs if label != "cpu"])
        return
    if a.pair:
        pair(a.kernels, devs)
        return
    print("devices:", [label for label, _ in devs], "mode:", mode)
    work = Path(tempfile.mkdtemp())
    for spec in a.kernels:
        seed, j = map(int, spec.split(":"))
        res, _ = driver.run(seed, j + 1, devs, work, batch=1, start=j)
        for r in res:
            if r.cpu_error:
                print(f"RESULT {seed}:{j} cpu error {r.cpu_error[:200]}")
            for o in r.outcomes:
                first = o.mismatches[0] if o.mismatches else o.error[:200]
                print(f"RESULT {seed}:{j} {o.device} {o.status} [{mode}] {first}")


if __name__ == "__main__":
    main()
