"""Write the generated pages of the documentation, so that they cannot go stale:

- ``docs/builtins.md``: every builtin of the kernel language, from the builtin registry
  (``pyshade.lang.BY_NAME``: name, docstring, purity, kinds), the signatures of the
  shipped stubs (``pyshade/__init__.pyi``, ``pyshade/math.pyi``), the per-target
  spelling tables (``pyshade/emit/spellings/``, read through each emitter's
  ``spelling``) and the prelude (``pyshade/prelude.py``), which computes Python's
  semantics on the GPU targets;
- ``docs/refused.md``: what the translator refuses, each case translated here so that
  the page shows the error message users get today.

    python tools/gen_docs.py            # rewrite both pages
    python tools/gen_docs.py --check    # exit 1 if a committed page is stale

``tests/test_docs.py`` runs the check. A builtin added to the registry needs no change
here unless it is a Python builtin (``PY_SIGNATURES``), an internal primitive
(``INTERNAL_SIGNATURES``) or a spelling table uses a new named field (``FIELDS``): the
script stops and says which.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib.util
import inspect
import re
import string
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUILTINS_PAGE = ROOT / "docs" / "builtins.md"
REFUSED_PAGE = ROOT / "docs" / "refused.md"
STUBS = {"": ROOT / "pyshade" / "__init__.pyi", "math.": ROOT / "pyshade" / "math.pyi"}

# Builtins that are Python's own: no stub declares them (typeshed does). The type
# variables are the stub's (``_N``: a number or a non-bool vector, ``_F``: a float or
# float vector).
PY_SIGNATURES = {
    "abs": "(x: _N) -> _N",
    "min": "(a: _N, b: _N) -> _N",
    "max": "(a: _N, b: _N) -> _N",
    "round": "(x: _F) -> _F",
    "int": "(x: int | float | bool) -> i32",
    "float": "(x: int | float | bool) -> f32",
    "bool": "(x: int | float | bool) -> bool",
    "len": "(a: Buffer[Any] | Array[Any, Any]) -> u32",
    "all": "(v: bvec2 | bvec3 | bvec4) -> bool",
    "any": "(v: bvec2 | bvec3 | bvec4) -> bool",
    "print": "(*values: int | float | bool | str) -> None",
}
# The prelude's primitives: registry entries that kernels cannot name.
INTERNAL_SIGNATURES = {
    "prelude.smin": "(a: _I, b: _I) -> _I",
    "prelude.smax": "(a: _I, b: _I) -> _I",
    "prelude.tdiv": "(a: _I, b: _I) -> _I",
    "prelude.bits": "(x: f32 | vec2 | vec3 | vec4) -> i32 | ivec2 | ivec3 | ivec4",
    "prelude.from_bits": "(i: i32 | ivec2 | ivec3 | ivec4) -> f32 | vec2 | vec3 | vec4",
    "prelude.convert": "(t: type[_Sc], x: _Sc) -> _Sc",
    "prelude.pow": "(x: _F, y: _F) -> _F",
}
# What a ``None`` spelling means where the builtin never reaches a spelling. Any other
# ``None`` is a builtin the target does not have: a TranslationError at the call.
NOT_SPELLED = {
    "barrier": "a statement: the target's workgroup barrier, over shared memory, or shared "
               "and device memory where a buffer needs it ([language](language.md#local-and-shared-arrays))",
    "int": "a conversion: the target's cast",
    "float": "a conversion: the target's cast",
    "bool": "a conversion: the target's comparison with zero",
    "math.isnan": "the prelude's functions (above), for every argument type",
    "math.isinf": "the prelude's functions (above), for every argument type",
    "prelude.smin": "not used: only the prelude's CUDA branch calls it",
    "prelude.smax": "not used: only the prelude's CUDA branch calls it",
}
# Named fields of the spelling format strings (``{T}``, ``{ids.global_id}``...), as the
# page shows them. A field not listed here stops the script.
FIELDS = {
    "T": "T",
    "len": "the element count (a hidden member of the parameter block, or the array's "
           "constant length)",
    "cas": "a generated compare-exchange loop",
    "r": "rounded to T",
    "wrap": "wrapped to T",
    "bits": "bit width",
    "src": "source type",
    "map": "per component",
    "pred": "per component",
    "abs": "Python's abs",
    "min": "Python's min",
    "max": "Python's max",
    "args": "the values",
    "convert": "the conversion",
}
TARGET_LABELS = {"python": "python (cpu device)"}
# How the page words a TypeVar's bound.
BOUNDS = {"int": "an integer type: u32, i32, u64 or i64"}

SECTIONS = (
    ("ids", "Invocation ids and synchronisation"),
    ("atomic", "Atomics"),
    ("python", "Python builtins"),
    ("math", "The math module"),
    ("ps", "pyshade functions"),
    ("internal", "Internal primitives of the prelude"),
)


def _math_prelude_names() -> set[str]:
    sys.path.insert(0, str(ROOT))
    from pyshade import prelude_math
    return {n for n, f in vars(prelude_math).items()
            if inspect.isfunction(f) and f.__module__ == prelude_math.__name__}


MATH_PRELUDE = _math_prelude_names()


def _load_pyshade() -> Any:
    sys.path.insert(0, str(ROOT))
    import pyshade
    return pyshade


def rst_to_md(text: str) -> str:
    """Docstring text as Markdown: ````x```` becomes ```x```, lines joined per paragraph."""
    text = text.replace("``", "`")
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip())]
    return "\n\n".join(p for p in paras if p)


def first_paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, as one Markdown line."""
    return rst_to_md((doc or "").strip().split("\n\n")[0])


