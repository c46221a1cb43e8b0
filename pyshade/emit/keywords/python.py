"""Identifiers the generated Python (the reference/CPU target) must not declare.

Sources:

* The Python Language Reference, "Keywords" and "Soft Keywords"
  (``False None True and as ... yield``; ``match case type _``), merged with
  ``keyword.kwlist`` and ``keyword.softkwlist`` of the running interpreter;
* the module names the generated code imports: ``math``, ``ps`` (pyshade),
  ``np`` / ``numpy``, ``struct``;
* the built-in functions, types and exceptions the generated code calls
  (``range len print abs min max int float bool round ...``), which a user
  variable of the same name would hide.

Names beginning with ``__`` are mangled inside class bodies and are used by
the interpreter (``__name__``), so they are avoided.
"""

from __future__ import annotations

import keyword

_KEYWORDS = """
    False None True and as assert async await break class continue def del elif
    else except finally for from global if import in is lambda nonlocal not or
    pass raise return try while with yield
    match case type _
"""

_NAMES = """
    math ps np numpy struct builtins
    range len print abs min max int float bool round divmod pow sum any all zip
    enumerate isinstance tuple list dict set slice complex object super
    reversed sorted map iter next getattr setattr hasattr
    Exception ValueError ZeroDivisionError IndexError AssertionError
    RuntimeError TypeError OverflowError NotImplemented Ellipsis
"""

KEYWORDS: frozenset[str] = (
    frozenset((_KEYWORDS + _NAMES).split())
    | frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
)

RESERVED_PREFIXES: tuple[str, ...] = ("__",)

RESERVED_SUBSTRINGS: tuple[str, ...] = ()
