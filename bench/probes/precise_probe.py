"""Probe (issue 16, item 1): which float operations end up ``NoContraction`` in SPIR-V
when GLSL (glslang) or HLSL (DXC; glslang's HLSL front end) says ``precise``.

Both compilers propagate ``precise`` backwards: an arithmetic instruction gets
``NoContraction`` when its value flows into a ``precise`` object (through any chain of
plain variables), or into the return value of a ``precise`` function. Each case below is
one small compute shader; the probe compiles it with each compiler, disassembles it
(``spirv-dis``) and prints how many of its float ``OpFMul``/``OpFAdd``/``OpFSub``/
``OpFDiv`` carry ``NoContraction`` (``m/n``; ``-`` where a form has no spelling in that
language, ``error`` where the compiler refuses it).

    PYTHONPATH=. python bench/probes/precise_probe.py          # from the repository root
    python bench/probes/precise_probe.py -v CASE   # also print CASE's disassembly
    python bench/probes/precise_probe.py --goldens # the same count for every GLSL and
                                                   # HLSL golden, as compiled without and
                                                   # with spirv.no_contraction
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pyshade.errors import CompileError
from pyshade.toolchains import dxc
from pyshade.toolchains.glslang import compile_glsl

GLSL_HEAD = """#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) buffer O { PRECISE float o[]; };
layout(std430, set = 0, binding = 2) buffer U { PRECISE uint ou[]; };
struct S { float x; vec2 y; };
layout(std430, set = 0, binding = 3) buffer P { PRECISE S os[]; };
PRECISE shared float sh[64];
"""
HLSL_HEAD = """[[vk::binding(0, 0)]] StructuredBuffer<float> a : register(t0);
[[vk::binding(1, 0)]] PRECISE RWStructuredBuffer<float> o : register(u0);
[[vk::binding(2, 0)]] PRECISE RWStructuredBuffer<uint> ou : register(u1);
struct S { float x; float2 y; };
[[vk::binding(3, 0)]] PRECISE RWStructuredBuffer<S> os : register(u2);
PRECISE groupshared float sh[64];
"""
# (name, GLSL helpers, GLSL body, HLSL helpers, HLSL body); in the bodies ``i`` is the
# invocation index, ``@M`` stands for a[i] * a[i + 1] + a[i + 2] (one mul, one add).
M = "a[i] * a[i + 1] + a[i + 2]"
CASES = [
    ("plain store, plain buffer", "", "o[i] = @M;", "", "o[i] = @M;"),
    ("precise local", "", "precise float t = @M; o[i] = t;",
     "", "precise float t = @M; o[i] = t;"),
    ("plain local into precise local", "",
     "float u = a[i] * a[i + 1]; precise float v = u + a[i + 2]; o[i] = v;",
     "", "float u = a[i] * a[i + 1]; precise float v = u + a[i + 2]; o[i] = v;"),
    ("store into precise buffer", "", "o[i] = @M;", "", "o[i] = @M;"),
    ("struct field of precise buffer", "", "os[i].x = @M; os[i].y = vec2(@M);",
     "", "os[i].x = @M; os[i].y = (float2)(@M);"),
    ("store into precise shared", "", "sh[i % 64u] = @M; barrier(); o[i] = sh[(i + 1u) % 64u];",
     "", "sh[i % 64u] = @M; GroupMemoryBarrierWithGroupSync(); o[i] = sh[(i + 1u) % 64u];"),
    ("precise bool of a comparison", "",
     "precise bool c = @M > 0.0; if (c) { o[i] = 1.0; }",
     "", "precise bool c = @M > 0.0f; if (c) { o[i] = 1.0f; }"),
    ("precise int of a conversion", "", "precise int k = int(@M); ou[i] = uint(k);",
     "", "precise int k = int(@M); ou[i] = uint(k);"),
    ("int store into precise uint buffer", "", "ou[i] = uint(@M);", "", "ou[i] = uint(@M);"),
    ("precise struct local", "", "precise S s = S(@M, vec2(0.0)); o[i] = s.x;",
     "", "precise S s = {@M, float2(0.0f, 0.0f)}; o[i] = s.x;"),
    ("component of a precise vector", "",
     "precise vec2 w = vec2(1.0); w.x = @M; o[i] = w.x;",
     "", "precise float2 w = float2(1.0f, 1.0f); w.x = @M; o[i] = w.x;"),
    ("precise array local", "",
     "precise float w[2] = float[2](0.0, 0.0); w[1] = @M; o[i] = w[1];",
     "", "precise float w[2] = {0.0f, 0.0f}; w[1] = @M; o[i] = w[1];"),
    ("if condition", "", "if (@M > 0.0) { o[i] = 1.0; }", "", "if (@M > 0.0f) { o[i] = 1.0f; }"),
    ("while condition", "", "uint n = 0u; while (@M > float(n)) { n++; } ou[i] = n;",
     "", "uint n = 0u; while (@M > float(n)) { n++; } ou[i] = n;"),
    ("ternary condition in a precise store", "", "o[i] = (@M > 0.0) ? 1.0 : 2.0;",
     "", "o[i] = (@M > 0.0f) ? 1.0f : 2.0f;"),
    ("&& operand in a precise bool", "",
     "precise bool c = (a[i] > 0.0) && (@M > 0.0); ou[i] = uint(c);",
     "", "precise bool c = (a[i] > 0.0f) && (@M > 0.0f); ou[i] = uint(c);"),
    ("index of a read in a precise store", "", "o[i] = a[uint(@M)];", "", "o[i] = a[uint(@M)];"),
    ("index of the stored element", "", "o[uint(@M)] = 1.0;", "", "o[uint(@M)] = 1.0f;"),
    ("plain helper, result stored", "float h(float x) { return x * a[0] + 1.0; }",
     "o[i] = h(a[i]);", "float h(float x) { return x * a[0] + 1.0f; }", "o[i] = h(a[i]);"),
    ("precise helper, result stored", "precise float h(float x) { return x * a[0] + 1.0; }",
     "o[i] = h(a[i]);", "precise float h(float x) { return x * a[0] + 1.0f; }",
     "o[i] = h(a[i]);"),
    ("argument of a plain helper, result stored", "float h(float x) { return x; }",
     "o[i] = h(@M);", "float h(float x) { return x; }", "o[i] = h(@M);"),
    ("mutated parameter of a precise helper",
     "precise float h(float x) { x = x * a[0] + 1.0; return x; }", "o[i] = h(a[i]);",
     "precise float h(float x) { x = x * a[0] + 1.0f; return x; }", "o[i] = h(a[i]);"),
    ("precise struct helper", "precise S h(float x) { return S(x * a[0] + 1.0, vec2(0.0)); }",
     "o[i] = h(a[i]).x;",
     "precise S h(float x) { S s = {x * a[0] + 1.0f, float2(0.0f, 0.0f)}; return s; }",
     "o[i] = h(a[i]).x;"),
    ("argument of a void call statement", "void st(uint j, float x) { o[j] = x; }",
     "st(i, @M);", "void st(uint j, float x) { o[j] = x; }", "st(i, @M);"),
    ("argument of a discarded atomic", "", "atomicAdd(ou[i], uint(@M));",
     "", "InterlockedAdd(ou[i], uint(@M));"),
    ("precise parameter of a void helper", "void st(uint j, precise float x) { o[j] = x; }",
     "st(i, @M);", "void st(uint j, precise float x) { o[j] = x; }", "st(i, @M);"),
    ("precise parameter of a plain helper, stored", "float h(precise float x) { return x; }",
     "o[i] = h(@M);", "float h(precise float x) { return x; }", "o[i] = h(@M);"),
    ("atomic result into a precise temp", "", "precise uint t = atomicAdd(ou[i], uint(@M));",
     "", "precise uint t; InterlockedAdd(ou[i], uint(@M), t);"),
    ("ternary condition through a precise bool", "",
     "precise bool c = @M > 0.0; o[i] = c ? 1.0 : 2.0;",
     "", "precise bool c = @M > 0.0f; o[i] = c ? 1.0f : 2.0f;"),
    ("argument into a precise temp before a call", "void st(uint j, float x) { o[j] = x; }",
     "precise float t = @M; st(i, t);", "void st(uint j, float x) { o[j] = x; }",
     "precise float t = @M; st(i, t);"),
]


def disassemble(spv: bytes) -> str:
    """spirv-dis of a module."""
    with tempfile.NamedTemporaryFile(suffix=".spv") as f:
        f.write(spv)
        f.flush()
        return subprocess.run(["spirv-dis", f.name], capture_output=True, text=True,
                              check=True).stdout


def marked(text: str) -> str:
    """``m/n``: float mul/add/sub/div carrying NoContraction, of all of them, in a
    disassembly; ``+fma`` where the compiler itself fused a product and a sum."""
    nc = set(re.findall(r"OpDecorate (%\w+) NoContraction", text))
    ops = re.findall(r"(%\w+) = OpF(?:Mul|Add|Sub|Div) ", text)
    fma = len(re.findall(r"OpExtInst %\w+ %\w+ Fma ", text))
    return f"{sum(o in nc for o in ops)}/{len(ops)}" + (f"+{fma}fma" if fma else "")


def glsl_source(helpers: str, body: str, precise: bool) -> str:
    """The GLSL shader of a case."""
    head = GLSL_HEAD.replace("PRECISE ", "precise " if precise else "")
    return f"{head}{helpers}\nvoid main() {{\n    uint i = gl_GlobalInvocationID.x;\n" \
           f"    {body.replace('@M', M)}\n}}\n"


def hlsl_source(helpers: str, body: str, precise: bool) -> str:
    """The HLSL shader of a case (entry point ``k``)."""
    head = HLSL_HEAD.replace("PRECISE ", "precise " if precise else "")
    return f"{head}{helpers}\n[numthreads(64, 1, 1)]\nvoid k(uint3 id : SV_DispatchThreadID) " \
           f"{{\n    uint i = id.x;\n    {body.replace('@M', M)}\n}}\n"


def glslang_hlsl(source: str) -> bytes:
    """SPIR-V from glslang's HLSL front end (as tests/test_golden.py runs it)."""
    tool = shutil.which("glslangValidator")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp, "k.hlsl"), Path(tmp, "k.spv")
        src.write_text(source)
        r = subprocess.run([tool, "-D", "-V", "--target-env", "vulkan1.1", "-e", "k",
                            "-S", "comp", "-o", str(out), str(src)],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise CompileError(r.stdout + r.stderr, target="hlsl")
        return out.read_bytes()


def run(compile_fn, source: str) -> tuple[str, str]:
    """``m/n`` for one compiler on one source, and the disassembly."""
    try:
        text = disassemble(compile_fn(source))
    except CompileError as e:
        return "error", str(e) + "\n" + (getattr(e, "log", "") or "")
    return marked(text), text


def goldens() -> None:
    """One row per golden kernel: ``m/n`` of its GLSL (glslang) and HLSL (DXC) as the
    text alone gets them, then with ``no_contraction`` (what the vulkan routes run)."""
    from pyshade.toolchains.spirv import no_contraction
    root = Path(__file__).resolve().parents[2] / "tests" / "golden"
    print(f"{'golden':44} {'glsl':>9} {'+pass':>9} {'hlsl':>9} {'+pass':>9}")
    for g in sorted((root / "glsl").glob("*.glsl")):
        h = root / "hlsl" / (g.stem + ".hlsl")
        glsl_spv = compile_glsl(g.read_text())
        text = h.read_text()
        entry = re.search(r"^\[numthreads\([^)]*\)\]\n(?:#line .*\n)?void (\w+)\(", text,
                          re.MULTILINE).group(1)
        hlsl_spv = dxc.compile_hlsl(text, entry=entry, target="spirv")
        cells = [marked(disassemble(b)) for spv in (glsl_spv, hlsl_spv)
                 for b in (spv, no_contraction(spv))]
        print(f"{g.stem:44} " + " ".join(f"{c:>9}" for c in cells))


def main(argv: list[str]) -> None:
    """Print one row per case: glslang GLSL, DXC HLSL, glslang HLSL."""
    if argv[1:] == ["--goldens"]:
        return goldens()
    verbose = argv[2] if len(argv) > 2 and argv[1] == "-v" else None
    compilers = [("glslang", lambda s: compile_glsl(s), glsl_source),
                 ("DXC", lambda s: dxc.compile_hlsl(s, entry="k", target="spirv"),
                  hlsl_source),
                 ("glslang -D", glslang_hlsl, hlsl_source)]
    print(f"{'case':48} " + " ".join(f"{c:>11}" for c, _, _ in compilers))
    for n, (name, gh, gb, hh, hb) in enumerate(CASES):
        precise = n > 0      # the first case: nothing precise anywhere
        cells = []
        for cname, fn, make in compilers:
            helpers, body = (gh, gb) if make is glsl_source else (hh, hb)
            cell, text = run(fn, make(helpers, body, precise))
            cells.append(cell)
            if verbose and verbose in name:
                print(f"--- {name}: {cname}\n{text}")
        print(f"{name:48} " + " ".join(f"{c:>11}" for c in cells))


if __name__ == "__main__":
    main(sys.argv)