def cell(text: str) -> str:
    """``text`` made safe inside a Markdown table cell: ``|`` escaped outside code spans
    (inside them Python-Markdown's tables keep a backslash as written)."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else p.replace("|", "\\|") for p in parts)


# ------------------------------------------------------------------------------- stubs
def stub_signatures() -> tuple[dict[str, list[str]], dict[str, str]]:
    """{registry name: [signature, ...]} (several for overloads) from the stubs, and the
    stubs' TypeVars {name: what it ranges over}."""
    sigs: dict[str, list[str]] = {}
    tvars: dict[str, str] = {}
    for prefix, path in STUBS.items():
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                args = node.args
                args.posonlyargs, args.args = [], args.posonlyargs + args.args
                ret = ast.unparse(node.returns) if node.returns else "None"
                sigs.setdefault(prefix + node.name, []).append(f"({ast.unparse(args)}) -> {ret}")
            elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                  and ast.unparse(node.value.func) == "TypeVar"):
                name = node.targets[0].id  # type: ignore[attr-defined]
                opts = [ast.unparse(a) for a in node.value.args[1:]]
                bound = [ast.unparse(k.value) for k in node.value.keywords if k.arg == "bound"]
                tvars[name] = ", ".join(opts) if opts else BOUNDS.get(bound[0], bound[0]) \
                    if bound else "any type"
    return sigs, tvars


def pretty(sig: str) -> str:
    """A stub signature with the private TypeVar names made readable (``_F`` -> ``F``)."""
    return re.sub(r"\b_([A-Z][A-Za-z]*)\b", r"\1", sig)


# ------------------------------------------------------------------------------- builtins
def category(name: str, b: Any) -> str:
    """The section of a registry entry."""
    if name.startswith("prelude."):
        return "internal"
    if name.startswith("math."):
        return "math"
    if "atomic" in b.kinds:
        return "atomic"
    if getattr(b.obj, "__module__", None) == "builtins":
        return "python"
    if name in ("global_id", "local_id", "group_id", "num_groups", "local_index") \
            or "barrier" in b.kinds:
        return "ids"
    return "ps"


def display_name(name: str, cat: str) -> str:
    """How a kernel writes the builtin: ``ps.clamp``, ``abs``, ``math.sqrt``."""
    return name if cat in ("python", "math", "internal") else f"ps.{name}"


