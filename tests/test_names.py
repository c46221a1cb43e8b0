"""Tests of the reserved-word tables and of ``pyshade.emit.names.Namer``."""

from __future__ import annotations

import keyword
import re

import pytest

from pyshade.emit.keywords import (
    ALL_KEYWORDS,
    ALL_PREFIXES,
    ALL_SUBSTRINGS,
    PYSHADE_PREFIX,
    TARGETS,
)
from pyshade.emit.names import Namer

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

TRICKY = "out kernel device half var let fn uniform layout threadIdx main vec4 __x gl_x float4 select"


def assert_clean(ident: str) -> None:
    """A produced name must be usable in every target."""
    assert IDENT.fullmatch(ident), ident
    assert ident not in ALL_KEYWORDS, ident
    assert not ident.startswith(ALL_PREFIXES), ident
    assert not any(s in ident for s in ALL_SUBSTRINGS), ident


# -- keyword tables ----------------------------------------------------------


def test_targets_and_tables() -> None:
    assert set(TARGETS) == {"wgsl", "glsl", "hlsl", "msl", "cuda", "python"}
    for target, mod in TARGETS.items():
        assert mod.__doc__ and len(mod.__doc__) > 40, target
        assert isinstance(mod.KEYWORDS, frozenset) and mod.KEYWORDS, target
        assert isinstance(mod.RESERVED_PREFIXES, tuple), target
        assert isinstance(mod.RESERVED_SUBSTRINGS, tuple), target
        assert mod.KEYWORDS <= ALL_KEYWORDS
        assert set(mod.RESERVED_PREFIXES) <= set(ALL_PREFIXES)
        assert set(mod.RESERVED_SUBSTRINGS) <= set(ALL_SUBSTRINGS)
        for word in mod.KEYWORDS:
            assert IDENT.fullmatch(word), (target, word)
    assert PYSHADE_PREFIX == "_ps" and "_ps" in ALL_PREFIXES
    assert ALL_KEYWORDS == frozenset().union(*(m.KEYWORDS for m in TARGETS.values()))


@pytest.mark.parametrize("target, words", [
    ("wgsl", ("fn let var loop select arrayLength bitcast vec4 vec4f mat4x4f f32 u32 "
              "texture_2d sampler storage read_write workgroup NULL Self become "
              "co_await demote macro_rules unsafe wgsl yield _ main")),
    ("glsl", ("texture min max abs clamp mix layout uniform buffer shared in out inout "
              "vec4 ivec2 mat4 dmat3x2 sampler2D image2D half fixed superp input output "
              "discard main")),
    ("hlsl", ("lerp saturate frac rsqrt mul groupshared RWStructuredBuffer numthreads "
              "register float4 half3 min16float2 float4x4 cbuffer Texture2D "
              "WaveActiveSum template this main")),
    ("msl", ("kernel device constant thread threadgroup half4 float3x3 packed_float3 "
             "texture2d sampler new delete class template auto this namespace concept "
             "co_yield requires consteval char8_t fract rsqrt main")),
    ("cuda", ("threadIdx blockIdx blockDim gridDim warpSize new delete class template auto "
              "this namespace concept requires float4 make_float4 dim3 half atomicAdd "
              "sinf rsqrtf INFINITY main")),
    ("python", ("math ps np range len print abs min max int float bool round lambda match "
                "None True")),
])
def test_expected_words(target: str, words: str) -> None:
    kw = TARGETS[target].KEYWORDS
    missing = [w for w in words.split() if w not in kw]
    assert not missing, (target, missing)


def test_prefixes_and_substrings() -> None:
    assert TARGETS["wgsl"].RESERVED_PREFIXES == ("__",)
    assert "gl_" in TARGETS["glsl"].RESERVED_PREFIXES
    assert "__" in TARGETS["glsl"].RESERVED_PREFIXES
    for t in ("hlsl", "msl", "cuda"):
        assert "__" in TARGETS[t].RESERVED_PREFIXES
    for t in ("glsl", "msl", "cuda"):
        assert "__" in TARGETS[t].RESERVED_SUBSTRINGS
    assert TARGETS["wgsl"].RESERVED_SUBSTRINGS == ()
    assert set(keyword.kwlist) <= TARGETS["python"].KEYWORDS


# -- Namer -------------------------------------------------------------------


def test_plain_names_unchanged_and_stable() -> None:
    n = Namer()
    for py in ("x", "acc", "value_2", "myFunc", "Point"):
        assert n.name(py) == py
        assert n.name(py) == py


@pytest.mark.parametrize("py, want", [
    ("out", "out_"), ("kernel", "kernel_"), ("main", "main_"), ("vec4", "vec4_"),
    ("__x", "x"), ("a__b", "a_b"), ("gl_x", "v_gl_x"), ("float4", "float4_"),
    ("select", "select_"), ("_ps_tmp", "ps_tmp"), ("_", "v_"), ("__", "v_"),
    ("x__", "x_"), ("_1", "v_1"), ("GL_FOO", "v_GL_FOO"),
])
def test_examples(py: str, want: str) -> None:
    n = Namer()
    assert n.name(py) == want
    assert n.name(py) == want
    assert_clean(want)


def test_renamed_target_taken_when_base_is_taken() -> None:
    n = Namer()
    assert n.name("x") == "x"
    assert n.name("__x") == "x_"
    assert n.name("___x") == "x_1"
    assert n.name("x_") == "x_2"
    assert len({n.name(p) for p in ("x", "__x", "___x", "x_")}) == 4


def test_user_name_equal_to_a_rename_is_renamed() -> None:
    n = Namer()
    assert n.name("out") == "out_"
    assert n.name("out_") == "out_1"
    assert n.name("out_1") == "out_1_"


