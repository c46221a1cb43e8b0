"""The cpu device's race detector: each kind of race is a LaunchError naming both
invocations, the element and both lines; barrier-separated, atomic and owned accesses
(the section-7 sort included) pass; ``races=False`` turns it off."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

import pyshade as ps
from pyshade import f32, i32, u32, vec4
from pyshade.algorithms.sort import sort

HERE = __file__
FIX_SAME = ("give each invocation its own elements, use atomics, or put a ps.barrier() "
            "between the two accesses; ps.device(\"cpu\", races=False) turns this check off")
FIX_ACROSS = ("give each invocation its own elements, use atomics, or split the kernel into "
              "two launches (a ps.barrier() orders one workgroup); ps.device(\"cpu\", "
              "races=False) turns this check off")
SAME = "in one workgroup, with no ps.barrier() between the two accesses"
ACROSS = "in different workgroups, which nothing orders within a launch"


@pytest.fixture
def cpu() -> ps.Device:
    return ps.device("cpu")


def _at(tag: str, path: str = HERE) -> tuple[str, str]:
    """``file:line`` of the line tagged ``# <tag>`` in ``path``, and that line."""
    for n, text in enumerate(Path(path).read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# {tag}"):
            return f"{path}:{n}", text.strip()
    raise AssertionError(f"no line tagged {tag}")


def _access(gid: tuple, verb: str, elem: str, tag: str, path: str = HERE) -> str:
    where, src = _at(tag, path)
    return f"  global_id {gid} {verb} {elem} at {where}\n      {src}"


def _message(kernel: str, elem: str, what: str, first: str, second: str,
             same: bool = True) -> str:
    return (f"{kernel}(): data race on {elem}: {what} {SAME if same else ACROSS}\n"
            f"{first}\n{second}\n{FIX_SAME if same else FIX_ACROSS}")


def _race(launch: Any) -> str:
    with pytest.raises(ps.LaunchError) as info:
        launch()
    return str(info.value)


# ------------------------------------------------------------ races found

@ps.kernel(workgroup_size=64)
def collide(out: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < 2 * len(out):
        out[i // 2] = f32(i)  # collide


def test_two_writes_of_one_element(cpu: ps.Device) -> None:
    out = cpu.zeros(4, np.float32)
    msg = _race(lambda: collide.launch(out, threads=8, device=cpu))
    assert msg == _message(
        "collide", "out[0]", "two invocations write it",
        _access((0, 0, 0), "wrote", "out[0]", "collide"),
        _access((1, 0, 0), "writes", "out[0]", "collide"))
    assert np.all(out.numpy() == 0)             # nothing written back


@ps.kernel(workgroup_size=64)
def shift_left(x: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i + 1 < len(x):
        x[i] = x[i + 1]  # shift_left


def test_a_read_of_what_another_invocation_writes(cpu: ps.Device) -> None:
    msg = _race(lambda: shift_left.launch(cpu.zeros(8, np.float32), threads=8, device=cpu))
    assert msg == _message(
        "shift_left", "x[1]", "one invocation writes it and another reads it",
        _access((0, 0, 0), "read", "x[1]", "shift_left"),
        _access((1, 0, 0), "writes", "x[1]", "shift_left"))


@ps.kernel(workgroup_size=64)
def write_then_read(x: ps.Buffer[f32], y: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < len(y):
        x[i + 1] = 1.0  # wtr.write
        y[i] = x[i]  # wtr.read


def test_a_write_then_another_invocations_read(cpu: ps.Device) -> None:
    msg = _race(lambda: write_then_read.launch(cpu.zeros(9, np.float32),
                                               cpu.zeros(8, np.float32), threads=8, device=cpu))
    assert msg == _message(
        "write_then_read", "x[1]", "one invocation writes it and another reads it",
        _access((0, 0, 0), "wrote", "x[1]", "wtr.write"),
        _access((1, 0, 0), "reads", "x[1]", "wtr.read"))


@ps.kernel(workgroup_size=4)
def across_groups(out: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    s = ps.shared_array(u32, 4)
    s[ps.local_id().x] = i
    ps.barrier()                      # orders this workgroup only
    out[i % 4] = s[ps.local_id().x]  # across


def test_invocations_of_different_workgroups_always_race(cpu: ps.Device) -> None:
    msg = _race(lambda: across_groups.launch(cpu.zeros(4, np.uint32), threads=8, device=cpu))
    assert msg == _message(
        "across_groups", "out[0]", "two invocations write it",
        _access((0, 0, 0), "wrote", "out[0]", "across"),
        _access((4, 0, 0), "writes", "out[0]", "across"), same=False)


@ps.kernel(workgroup_size=8)
def sum_without_barrier(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    s = ps.shared_array(f32, 8)
    t = ps.local_id().x
    s[t] = x[ps.global_id().x]  # nobar.store
    if t < 4:
        s[t] += s[t + 4]  # nobar.add
    if t == 0:
        out[ps.group_id().x] = s[0]


def test_a_shared_array_without_its_barrier(cpu: ps.Device) -> None:
    msg = _race(lambda: sum_without_barrier.launch(
        cpu.array(np.ones(16, np.float32)), cpu.zeros(2, np.float32), groups=(2, 1, 1),
        device=cpu))
    assert msg == _message(
        "sum_without_barrier", "s[4]", "one invocation writes it and another reads it",
        _access((0, 0, 0), "read", "s[4]", "nobar.add"),
        _access((4, 0, 0), "writes", "s[4]", "nobar.store"))


@ps.kernel(workgroup_size=64)
def count_then_reset(c: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= 8:
        return
    ps.atomic_add(c, 0, u32(1))  # count.atomic
    if i == 3:
        c[0] = u32(0)  # count.reset


@ps.kernel(workgroup_size=64)
def reset_then_count(c: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= 8:
        return
    if i == 0:
        c[0] = u32(0)  # reset.plain
    ps.atomic_add(c, 0, u32(1))  # reset.atomic


def test_a_plain_write_races_with_atomics(cpu: ps.Device) -> None:
    what = "one invocation updates it atomically and another writes it without an atomic"
    msg = _race(lambda: count_then_reset.launch(cpu.zeros(1, np.uint32), threads=8, device=cpu))
    assert msg == _message(
        "count_then_reset", "c[0]", what,
        _access((0, 0, 0), "atomically updated", "c[0]", "count.atomic"),
        _access((3, 0, 0), "writes", "c[0]", "count.reset"))
    msg = _race(lambda: reset_then_count.launch(cpu.zeros(1, np.uint32), threads=8, device=cpu))
    assert msg == _message(
        "reset_then_count", "c[0]", what,
        _access((0, 0, 0), "wrote", "c[0]", "reset.plain"),
        _access((1, 0, 0), "atomically updates", "c[0]", "reset.atomic"))


@ps.struct
class Particle:
    pos: vec4
    mass: f32
    tags: ps.Array[u32, Literal[2]]


@ps.kernel(workgroup_size=64)
def struct_fields(p: ps.Buffer[Particle]) -> None:
    i = ps.global_id().x
    if i >= 2 * len(p):
        return
    if i % 2 == 0:
        p[i // 2].mass = 1.0          # the even invocation owns mass, the odd one pos
    else:
        p[i // 2].pos = vec4(1.0)
    p[0].tags[1] = i  # fields.tag


def test_struct_fields_and_array_fields(cpu: ps.Device) -> None:
    msg = _race(lambda: struct_fields.launch(cpu.zeros(4, Particle.dtype), threads=8,
                                             device=cpu))
    assert msg == _message(
        "struct_fields", "p[0].tags[1]", "two invocations write it",
        _access((0, 0, 0), "wrote", "p[0].tags[1]", "fields.tag"),
        _access((1, 0, 0), "writes", "p[0].tags[1]", "fields.tag"))


@ps.kernel(workgroup_size=64)
def whole_struct(p: ps.Buffer[Particle], q: ps.Buffer[Particle]) -> None:
    i = ps.global_id().x
    if i >= len(q):
        return
    q[i] = p[i]
    if i == 1:
        q[0] = q[1]  # whole.copy


def test_struct_copies_read_and_write_every_field(cpu: ps.Device) -> None:
    p = cpu.zeros(4, Particle.dtype)
    msg = _race(lambda: whole_struct.launch(p, cpu.zeros(4, Particle.dtype), threads=4,
                                            device=cpu))
    first_line = msg.splitlines()[0]
    assert first_line == ("whole_struct(): data race on q[0].pos: two invocations write it "
                          f"{SAME}")
    assert _access((1, 0, 0), "writes", "q[0].pos", "whole.copy") in msg


@ps.kernel(workgroup_size=(2, 2, 1))
def grid_2d(img: ps.Buffer[f32, 2], v: ps.Buffer[vec4]) -> None:
    g = ps.global_id()
    tile = ps.shared_array(f32, (2, 2))
    tile[ps.local_id().y, ps.local_id().x] = 1.0
    ps.barrier()
    img[g.y, g.x] = tile[1, 0]        # every invocation reads tile[1, 0]: no race
    if g.x == 1:
        v[g.y // 2] = vec4(f32(g.x))  # grid.vec


def test_2d_buffers_shared_tiles_and_vector_elements(cpu: ps.Device) -> None:
    img = cpu.zeros((4, 4), np.float32)
    msg = _race(lambda: grid_2d.launch(img, cpu.zeros((2, 4), np.float32), groups=(2, 2, 1),
                                       device=cpu))
    assert msg == _message(
        "grid_2d", "v[0]", "two invocations write it",
        _access((1, 0, 0), "wrote", "v[0]", "grid.vec"),
        _access((1, 1, 0), "writes", "v[0]", "grid.vec"))


@ps.kernel(workgroup_size=64)
def diagonal(img: ps.Buffer[f32, 2]) -> None:
    i = ps.global_id().x
    if i < 4:
        img[1, i % 3] = f32(i)  # diag


def test_a_2d_element_is_named_by_its_indices(cpu: ps.Device) -> None:
    msg = _race(lambda: diagonal.launch(cpu.zeros((2, 3), np.float32), threads=4, device=cpu))
    assert msg.splitlines()[0] == ("diagonal(): data race on img[1, 0]: two invocations "
                                   f"write it {SAME}")
    assert _access((3, 0, 0), "writes", "img[1, 0]", "diag") in msg


@ps.kernel(workgroup_size=4)
def tile_race(out: ps.Buffer[f32]) -> None:
    tile = ps.shared_array(f32, (2, 4))
    t = ps.local_id().x
    tile[1, t // 2] = f32(t)  # tile
    ps.barrier()
    out[ps.global_id().x] = tile[1, 0]


def test_a_2d_shared_element(cpu: ps.Device) -> None:
    msg = _race(lambda: tile_race.launch(cpu.zeros(4, np.float32), threads=4, device=cpu))
    assert msg == _message(
        "tile_race", "tile[1, 0]", "two invocations write it",
        _access((0, 0, 0), "wrote", "tile[1, 0]", "tile"),
        _access((1, 0, 0), "writes", "tile[1, 0]", "tile"))


def put(x: ps.Buffer[f32], i: u32, v: f32) -> None:
    x[i] = v  # helper.put


@ps.kernel(workgroup_size=64)
def via_helper(x: ps.Buffer[f32]) -> None:
    i = ps.global_id().x
    if i < 2 * len(x):
        put(x, i // 2, 1.0)


def test_a_race_in_a_helper_names_the_helpers_line(cpu: ps.Device) -> None:
    msg = _race(lambda: via_helper.launch(cpu.zeros(2, np.float32), threads=4, device=cpu))
    assert msg == _message(
        "via_helper", "x[0]", "two invocations write it",
        _access((0, 0, 0), "wrote", "x[0]", "helper.put"),
        _access((1, 0, 0), "writes", "x[0]", "helper.put"))


HELPER_MODULE = '''\
import pyshade as ps
from pyshade import f32, u32


def put_far(x: ps.Buffer[f32], i: u32, v: f32) -> None:
    x[i] = v  # far.put
'''


def test_a_helper_from_another_module_names_its_own_file(cpu: ps.Device,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "race_helpers.py"
    path.write_text(HELPER_MODULE)
    spec = importlib.util.spec_from_file_location("race_helpers", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["race_helpers"] = mod
    try:
        spec.loader.exec_module(mod)
        put_far = mod.put_far

        @ps.kernel(workgroup_size=64)
        def via_module(x: ps.Buffer[f32]) -> None:
            i = ps.global_id().x
            if i < 2 * len(x):
                put_far(x, i // 2, 1.0)

        msg = _race(lambda: via_module.launch(cpu.zeros(2, np.float32), threads=4, device=cpu))
    finally:
        del sys.modules["race_helpers"]
    assert msg == _message(
        "via_module", "x[0]", "two invocations write it",
        _access((0, 0, 0), "wrote", "x[0]", "far.put", str(path)),
        _access((1, 0, 0), "writes", "x[0]", "far.put", str(path)))


# ------------------------------------------------------------ no false alarms

@ps.kernel(workgroup_size=64)
def block_sum(x: ps.Buffer[f32], out: ps.Buffer[f32]) -> None:
    s = ps.shared_array(f32, 64)
    t = ps.local_id().x
    s[t] = x[ps.global_id().x]
    ps.barrier()
    stride = u32(32)
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        ps.barrier()
        stride //= 2
    if t == 0:
        out[ps.group_id().x] = s[0]


def test_barrier_separated_shared_memory_passes(cpu: ps.Device) -> None:
    x = np.arange(256, dtype=np.float32)
    out = cpu.zeros(4, np.float32)
    block_sum.launch(cpu.array(x), out, groups=(4, 1, 1), device=cpu)
    np.testing.assert_array_equal(out.numpy(), x.reshape(4, 64).sum(axis=1))


@ps.kernel(workgroup_size=16)
def histogram(x: ps.Buffer[u32], bins: ps.Buffer[u32], total: ps.Buffer[u32]) -> None:
    local = ps.shared_array(u32, 4)
    t = ps.local_id().x
    i = ps.global_id().x
    if i < len(x):
        ps.atomic_add(local, x[i] % 4, u32(1))
        ps.atomic_add(total, 0, u32(1))
    ps.barrier()
    if t < 4:
        ps.atomic_add(bins, t, local[t])     # a plain read of a shared atomic, after the barrier


def test_atomics_pass_within_and_across_workgroups(cpu: ps.Device) -> None:
    x = np.arange(100, dtype=np.uint32)
    bins, total = cpu.zeros(4, np.uint32), cpu.zeros(1, np.uint32)
    histogram.launch(cpu.array(x), bins, total, threads=100, device=cpu)
    np.testing.assert_array_equal(bins.numpy(), np.bincount(x % 4, minlength=4))
    assert total.numpy()[0] == 100


@ps.kernel(workgroup_size=64)
def cas_max(x: ps.Buffer[i32], best: ps.Buffer[i32]) -> None:
    i = ps.global_id().x
    if i >= len(x):
        return
    old = best[0]                     # a plain read of an atomic element: an atomic load
    while x[i] > old:
        seen = ps.atomic_compare_exchange(best, 0, old, x[i])
        if seen == old:
            break
        old = seen


def test_a_compare_exchange_loop_passes(cpu: ps.Device) -> None:
    x = np.array([3, 9, -4, 7, 12, 0, 5, 11] * 20, dtype=np.int32)
    best = cpu.array(np.array([-100], np.int32))
    cas_max.launch(cpu.array(x), best, threads=len(x), device=cpu)
    assert best.numpy()[0] == 12


@ps.kernel(workgroup_size=8)
def exchange(x: ps.Buffer[f32], y: ps.Buffer[f32]) -> None:
    s = ps.shared_array(f32, 8)
    t = ps.local_id().x
    i = ps.global_id().x
    s[t] = x[i]
    ps.barrier()
    v = s[t ^ 1]
    ps.barrier()
    s[t] = v * 2.0
    ps.barrier()
    y[i] = s[t ^ 1] + x[i] * 0.0
    y[i] += 1.0                       # its own element, again


def test_owned_and_barrier_separated_accesses_pass(cpu: ps.Device) -> None:
    x = np.arange(16, dtype=np.float32)
    y = cpu.zeros(16, np.float32)
    exchange.launch(cpu.array(x), y, threads=16, device=cpu)
    np.testing.assert_array_equal(y.numpy(), x * 2 + 1)


def test_the_section_7_bitonic_sort_passes(cpu: ps.Device) -> None:
    assert cpu.races
    rng = np.random.default_rng(7)
    for dtype in (np.uint32, np.float32):
        data = (rng.normal(0, 1e3, 1000) if dtype is np.float32
                else rng.integers(0, 2**32, 1000)).astype(dtype)
        np.testing.assert_array_equal(sort(data, device=cpu), np.sort(data))
        np.testing.assert_array_equal(sort(data, descending=True, device=cpu),
                                      np.sort(data)[::-1])


# ------------------------------------------------------------ turning it off

def test_races_false_turns_the_check_off(cpu: ps.Device) -> None:
    off = ps.device("cpu", races=False)
    assert off is ps.device("cpu", races=False) and off is not cpu
    assert not off.races and off.name == "cpu" and "race detector off" in off.adapter
    assert ps.device("cpu", races=True) is cpu
    out = cpu.zeros(4, np.float32)              # an array of the other cpu device
    collide.launch(out, threads=8, device=off)
    np.testing.assert_array_equal(out.numpy(), [1, 3, 5, 7])   # the later write stands
    x, y = off.array(np.arange(8, dtype=np.float32)), off.zeros(8, np.float32)
    exchange.launch(x, y, threads=8, device=cpu)    # arrays of off run on the default one
    np.testing.assert_array_equal(y.numpy(), np.arange(8) * 2 + 1)


def test_races_on_another_device_is_an_error() -> None:
    for name in ("wgpu", "vulkan", "cuda"):
        with pytest.raises(ps.BackendUnavailable) as info:
            ps.device(name, races=False)
        assert str(info.value) == ("races=False: only the cpu device checks for data races "
                                   "(ps.device(\"cpu\", races=False))")
    with pytest.raises(ps.BackendUnavailable) as info:
        ps.device(races=True)
    assert str(info.value).startswith("races=True: only the cpu device")
    with pytest.raises(ps.BackendUnavailable) as info:
        ps.device("cpu", races="no")        # type: ignore[arg-type]
    assert str(info.value) == "races='no': expected True or False"


@ps.kernel(workgroup_size=4)
def math(out: ps.Buffer[u32]) -> None:   # names that the python translation renames
    list = ps.shared_array(u32, 4)
    t = ps.local_id().x
    list[t // 2] = t  # renamed
    ps.barrier()
    out[t] = list[0]


def test_a_race_names_the_kernel_and_arrays_as_written(cpu: ps.Device) -> None:
    assert "def math_(" in ps.translate(math, "python")
    msg = _race(lambda: math.launch(cpu.zeros(4, np.uint32), threads=4, device=cpu))
    assert msg == _message(
        "math", "list[0]", "two invocations write it",
        _access((0, 0, 0), "wrote", "list[0]", "renamed"),
        _access((1, 0, 0), "writes", "list[0]", "renamed"))