def anchor(name: str) -> str:
    """The heading id of a builtin."""
    return "b-" + re.sub(r"[^A-Za-z0-9_]+", "-", name)


def params_of(sig: str) -> list[str]:
    """Parameter names of a signature, for the positional fields ``{0}``, ``{1}``..."""
    inner = sig[1:sig.index(") ->")]
    names = []
    for part in re.split(r",\s*(?![^\[]*\])", inner):
        part = part.strip().lstrip("*")
        if part and part != "/":
            names.append(part.split(":")[0].strip())
    return names


def render_format(fmt: str, params: list[str]) -> str:
    """A spelling format string with its fields made readable."""
    out = []
    for literal, field_name, _spec, _conv in string.Formatter().parse(fmt):
        out.append(literal)
        if field_name is None:
            continue
        if field_name.isdigit():
            i = int(field_name)
            out.append(params[i] if i < len(params) else f"arg{i}")
        elif field_name.startswith("ids."):
            out.append(f"<{field_name[4:]} input>")
        elif field_name in FIELDS:
            out.append(f"<{FIELDS[field_name]}>" if field_name != "T" else "T")
        else:
            raise SystemExit(f"gen_docs.py: spelling field {{{field_name}}} in {fmt!r} is not "
                             "in FIELDS: say there how the page shows it")
    return "".join(out)


def spelling_cell(ps: Any, target: str, b: Any, params: list[str]) -> str:
    """What the page says about builtin ``b`` on ``target``."""
    from pyshade.emit.spellings import Method
    from pyshade.prelude_math import PRELUDE
    entry = ps.targets.get(target)
    cls = entry.emitter_class()
    spell = object.__new__(cls).spelling(b)     # spelling() reads class attributes only
    if spell is PRELUDE:
        return f"the math prelude's `ps_{b.name.split('.', 1)[1]}` (above)"
    if isinstance(spell, Method):
        fn = getattr(cls, spell.name)
        doc = first_paragraph(inspect.getdoc(fn)) or "(no docstring)"
        return cell(f"generated by `{cls.__name__}.{spell.name}`: {doc}")
    if spell is None:
        if b.name == "print" and not entry.prints:
            return "**not available**: a `TranslationError` at the call"
        if b.name in NOT_SPELLED:
            return cell(NOT_SPELLED[b.name])
        return "**not available**: a `TranslationError` at the call"
    # ``{map}(f)`` / ``{pred}(f)``: ``f`` applied per component (rounded to the result type).
    m = re.fullmatch(r"\{(map|pred)\}\((\w+)\)", spell)
    if m:
        how = " per component" + (", rounded to the result type" if m.group(1) == "map" else "")
        return f"`{m.group(2)}({', '.join(params)})`{how}"
    text = render_format(spell, params)
    return cell(f"`{text}`")


def prelude_notes(ps: Any, name: str) -> list[tuple[str, str]]:
    """(function, first docstring paragraph) of the prelude functions that compute
    ``name`` on GPU targets (named ``ps_<name>`` or ``ps_<name>_<kind>``), in
    ``pyshade.prelude`` and the math prelude ``pyshade.prelude_math``."""
    from pyshade import prelude, prelude_math
    short = name.split(".", 1)[-1]
    if name.startswith("prelude."):
        return []
    pat = re.compile(rf"^ps_{re.escape(short)}(_[a-z0-9]+)?$")
    extra = {"int": ["ps_float_to_int"]}.get(name, [])
    out = []
    for mod in (prelude, prelude_math) if name.startswith("math.") else (prelude,):
        for fname, fn in vars(mod).items():
            if (pat.match(fname) or fname in extra) and inspect.isfunction(fn) \
                    and fn.__module__ == mod.__name__:
                out.append((fname, first_paragraph(fn.__doc__)))
    return out


