"""Kernels that must NOT translate: each one is used by ``test_errors.py``.

The tests assert the exact line and column of each error, so this file is
append-only: add new cases at the end and never move existing lines.
Importing it must not raise (decorating a kernel is lazy).
"""
# ruff: noqa: F841, F821, B018, PLW0603, UP028, C416, C419, SIM105, E731, S110

from __future__ import annotations

import os
from enum import IntEnum

import numpy as np

import pyshade as ps
from pyshade import f32, f64, i32, u32

COUNTER = 0


class Color(IntEnum):
    RED = 0
    GREEN = 1
    BLUE = 2


# -- unsupported syntax ------------------------------------------------------------------
@ps.kernel
def list_literal(out: ps.Buffer[u32]):
    a = [1, 2, 3]


@ps.kernel
def dict_literal(out: ps.Buffer[u32]):
    a = {1: 2}


@ps.kernel
def set_literal(out: ps.Buffer[u32]):
    a = {1, 2}


@ps.kernel
def list_comp(out: ps.Buffer[u32]):
    a = [i for i in range(4)]


@ps.kernel
def dict_comp(out: ps.Buffer[u32]):
    a = {i: i for i in range(4)}


@ps.kernel
def set_comp(out: ps.Buffer[u32]):
    a = {i for i in range(4)}


@ps.kernel
def generator(out: ps.Buffer[u32]):
    out[0] = sum(i for i in range(4))


@ps.kernel
def string_value(out: ps.Buffer[u32]):
    s = "hello"


@ps.kernel
def lambda_expr(out: ps.Buffer[u32]):
    f = lambda v: v + 1


@ps.kernel
def try_stmt(out: ps.Buffer[u32]):
    try:
        out[0] = u32(1)
    except Exception:
        pass


@ps.kernel
def with_stmt(out: ps.Buffer[u32]):
    with open("x"):
        pass


@ps.kernel
def global_stmt(out: ps.Buffer[u32]):
    global COUNTER
    COUNTER = 1


def make_nonlocal():
    n = 0

    @ps.kernel
    def nonlocal_stmt(out: ps.Buffer[u32]):
        nonlocal n
        n = 1
    return nonlocal_stmt


nonlocal_stmt = make_nonlocal()


@ps.kernel
def nested_def(out: ps.Buffer[u32]):
    def helper(v: u32) -> u32:
        return v
    out[0] = helper(u32(1))


@ps.kernel
def class_def(out: ps.Buffer[u32]):
    class Local:
        pass


@ps.kernel
def yield_expr(out: ps.Buffer[u32]):
    yield out[0]


@ps.kernel
async def async_kernel(out: ps.Buffer[u32]):
    out[0] = u32(1)


@ps.kernel
def fstring(out: ps.Buffer[u32], n: u32):
    print(f"n = {n}")


# -- recursion ------------------------------------------------------------------------------
def fact(n: u32) -> u32:
    if n <= 1:
        return u32(1)
    return n * fact(n - 1)


@ps.kernel
def direct_recursion(out: ps.Buffer[u32]):
    out[0] = fact(u32(5))


def ping(n: u32) -> u32:
    if n == 0:
        return n
    return pong(n - 1)


def pong(n: u32) -> u32:
    return ping(n)


@ps.kernel
def mutual_recursion(out: ps.Buffer[u32]):
    out[0] = ping(u32(3))


# -- names and calls ------------------------------------------------------------------------
@ps.kernel
def unknown_name(out: ps.Buffer[u32]):
    out[0] = undefined_thing + 1


@ps.kernel
def c_builtin(out: ps.Buffer[u32]):
    out[0] = u32(os.getpid())


@ps.kernel
def numpy_call(out: ps.Buffer[f32]):
    out[0] = np.sin(out[1])


# -- typing ---------------------------------------------------------------------------------
@ps.kernel
def mixed_signedness(out: ps.Buffer[u32], a: u32, b: i32):
    out[0] = a + b


@ps.kernel
def int_plus_float(out: ps.Buffer[f32], a: i32, b: f32):
    out[0] = a + b


@ps.kernel
def int_division(out: ps.Buffer[u32], a: u32, b: u32):
    out[0] = a / b


@ps.kernel
def maybe_unassigned(out: ps.Buffer[u32], n: u32):
    if n > 3:
        v = u32(1)
    out[0] = v


@ps.kernel
def non_exhaustive_match(out: ps.Buffer[u32], c: Color):
    match c:
        case Color.RED:
            out[0] = u32(1)


@ps.kernel
def uses_f64(out: ps.Buffer[f32], a: f32):
    x: f64 = f64(a)
    out[0] = f32(x * 2.0)


