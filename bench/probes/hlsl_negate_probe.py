"""Probe (issue 8, differential seed 5568302577557140178): DXC 1.7 (compushady's
libdxcompiler) folds the unsigned ``-(x / C)`` into ``x / -C``: the SPIR-V divides by
0xffffffff for ``-(x / 1u)``. Prints the division and negation instructions of each
variant's SPIR-V (spirv-dis from spirv-tools); ``0u - (x / C)`` keeps both.

    python bench/probes/hlsl_negate_probe.py
"""
import subprocess
import tempfile

from pyshade.toolchains import dxc

SRC = """[[vk::binding(0, 0)]] StructuredBuffer<uint> b : register(t0);
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> out_ : register(u0);
[numthreads(64, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) { out_[id.x] = EXPR; }
"""
VARIANTS = ["-(b[id.x] / 1u)", "-(b[id.x] / 3u)", "0u - (b[id.x] / 3u)",
            "-(b[id.x] / b[id.x + 1])", "-(int(b[id.x]) / 3)"]


def main() -> None:
    for expr in VARIANTS:
        spv = dxc.compile_hlsl(SRC.replace("EXPR", expr), entry="k", target="spirv")
        with tempfile.NamedTemporaryFile(suffix=".spv") as f:
            f.write(spv)
            f.flush()
            text = subprocess.run(["spirv-dis", f.name], capture_output=True, text=True,
                                  check=True).stdout
        ops = [ln.split("=", 1)[1].strip() for ln in text.splitlines()
               if any(op in ln for op in ("Div ", "Negate ", "ISub "))]
        print(f"{expr:28} {' ; '.join(ops)}")


if __name__ == "__main__":
    main()
