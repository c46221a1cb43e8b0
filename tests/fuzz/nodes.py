"""The fuzzer's program tree: expressions (``X``), statements (``St``, with ``Clause``
bodies), helpers (``Func``) and kernels (``Kernel``), each printing itself as the
kernel-language source it stands for.

The tree stays mutable so that the shrinker can replace an expression or drop a
statement, print the program again and undo the change when the disagreement is gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

FLOATS = ("f32", "f16", "f64")
INTS = ("i32", "u32")
# vector type: (element type, length)
VECS = {f"{p}vec{n}": ({"": "f32", "i": "i32", "u": "u32", "b": "bool"}[p], n)
        for p in ("", "i", "u", "b") for n in (2, 3, 4)}
MATS = {"mat2": 2, "mat3": 3, "mat4": 4}
COMPONENTS = "xyzw"


def vec_of(elem: str, n: int) -> str:
    """The vector type of ``n`` elements of ``elem``."""
    return {"f32": "", "i32": "i", "u32": "u", "bool": "b"}[elem] + f"vec{n}"


def width(ty: str) -> int:
    """The number of scalars in a value of ``ty`` (a matrix: its n * n elements)."""
    if ty in VECS:
        return VECS[ty][1]
    if ty in MATS:
        return MATS[ty] ** 2
    return 1


def scalar_of(ty: str) -> str:
    """The element type of a vector or matrix, else the type itself."""
    if ty in VECS:
        return VECS[ty][0]
    return "f32" if ty in MATS else ty


class X:
    """An expression: ``fmt`` with ``{0}``, ``{1}``... replaced by the source of ``kids``.

    ``mag`` bounds the absolute value of every float component (the generator keeps it
    below the type's ceiling, so that no operation overflows to an infinity); ``keep``
    marks a guard (a divisor kept away from zero, an argument kept in a function's
    domain, an index kept in range) that the shrinker must not replace, though it may
    shrink inside it.
    """

    __slots__ = ("fmt", "kids", "ty", "mag", "keep", "bare")

    def __init__(self, fmt: str, ty: str, kids: list[X] | tuple = (), mag: float = 0.0,
                 keep: bool = False, bare: bool = False) -> None:
        self.fmt, self.ty, self.kids, self.mag, self.keep = fmt, ty, list(kids), mag, keep
        # An integer literal without a cast: its type comes from the other operand, so
        # an operation of two bare literals casts one of them (else both would be i32).
        self.bare = bare

    def src(self) -> str:
        return self.fmt.format(*(k.src() for k in self.kids)) if self.kids else self.fmt

    def __repr__(self) -> str:
        return f"X({self.src()!r}: {self.ty})"


def slots(holder: list[X]) -> Iterator[tuple[list[X], int]]:
    """Every (list, index) place of an expression in ``holder`` and below, outermost first."""
    for k, e in enumerate(holder):
        yield holder, k
        yield from slots(e.kids)


@dataclass
class Clause:
    """One header line and its body: ``if c:``, ``elif c:``, ``else:``, ``case A:``,
    ``for j in range(...)``, ``while ...:``."""

    fmt: str
    exprs: list[X] = field(default_factory=list)
    body: list[St] = field(default_factory=list)

    def head(self) -> str:
        return self.fmt.format(*(e.src() for e in self.exprs))


@dataclass
class St:
    """A statement: a line (``fmt`` filled with ``exprs``) or, with ``clauses``, a
    compound statement. ``nested`` clauses (a ``match``'s cases) are indented one level
    below ``fmt``, which is then the compound's own header line."""

    fmt: str = ""
    exprs: list[X] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)
    nested: bool = False
    # Dropping it changes which slots are written, never the kernel's validity; the
    # shrinker tries those first. Statements that define a name are not.
    droppable: bool = True
    # Never dropped, inlined or simplified by the shrinker: the initialisation of a
    # shared array and its barrier (a read of an element nobody wrote is 0 on the cpu
    # device and garbage on a GPU, a difference of the kernel, not of the target), and a
    # while loop's counter and break (without them the loop never ends).
    pinned: bool = False

    def lines(self, indent: int) -> Iterator[str]:
        pad = "    " * indent
        if not self.clauses:            # a line, or a group of lines (a sink)
            for line in self.fmt.format(*(e.src() for e in self.exprs)).split("\n"):
                yield pad + line
            return
        inner = indent
        if self.nested:
            yield pad + self.fmt.format(*(e.src() for e in self.exprs))
            inner += 1
        for c in self.clauses:
            yield "    " * inner + c.head()
            yield from body_lines(c.body, inner + 1)


def body_lines(body: list[St], indent: int) -> Iterator[str]:
    """The lines of a block; ``pass`` where the shrinker has emptied it."""
    if not body:
        yield "    " * indent + "pass"
    for s in body:
        yield from s.lines(indent)


def blocks(body: list[St]) -> Iterator[list[St]]:
    """``body`` and every block nested in it, outermost first."""
    yield body
    for s in body:
        for c in s.clauses:
            yield from blocks(c.body)


def expr_holders(body: list[St]) -> Iterator[list[X]]:
    """The expression lists of every statement and clause header in ``body`` (not of a
    ``pinned`` statement)."""
    for s in body:
        if s.pinned:
            continue
        yield s.exprs
        for c in s.clauses:
            yield c.exprs
            yield from expr_holders(c.body)


@dataclass
class Func:
    """A helper: ``def name(params) -> ret:`` and its body."""

    name: str
    params: list[tuple[str, str]]
    ret: str
    body: list[St]
    ret_mag: float = 0.0

    def source(self) -> str:
        ps_ = ", ".join(f"{n}: {t}" for n, t in self.params)
        return "\n".join([f"def {self.name}({ps_}) -> {self.ret}:", *body_lines(self.body, 1)])


@dataclass
class Kernel:
    """A kernel, the helpers it calls, and what the harness needs to run and check it
    (``meta``: parameters, buffer sizes, output slots, the tolerance sinks)."""

    name: str
    workgroup: int
    params: list[tuple[str, str]]
    body: list[St]
    helpers: list[Func]
    meta: dict

    def live_params(self) -> list[tuple[str, str]]:
        """The parameters the body still reads or writes (the shrinker removes uses)."""
        text = "\n".join(body_lines(self.body, 1))
        return [(n, t) for n, t in self.params if re.search(rf"\b{n}\b", text)]

    def source(self) -> str:
        """The helpers the kernel calls and the kernel, as they appear in the module, with
        each output buffer's number of slots per invocation filled in."""
        body = "\n".join(body_lines(self.body, 1))
        sig = ", ".join(f"{n}: {t}" for n, t in self.live_params())
        parts = [h.source() for h in self.helpers
                 if re.search(rf"\b{h.name}\b", body + "\n".join(
                     x.source() for x in self.helpers if x is not h))]
        parts.append("\n".join([f"@ps.kernel(workgroup_size={self.workgroup})",
                                f"def {self.name}({sig}) -> None:", body]))
        text = "\n\n\n".join(parts)
        for buf, n in self.meta["slots"].items():
            text = text.replace(f"@{buf}@", str(max(n, 1)))
        return text

    def bodies(self) -> Iterator[list[St]]:
        """The kernel's body and every helper's."""
        yield self.body
        for h in self.helpers:
            yield h.body