@ps.kernel
def uses_print(out: ps.Buffer[u32]):
    print("value", out[0])


@ps.kernel
def tuple_value(out: ps.Buffer[u32]):
    t = (1, 2)


@ps.kernel
def out_of_range(out: ps.Buffer[u32]):
    x: u32 = -1
    out[0] = x


def sync_helper(v: u32) -> u32:
    ps.barrier()
    return v


@ps.kernel
def barrier_in_helper(out: ps.Buffer[u32]):
    out[0] = sync_helper(out[0])


@ps.kernel
def returns_value(out: ps.Buffer[u32]):
    return out[0]


@ps.kernel
def non_bool_condition(out: ps.Buffer[u32], x: u32):
    if x:
        out[0] = x


# -- launch ---------------------------------------------------------------------------------
@ps.kernel
def fill(out: ps.Buffer[u32], v: u32):
    i = ps.global_id().x
    if i < len(out):
        out[i] = v


# -- more cases (append below; never move the lines above) ----------------------------------
async def async_helper(v: u32) -> u32:
    return v


@ps.kernel
def calls_async_helper(out: ps.Buffer[u32]):
    out[0] = async_helper(out[0])


@ps.kernel
def int_plus_float_literal(out: ps.Buffer[f32], a: i32):
    out[0] = a + 0.5


def pair(v: u32) -> u32:
    return v, v


@ps.kernel
def helper_returns_tuple(out: ps.Buffer[u32]):
    out[0] = pair(out[0])


@ps.kernel
def too_big(out: ps.Buffer[u32]):
    x: u32 = 4294967296
    out[0] = x


@ps.kernel
def mixed_assign(out: ps.Buffer[u32], a: i32):
    x: u32 = a
    out[0] = x


@ps.kernel
def expression_statement(out: ps.Buffer[u32]):
    out[0] + 1


# -- float constants out of range (DESIGN principle 5) -----------------------------------
@ps.kernel
def f32_literal_too_big(x: ps.Buffer[f32], y: ps.Buffer[f32]):
    i = ps.global_id().x
    y[i] = x[i] * 1e300


@ps.kernel
def f32_folded_too_big(x: ps.Buffer[f32]):
    x[0] = x[0] + 3.4028235e38 + -(10 ** 39)      # the first rounds to the largest f32


@ps.kernel
def f16_literal_too_big(x: ps.Buffer[ps.f16]):
    x[0] = x[0] * 65520.0


@ps.kernel
def literal_inf(x: ps.Buffer[f64]):
    x[0] = 1e400


@ps.kernel
def mixed_division_hint(out: ps.Buffer[f32], xmin: f32, xmax: f32, nbins: u32):
    out[0] = (xmax - xmin) / nbins


# -- array lengths and loops that may not run (issue 18) ----------------------------------
@ps.kernel
def runtime_array_length(out: ps.Buffer[f32], n: u32):
    w = ps.array(f32, n * 2)
    out[0] = w[0]


@ps.kernel
def buffer_length_shared(out: ps.Buffer[f32]):
    tile = ps.shared_array(f32, len(out))
    out[0] = tile[0]


@ps.kernel
def zero_array_length(out: ps.Buffer[f32], n: ps.Const[int] = 2):
    w = ps.array(f32, n - 2)
    out[0] = w[0]


@ps.kernel
def float_array_length(out: ps.Buffer[f32]):
    w = ps.array(f32, 2.5)
    out[0] = w[0]


@ps.kernel
def runtime_trip_count(out: ps.Buffer[i32], n: i32):
    for i in range(n):
        last = i
    out[0] = last


@ps.kernel
def zero_trip_count(out: ps.Buffer[i32], n: ps.Const[int] = 3):
    for i in range(n, 3):
        last = i
    out[0] = last


@ps.kernel
def while_may_not_run(out: ps.Buffer[i32], n: i32):
    k = 0
    while k < n:
        k += 1
        seen = k
    out[0] = seen


@ps.kernel
def break_before_assign(out: ps.Buffer[i32]):
    for i in range(4):
        if out[i] == 0:
            break
        last = i
    out[0] = last


@ps.kernel
def empty_unroll(out: ps.Buffer[i32], n: ps.Const[int] = 0):
    for i in ps.unroll(range(n)):
        last = i
    out[0] = last


# -- f32 atomics: no bit operations ------------------------------------------------------
@ps.kernel
def float_atomic_or(acc: ps.Buffer[f32]):
    ps.atomic_or(acc, 0, 1.0)


@ps.kernel
def shared_float_atomic_xor(out: ps.Buffer[f32]):
    tile = ps.shared_array(f32, 4)
    ps.atomic_xor(tile, 0, 2.0)


