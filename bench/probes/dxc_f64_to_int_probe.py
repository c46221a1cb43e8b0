"""Probe (fuzz, the f64 -> u32 finding): DXC 1.7 converts a double to a 32-bit integer
through float, ``uint(d)`` is ``OpFConvert %float`` then ``OpConvertFToU``, so
2147483647.5 becomes 2147483648 (and 16777217.0 becomes 16777216); through the 64-bit
integer of the same signedness, ``uint(uint64_t(d))``, DXC converts directly. pyshade's
HLSL spells ``convert`` of an f64 so (``hlsl_tables.F64_TO_INT_VIA``). Prints the
conversion instructions of each spelling:

    python bench/probes/dxc_f64_to_int_probe.py
"""
import subprocess
import tempfile
from pathlib import Path

from pyshade.toolchains.dxc import compile_hlsl

TEMPLATE = """[[vk::binding(0, 0)]] StructuredBuffer<double> x : register(t0);
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> o : register(u0);
[numthreads(8, 1, 1)]
void k(uint3 id : SV_DispatchThreadID) { double d = x[id.x]; o[id.x] = BODY; }"""


def main() -> None:
    out = Path(tempfile.mkdtemp()) / "k.spv"
    for body in ("uint(d)", "(uint)d", "asuint(int(d))", "uint(uint64_t(d))",
                 "asuint(int(int64_t(d)))"):
        out.write_bytes(compile_hlsl(TEMPLATE.replace("BODY", body), entry="k"))
        text = subprocess.run(["spirv-dis", str(out)], capture_output=True, text=True).stdout
        ops = [" ".join(ln.split("=", 1)[1].split()[:2]) for ln in text.splitlines()
               if "Convert" in ln]
        print(f"{body:24} {ops}")


if __name__ == "__main__":
    main()
