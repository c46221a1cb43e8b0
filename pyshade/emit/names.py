"""Choosing target-language identifiers for Python names.

One ``Namer`` per scope hands out identifiers that are valid in every target
(by default it avoids the union of all targets' reserved words, see
``pyshade.emit.keywords``), stable (the same Python name always gets the same
answer in one scope), and collision free across nested scopes.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import keywords

__all__ = ["Namer"]

_MAX_TRIES = 100_000

# How a target name was taken; only emitter reservations may be reserved again.
_BY_NAME, _BY_FRESH, _BY_RESERVE = "name", "fresh", "reserve"


class Namer:
    """Hands out target identifiers for one scope, avoiding reserved words.

    A *valid* identifier matches ``[A-Za-z_][A-Za-z0-9_]*`` (ASCII only), is
    not in ``reserved``, does not start with any of ``prefixes`` and does not
    contain any of ``substrings``. A target name is *taken* in a namer if it
    was handed out by ``name``/``fresh`` or marked by ``reserve`` in that
    namer, in any of its ancestors (parent, grandparent, ...), or in any of its
    descendants (namers created through ``child``, at any depth). Sibling
    scopes do not see each other's names, so two functions may both have an
    ``i``.

    ``name(py)`` follows this exact rule:

    1. If ``py`` was named before in this namer, return the same answer.
    2. If ``py`` is valid and not taken, return ``py`` unchanged.
    3. Otherwise sanitise it into a *base*:

       a. replace every character other than ASCII letters, digits and ``_``
          by ``_u<hex code point>_``;
       b. collapse every run of underscores into one ``_``, and delete any
          reserved substring that remains (repeat until neither applies);
       c. strip leading underscores;
       d. if the result is empty, starts with a digit or starts with a
          reserved prefix, prepend ``v_``.

    4. Return the first candidate, among ``base``, ``base + "_"``,
       ``base + "_1"``, ``base + "_2"``, ..., that is valid and not taken
       (when ``base`` already ends with ``_`` the suffixes are joined
       without doubling it: ``a_``, ``a_1``, ``a_2``...).

    Examples with the default tables: ``out -> out_``, ``kernel -> kernel_``,
    ``main -> main_``, ``vec4 -> vec4_``, ``__x -> x`` (``x_`` when ``x`` is
    taken), ``a__b -> a_b``, ``gl_x -> v_gl_x``, ``_ps_t -> ps_t``.

    ``fresh(hint)`` sanitises ``hint`` the same way (steps 3a-3d) and returns
    ``base + "_" + k`` for the smallest counter ``k >= 1`` (never going back
    for the same base) whose result is valid and not taken: ``tmp_1``,
    ``tmp_2``... Every handed-out name is taken, so a later ``name("tmp_1")``
    is renamed (``tmp_1_``), and ``fresh`` skips names users already got.

    Attributes:
        reserved: identifiers that are never handed out.
        prefixes: an identifier starting with one of these is never handed out.
        substrings: an identifier containing one of these is never handed out.
        parent: the enclosing scope's namer, or ``None`` for the outermost one.
    """

    def __init__(self, reserved: Iterable[str] | None = None,
                 prefixes: Iterable[str] | None = None,
                 substrings: Iterable[str] | None = None,
                 parent: Namer | None = None) -> None:
        """Create a namer; ``parent`` makes it a nested scope of that namer. The tables
        default to those of every registered target (``keywords.merged()``)."""
        every = keywords.merged() if None in (reserved, prefixes, substrings) else {}
        self.reserved: frozenset[str] = frozenset(
            every["ALL_KEYWORDS"] if reserved is None else reserved)
        self.prefixes: tuple[str, ...] = tuple(
            p for p in (every["ALL_PREFIXES"] if prefixes is None else prefixes) if p)
        self.substrings: tuple[str, ...] = tuple(
            s for s in (every["ALL_SUBSTRINGS"] if substrings is None else substrings) if s)
        self.parent: Namer | None = parent
        self._names: dict[str, str] = {}      # Python name -> target name
        self._taken: dict[str, str] = {}      # target name -> how it was taken
        self._below: dict[str, str] = {}      # same, for every descendant scope
        self._counters: dict[str, int] = {}   # fresh base -> last counter used

    # -- queries -----------------------------------------------------------

    def is_valid(self, ident: str) -> bool:
        """True if ``ident`` is an ASCII identifier that none of the tables reserve."""
        # An ASCII identifier is [A-Za-z_][A-Za-z0-9_]* (no regular expression to compile
        # when the emitters are first imported).
        return (ident.isascii() and ident.isidentifier()
                and ident not in self.reserved
                and not ident.startswith(self.prefixes)
                and not any(s in ident for s in self.substrings))

    def is_taken(self, ident: str) -> bool:
        """True if ``ident`` is taken here, in an ancestor or in a descendant scope."""
        return self._how_taken(ident) is not None

    def lookup(self, py_name: str) -> str | None:
        """The target name ``py_name`` already got here or in the nearest ancestor.

        Unlike ``name``, this never hands out a new name; ``None`` if none of
        the scopes has named ``py_name`` yet.
        """
        scope: Namer | None = self
        while scope is not None:
            if py_name in scope._names:
                return scope._names[py_name]
            scope = scope.parent
        return None

    # -- handing out names -------------------------------------------------

    def name(self, py_name: str) -> str:
        """Return the target identifier for the Python name ``py_name`` (stable).

        See the class docstring for the exact renaming rule.
        """
        got = self._names.get(py_name)
        if got is not None:
            return got
        if self.is_valid(py_name) and not self.is_taken(py_name):
            result = py_name
        else:
            result = self._pick(self._sanitise(py_name))
        self._names[py_name] = result
        self._take(result, _BY_NAME)
        return result

    def fresh(self, hint: str) -> str:
        """Return a new identifier for a compiler temporary: ``hint_1``, ``hint_2``...

        The result differs from every name handed out or reserved in this
        scope, its ancestors and descendants, before or after this call.
        """
        base = self._sanitise(hint)
        k = self._counters.get(base, 0)
        for _ in range(_MAX_TRIES):
            k += 1
            cand = _join(base, f"_{k}")
            if self.is_valid(cand) and not self.is_taken(cand):
                self._counters[base] = k
                self._take(cand, _BY_FRESH)
                return cand
        raise RuntimeError(f"Namer: no free name for hint {hint!r}")

    def reserve(self, target_name: str) -> None:
        """Mark ``target_name`` taken, e.g. a name the emitter declares itself.

        Reserving a name twice is allowed; reserving one already handed out
        by ``name`` or ``fresh`` (here, in an ancestor or a descendant) raises
        ``ValueError``, since the two declarations would clash.
        """
        how = self._how_taken(target_name)
        if how not in (None, _BY_RESERVE):
            raise ValueError(f"Namer.reserve: {target_name!r} was already handed out")
        self._take(target_name, _BY_RESERVE)

    def child(self) -> Namer:
        """Return a namer for a nested scope (e.g. a function's locals).

        The child never hands out a name taken in this namer or its
        ancestors, and names the child takes are taken here too, so this
        namer will not hand them out later either.
        """
        return Namer(self.reserved, self.prefixes, self.substrings, parent=self)

    # -- internals ---------------------------------------------------------

    def _how_taken(self, ident: str) -> str | None:
        """How ``ident`` was taken in this scope, a descendant or an ancestor, or ``None``."""
        how = self._taken.get(ident) or self._below.get(ident)
        scope = self.parent
        while how is None and scope is not None:
            how = scope._taken.get(ident)
            scope = scope.parent
        return how

    def _take(self, ident: str, how: str) -> None:
        """Record ``ident`` as taken here and as taken below in every ancestor."""
        self._taken[ident] = how
        scope = self.parent
        while scope is not None:
            if scope._below.get(ident) in (None, _BY_RESERVE):
                scope._below[ident] = how
            scope = scope.parent

    def _sanitise(self, text: str) -> str:
        """Steps 3a-3d of the class docstring: turn ``text`` into a usable base."""
        s = "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else f"_u{ord(c):x}_"
                    for c in text)
        while True:
            while "__" in s:            # every run of underscores becomes one
                s = s.replace("__", "_")
            hit = next((sub for sub in self.substrings if sub in s), None)
            if hit is None:
                break
            s = s.replace(hit, "")
        s = s.lstrip("_")
        if not s or s[0].isdigit() or s.startswith(self.prefixes):
            s = "v_" + s
            if s.startswith(self.prefixes) or any(sub in s for sub in self.substrings):
                raise ValueError(f"Namer: cannot sanitise {text!r} under these prefixes")
        return s

    def _pick(self, base: str) -> str:
        """Step 4 of the class docstring: first free valid ``base``, ``base_``, ``base_1``..."""
        if self.is_valid(base) and not self.is_taken(base):
            return base
        for k in range(_MAX_TRIES):
            cand = _join(base, f"_{k}" if k else "_")
            if self.is_valid(cand) and not self.is_taken(cand):
                return cand
        raise RuntimeError(f"Namer: no free name for {base!r}")


def _join(base: str, suffix: str) -> str:
    """``base + suffix`` without doubling an underscore at the seam."""
    if base.endswith("_") and suffix.startswith("_"):
        return base + suffix[1:]
    return base + suffix
