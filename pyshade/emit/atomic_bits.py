"""f32 atomics of targets that have none (a mixin of the brace-language emitter).

WGSL, GLSL, HLSL and MSL have no portable f32 atomics (GLSL's and HLSL's need an
extension or shader model a device may lack; MSL's ``atomic<float>`` needs Metal 3):
there, a buffer or shared array used with f32 atomics stores u32 elements, the same
bytes, and every access of an element is the u32 atomic on the bits: a read is
``bitcast<f32>(atomicLoad(...))``, a write ``atomicStore(..., bitcast<u32>(v))``, an
exchange or compare-exchange the u32 one on the values' bits with the old value read
back as f32. f32 add, sub, min and max are the prelude's compare-exchange loops over
these (``prelude.ps_atomic_add_float``...). A target with f32 atomics of its own (CUDA)
leaves ``FLOAT_BITS`` unset and keeps f32 elements.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from .. import types as T


class AtomicBits:
    """``FLOAT_BITS`` and the f32 atomic calls; the class using it is an ``Emitter``."""

    # Where set, an atomic f32 buffer or shared array stores u32 elements: the formats
    # (to bits, from bits) of a value.
    FLOAT_BITS: tuple[str, str] | None = None

    def bits_view(self, t: T.Type) -> bool:
        """True where an atomic element of type ``t`` is stored as u32: f32 on a target
        with ``FLOAT_BITS``."""
        return t == T.f32 and self.FLOAT_BITS is not None

    def storage_elem(self, t: T.Type, atomic: bool) -> T.Type:
        """The element type a buffer or shared array of ``t`` stores: u32 for an atomic
        f32 one where ``bits_view``."""
        return T.u32 if atomic and self.bits_view(t) else t

    def call_builtin(self, node: ast.Call, b: Any) -> str:
        """A builtin from its spelling; an f32 atomic of an element stored as u32
        (``bits_view``) through ``bits_call``."""
        if "atomic" in b.kinds and self.bits_view(node.ps_type):
            return self.bits_call(node, b)
        return super().call_builtin(node, b)  # type: ignore[misc]

    def bits_call(self, node: ast.Call, b: Any) -> str:
        """An f32 exchange or compare-exchange of an element stored as u32: the u32 atomic
        (the builtin's own spelling) on the values' bits, the old value read back as f32.
        The values' texts reach the spelling as stand-in u32 nodes (``Emitter.emitted``)."""
        to_bits, from_bits = self.FLOAT_BITS
        view = copy.copy(node)
        view.ps_type = T.u32
        view.args = list(node.args[:2])
        for a in node.args[2:]:
            n = ast.copy_location(ast.Name("_ps_bits", ast.Load()), a)
            n.ps_type = T.u32
            self.emitted[id(n)] = to_bits.format(self.value(a))
            view.args.append(n)
        try:
            return from_bits.format(super().call_builtin(view, b))  # type: ignore[misc]
        finally:
            for n in view.args[2:]:
                del self.emitted[id(n)]
