"""One frontend run serves every target that answers its questions the same way
(``pyshade/frontend/target_view.py``, ``Kernel.program``): the text must not depend on
which targets a kernel was translated to before, nor in what order."""

from __future__ import annotations

import math
import re

import pytest
from test_golden import KERNELS, TARGETS, golden_path, load_case

import pyshade as ps
from pyshade.frontend import callgraph
from pyshade.frontend.target_view import TargetView, answers_hold

ORDERS = {
    "reversed": list(TARGETS)[::-1],
    "python-first": ["python", "cuda", "wgsl", "msl", "glsl", "hlsl"],
}


def fresh(k: ps.Kernel) -> ps.Kernel:
    """A new Kernel of the same function: nothing translated yet."""
    return ps.Kernel(k.fn, k.workgroup_size)


@pytest.mark.parametrize("order", list(ORDERS))
def test_every_order_gives_the_golden_text(order: str) -> None:
    # The golden files are what test_golden translates; here every kernel is translated
    # to all six targets in another order, one fresh Kernel each.
    assert sorted(ORDERS[order]) == sorted(TARGETS)
    for case, name in KERNELS:
        mod = load_case(case)
        k = fresh(getattr(mod, name))
        bindings = getattr(mod, "SPECS", {}).get(name, {})
        for target in ORDERS[order]:
            text = ps.translate(k, target, **bindings)
            assert text == golden_path(case, name, target).read_text(), \
                f"{target} text of {case}.{name} after {ORDERS[order]}"


def count_frontend_runs(monkeypatch: pytest.MonkeyPatch) -> list:
    runs: list = []
    real = callgraph.check_kernel

    def counting(fn, target, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        runs.append(target)
        return real(fn, target, *args, **kwargs)

    monkeypatch.setattr(callgraph, "check_kernel", counting)
    return runs


@ps.kernel
def plain(out: ps.Buffer[ps.f32], x: ps.f32) -> None:
    i = ps.global_id().x
    if i < len(out):
        out[i] = x * 2.0 + 1.0


@ps.kernel
def by_target(out: ps.Buffer[ps.i32]) -> None:
    i = ps.global_id().x
    if i < len(out):
        if ps.target == "cuda":
            out[i] = 1
        else:
            out[i] = 2


@ps.kernel
def float_atomic(acc: ps.Buffer[ps.f32], x: ps.Buffer[ps.f32]) -> None:
    i = ps.global_id().x
    if i < len(x):
        ps.atomic_add(acc, 0, x[i])


def test_one_frontend_run_for_a_kernel_that_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = count_frontend_runs(monkeypatch)
    k = fresh(plain)
    texts = {t: ps.translate(k, t) for t in ps.GPU_TARGETS}
    assert len(runs) == 1
    for t in ps.GPU_TARGETS:
        assert texts[t] == ps.translate(fresh(plain), t)
        assert k.program(t, k.spec({})).target == t


def test_ps_target_is_asked_per_target(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = count_frontend_runs(monkeypatch)
    k = fresh(by_target)
    texts = {t: ps.translate(k, t) for t in ps.GPU_TARGETS}
    assert sorted(runs) == sorted(ps.GPU_TARGETS)      # the name has one answer each
    for t in ps.GPU_TARGETS:
        stored = set(re.findall(r"= ([12])i?;", texts[t]))
        assert stored == ({"1"} if t == "cuda" else {"2"}), t
        assert texts[t] == ps.translate(fresh(by_target), t)


def test_float_atomics_split_the_targets_by_their_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # CUDA has an f32 atomic add; the others take the prelude's compare-exchange loop.
    runs = count_frontend_runs(monkeypatch)
    k = fresh(float_atomic)
    order = ["wgsl", "cuda", "glsl", "hlsl", "msl"]
    texts = {t: ps.translate(k, t) for t in order}
    assert runs == ["wgsl", "cuda"]
    assert "ps_atomic_add_float" in texts["wgsl"] and "ps_atomic_add_float" not in texts["cuda"]
    for t in order:
        assert texts[t] == ps.translate(fresh(float_atomic), t)


def test_questions_are_recorded_with_their_answers() -> None:
    view = TargetView("cuda")
    assert view.float_atomic("add") and not view.python_semantics
    assert view.asked == {("float_atomic", "add"): True, ("python_semantics",): False}
    assert answers_hold(view.asked, ps.targets.get("cuda"))
    assert not answers_hold(view.asked, ps.targets.get("wgsl"))
    assert not answers_hold({("python_semantics",): False}, ps.targets.get("python"))
    assert answers_hold({}, ps.targets.get("python"))
    assert view.name == "cuda" and not answers_hold(view.asked, ps.targets.get("hlsl"))


@ps.kernel
def with_math(out: ps.Buffer[ps.f32]) -> None:
    i = ps.global_id().x
    if i < len(out):
        out[i] = math.degrees(out[i]) + math.tanh(out[i])


@ps.kernel
def with_print(out: ps.Buffer[ps.f32]) -> None:
    i = ps.global_id().x
    if i < len(out):
        print("i", i)
        out[i] = 1.0


def test_math_functions_ask_which_targets_write_them() -> None:
    # math.degrees is the prelude's on CUDA and MSL, a builtin elsewhere: every order
    # gives each target its own text.
    for order in (list(ps.GPU_TARGETS), list(ps.GPU_TARGETS)[::-1]):
        k = fresh(with_math)
        for t in order:
            assert ps.translate(k, t) == ps.translate(fresh(with_math), t), (t, order)


def test_a_frontend_error_is_per_target_after_a_success() -> None:
    k = fresh(with_print)
    assert "printf" in ps.translate(k, "cuda")
    with pytest.raises(ps.TranslationError, match="print.. is not available on wgsl"):
        ps.translate(k, "wgsl")
    assert "printf" in ps.translate(k, "cuda")
