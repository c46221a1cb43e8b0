"""Static SASS of radix_scatter / radix_hist for sm_90 per tuning, with no GPU: NVRTC's
CUBIN disassembled by nvdisasm (the nvidia-cuda-nvdisasm wheel); prints the registers
and instructions per kernel, and the instructions by opcode with ``--ops``. A proxy for
issue 17's scatter, which Nsight Compute found bound by instructions and occupancy.

    python bench/probes/radix_sass_count.py [--ops] [ITEMS/UNROLL/TKEYS/RAKE/NIB ...]
"""
from __future__ import annotations

import collections
import pathlib
import re
import struct
import subprocess
import sys
import tempfile

import nvidia

import pyshade as ps
import pyshade.algorithms.radix as radix
from pyshade.toolchains.nvrtc import compile_cuda

NVDISASM = next(pathlib.Path(p) / "cu13/bin/nvdisasm" for p in nvidia.__path__)


def registers(cubin: bytes) -> int:
    """Registers per thread of the CUBIN's kernel: the EIATTR_REGCOUNT (0x2f) record of
    its ``.nv.info`` section (ELF64; records are format, attribute, u16 size, payload)."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def sh(i: int) -> tuple:
        return struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        name_at, off, size = sh(i)[0], sh(i)[4], sh(i)[5]
        if cubin[stroff + name_at:cubin.index(b"\0", stroff + name_at)] != b".nv.info":
            continue
        at = off
        while at < off + size:
            fmt, attr = cubin[at], cubin[at + 1]
            n = struct.unpack_from("<H", cubin, at + 2)[0] if fmt == 4 else (2 if fmt == 3 else 0)
            if attr == 0x2F:
                return struct.unpack_from("<I", cubin, at + 8)[0]
            at += 4 + (n if fmt == 4 else 0)
    return -1


def sass(source: str) -> tuple[str, int]:
    """(nvdisasm's text, registers per thread) of ``source`` for sm_90."""
    cubin = compile_cuda(source, arch="sm_90", cubin=True)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        text = subprocess.run([str(NVDISASM), "-c", f.name], capture_output=True, text=True,
                              check=True).stdout
    return text, registers(cubin)


def count(text: str) -> collections.Counter:
    """Instructions of nvdisasm's ``text`` by opcode (predicates and modifiers dropped)."""
    ops = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m:
            ops[m.group(2).split(".")[0]] += 1
    return ops


def main() -> None:
    """Print each tuning's scatter instructions and registers (``--ops``: by opcode)."""
    show = "--ops" in sys.argv
    specs = [a for a in sys.argv[1:] if not a.startswith("--")] or ["16/1/0/0/0", "16/1/0/0/1"]
    u = radix.KIND_U32
    for s in specs:
        i, un, tk, rk, nb = (int(x) for x in s.split("/"))
        src = ps.translate(radix.radix_scatter, "cuda", kind=u, out_kind=u, rev=False,
                           write_keys=True, vmode=radix.NO_VALS, items=i, unroll=un,
                           tkeys=bool(tk), rake=bool(rk), nib=bool(nb), sel=False)
        text, regs = sass(src)
        ops = count(text)
        print(f"scatter {s}: {sum(ops.values())} instructions, {regs} registers")
        if show:
            print("   ", ", ".join(f"{k} {v}" for k, v in ops.most_common(25)))


if __name__ == "__main__":
    main()