@ps.kernel
def f64_atomic_add(acc: ps.Buffer[f64]):
    ps.atomic_add(acc, 0, 1.0)


# -- all/any, matrix division (issue 18) ----------------------------------------------------
@ps.kernel
def all_of_floats(x: ps.Buffer[ps.vec3], out: ps.Buffer[u32]):
    out[0] = u32(1) if all(x[0]) else u32(0)


@ps.kernel
def any_of_bool(out: ps.Buffer[u32]):
    out[0] = u32(1) if any(out[0] > u32(1)) else u32(0)


@ps.kernel
def scalar_over_matrix(m: ps.Buffer[ps.mat2], s: f32):
    m[0] = s / m[0]


# -- tuples: counts, shapes, a tuple used without unpacking ---------------------------------
def two(v: u32) -> tuple[u32, f32]:
    return v, f32(v)


def shapes(v: u32):
    if v > 3:
        return v, v
    return v, v, v


def one_or_two(v: u32):
    if v > 3:
        return v
    return v, v


@ps.kernel
def unpack_tuple_count(out: ps.Buffer[u32]):
    a, b, c = two(out[0])
    out[0] = a


@ps.kernel
def unpack_vector_count(out: ps.Buffer[u32]):
    x, y = ps.global_id()
    out[0] = x


@ps.kernel
def unpack_scalar(out: ps.Buffer[u32]):
    x, y = out[0]


@ps.kernel
def tuple_return_shapes(out: ps.Buffer[u32]):
    a, b = shapes(out[0])


@ps.kernel
def tuple_and_value_returns(out: ps.Buffer[u32]):
    a, b = one_or_two(out[0])


@ps.kernel
def tuple_not_unpacked(out: ps.Buffer[u32]):
    t = two(out[0])


@ps.kernel
def tuple_indexed(out: ps.Buffer[u32]):
    out[0] = two(out[0])[0]


@ps.kernel
def tuple_field(out: ps.Buffer[u32]):
    out[0] = two(out[0])._0


def take_pair(p: tuple[u32, f32]) -> u32:
    n, w = p
    return n


@ps.kernel
def tuple_arg_count(out: ps.Buffer[u32]):
    out[0] = take_pair((out[0], 1.0, 2.0))


# -- constant tables -------------------------------------------------------------------
RAGGED = ((1.0, 2.0), (3.0,))
WORDS = ("a", "b")
EMPTY = ()
TABLE = (1.0, 2.0)


@ps.kernel
def ragged_table(out: ps.Buffer[f32]):
    out[0] = RAGGED[0][0]


@ps.kernel
def table_of_strings(out: ps.Buffer[f32]):
    out[0] = f32(len(WORDS))


@ps.kernel
def empty_table(out: ps.Buffer[f32]):
    out[0] = EMPTY[0]


@ps.kernel
def assign_to_table(out: ps.Buffer[f32]):
    TABLE[0] = out[0]


# -- list literals: local arrays ---------------------------------------------------------
@ps.kernel
def vector_of_list(out: ps.Buffer[f32]):
    v = ps.vec3([1.0, 2.0, out[0]])


@ps.kernel
def empty_list(out: ps.Buffer[f32]):
    w = []


@ps.kernel
def list_in_expression(out: ps.Buffer[f32]):
    out[0] = [1.0, 2.0][0]


# -- multi-dimensional data --------------------------------------------------------------
@ps.kernel
def nd_one_index(a: ps.Buffer[f32, 2]):
    a[0] = 1.0


@ps.kernel
def nd_bad_axis(a: ps.Buffer[f32, 2]):
    a[0, 0] = f32(a.shape[2])


@ps.kernel
def nd_bare_shape(a: ps.Buffer[f32, 2]):
    a[0, 0] = f32(a.shape)


@ps.kernel
def nd_too_many(a: ps.Buffer[f32]):
    t = ps.array(f32, (2, 2))
    a[0] = t[0, 1, 1]


@ps.kernel
def nd_on_1d(a: ps.Buffer[f32]):
    a[0, 1] = 1.0


# -- an augmented assignment keeps its target's type -------------------------------------
@ps.kernel
def aug_int_by_float(a: ps.Buffer[f32], out: ps.Buffer[i32]):
    s = 0
    s += a[0]
    out[0] = s


@ps.kernel
def aug_int_true_div(out: ps.Buffer[i32]):
    s = 7
    s /= 2
    out[0] = s


@ps.kernel
def aug_int_element_by_float(a: ps.Buffer[f32], out: ps.Buffer[u32]):
    out[0] *= a[0]
