"""Behaviour only the CPU device has (DESIGN.md section 5): out-of-bounds
indexing, integer division by zero and failed asserts raise; print works;
tracebacks point at the user's kernel source; a barrier in non-uniform control
flow is reported."""

from __future__ import annotations

import inspect
import traceback

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, i32, u32


@pytest.fixture
def cpu() -> ps.Device:
    return ps.device("cpu")


def _line_of(fn: object, marker: str) -> int:
    """The line number in this file of the line of ``fn`` containing ``marker``."""
    lines, start = inspect.getsourcelines(getattr(fn, "__wrapped__", fn))
    hits = [start + k for k, text in enumerate(lines) if marker in text]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def _user_frames(exc: BaseException) -> list[tuple[str, int]]:
    return [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)
            if f.filename == __file__]


@ps.kernel
def shift_left(a: ps.Buffer[i32], out: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(out):
        out[i] = a[i + 1]  # MARK-oob-read


@ps.kernel
def write_past(out: ps.Buffer[u32], extra: u32):
    i = ps.global_id().x
    if i < len(out):
        out[i + extra] = i  # MARK-oob-write


@ps.kernel
def signed_index(a: ps.Buffer[i32], out: ps.Buffer[i32], shift: i32):
    i = ps.global_id().x
    if i < len(out):
        out[i] = a[int(i) - shift]


def test_out_of_bounds_read_raises(cpu: ps.Device, rng: np.random.Generator) -> None:
    n = int(rng.integers(5, 50))
    a = rng.integers(-9, 9, n, dtype=np.int32)
    with pytest.raises(IndexError) as info:
        shift_left.launch(cpu.array(a), cpu.zeros(n, np.int32), threads=n, device=cpu)
    assert (__file__, _line_of(shift_left, "MARK-oob-read")) in _user_frames(info.value)
    assert f"global_id=({n - 1}, 0, 0)" in "".join(getattr(info.value, "__notes__", []))
    # in bounds (one thread fewer): works and matches numpy
    out = cpu.zeros(n - 1, np.int32)
    shift_left.launch(cpu.array(a), out, threads=n - 1, device=cpu)
    np.testing.assert_array_equal(out.numpy(), a[1:])


def test_out_of_bounds_write_raises(cpu: ps.Device) -> None:
    with pytest.raises(IndexError) as info:
        write_past.launch(cpu.zeros(10, np.uint32), 1, threads=10, device=cpu)
    assert (__file__, _line_of(write_past, "MARK-oob-write")) in _user_frames(info.value)
    out = cpu.zeros(10, np.uint32)
    write_past.launch(out, 0, threads=10, device=cpu)
    np.testing.assert_array_equal(out.numpy(), np.arange(10))


def test_negative_index_raises(cpu: ps.Device) -> None:
    a = cpu.array(np.arange(8, dtype=np.int32))
    with pytest.raises(IndexError):          # a Python list would wrap around silently
        signed_index.launch(a, cpu.zeros(8, np.int32), 1, threads=8, device=cpu)
    out = cpu.zeros(4, np.int32)
    signed_index.launch(a, out, -2, threads=4, device=cpu)
    np.testing.assert_array_equal(out.numpy(), [2, 3, 4, 5])


@ps.kernel
def int_divide(a: ps.Buffer[i32], b: ps.Buffer[i32], q: ps.Buffer[i32], r: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] // b[i]  # MARK-div
        r[i] = a[i] % b[i]


@ps.kernel
def float_divide(a: ps.Buffer[f32], b: ps.Buffer[f32], q: ps.Buffer[f32]):
    i = ps.global_id().x
    if i < len(a):
        q[i] = a[i] / b[i]


def test_integer_division_by_zero_raises(cpu: ps.Device, rng: np.random.Generator) -> None:
    n = 20
    a = rng.integers(-100, 100, n, dtype=np.int32)
    b = rng.integers(1, 9, n, dtype=np.int32)
    b[int(rng.integers(0, n))] = 0
    with pytest.raises(ZeroDivisionError) as info:
        int_divide.launch(cpu.array(a), cpu.array(b), cpu.zeros(n, np.int32),
                          cpu.zeros(n, np.int32), threads=n, device=cpu)
    assert (__file__, _line_of(int_divide, "MARK-div")) in _user_frames(info.value)


def test_float_division_by_zero_is_inf(cpu: ps.Device) -> None:
    q = cpu.zeros(3, np.float32)
    float_divide.launch(cpu.array(np.array([1, -1, 0], np.float32)),
                        cpu.array(np.array([0, 0, 0], np.float32)), q, threads=3, device=cpu)
    got = q.numpy()
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


@ps.kernel
def checked(a: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        assert a[i] >= 0, "negative input"  # MARK-assert
        a[i] = a[i] * 2


def test_failed_assert_raises(cpu: ps.Device, rng: np.random.Generator) -> None:
    a = rng.integers(0, 100, 30, dtype=np.int32)
    buf = cpu.array(a)
    checked.launch(buf, threads=30, device=cpu)
    np.testing.assert_array_equal(buf.numpy(), a * 2)
    a[17] = -5
    with pytest.raises(AssertionError, match="negative input") as info:
        checked.launch(cpu.array(a), threads=30, device=cpu)
    assert (__file__, _line_of(checked, "MARK-assert")) in _user_frames(info.value)


@ps.kernel
def chatty(a: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        print("item", i, "is", a[i])


def test_print_output(cpu: ps.Device, capsys: pytest.CaptureFixture,
                      rng: np.random.Generator) -> None:
    a = rng.integers(-50, 50, 5, dtype=np.int32)
    chatty.launch(cpu.array(a), threads=5, device=cpu)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"item {i} is {v}" for i, v in enumerate(a)]


def _helper_fails(x: i32) -> i32:
    if x > 10:
        return x // (x - x)  # MARK-helper
    return x


@ps.kernel
def calls_helper(a: ps.Buffer[i32]):
    i = ps.global_id().x
    if i < len(a):
        a[i] = _helper_fails(a[i])  # MARK-call


def test_traceback_points_into_helper(cpu: ps.Device) -> None:
    with pytest.raises(ZeroDivisionError) as info:
        calls_helper.launch(cpu.array(np.array([1, 2, 30], np.int32)), threads=3, device=cpu)
    frames = _user_frames(info.value)
    assert (__file__, _line_of(calls_helper, "MARK-call")) in frames
    assert (__file__, _line_of(_helper_fails, "MARK-helper")) in frames
    assert frames[-1] == (__file__, _line_of(_helper_fails, "MARK-helper"))


@ps.kernel(workgroup_size=8)
def bad_barrier(a: ps.Buffer[u32]):
    i = ps.global_id().x
    if ps.local_id().x < 4:
        ps.barrier()
    a[i] = i


@ps.kernel(workgroup_size=8)
def early_return_barrier(a: ps.Buffer[u32]):
    i = ps.global_id().x
    if i >= len(a):
        return
    ps.barrier()
    a[i] = i


def test_barrier_in_non_uniform_control_flow(cpu: ps.Device) -> None:
    """Refused at translation, on every target (before, only the cpu device noticed, at
    run time, and only when the invocations did diverge)."""
    for k, line, reads, cond in ((bad_barrier, 182, "ps.local_id()", 181),
                                 (early_return_barrier, 191, "i", 189)):
        for target in ("python", "wgsl", "cuda"):
            with pytest.raises(ps.TranslationError) as info:
                ps.translate(k, target)
            e = info.value
            assert (e.filename, e.lineno) == (__file__, line)
            assert e.message.startswith(f"barrier() in non-uniform control flow: the "
                                        f"condition on line {cond} reads {reads}, which can "
                                        "differ between the invocations of a workgroup")
        with pytest.raises(ps.TranslationError):
            k.launch(cpu.zeros(16, np.uint32), threads=16, device=cpu)
