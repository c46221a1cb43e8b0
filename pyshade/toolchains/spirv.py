"""SPIR-V words: ``NoContraction`` on every float operation of a kernel's module.

The GLSL and HLSL emitters declare ``precise`` what holds a float (``emit/precise.py``),
and glslang and DXC decorate the arithmetic whose value flows into such a declaration.
Neither traces what flows elsewhere: a condition of ``if`` or ``while``, an index, the
arguments of a call statement; DXC not even the arguments of a helper call or a ``?:``
condition (``bench/probes/precise_probe.py``). ``no_contraction`` closes that gap after
compiling: it adds ``OpDecorate %id NoContraction`` for every float arithmetic result that
lacks one, so that no Vulkan driver may fuse or reassociate any of the kernel's float
operations (the vulkan device's GLSL and HLSL routes both go through it).

The module layout is fixed by the SPIR-V specification (section 2.4): the header (5
words), then the instructions in sections, the annotations (``OpDecorate``...) right
after the debug names and before the first type; the new decorations are inserted there.
Each instruction's first word holds its word count (high 16 bits) and opcode (low 16).
"""

from __future__ import annotations

import struct

__all__ = ["FLOAT_OPS", "no_contraction"]

NO_CONTRACTION = 42        # Decoration NoContraction
OP_DECORATE = 71
# Float arithmetic a driver could fuse or reassociate (result id in word 2):
# OpFNegate, OpFAdd, OpFSub, OpFMul, OpFDiv, OpFRem, OpFMod, OpVectorTimesScalar,
# OpMatrixTimesScalar, OpVectorTimesMatrix, OpMatrixTimesVector, OpMatrixTimesMatrix,
# OpOuterProduct, OpDot.
FLOAT_OPS = frozenset({127, 129, 131, 133, 136, 140, 141, 142, 143, 144, 145, 146, 147,
                       148})
# The sections before the types: capabilities, extensions, imports, memory model, entry
# points, execution modes, debug instructions and annotations (SPIR-V 2.4, items 1-9).
_BEFORE_TYPES = frozenset({2, 3, 4, 5, 6, 7, 10, 11, 14, 15, 16, 17, 71, 72, 73, 74, 75,
                           330, 331, 332, 5632, 5633})
_HEADER_WORDS = 5


def _instructions(words: tuple[int, ...]):
    """(offset, opcode, word count) of each instruction after the header."""
    i = _HEADER_WORDS
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            raise ValueError(f"malformed SPIR-V: instruction at word {i} has length {count}")
        yield i, op, count
        i += count


def no_contraction(binary: bytes) -> bytes:
    """``binary`` (a SPIR-V module, little-endian as glslang and DXC write it) with
    ``NoContraction`` on every float operation (``FLOAT_OPS``) not decorated so yet."""
    if len(binary) % 4 or len(binary) < 4 * _HEADER_WORDS:
        raise ValueError("not a SPIR-V module: its size is no whole number of words")
    words = struct.unpack(f"<{len(binary) // 4}I", binary)
    decorated, results = set(), []
    insert_at = None
    for i, op, count in _instructions(words):
        if insert_at is None and op not in _BEFORE_TYPES:
            insert_at = i
        if op == OP_DECORATE and count >= 3 and words[i + 2] == NO_CONTRACTION:
            decorated.add(words[i + 1])
        elif op in FLOAT_OPS and count >= 3:
            results.append(words[i + 2])
    missing = [r for r in dict.fromkeys(results) if r not in decorated]
    if not missing or insert_at is None:
        return binary
    extra = []
    for r in missing:
        extra += [(3 << 16) | OP_DECORATE, r, NO_CONTRACTION]
    out = words[:insert_at] + tuple(extra) + words[insert_at:]
    return struct.pack(f"<{len(out)}I", *out)
