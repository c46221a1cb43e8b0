"""Probe (fuzz seeds 20263125 kernel 24, 20263131 kernel 18): DXC 1.7 writes ``mad`` as
GLSL.std.450 ``Fma`` (an integer one as ``OpIMul``/``OpIAdd``) and decorates the result
``NoContraction`` as it goes; in code that never runs, after a ``return``/``break``/
``continue`` in the same block (also one inside ``if (true)``, whose test DXC folds, so the
jump lands in the enclosing block), the instruction is dropped and the decoration kept:
"forward referenced IDs have not been defined" at ``-O0`` (spirv-val inside DXC), a crash
(SIGSEGV) without. A plain ``a * b + c``, or ``mad`` inside a function called there, is
fine; so pyshade's HLSL calls ``mad`` only inside its ``ps_fma_*`` helpers
(``HlslEmitter.fma_call``). Prints each spelling's result:

    python bench/probes/dxc_mad_dead_code_probe.py
"""
from pyshade.errors import CompileError
from pyshade.toolchains.dxc import compile_hlsl

TEMPLATE = """[[vk::binding(0, 0)]] RWStructuredBuffer<float> o : register(u0);
precise float fma_helper(float a, float b, float c) { return mad(a, b, c); }
[numthreads(32, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) {
    float x = o[id.x];
    for (int j = 0; j < 4; j += 1) { BODY }
}"""
BODIES = {
    "if (true) { continue; } mad": "if (true) { continue; } o[id.x] = mad(x, x, x);",
    "continue; mad": "continue; o[id.x] = mad(x, x, x);",
    "if (true) { break; } int mad": "if (true) { break; } o[id.x] = mad(int(x), 2, 1);",
    "if (id.x < 99u) { continue; } mad": "if (id.x < 99u) { continue; } o[id.x] = mad(x, x, x);",
    "if (false) { mad }": "if (false) { o[id.x] = mad(x, x, x); }",
    "if (true) { continue; } a * b + c": "if (true) { continue; } o[id.x] = x * x + x;",
    "if (true) { continue; } helper": "if (true) { continue; } o[id.x] = fma_helper(x, x, x);",
    "continue; helper": "continue; o[id.x] = fma_helper(x, x, x);",
}


def main() -> None:
    for flags in (["-O0"], []):
        for name, body in BODIES.items():
            try:
                compile_hlsl(TEMPLATE.replace("BODY", body), entry="k", options=flags)
                result = "ok"
            except CompileError as exc:
                result = str(exc).splitlines()[0][:90]
            print(f"{' '.join(flags) or '-O3':4} {name:36} {result}")


if __name__ == "__main__":
    main()