def generate_builtins() -> str:
    """The text of ``docs/builtins.md``."""
    ps = _load_pyshade()
    from pyshade import lang
    sigs, tvars = stub_signatures()
    targets = ps.targets.TARGETS
    gpu = [t for t in targets if not ps.targets.get(t).python_semantics]
    groups: dict[str, list[str]] = {key: [] for key, _ in SECTIONS}
    for name, b in lang.BY_NAME.items():
        groups[category(name, b)].append(name)

    def signatures(name: str) -> list[str]:
        found = sigs.get(name) or ([PY_SIGNATURES[name]] if name in PY_SIGNATURES else None) \
            or ([INTERNAL_SIGNATURES[name]] if name in INTERNAL_SIGNATURES else None)
        if not found:
            raise SystemExit(f"gen_docs.py: no signature for builtin {name!r}: add it to the "
                             "stubs (tools/gen_stubs.py), PY_SIGNATURES or INTERNAL_SIGNATURES")
        return found

    out = [
        "<!-- Generated by tools/gen_docs.py from pyshade.lang.BY_NAME, the stubs and "
        "pyshade/emit/spellings/: do not edit (tests/test_docs.py checks it). -->",
        "",
        "# Builtins",
        "",
        "Every function a kernel or helper can call besides your own helpers, types "
        "(`u32(x)`, `vec3(...)`, struct constructors) and `ps.array`/`ps.shared_array`/"
        "`ps.unroll`/`range` (see [the kernel language](language.md)). The list is the "
        "builtin registry, `pyshade.lang.BY_NAME`; each entry shows",
        "",
        "- its signature as the shipped stub declares it to type checkers (for a type "
        "checker `int` stands for every integer type, `u32`, `i32`, `u64`, `i64`, and "
        "`float` for `f32`, `f16`, `f64`);",
        "- its docstring (what editors show on hover);",
        "- whether it is *pure*: pure builtins may be evaluated speculatively (both sides "
        "of `x if c else y` on WGSL, which is `select`); the others are never evaluated "
        "where Python would not evaluate them;",
        "- how each target writes it: the target's own function (positional arguments by "
        "the signature's parameter names, `T` the target's name of the result type, "
        "`<...>` a value the emitter supplies, such as `<global_id input>`, the id the entry "
        "point receives from the target's built-in and passes on to helpers that read it), "
        "code that the emitter generates (with the emitter method's description), or *not "
        "available*;",
        "- where Python's semantics differ from the GPU languages' own functions, the "
        "functions of pyshade's *prelude* that compute Python's result on the GPU "
        f"targets ({', '.join(gpu)}); the cpu device computes it directly.",
        "",
        "Builtins take positional arguments only. A call that does not fit the signature "
        "is a `TranslationError` at the call, for example "
        "`min() takes exactly 2 arguments in a kernel`.",
        "",
        "Type variables in the signatures:",
        "",
    ]
    used = {m for name in lang.BY_NAME for s in signatures(name)
            for m in re.findall(r"\b_[A-Z][A-Za-z]*\b", s)}
    for tv in sorted(used):
        what = tvars.get(tv)
        if what is None:
            raise SystemExit(f"gen_docs.py: type variable {tv} is not defined in the stubs")
        out.append(f"- `{tv[1:]}`: {what}")
    out.append("")
    out.append("## Index")
    out.append("")
    out.append("| builtin | signature | what it does |")
    out.append("|---|---|---|")
    for key, _title in SECTIONS:
        for name in groups[key]:
            b = lang.BY_NAME[name]
            shown = display_name(name, key)
            sig = pretty(signatures(name)[0])
            out.append(f"| [`{shown}`](#{anchor(name)}) | {cell(f'`{sig}`')} | "
                       f"{cell(first_paragraph(b.doc))} |")
    out.append("")
    for key, title in SECTIONS:
        if not groups[key]:
            continue
        out.append(f"## {title}")
        out.append("")
        if key == "internal":
            out.append("These registry entries are not part of the public API: kernels "
                       "cannot name them. The prelude (`pyshade/prelude.py`), which pyshade "
                       "emits in place of operators such as `//` and `%`, is written over "
                       "them; each target spells them once.")
            out.append("")
        for name in groups[key]:
            b = lang.BY_NAME[name]
            shown = display_name(name, key)
            sig_list = signatures(name)
            out.append(f"### `{shown}` {{#{anchor(name)}}}")
            out.append("")
            out.append("```python")
            for s in sig_list:
                out.append(f"{shown}{pretty(s)}")
            out.append("```")
            out.append("")
            out.append(rst_to_md(b.doc) or "(no docstring)")
            out.append("")
            kinds = f" Kinds: {', '.join(f'`{k}`' for k in b.kinds)}." if b.kinds else ""
            out.append(("Pure." if b.pure else "Has side effects.") + kinds)
            out.append("")
            notes = prelude_notes(ps, name)
            core = [(f, d) for f, d in notes if f not in MATH_PRELUDE]
            math_notes = [(f, d) for f, d in notes if f in MATH_PRELUDE]
            if core:
                out.append(f"On the GPU targets ({', '.join(gpu)}), pyshade's prelude computes "
                           "Python's result for these argument types; the spellings below "
                           "serve the others:")
                out.append("")
                for fname, doc in core:
                    out.append(f"- `{fname}`: {doc}")
                out.append("")
            if math_notes:
                out.append("On the targets whose cell below names it, the math prelude "
                           "(`pyshade/prelude_math.py`, written for f32: f16 goes through f32 "
                           "and back) computes the function:")
                out.append("")
                for fname, doc in math_notes:
                    out.append(f"- `{fname}`: {doc}")
                out.append("")
            params = params_of(sig_list[0])
            cells = {t: spelling_cell(ps, t, b, params) for t in targets}
            out.append("| target | spelling |")
            out.append("|---|---|")
            if len(set(cells.values())) == 1:
                out.append(f"| every target | {cells[targets[0]]} |")
            else:
                for t in targets:
                    out.append(f"| {TARGET_LABELS.get(t, t)} | {cells[t]} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


# ------------------------------------------------------------------------------- refused
REFUSED_HEADER = """\
from enum import IntEnum
import math
import os

import numpy as np

import pyshade as ps
from pyshade import f32, f64, i32, i64, u32, vec2, vec3


class Color(IntEnum):
    RED = 0
    GREEN = 1
    BLUE = 2


@ps.struct
class Particle:
    pos: vec2
    energy: f32
"""

# (section, title, code, target). ``code`` is module-level code that defines a kernel
# named ``k``; the page shows it below the common imports above.
REFUSED: list[tuple[str, str, str, str]] = [
    ("Syntax", "Comprehensions", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    a = [i for i in range(4)]
""", "wgsl"),
    ("Syntax", "Generator expressions", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] = sum(i for i in range(4))
""", "wgsl"),
    ("Syntax", "Strings outside print()", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    s = "hello"
""", "wgsl"),
    ("Syntax", "f-strings", """
@ps.kernel
def k(out: ps.Buffer[u32], n: u32):
    print(f"n = {n}")
""", "python"),
    ("Syntax", "lambda", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    f = lambda v: v + 1
""", "wgsl"),
    ("Syntax", "Nested functions", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    def helper(v: u32) -> u32:
        return v
    out[0] = helper(u32(1))
""", "wgsl"),
    ("Syntax", "Classes inside a kernel", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    class Local:
        pass
""", "wgsl"),
    ("Syntax", "Assignment expressions", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    if (x := out[0]) > 1:
        out[1] = x
""", "wgsl"),
    ("Syntax", "Tuples as values", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    t = (1, 2)
""", "wgsl"),
    ("Syntax", "async def", """
@ps.kernel
async def k(out: ps.Buffer[u32]):
    out[0] = u32(1)
""", "wgsl"),
    ("Statements", "try/except", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    try:
        out[0] = u32(1)
    except Exception:
        pass
""", "wgsl"),
    ("Statements", "raise", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    raise ValueError("no")
""", "wgsl"),
    ("Statements", "with", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    with open("x"):
        pass
""", "wgsl"),
    ("Statements", "import inside a kernel", """
@ps.kernel
def k(out: ps.Buffer[f32]):
    import math
""", "wgsl"),
    ("Statements", "global", """
COUNTER = 0


@ps.kernel
def k(out: ps.Buffer[u32]):
    global COUNTER
    COUNTER = 1
""", "wgsl"),
    ("Statements", "del", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    x = u32(1)
    del x
""", "wgsl"),
    ("Statements", "yield", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    yield out[0]
""", "wgsl"),
    ("Statements", "for/else and while/else", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    for i in range(3):
        pass
    else:
        out[0] = u32(1)
""", "wgsl"),
    ("Statements", "Loops over anything but range(), a table or a tuple", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    s = u32(0)
    for d in out:
        s += d
    out[0] = s
""", "wgsl"),
    ("Statements", "An expression statement without effect", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] + 1
""", "wgsl"),
    ("Statements", "A kernel that returns a value", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    return out[0]
""", "wgsl"),
    ("Statements", "Assigning to several swizzle components", """
@ps.kernel
def k(out: ps.Buffer[vec3]):
    v = out[0]
    v.xy = vec2(1.0, 2.0)
    out[0] = v
""", "wgsl"),
    ("Statements", "Unpacking a vector into the wrong number of names", """
@ps.kernel
def k(out: ps.Buffer[f32], v: vec2):
    x, y, z = v
    out[0] = x + y + z
""", "wgsl"),
    ("Statements", "A returned tuple used without unpacking", """
def pair(v: u32):
    return v, v + 1


@ps.kernel
def k(out: ps.Buffer[u32]):
    t = pair(out[0])
    out[1] = pair(out[0])[0]
""", "wgsl"),
    ("Statements", "match guards", """
@ps.kernel
def k(out: ps.Buffer[u32], a: u32):
    match a:
        case 1 if a > 0:
            out[0] = a
        case _:
            pass
""", "wgsl"),
    ("Statements", "match capture patterns", """
@ps.kernel
def k(out: ps.Buffer[u32], a: u32):
    match a:
        case x:
            out[0] = x
""", "wgsl"),
    ("Statements", "A match over an IntEnum that misses members", """
@ps.kernel
def k(out: ps.Buffer[u32], c: Color):
    match c:
        case Color.RED:
            out[0] = u32(1)
""", "wgsl"),
    ("Expressions", "is and is not", """
@ps.kernel
def k(out: ps.Buffer[u32], a: u32):
    if a is not None:
        out[0] = a
""", "wgsl"),
    ("Expressions", "Slices", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] = out[1:2]
""", "wgsl"),
    ("Expressions", "Negative indices", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] = out[-1]
""", "wgsl"),
    ("Expressions", "A signed variable exponent of an integer", """
@ps.kernel
def k(out: ps.Buffer[i32], x: i32, n: i32):
    out[0] = x ** n
""", "wgsl"),
    ("Expressions", "* between matrices", """
@ps.kernel
def k(out: ps.Buffer[f32], m: ps.mat2):
    q = m * m
    out[0] = q[0].x
""", "wgsl"),
    ("Typing", "Mixing u32 and i32", """
@ps.kernel
def k(out: ps.Buffer[u32], a: u32, b: i32):
    out[0] = a + b
""", "wgsl"),
    ("Typing", "/ on integers into an integer", """
@ps.kernel
def k(out: ps.Buffer[u32], a: u32, b: u32):
    out[0] = a / b
""", "wgsl"),
    ("Typing", "Integer vectors with floats", """
@ps.kernel
def k(out: ps.Buffer[f32], v: ps.ivec2):
    w = v * 0.5
    out[0] = w.x
""", "wgsl"),
    ("Typing", "A u32 bound check of ps.tid()", """
@ps.kernel
def k(out: ps.Buffer[f32]):
    i = ps.tid()
    if i < len(out):
        out[i] = 1.0
""", "wgsl"),
    ("Typing", "A variable that changes type", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    x = u32(1)
    x = 1.5
""", "wgsl"),
    ("Typing", "An integer augmented by a float", """
@ps.kernel
def k(a: ps.Buffer[f32], out: ps.Buffer[i32]):
    total = 0
    for i in range(len(a)):
        total += a[i]
    out[0] = total
""", "wgsl"),
    ("Typing", "Conditions that are not bool", """
@ps.kernel
def k(out: ps.Buffer[u32], x: u32):
    if x:
        out[0] = x
""", "wgsl"),
    ("Typing", "A variable that may be unassigned", """
@ps.kernel
def k(out: ps.Buffer[u32], n: u32):
    if n > 3:
        v = u32(1)
    out[0] = v
""", "wgsl"),
    ("Typing", "A variable assigned in a loop that may not run", """
@ps.kernel
def k(out: ps.Buffer[i32], n: i32):
    for i in range(n):
        last = i
    out[0] = last
""", "wgsl"),
    ("Typing", "An array length known only at run time", """
@ps.kernel
def k(out: ps.Buffer[f32], n: u32):
    w = ps.array(f32, n)
    out[0] = w[0]
""", "wgsl"),
    ("Typing", "Integer constants out of range", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    x: u32 = -1
    out[0] = x
""", "wgsl"),
    ("Typing", "Float constants out of range", """
@ps.kernel
def k(x: ps.Buffer[f32]):
    x[0] = x[0] * 1e300
""", "wgsl"),
    ("Parameters", "A helper that modifies a struct or array argument", """
def bump(p: Particle) -> None:
    p.energy = 1.0


@ps.kernel
def k(out: ps.Buffer[Particle]):
    p = out[0]
    bump(p)
""", "wgsl"),
    ("Parameters", "A kernel parameter without annotation", """
@ps.kernel
def k(out):
    pass
""", "wgsl"),
    ("Parameters", "*args and keyword-only parameters", """
@ps.kernel
def k(*bufs):
    pass
""", "wgsl"),
    ("Parameters", "A 2-D buffer indexed with one index", """
@ps.kernel
def k(out: ps.Buffer[f32, 2]):
    out[0] = 1.0
""", "wgsl"),
    ("Calls", "Unknown names", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] = undefined_thing + 1
""", "wgsl"),
    ("Calls", "Functions without Python source (numpy, C builtins)", """
@ps.kernel
def k(out: ps.Buffer[f32]):
    out[0] = np.sin(out[1])
""", "wgsl"),
    ("Calls", "math functions that are not builtins", """
@ps.kernel
def k(out: ps.Buffer[f32]):
    out[0] = math.gamma(out[1])
""", "wgsl"),
    ("Calls", "any() and all() of something else than a bool vector", """
@ps.kernel
def k(out: ps.Buffer[u32], v: vec3):
    if any(v):
        out[0] = u32(1)
""", "wgsl"),
    ("Calls", "Keyword arguments to builtins", """
@ps.kernel
def k(out: ps.Buffer[f32]):
    out[0] = ps.mix(1.0, 2.0, t=0.5)
""", "wgsl"),
    ("Calls", "min and max of more than two values", """
@ps.kernel
def k(out: ps.Buffer[u32], x: u32):
    out[0] = min(x, 1, 2)
""", "wgsl"),
    ("Calls", "Recursion", """
def fact(n: u32) -> u32:
    if n <= 1:
        return u32(1)
    return n * fact(n - 1)


@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] = fact(u32(5))
""", "wgsl"),
    ("Calls", "barrier() in a helper", """
def sync(v: u32) -> u32:
    ps.barrier()
    return v


@ps.kernel
def k(out: ps.Buffer[u32]):
    out[0] = sync(out[0])
""", "wgsl"),
    ("Calls", "Bit atomics on float buffers", """
@ps.kernel
def k(out: ps.Buffer[f32]):
    ps.atomic_or(out, 0, 1.0)
""", "wgsl"),
    ("Calls", "Atomics on f64 buffers", """
@ps.kernel
def k(out: ps.Buffer[f64]):
    ps.atomic_add(out, 0, 1.0)
""", "cuda"),
    ("Targets", "f64 on WGSL and MSL", """
@ps.kernel
def k(out: ps.Buffer[f32], a: f32):
    x: f64 = f64(a)
    out[0] = f32(x * 2.0)
""", "wgsl"),
    ("Targets", "i64 and u64 on WGSL", """
@ps.kernel
def k(out: ps.Buffer[i64]):
    out[0] = out[0] * 2
""", "wgsl"),
    ("Targets", "print() outside the cpu device and CUDA", """
@ps.kernel
def k(out: ps.Buffer[u32]):
    print("value", out[0])
""", "wgsl"),
]


