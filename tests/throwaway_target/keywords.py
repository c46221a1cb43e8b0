"""Reserved words of the "pyx" target: one that no other target reserves, to show that
every target's Namer avoids it once the target is registered."""

KEYWORDS = frozenset({"pyx_reserved"})
RESERVED_PREFIXES: tuple[str, ...] = ()
RESERVED_SUBSTRINGS: tuple[str, ...] = ()
