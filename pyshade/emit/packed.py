"""Buffers of 3-component vectors in numpy's packed layout (a mixin of the brace emitter).

A ``Buffer[vec3]`` (``ivec3``, ``uvec3``) binds an ``(n, 3)`` numpy array: element ``i``
at byte ``12 * i``. The targets' own 3-vector arrays put it at ``16 * i`` (WGSL's storage
rule, std430, MSL's ``float3``, CUDA's 16-byte slot), so such a buffer is declared as an
array of its scalar (``array<f32>``, ``float[]``, ``RWStructuredBuffer<float>``,
``float*``, ``device float*``: ``buffer_elem``) and every access of an element is
scalar accesses at ``3 * i + k``, the same text on every target:

- reading ``buf[i]`` builds the vector from the three scalars (``vector_text``, the
  target's constructor), a swizzle ``buf[i].zx`` from the components it names;
- a component ``buf[i].y`` or ``buf[i][k]`` is the one scalar, read or stored;
- ``buf[i] = v`` stores the three components of ``v`` (``v`` and ``i`` go to
  temporaries first unless they are a name or a literal: each is evaluated once).

The index is u32 arithmetic (an i32 index converted): a read of a whole element or a
swizzle repeats the index's text, so an index with side effects (a helper that writes,
an atomic) is refused there.
Atomics on such buffers are refused by the type checker (their elements are no scalars).
Arrays of 3-vectors and struct fields keep the canonical layout.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T

COMPONENTS = "xyzw"


class PackedVec3:
    """Packed 3-vector buffers; the class using it is a ``CLikeEmitter``."""

    def buffer_elem(self, b: Any) -> T.Type:
        """The element type buffer ``b`` (a ``frontend.program`` buffer) is declared with:
        the scalar of a packed 3-vector buffer, else its element type."""
        t = b.type.elem
        return t.elem if T.packed_vec3(t) else t

    # -- recognising the accesses ---------------------------------------------------------
    def packed_element(self, node: ast.AST) -> bool:
        """True when ``node`` is ``buf[i]`` of a packed 3-vector buffer."""
        if not isinstance(node, ast.Subscript):
            return False
        t = getattr(node.value, "ps_type", None)
        return isinstance(t, T.BufferType) and T.packed_vec3(t.elem)

    def packed_component(self, node: ast.AST) -> ast.expr | int | None:
        """For ``buf[i].y`` or ``buf[i][k]`` of a packed buffer, the component: its number,
        or the index node ``k``; else None."""
        if isinstance(node, ast.Attribute) and len(node.attr) == 1 and \
                self.packed_element(node.value):
            return _component(node.attr)
        if isinstance(node, ast.Subscript) and self.packed_element(node.value):
            return node.slice
        return None

    # -- texts ----------------------------------------------------------------------------
    def packed_index(self, elem: ast.Subscript, index: str | None = None,
                     repeated: bool = True) -> int | str:
        """Where ``buf[i]``'s first scalar is: ``3 * i`` as a number for a literal ``i``,
        else as u32 text (``index``: the text of ``i`` already in a temporary). Where the
        index's text is ``repeated``, an index with side effects is refused."""
        i = elem.slice
        if index is None:
            if repeated and self.has_side_effects(i):
                raise self.error(i, "an index into a Buffer of 3-component vectors is "
                                    "evaluated once per component here: assign it to a "
                                    "variable first")
            if isinstance(i, ast.Constant):
                return 3 * int(i.value)
        s = index if index is not None else self.sub(i)
        if T.decayed(i.ps_type) != T.u32:
            s = self.cast(s, T.u32)
        return f"{self.literal(3, T.u32)} * {s}"

    def packed_scalar(self, elem: ast.Subscript, k: ast.expr | int,
                      index: str | None = None, repeated: bool = True) -> str:
        """The scalar of component ``k`` (a number or an index node) of ``buf[i]``
        (``repeated``: one of several scalars read with the same index text)."""
        base = self.packed_index(elem, index, repeated)
        lit = lambda n: self.literal(n, T.u32)  # noqa: E731
        if isinstance(k, ast.Constant):
            k = int(k.value)
        if isinstance(k, int):
            if isinstance(base, int):
                at = lit(base + k)
            else:
                at = f"{base} + {lit(k)}" if k else base
        else:
            ks = self.sub(k)
            if T.decayed(k.ps_type) != T.u32:
                ks = self.cast(ks, T.u32)
            at = f"{lit(base) if isinstance(base, int) else base} + {ks}"
        return f"{self.sub(elem.value)}[{at}]"

    # -- reads ----------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> str:
        """``Emitter.expr``; an element, component or swizzle of a packed buffer from its
        scalars."""
        if id(node) not in self.emitted:
            if self.packed_element(node):
                return self.vector_text(node.ps_type,
                                        [self.packed_scalar(node, k) for k in range(3)])
            k = self.packed_component(node)
            if k is not None:
                return self.packed_scalar(node.value, k, repeated=False)
            if isinstance(node, ast.Attribute) and self.packed_element(node.value):
                return self.vector_text(node.ps_type,
                                        [self.packed_scalar(node.value, _component(c))
                                         for c in node.attr])
        return super().expr(node)  # type: ignore[misc]

    # -- stores ---------------------------------------------------------------------------
    def packed_store(self, target: ast.expr, value: ast.expr, node: ast.AST) -> bool:
        """The statements of ``target = value`` where ``target`` is an element or component
        of a packed buffer (True), else nothing (False)."""
        k = self.packed_component(target)
        if k is not None:
            v = self.value(value)
            self.line(f"{self.packed_scalar(target.value, k, repeated=False)} = {v};", node)
            return True
        if not self.packed_element(target):
            return False
        assert isinstance(target, ast.Subscript)
        v = self.value(value)
        if not isinstance(value, ast.Name):         # Python evaluates the value first
            tmp = self.names.fresh("v")
            self.declare_temp(tmp, target.ps_type, v, node)
            v = tmp
        i = target.slice
        index = None
        if not isinstance(i, (ast.Name, ast.Constant)):
            index = self.names.fresh("i")
            self.declare_temp(index, T.decayed(i.ps_type), self.value(i), node)
        for c in range(3):
            self.line(f"{self.packed_scalar(target, c, index)} = "
                      f"{v}.{COMPONENTS[c]};", node)
        return True


def _component(c: str) -> int:
    """The number of the component ``c`` (``xyzw`` or ``rgba``)."""
    return "xyzw".find(c) if c in "xyzw" else "rgba".find(c)