def refused_message(code: str, target: str, tmp: Path, i: int) -> str:
    """The error that translating kernel ``k`` of ``code`` for ``target`` raises, without
    its ``file:line:col`` line (the page shows the code, not a file)."""
    ps = _load_pyshade()
    path = tmp / f"case{i}" / "kernels.py"
    path.parent.mkdir()
    path.write_text(REFUSED_HEADER + "\n\n" + code.strip() + "\n")
    spec = importlib.util.spec_from_file_location(f"_gen_docs_refused_{i}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        ps.translate(mod.k, target)
    except ps.PyshadeError as e:
        text = str(e)
    else:
        raise SystemExit(f"gen_docs.py: this case translates for {target} now: move it out of "
                         f"REFUSED (and into the language page):\n{code}")
    finally:
        sys.modules.pop(spec.name, None)
    lines = text.splitlines()
    if lines and lines[0].startswith(str(path)):
        lines = lines[1:]
    text = "\n".join(lines)
    if str(tmp) in text:
        raise SystemExit(f"gen_docs.py: a temporary path leaked into the message:\n{text}")
    return text


def generate_refused() -> str:
    """The text of ``docs/refused.md``."""
    out = [
        "<!-- Generated by tools/gen_docs.py, which translates every case below: do not "
        "edit (tests/test_docs.py checks it). -->",
        "",
        "# What the translator refuses",
        "",
        "Each case below is translated when this page is generated, and shows the "
        "`TranslationError` users get: the line, a caret under the offending code and "
        "what to do instead. Errors are raised when a kernel is translated (by "
        "`ps.translate`, `ps.compile`, `ps.check` or its first launch), not when it is "
        "decorated. In a program the message starts with `file.py:LINE:COLUMN`; the "
        "examples here leave that line out. Every example starts with these lines:",
        "",
        "```python",
        REFUSED_HEADER.rstrip(),
        "```",
        "",
        "Where a construct is refused on one target only, the example names the target "
        "it was translated for. [The kernel language](language.md) describes what is "
        "accepted.",
        "",
    ]
    section = None
    with tempfile.TemporaryDirectory() as d:
        for i, (sect, title, code, target) in enumerate(REFUSED):
            if sect != section:
                out += [f"## {sect}", ""]
                section = sect
            msg = refused_message(code, target, Path(d), i)
            out += [f"### {title}", ""]
            out += ["```python", textwrap.dedent(code).strip(), "```", ""]
            out += [f"`ps.translate(k, \"{target}\")` raises:", ""]
            out += ["```text", msg, "```", ""]
    return "\n".join(out).rstrip() + "\n"


PAGES = ((BUILTINS_PAGE, generate_builtins), (REFUSED_PAGE, generate_refused))


def main() -> int:
    """Write the pages, or with ``--check`` compare them."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a page is stale")
    args = ap.parse_args()
    stale = 0
    for path, make in PAGES:
        text = make()
        if args.check:
            old = path.read_text() if path.exists() else ""
            if old != text:
                diff = difflib.unified_diff(old.splitlines(), text.splitlines(),
                                            str(path), "generated", lineterm="", n=1)
                print("\n".join(list(diff)[:40]), file=sys.stderr)
                print(f"{path} is stale: run python tools/gen_docs.py", file=sys.stderr)
                stale = 1
            continue
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return stale


if __name__ == "__main__":
    sys.exit(main())
