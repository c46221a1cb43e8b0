"""The builtin spelling tables (``pyshade/emit/spellings/``) against the registry
(``pyshade.lang``) and the emitters: every builtin has an entry for every target, in
the target's own table or a family's (a spelling, or None where it is deliberately
not available), no table names an unknown builtin, every entry is a format string
that parses, a ``Method`` of that target's emitter or ``PRELUDE`` (a ``math`` function
that ``pyshade.prelude_math`` computes), and each emitter names its own table."""

from __future__ import annotations

import inspect
import string

import pytest

import pyshade as ps
from pyshade import lang, prelude_math, u32
from pyshade.emit import emitter_class
from pyshade.emit.spellings import FAMILIES, Method
from pyshade.targets import TARGETS

CLASSES = {t: emitter_class(t) for t in TARGETS}


def tables(cls: type) -> list[tuple[str, dict]]:
    """The tables ``cls.spelling`` reads, in lookup order, with a name for messages."""
    return [(f"{cls.__name__}.spellings", cls.spellings),
            *((f"family {f!r}", FAMILIES[f]) for f in cls.families)]


@pytest.mark.parametrize("target", TARGETS)
def test_every_builtin_has_an_entry(target: str) -> None:
    missing = [name for name in lang.BY_NAME
               if not any(name in table for _, table in tables(CLASSES[target]))]
    assert not missing, (f"no {target} entry for {missing}: give each a spelling (or None "
                         "where it is not available) in pyshade/emit/spellings/")


@pytest.mark.parametrize("target", TARGETS)
def test_each_emitter_names_its_own_table(target: str) -> None:
    # The MSL emitter subclasses the CUDA one: it must not inherit CUDA's spellings.
    assert "spellings" in vars(CLASSES[target])
    assert all(f in FAMILIES for f in CLASSES[target].families)


@pytest.mark.parametrize("target", TARGETS)
def test_tables_name_only_builtins(target: str) -> None:
    for where, table in tables(CLASSES[target]):
        unknown = sorted(set(table) - set(lang.BY_NAME))
        assert not unknown, f"{where} spells {unknown}, which are not in lang.BY_NAME"


@pytest.mark.parametrize("target", TARGETS)
def test_entries_are_formats_or_methods(target: str) -> None:
    cls = CLASSES[target]
    for where, table in tables(cls):
        for name, entry in table.items():
            if isinstance(entry, Method):
                fn = getattr(cls, entry.name, None)
                assert callable(fn), f"{where}[{name!r}]: {cls.__name__} has no {entry.name}"
                inspect.signature(fn).bind(None, None, *entry.args)    # self, node, args
            elif entry is prelude_math.PRELUDE:
                short = name.split(".", 1)[-1]
                assert name.startswith("math."), f"{where}[{name!r}]: PRELUDE is for math.*"
                fn_name = prelude_math.RENAMED.get(short, f"ps_{short}")
                assert inspect.isfunction(getattr(prelude_math, fn_name, None)), \
                    f"{where}[{name!r}] = PRELUDE, but prelude_math has no {fn_name}"
            elif entry is not None:
                assert isinstance(entry, str), f"{where}[{name!r}] = {entry!r}"
                list(string.Formatter().parse(entry))      # raises where it is malformed


@ps.kernel(workgroup_size=1)
def shows(x: ps.Buffer[u32]):
    print(x[0])


@pytest.mark.parametrize("target", TARGETS)
def test_print_is_spelled_where_the_type_checker_allows_it(target: str) -> None:
    em = object.__new__(CLASSES[target])        # spelling() reads only class attributes
    spelled = em.spelling(lang.BY_NAME["print"]) is not None
    if spelled:
        ps.translate(shows, target)
    else:
        with pytest.raises(ps.TranslationError, match=f"not available on {target}"):
            ps.translate(shows, target)
