"""What a typed program needs of the device that runs it (``artifact.Requirements``):
the device features of the scalar types it uses, with the first Python node that
needs each, its shared memory and the invocation ids it reads. Computed once per
specialisation from the typed Program, for every target; the GLSL and HLSL emitters
read the same scan for the extensions their text declares."""

from __future__ import annotations

import ast
from typing import Any

from .. import types as T
from ..artifact import Location, Requirements
from .deep import walk
from .program import Program

# Scalar types -> the device feature (e.g. VulkanDevice.features) their code needs.
FEATURES = {"f16": "f16", "i64": "i64", "u64": "i64", "f64": "f64"}
_IDS = ("global_id", "local_id", "group_id", "num_groups", "local_index")


def scalars_in(t: Any, seen: set) -> None:
    """Collect the scalar type names inside ``t``."""
    if isinstance(t, T.EnumType):
        t = t.base
    if isinstance(t, T.ScalarType):
        seen.add(t.name)
    elif isinstance(t, (T.VectorType, T.MatrixType)):
        seen.add(t.elem.name)
    elif isinstance(t, (T.ArrayType, T.BufferType)):
        scalars_in(t.elem, seen)
    elif isinstance(t, T.StructType):
        for _, ft in t.fields:
            scalars_in(ft, seen)


def feature_uses(prog: Program, types: Any) -> tuple[set, dict[str, tuple[str, ast.AST]]]:
    """(the scalar type names the program uses, {device feature: (file, first node that
    needs it)}). ``types`` are the program's declared types (buffers, parameters,
    structs): a feature they need is charged to the kernel's own line."""
    needs: dict[str, tuple[str, ast.AST]] = {}
    used: set = set()
    for t in types:
        scalars_in(t, used)
    k = prog.kernel
    for name in used & set(FEATURES):
        needs.setdefault(FEATURES[name], (k.src.filename, k.tree))
    for f in [k] + prog.funcs:
        for n in walk(f.tree):
            here: set = set()
            scalars_in(getattr(n, "ps_type", None), here)
            for name in here & set(FEATURES):
                needs.setdefault(FEATURES[name], (f.src.filename, n))
            used |= here
    return used, needs


def program_features(prog: Program) -> tuple[set, dict[str, tuple[str, ast.AST]]]:
    """``feature_uses`` of the program's declared types (computed once per typed
    Program: its copies for other targets share it)."""
    hit = prog.memo.get("features")
    if hit is None:
        hit = prog.memo["features"] = feature_uses(prog, declared_types(prog))
    return hit


def declared_types(prog: Program) -> list:
    """The types a program declares: buffer elements, value parameters, the locals of
    every function and struct fields (what the emitters' ``all_types`` lists)."""
    k = prog.kernel
    ts = [b.type.elem for b in k.buffers] + [t for _, t in k.values]
    for f in prog.funcs + [k]:
        ts += list(f.locals.values())
    for s in prog.structs:
        ts += [t for _, t in s.fields]
    return ts


def requirements_of(prog: Program) -> Requirements:
    """The ``Requirements`` record of a typed program (computed once, as
    ``program_features``)."""
    hit = prog.memo.get("requirements")
    if hit is None:
        hit = prog.memo["requirements"] = _requirements(prog)
    return hit  # type: ignore[no-any-return]


def _requirements(prog: Program) -> Requirements:
    _, needs = program_features(prog)
    k = prog.kernel
    shared_node = next((n for n in walk(k.tree) if getattr(n, "ps_shared", False)), k.tree)
    return Requirements(
        features=tuple((feat, Location.of(fn, node)) for feat, (fn, node) in needs.items()),
        shared=tuple(s.type for s in k.shared.values()),
        shared_names=tuple(k.shared),
        shared_at=Location.of(k.src.filename, shared_node) if k.shared else None,
        ids=tuple(i for i in _IDS if i in k.ids_used))
