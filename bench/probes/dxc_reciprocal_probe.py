"""Probe (fuzz seed 20261204 kernel 0, seed 8 kernel 0): DXC's SPIR-V optimiser
(spirv-opt, run inside DXC unless ``-O0``) folds ``x / C`` into ``x * (1 / C)`` wherever the
division reaches no ``precise`` declaration: a helper-call argument, a condition, an index.
``x / 3.0`` becomes ``x * 0.33333334``, 1 ulp off for about a third of all x. spirv-opt
leaves an ``OpFDiv`` decorated ``NoContraction`` alone, and pyshade decorates every float
operation only after DXC has run (``toolchains/spirv.py``), so the kernel route compiles
with ``-O0``; the driver optimises the module anyway. Prints, per context and flag, the
float instructions DXC wrote (``OpFDiv`` right, ``OpFMul ... 0.333333343`` wrong):

    python bench/probes/dxc_reciprocal_probe.py
"""
import subprocess
import tempfile
from pathlib import Path

from pyshade.toolchains.dxc import compile_hlsl

TEMPLATE = """[[vk::binding(0, 0)]] precise RWStructuredBuffer<float> o : register(u0);
struct P { float s; };
[[vk::push_constant]] ConstantBuffer<P> p : register(b0);
precise float bits(float x) { return asfloat(asint(x) & 2147483647); }
[numthreads(32, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) {
    precise float s = p.s;
    BODY
}"""
BODIES = {
    "stored": "o[id.x] = s / 3.0f;",
    "helper argument": "o[id.x] = bits(s / 3.0f);",
    "condition": "o[id.x] = (s / 3.0f == 31.230858f) ? 1.0f : 0.0f;",
    "index": "o[(uint)(s / 3.0f)] = 1.0f;",
    "precise temporary": "precise float t = s / 3.0f; o[id.x] = bits(t);",
}


def main() -> None:
    out = Path(tempfile.mkdtemp()) / "k.spv"
    for flags in ([], ["-O0"]):
        for name, body in BODIES.items():
            out.write_bytes(compile_hlsl(TEMPLATE.replace("BODY", body), entry="k",
                                         options=flags))
            text = subprocess.run(["spirv-dis", str(out)], capture_output=True,
                                  text=True).stdout
            ops = [ln.split("=", 1)[1].strip() for ln in text.splitlines()
                   if "OpFDiv" in ln or "OpFMul" in ln]
            print(f"{' '.join(flags) or '-O3':4} {name:18} {ops}")


if __name__ == "__main__":
    main()
