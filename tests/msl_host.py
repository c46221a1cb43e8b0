"""``MslHostDevice``: pyshade's MSL emission compiled as C++20 by g++ against a stand-in
for ``metal_stdlib`` (``tests/msl_host/metal_stdlib``) and run on the CPU.

No Mac is at hand, so without this the MSL would only be translated. Here every
execution test and the differential test also run the generated MSL and check its
results against numpy: precedence, conversions, vector and matrix operators, swizzles,
struct layouts (the emitted static_asserts), atomics, barriers and the prelude's C++
are exercised. What this cannot check is Apple's compiler and GPU: it is a stand-in,
and Metal execution is untested until a Mac runs the suite.

The kernel's entry point takes its buffers, its parameter block and its invocation ids
as parameters (emit/msl.py); a generated launcher calls it once per invocation with the
ids, looping over the groups; within a group the invocations run one after another, or,
when the kernel has a barrier, one fiber each on the launching thread
(``tests/cuda_host/ps_fibers.h``): a barrier switches to the next invocation. Threadgroup
arrays, which MSL declares in the kernel function, become ``static`` locals here (the
one source rewrite, since no macro can make a declaration shared): the groups run one
at a time, so one copy is the group's.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from cuda_host import CudaHostDevice, compiler

from pyshade.errors import LaunchError
from pyshade.runtime.base import Compiled

__all__ = ["MslHostDevice", "compiler", "launcher"]

HERE = Path(__file__).parent / "msl_host"
# Per id attribute, its value for invocation (i, j, k) of group g.
_IDS = {"thread_position_in_grid": "uint3(g.x * {bx}u + i, g.y * {by}u + j, g.z * {bz}u + k)",
        "thread_position_in_threadgroup": "uint3(i, j, k)",
        "threadgroup_position_in_grid": "g",
        "threadgroups_per_grid": "uint3(gx, gy, gz)",
        "thread_index_in_threadgroup": "i + j * {bx}u + k * {bx}u * {by}u"}
_LAUNCHER = r"""
#undef kernel
#undef device
#undef constant
#undef thread
#undef threadgroup
static void ps_host_one(void** b, uint3 g, unsigned gx, unsigned gy, unsigned gz,
                        unsigned i, unsigned j, unsigned k) {
    (void)b; (void)gx; (void)gy; (void)gz;
    ::%(entry)s(%(args)s);
}
extern "C" void ps_host_run(void** b, unsigned gx, unsigned gy, unsigned gz) {
    if (%(threaded)d) {
        // the invocations of a group as fibers (ps_fibers.h), made once per launch
        ps_fibers f(%(bx)d * %(by)d * %(bz)d);
        for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y)
        for (unsigned x = 0; x < gx; ++x) {
            uint3 g(x, y, z);
            f.run([=](unsigned t) {
                ps_host_one(b, g, gx, gy, gz, t %% %(bx)du, t / %(bx)du %% %(by)du,
                            t / (%(bx)du * %(by)du));
            });
        }
        return;
    }
    for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x) {
        uint3 g(x, y, z);
        for (unsigned k = 0; k < %(bz)du; ++k) for (unsigned j = 0; j < %(by)du; ++j)
        for (unsigned i = 0; i < %(bx)du; ++i) ps_host_one(b, g, gx, gy, gz, i, j, k);
    }
}
"""


def _split_params(text: str) -> list[str]:
    """The parameters of a parameter list (commas inside ``<>`` or ``()`` kept)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "<([" and 1 or 0
        depth -= ch in ">)]" and 1 or 0
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def launcher(source: str, entry: str, workgroup_size: tuple[int, int, int]) -> str:
    """The C++ calling the entry point of ``source`` per invocation: buffer ``i`` from the
    i-th pointer, ids computed from the attribute each parameter carries."""
    m = re.search(rf"^kernel void {re.escape(entry)}\((.*)\) \{{", source, re.M)
    if m is None:
        raise LaunchError(f"no entry point 'kernel void {entry}(...)' in the MSL")
    bx, by, bz = workgroup_size
    args = []
    for p in _split_params(m.group(1)):
        attr = re.search(r"\[\[(\w+)(?:\((\d+)\))?\]\]", p)
        if attr is None:
            raise LaunchError(f"entry parameter without an attribute: {p}")
        decl = p[:attr.start()].strip()
        ctype = decl.rsplit(" ", 1)[0]
        for word in ("device", "constant"):
            ctype = re.sub(rf"\b{word}\b\s*", "", ctype)
        if attr.group(1) == "buffer":
            i = attr.group(2)
            args.append(f"*({ctype[:-1]}*)b[{i}]" if ctype.endswith("&") else
                        f"({ctype})b[{i}]")
        else:
            args.append(_IDS[attr.group(1)].format(bx=bx, by=by, bz=bz))
    threaded = int("threadgroup_barrier(" in source)
    return _LAUNCHER % {"entry": entry, "args": ", ".join(args), "threaded": threaded,
                        "bx": bx, "by": by, "bz": bz}


def host_source(source: str) -> str:
    """``source`` with its kernel-scope threadgroup arrays as ``static`` locals (see the
    module docstring); everything else as emitted."""
    return re.sub(r"^(\s+)threadgroup (\S.*\[\d+\];)", r"\1static \2", source, flags=re.M)


class MslHostDevice(CudaHostDevice):
    """The MSL emission on the CPU (see the module docstring); device name msl-host."""

    name = "msl-host"
    backend = "msl-host"
    target = "msl"

    def __init__(self):
        super().__init__()
        self.adapter = f"MSL as C++ on the CPU ({self.cxx}, tests/msl_host stand-in)"
        self.features = {"f16", "i64"}        # MSL has no f64
        self.limits = {"max_compute_shared_memory_size": 32768}     # Apple GPUs' 32 KiB

    LANGUAGE = "MSL"

    def host_text(self, compiled: Compiled) -> str:
        """The emission (threadgroup arrays as statics) and its launcher."""
        return host_source(compiled.source) + launcher(compiled.source, compiled.entry,
                                                       compiled.layout.workgroup_size)

    def compile_command(self, src: Path, so: Path) -> list[str]:
        """g++ on ``src`` against the metal_stdlib stand-in."""
        return [self.cxx, "-std=c++20", "-O1", "-fPIC", "-shared", "-ffp-contract=off",
                "-Wno-attributes", f"-I{HERE}", "-pthread", "-o", str(so), str(src),
                # e.g. -fsanitize=signed-integer-overflow: the emission must never
                # overflow a signed type (it computes in the unsigned one).
                *os.environ.get("PYSHADE_MSL_HOST_CXXFLAGS", "").split()]


def syntax_check(source: str, name: str = "kernel.metal") -> str:
    """g++'s diagnostics for ``source`` with its launcher, compiled against the stand-in
    without code generation (the emitted static_asserts of every layout included); "" when
    it compiles. The entry point is the source's one ``kernel void``."""
    m = re.search(r"^kernel void (\w+)\(", source, re.M)
    if m is None:
        return f"{name}: no kernel void entry point"
    cmd = [compiler() or "g++", "-std=c++20", "-fsyntax-only", "-Wno-attributes", f"-I{HERE}",
           "-x", "c++", "-"]
    text = host_source(source) + launcher(source, m.group(1), (64, 1, 1))
    r = subprocess.run(cmd, input=text, capture_output=True, text=True)
    return "" if r.returncode == 0 else r.stderr[-4000:]
