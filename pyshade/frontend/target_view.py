"""The target as the frontend sees it.

Almost all of the frontend is the same for every target: only a few questions about the
target change what it builds (``ps.target`` folded in an ``if``, whether the operators
already mean Python's, whether ``print()`` works, which f32 atomics and ``math``
functions the target has itself). Every such question goes through ``TargetView``, which
records it with its answer (``asked``). A typed Program then serves every other target
that answers each recorded question the same way (``answers_hold``): ``Kernel.program``
runs the frontend once for the four GPU targets of a kernel that never reads
``ps.target``, and once per target for one that does.

A question is a tuple: its first item names what is asked, the others are its arguments;
``answer`` gives a registry entry's answer.
"""

from __future__ import annotations

from typing import Any

from .. import targets


def answer(entry: targets.Target, question: tuple) -> Any:
    """``entry``'s answer to ``question``."""
    what = question[0]
    if what == "float_atomic":          # an f32 atomic the target has an instruction for
        return question[1] in entry.float_atomics
    if what == "prelude_math":          # a math function the prelude writes for the target
        from .. import prelude_math
        return entry.emitter_class().spelling_for(question[1]) is prelude_math.PRELUDE
    if what == "is":                    # the target is the one named
        return entry.name == question[1]
    return getattr(entry, what)         # name, python_semantics, prints


def answers_hold(asked: dict, entry: targets.Target) -> bool:
    """True when ``entry`` answers every question in ``asked`` as recorded there."""
    return all(answer(entry, q) == a for q, a in asked.items())


class TargetView:
    """One target's answers to the frontend, each recorded in ``asked`` when first given."""

    def __init__(self, name: str):
        self.entry = targets.get(name)
        self.asked: dict[tuple, Any] = {}

    def ask(self, *question: Any) -> Any:
        """The answer to ``question`` (recorded)."""
        try:
            return self.asked[question]
        except KeyError:
            a = self.asked[question] = answer(self.entry, question)
            return a

    @property
    def name(self) -> str:
        """The target's name (what ``ps.target`` reads): no other target shares it."""
        return self.ask("name")  # type: ignore[no-any-return]

    @property
    def python_semantics(self) -> bool:
        """``Target.python_semantics``: nothing goes to the prelude."""
        return self.ask("python_semantics")  # type: ignore[no-any-return]

    @property
    def prints(self) -> bool:
        """``Target.prints``: ``print()`` works."""
        return self.ask("prints")  # type: ignore[no-any-return]

    def float_atomic(self, op: str) -> bool:
        """The target has an instruction for the f32 ``atomic_<op>``."""
        return self.ask("float_atomic", op)  # type: ignore[no-any-return]

    def prelude_math(self, name: str) -> bool:
        """The ``math`` function ``name`` is ``prelude_math``'s on the target."""
        return self.ask("prelude_math", name)  # type: ignore[no-any-return]

    def is_(self, name: str) -> bool:
        """The target is ``name`` (a rule of that one target, as the python target's N-D
        indexing)."""
        return self.ask("is", name)  # type: ignore[no-any-return]