def test_tricky_list_all_renamed_distinct_valid() -> None:
    words = TRICKY.split()
    n = Namer()
    got = [n.name(w) for w in words]
    assert len(set(got)) == len(words)
    for w, g in zip(words, got):
        assert g != w, w
        assert_clean(g)
        assert n.name(w) == g


def test_tricky_list_as_user_names_of_a_target_that_is_a_rename() -> None:
    # Ask for the renamed spellings first, then the originals.
    n = Namer()
    pre = [n.name(w + "_") for w in ("out", "kernel", "main")]
    assert pre == ["out_", "kernel_", "main_"]
    got = [n.name(w) for w in ("out", "kernel", "main")]
    assert set(got).isdisjoint(pre)
    for g in got:
        assert_clean(g)


def test_unicode_and_odd_input() -> None:
    n = Namer()
    a, b = n.name("café"), n.name("cafè")
    assert a != b
    assert_clean(a)
    assert_clean(b)
    assert n.name("") != n.name("_")
    for g in (n.name(""), n.name("_"), n.name("9lives"), n.name("a.b")):
        assert_clean(g)


def test_fresh_pattern_and_user_collision() -> None:
    n = Namer()
    assert n.fresh("tmp") == "tmp_1"
    assert n.fresh("tmp") == "tmp_2"
    # User names that equal fresh names get renamed.
    assert n.name("tmp_1") not in ("tmp_1", "tmp_2")
    assert n.name("tmp_2") not in ("tmp_1", "tmp_2")
    assert_clean(n.name("tmp_1"))
    # A user name handed out before is skipped by fresh.
    assert n.name("t_1") == "t_1"
    assert n.fresh("t") == "t_2"


def test_fresh_sanitises_hint() -> None:
    n = Namer()
    for hint in ("out", "__x", "gl_pos", "a__b", "", "1"):
        f = n.fresh(hint)
        assert_clean(f)
    assert n.fresh("out") == "out_2"
    assert n.fresh("x_") == "x_2"     # "x_1" came from the hint "__x" above
    assert Namer().fresh("x_") == "x_1"


def test_fresh_never_equals_user_names() -> None:
    n = Namer()
    users = [n.name(f"v_{k}") for k in range(1, 4)]
    fresh = [n.fresh("v") for _ in range(5)]
    later = [n.name(f"v_{k}") for k in range(4, 9)]
    assert set(users).isdisjoint(fresh)
    assert set(later).isdisjoint(fresh)
    assert len(set(users + fresh + later)) == len(users + fresh + later)


def test_reserve() -> None:
    n = Namer()
    n.reserve("gid")
    n.reserve("gid")                 # idempotent
    assert n.is_taken("gid")
    assert n.name("gid") == "gid_"
    assert n.fresh("gid") == "gid_1"
    with pytest.raises(ValueError):
        n.reserve("gid_")            # handed out to the user above
    with pytest.raises(ValueError):
        n.reserve("gid_1")           # handed out by fresh


def test_child_avoids_parent_before_and_after() -> None:
    g = Namer()
    assert g.name("f") == "f"
    c = g.child()
    assert c.name("f") == "f_"       # local shadowing the global gets a new name
    assert c.name("y") == "y"
    assert g.name("y") == "y_"       # parent later avoids the child's names
    assert c.lookup("f") == "f_"
    assert c.lookup("y") == "y"
    assert g.lookup("y") == "y_"
    assert c.lookup("nope") is None
    c2 = g.child()
    assert c2.lookup("f") == "f"      # falls back to the parent's answer
    assert c2.name("y") == "y"        # siblings do not see each other...
    assert c2.name("y_") == "y_1"     # ...but do see the parent


def test_grandchild_and_fresh_across_scopes() -> None:
    g = Namer()
    c = g.child()
    gc = c.child()
    assert gc.fresh("tmp") == "tmp_1"
    assert c.fresh("tmp") == "tmp_2"
    assert g.fresh("tmp") == "tmp_3"
    assert g.name("tmp_1") == "tmp_1_"
    assert gc.name("tmp_3") != "tmp_3"
    g.reserve("buf")
    assert gc.name("buf") == "buf_"
    with pytest.raises(ValueError):
        g.reserve("tmp_1")           # a grandchild's temporary


def test_user_name_taken_by_fresh_first() -> None:
    n = Namer()
    t = n.fresh("acc")
    assert t == "acc_1"
    assert n.name("acc_1") != t
    assert n.name("acc") == "acc"


def test_custom_tables() -> None:
    n = Namer(reserved=frozenset({"foo"}), prefixes=("bad",), substrings=("zz",))
    assert n.name("foo") == "foo_"
    assert n.name("badx") == "v_badx"
    assert n.name("azzb") == "ab"
    assert n.name("out") == "out"    # not reserved under these tables
    assert n.child().name("foo") == "foo_1"


def test_many_names_all_clean_distinct_and_stable() -> None:
    pool = sorted(ALL_KEYWORDS)[:400] + [f"_{w}" for w in TRICKY.split()] + [
        "x", "x_", "_x", "__x", "x__", "x_1", "tmp", "tmp_1", "gl_Position", "__init__"]
    n = Namer()
    c = n.child()
    got: dict[str, str] = {}
    for i, py in enumerate(pool):
        if i % 7 == 0:
            assert_clean(n.fresh(py))
        got[py] = n.name(py)
    locals_ = {py: c.name(py) for py in pool[:50]}
    for py, g in got.items():
        assert_clean(g)
        assert n.name(py) == g
    for g in locals_.values():
        assert_clean(g)
    assert len(set(got.values())) == len(got)
    assert set(locals_.values()).isdisjoint(got.values())
