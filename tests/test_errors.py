"""Error messages: every TranslationError points at the exact Python line and column,
shows the source line with a caret and says what to do (DESIGN.md sections 1, 5, 6).

The bad kernels live in ``error_cases.py`` at fixed lines; each message is snapshot-tested
in full. When a message is improved on purpose, update its expected text here.
"""

from __future__ import annotations

import pickle

import error_cases as E
import numpy as np
import pytest

import pyshade as ps

FILE = E.__file__

# (kernel, lineno, col_offset (0-based), target attribute, str(e) after the file name)
CASES = [
    ('dict_literal', 36, 8, None,
     ':36:9\n'
     '    a = {1: 2}\n'
     '        ^^^^^^\n'
     'TranslationError: dict literals are not supported in kernels: use a @ps.struct '
     'or ps.array(T, N)'),
    ('set_literal', 41, 8, None,
     ':41:9\n'
     '    a = {1, 2}\n'
     '        ^^^^^^\n'
     'TranslationError: set literals are not supported in kernels: use ps.array(T, N)'),
    ('list_comp', 46, 8, None,
     ':46:9\n'
     '    a = [i for i in range(4)]\n'
     '        ^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: list comprehensions are not supported in kernels: use '
     'ps.array(T, N) and a loop'),
    ('dict_comp', 51, 8, None,
     ':51:9\n'
     '    a = {i: i for i in range(4)}\n'
     '        ^^^^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: dict comprehensions are not supported in kernels: use '
     'ps.array(T, N) and a loop'),
    ('set_comp', 56, 8, None,
     ':56:9\n'
     '    a = {i for i in range(4)}\n'
     '        ^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: set comprehensions are not supported in kernels: use '
     'ps.array(T, N) and a loop'),
    ('generator', 61, 16, None,
     ':61:17\n'
     '    out[0] = sum(i for i in range(4))\n'
     '                ^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: generator expressions are not supported in kernels: use a loop'),
    ('string_value', 66, 8, None,
     ':66:9\n'
     '    s = "hello"\n'
     '        ^^^^^^^\n'
     'TranslationError: strings are only allowed as print() arguments (kernels have '
     'no string type)'),
    ('lambda_expr', 71, 8, None,
     ':71:9\n'
     '    f = lambda v: v + 1\n'
     '        ^^^^^^^^^^^^^^^\n'
     'TranslationError: lambda is not supported in kernels: define a helper function '
     'with def'),
    ('try_stmt', 76, 4, None,
     ':76:5\n'
     '    try:\n'
     '    ^\n'
     'TranslationError: try/except is not supported in kernels (GPUs have no '
     'exceptions): check conditions with if, or use assert (checked on the CPU)'),
    ('with_stmt', 84, 4, None,
     ':84:5\n'
     '    with open("x"):\n'
     '    ^\n'
     'TranslationError: with is not supported in kernels: a kernel cannot open files, '
     'locks or other context managers'),
    ('global_stmt', 90, 4, None,
     ':90:5\n'
     '    global COUNTER\n'
     '    ^^^^^^^^^^^^^^\n'
     'TranslationError: global is not supported in kernels: pass values as parameters'),
    ('nonlocal_stmt', 99, 8, None,
     ':99:9\n'
     '    nonlocal n\n'
     '    ^^^^^^^^^^\n'
     'TranslationError: nonlocal is not supported in kernels: use a local variable, '
     'or pass values as parameters'),
    ('nested_def', 109, 4, None,
     ':109:5\n'
     '    def helper(v: u32) -> u32:\n'
     '    ^\n'
     'TranslationError: nested function definitions are not supported in kernels: '
     'define the helper at module level'),
    ('class_def', 116, 4, None,
     ':116:5\n'
     '    class Local:\n'
     '    ^\n'
     'TranslationError: class definitions are not supported in kernels: define the '
     'class at module level'),
    ('yield_expr', 122, 4, None,
     ':122:5\n'
     '    yield out[0]\n'
     '    ^^^^^^^^^^^^\n'
     'TranslationError: yield is not supported in kernels: write results to a Buffer'),
    ('async_kernel', 126, 0, None,
     ':126:1\n'
     '    async def async_kernel(out: ps.Buffer[u32]):\n'
     '    ^\n'
     'TranslationError: async def is not supported: kernels and helpers cannot await; '
     'define them with a plain def'),
    ('fstring', 132, 10, None,
     ':132:11\n'
     '    print(f"n = {n}")\n'
     '          ^^^^^^^^^^\n'
     'TranslationError: f-strings are not supported in kernels: pass values to '
     'print() separately'),
    ('direct_recursion', 139, 15, None,
     ':139:16\n'
     '    return n * fact(n - 1)\n'
     '               ^^^^^^^^^^^\n'
     'TranslationError: recursion is not supported on GPUs: fact -> fact; rewrite it '
     'as a loop'),
    ('mutual_recursion', 154, 11, None,
     ':154:12\n'
     '    return ping(n)\n'
     '           ^^^^^^^\n'
     'TranslationError: recursion is not supported on GPUs: ping -> pong -> ping; '
     'rewrite it as a loop'),
    ('unknown_name', 165, 13, None,
     ':165:14\n'
     '    out[0] = undefined_thing + 1\n'
     '             ^^^^^^^^^^^^^^^\n'
     "TranslationError: unknown name 'undefined_thing': it is not a parameter, a "
     'local variable, a module-level name or a builtin (a typo, or a missing import?)'),
    ('c_builtin', 170, 17, None,
     ':170:18\n'
     '    out[0] = u32(os.getpid())\n'
     '                 ^^^^^^^^^^^\n'
     'TranslationError: cannot call os.getpid in a kernel: it is not a pyshade '
     'builtin and has no Python source to translate (kernels can call ps.* and math.* '
     'builtins, types, and functions written in Python)'),
    ('numpy_call', 175, 13, None,
     ':175:14\n'
     '    out[0] = np.sin(out[1])\n'
     '             ^^^^^^^^^^^^^^\n'
     'TranslationError: cannot call np.sin in a kernel: it is not a pyshade builtin '
     'and has no Python source to translate (kernels can call ps.* and math.* '
     'builtins, types, and functions written in Python); use math.sin(...) instead'),
    ('mixed_signedness', 181, 13, None,
     ':181:14\n'
     '    out[0] = a + b\n'
     '             ^^^^^\n'
     'TranslationError: mixed signedness in +: a is u32 and b is i32; convert one '
     'side explicitly: a + u32(b) or i32(a) + b'),
    ('int_division', 191, 13, None,
     ':191:14\n'
     '    out[0] = a / b\n'
     '             ^^^^^\n'
     'TranslationError: expected u32 for the assignment, got f32 (/ is true division, '
     'which gives a float as in Python: use // for integer division, or convert with '
     'u32(...))'),
    ('maybe_unassigned', 198, 13, None,
     ':198:14\n'
     '    out[0] = v\n'
     '             ^\n'
     "TranslationError: variable 'v' may be used before it is assigned (assign it on "
     'every path first)'),
    ('non_exhaustive_match', 203, 4, None,
     ':203:5\n'
     '    match c:\n'
     '    ^\n'
     'TranslationError: match over Color does not handle Color.GREEN, Color.BLUE: add '
     "the missing cases or 'case _:'"),
    ('uses_f64', 210, 4, 'wgsl',
     ':210:5\n'
     '    x: f64 = f64(a)\n'
     '    ^^^^^^^^^^^^^^^\n'
     'TranslationError [wgsl]: f64 is not supported by WGSL (no 64-bit types): use '
     'f32/i32/u32 or another target'),
    ('uses_print', 216, 4, 'wgsl',
     ':216:5\n'
     '    print("value", out[0])\n'
     '    ^^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError [wgsl]: print() is not available on wgsl: it works on the CPU '
     'device and on CUDA; guard it with \'if ps.target == "python":\''),
    ('tuple_value', 221, 8, None,
     ':221:9\n'
     '    t = (1, 2)\n'
     '        ^^^^^^\n'
     'TranslationError: a tuple is only unpacked (a, b = x, y), returned by a helper or '
     'passed to one (f((a, b))): use a vector or struct'),
    ('out_of_range', 226, 13, None,
     ':226:14\n'
     '    x: u32 = -1\n'
     '             ^^\n'
     'TranslationError: integer constant -1 does not fit u32; write u32(-1) to wrap it'),
    ('barrier_in_helper', 231, 4, None,
     ':231:5\n'
     '    ps.barrier()\n'
     '    ^^^^^^^^^^^^\n'
     'TranslationError: barrier() must be called in the kernel body, not in the '
     "helper 'sync_helper': move it into the kernel (it needs uniform control flow)"),
    ('returns_value', 242, 4, None,
     ':242:5\n'
     '    return out[0]\n'
     '    ^^^^^^^^^^^^^\n'
     'TranslationError: a kernel cannot return a value: write results to a Buffer'),
    ('non_bool_condition', 247, 7, None,
     ':247:8\n'
     '    if x:\n'
     '       ^\n'
     'TranslationError: a condition must be bool, got u32: compare explicitly (x != 0)'),
    ('calls_async_helper', 266, 13, None,
     ':266:14\n'
     '    out[0] = async_helper(out[0])\n'
     '             ^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: cannot translate the call to async_helper: async def is not '
     'supported: kernels and helpers cannot await; define them with a plain def'),
    ('helper_returns_tuple', 275, 11, None,
     ':275:12\n'
     '    return v, v\n'
     '           ^^^^\n'
     'TranslationError: pair() returns one value (u32): this return gives 2 values '
     '(every return must have the same shape)'),
    ('too_big', 285, 13, None,
     ':285:14\n'
     '    x: u32 = 4294967296\n'
     '             ^^^^^^^^^^\n'
     'TranslationError: integer constant 4294967296 does not fit u32; write '
     'u32(4294967296) to wrap it'),
    ('mixed_assign', 291, 13, None,
     ':291:14\n'
     '    x: u32 = a\n'
     '             ^\n'
     "TranslationError: expected u32 for variable 'x', got i32 (mixed signedness: "
     'convert explicitly with u32(...))'),
    ('expression_statement', 297, 4, None,
     ':297:5\n'
     '    out[0] + 1\n'
     '    ^^^^^^^^^^\n'
     'TranslationError: this expression statement has no effect: assign its value to '
     'a variable or remove it'),
    ('f32_literal_too_big', 304, 18, None,
     ':304:19\n'
     '    y[i] = x[i] * 1e300\n'
     '                  ^^^^^\n'
     'TranslationError: 1e300 is out of range for f32 (largest finite value 3.4028235e+38)'),
    ('f32_folded_too_big', 309, 33, None,
     ':309:34\n'
     '    x[0] = x[0] + 3.4028235e38 + -(10 ** 39)      # the first rounds to the largest f32\n'
     '                                 ^^^^^^^^^^^\n'
     'TranslationError: -(10 ** 39) is out of range for f32 (largest finite value '
     '3.4028235e+38)'),
    ('f16_literal_too_big', 314, 18, None,
     ':314:19\n'
     '    x[0] = x[0] * 65520.0\n'
     '                  ^^^^^^^\n'
     'TranslationError: 65520.0 is out of range for f16 (largest finite value 65504.0)'),
    ('literal_inf', 319, 11, None,
     ':319:12\n'
     '    x[0] = 1e400\n'
     '           ^^^^^\n'
     'TranslationError: 1e400 is out of range for every float type (Python reads it as '
     'inf): write math.inf for infinity'),
    ('runtime_array_length', 330, 22, None,
     ':330:23\n'
     '    w = ps.array(f32, n * 2)\n'
     '                      ^^^^^\n'
     'TranslationError: the length of ps.array(T, N) must be a compile-time constant, but '
     "the parameter 'n' is only known at run time: make it a ps.Const[int] parameter or a "
     'module-level constant (or arithmetic of them)'),
    ('buffer_length_shared', 336, 32, None,
     ':336:33\n'
     '    tile = ps.shared_array(f32, len(out))\n'
     '                                ^^^^^^^^\n'
     'TranslationError: the length of ps.shared_array(T, N) must be a compile-time '
     'constant, but len(out) is only known at run time: make it a ps.Const[int] parameter '
     'or a module-level constant (or arithmetic of them)'),
    ('zero_array_length', 342, 22, None,
     ':342:23\n'
     '    w = ps.array(f32, n - 2)\n'
     '                      ^^^^^\n'
     'TranslationError: the length of ps.array(T, N) must be at least 1, got 0 (n - 2)'),
    ('float_array_length', 348, 22, None,
     ':348:23\n'
     '    w = ps.array(f32, 2.5)\n'
     '                      ^^^\n'
     'TranslationError: the length of ps.array(T, N) must be an integer, got 2.5'),
    ('runtime_trip_count', 356, 13, None,
     ':356:14\n'
     '    out[0] = last\n'
     '             ^^^^\n'
     "TranslationError: variable 'last' may be used before it is assigned: it is assigned "
     'in the for loop on line 354, which may run zero times (the bounds of its range are '
     'not compile-time constants); assign it before the loop'),
    ('zero_trip_count', 363, 13, None,
     ':363:14\n'
     '    out[0] = last\n'
     '             ^^^^\n'
     "TranslationError: variable 'last' may be used before it is assigned: it is assigned "
     'in the for loop on line 361, which runs zero times (range(3, 3) is empty); assign it '
     'before the loop'),
    ('while_may_not_run', 372, 13, None,
     ':372:14\n'
     '    out[0] = seen\n'
     '             ^^^^\n'
     "TranslationError: variable 'seen' may be used before it is assigned: it is assigned "
     'in the while loop on line 369, which may run zero times; assign it before the loop'),
    ('break_before_assign', 381, 13, None,
     ':381:14\n'
     '    out[0] = last\n'
     '             ^^^^\n'
     "TranslationError: variable 'last' may be used before it is assigned (assign it on "
     'every path first)'),
    ('empty_unroll', 388, 13, None,
     ':388:14\n'
     '    out[0] = last\n'
     '             ^^^^\n'
     "TranslationError: variable 'last' may be used before it is assigned: it is assigned "
     'in the for loop on line 386, which runs zero times (range(0) is empty); assign it '
     'before the loop'),
    ('float_atomic_or', 394, 4, None,
     ':394:5\n'
     '    ps.atomic_or(acc, 0, 1.0)\n'
     '    ^^^^^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: atomic_or needs integer elements: acc holds f32 (f32 elements take '
     'atomic_add, atomic_sub, atomic_min, atomic_max, atomic_exchange and '
     'atomic_compare_exchange)'),
    ('shared_float_atomic_xor', 400, 4, None,
     ':400:5\n'
     '    ps.atomic_xor(tile, 0, 2.0)\n'
     '    ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: atomic_xor needs integer elements: tile holds f32 (f32 elements '
     'take atomic_add, atomic_sub, atomic_min, atomic_max, atomic_exchange and '
     'atomic_compare_exchange)'),
    ('f64_atomic_add', 405, 18, None,
     ':405:19\n'
     '    ps.atomic_add(acc, 0, 1.0)\n'
     '                  ^^^\n'
     'TranslationError: atomics need a Buffer[u32], Buffer[i32], Buffer[f32] or a shared '
     'array of u32/i32/f32 as first argument'),
    ('all_of_floats', 411, 23, None,
     ':411:24\n'
     '    out[0] = u32(1) if all(x[0]) else u32(0)\n'
     '                       ^^^^^^^^^\n'
     'TranslationError: all() takes a bool vector (bvec2, bvec3 or bvec4), got vec3: '
     'compare first, as in all(v > 0.0)'),
    ('any_of_bool', 416, 23, None,
     ':416:24\n'
     '    out[0] = u32(1) if any(out[0] > u32(1)) else u32(0)\n'
     '                       ^^^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: any() takes a bool vector (bvec2, bvec3 or bvec4), got bool: use '
     'the bool itself'),
    ('scalar_over_matrix', 421, 11, None,
     ':421:12\n'
     '    m[0] = s / m[0]\n'
     '           ^^^^^^^^\n'
     'TranslationError: / with a matrix needs matrix / scalar (each element divided)'),
    ('unpack_tuple_count', 443, 14, None,
     (':443:15\n'
      '    a, b, c = two(out[0])\n'
      '              ^^^^^^^^^^^\n'
      'TranslationError: cannot unpack 2 values (tuple[u32, f32]) into 3 targets')),
    ('unpack_vector_count', 449, 11, None,
     (':449:12\n'
      '    x, y = ps.global_id()\n'
      '           ^^^^^^^^^^^^^^\n'
      'TranslationError: cannot unpack a uvec3 (3 components) into 2 targets')),
    ('unpack_scalar', 455, 11, None,
     (':455:12\n'
      '    x, y = out[0]\n'
      '           ^^^^^^\n'
      'TranslationError: cannot unpack a u32 value: unpack a vector or the tuple a helper '
      'returns')),
    ('tuple_return_shapes', 432, 11, None,
     (':432:12\n'
      '    return v, v, v\n'
      '           ^^^^^^^\n'
      'TranslationError: shapes() returns 2 values (tuple[u32, u32]): this return gives 3 '
      'values (every return must have the same shape)')),
    ('tuple_and_value_returns', 438, 11, None,
     (':438:12\n'
      '    return v, v\n'
      '           ^^^^\n'
      'TranslationError: one_or_two() returns one value (u32): this return gives 2 values '
      '(every return must have the same shape)')),
    ('tuple_not_unpacked', 470, 8, None,
     (':470:9\n'
      '    t = two(out[0])\n'
      '        ^^^^^^^^^^^\n'
      'TranslationError: a tuple (tuple[u32, f32]) cannot be used as a value: unpack it '
      'into variables (a, b = f(x))')),
    ('tuple_indexed', 475, 13, None,
     (':475:14\n'
      '    out[0] = two(out[0])[0]\n'
      '             ^^^^^^^^^^^^^^\n'
      'TranslationError: a tuple (tuple[u32, f32]) cannot be indexed: unpack it into '
      'variables (a, b = f(x))')),
    ('tuple_field', 480, 13, None,
     (':480:14\n'
      '    out[0] = two(out[0])._0\n'
      '             ^^^^^^^^^^^\n'
      'TranslationError: a tuple (tuple[u32, f32]) has no attributes: unpack it into '
      'variables (a, b = f(x))')),
    ('tuple_arg_count', 490, 23, None,
     (':490:24\n'
      '    out[0] = take_pair((out[0], 1.0, 2.0))\n'
      '                       ^^^^^^^^^^^^^^^^^^\n'
      "TranslationError: parameter 'p' of take_pair() is 2 values (tuple[u32, f32]): this "
      'argument is 3 values (tuple[u32, f32, f32])')),
    ('ragged_table', 502, 13, None,
     ':502:14\n'
     '    out[0] = RAGGED[0][0]\n'
     '             ^^^^^^\n'
     'TranslationError: RAGGED is a tuple whose rows have different lengths or shapes: a constant '
     'table is a non-empty tuple or list of numbers, or of equal-length tuples of numbers'),
    ('table_of_strings', 507, 21, None,
     ':507:22\n'
     '    out[0] = f32(len(WORDS))\n'
     '                     ^^^^^\n'
     'TranslationError: WORDS is a tuple holding str values: a constant '
     'table is a non-empty tuple or list of numbers, or of equal-length tuples of numbers'),
    ('empty_table', 512, 13, None,
     ':512:14\n'
     '    out[0] = EMPTY[0]\n'
     '             ^^^^^\n'
     'TranslationError: EMPTY is a tuple that is empty: a constant '
     'table is a non-empty tuple or list of numbers, or of equal-length tuples of numbers'),
    ('assign_to_table', 517, 4, None,
     ':517:5\n'
     '    TABLE[0] = out[0]\n'
     '    ^^^^^^^^\n'
     "TranslationError: 'TABLE' is a constant table (a module-level tuple or list): it "
     'cannot be assigned in a kernel; copy it into a local array first'),
    ('vector_of_list', 523, 16, None,
     ':523:17\n'
     '    v = ps.vec3([1.0, 2.0, out[0]])\n'
     '                ^^^^^^^^^^^^^^^^^^\n'
     'TranslationError: ps.vec3() takes the components themselves, not a list: write '
     'ps.vec3(1.0, 2.0, out[0])'),
    ('empty_list', 528, 8, None,
     ':528:9\n'
     '    w = []\n'
     '        ^^\n'
     'TranslationError: an empty list literal has no length or element type: use '
     'ps.array(T, N)'),
    ('list_in_expression', 533, 13, None,
     ':533:14\n'
     '    out[0] = [1.0, 2.0][0]\n'
     '             ^^^^^^^^^^\n'
     "TranslationError: a list literal is only supported as a variable's value (w = [a, b, c] "
     'is a local array)'),
    ('nd_one_index', 539, 6, None,
     ':539:7\n'
     '    a[0] = 1.0\n'
     '      ^\n'
     'TranslationError: a is a 2-D buffer: index it with 2 indices, as a[i, j]'),
    ('nd_bad_axis', 544, 26, None,
     ':544:27\n'
     '    a[0, 0] = f32(a.shape[2])\n'
     '                          ^\n'
     'TranslationError: a is a 2-D buffer: its axes are 0 to 1, not 2'),
    ('nd_bare_shape', 549, 18, None,
     ':549:19\n'
     '    a[0, 0] = f32(a.shape)\n'
     '                  ^^^^^^^\n'
     'TranslationError: a.shape is read one axis at a time: a.shape[0], a.shape[1]'),
    ('nd_too_many', 555, 13, None,
     ':555:14\n'
     '    a[0] = t[0, 1, 1]\n'
     '             ^^^^^^^\n'
     'TranslationError: t is a 2-D array (array(array(f32, 2), 2)): it takes 2 indices, '
     'not 3'),
    ('nd_on_1d', 560, 6, None,
     ':560:7\n'
     '    a[0, 1] = 1.0\n'
     '      ^^^^\n'
     'TranslationError: a is a Buffer[f32], which takes one index: index a '
     'ps.Buffer[T, 2] (or 3), or a ps.array(T, (rows, cols)), with several'),
    # An augmented assignment keeps its target's type (an integer next to a float
    # used to translate into code no compiler accepts, or crash on an element).
    ('aug_int_by_float', 567, 4, None,
     ':567:5\n'
     '    s += a[0]\n'
     '    ^^^^^^^^^\n'
     'TranslationError: s is i32 and s + a[0] is f32: Python would make s a float, but a '
     'variable keeps the type of its first assignment here: start s as a float (s = 0.0, '
     'say), or convert: s = i32(s + a[0])'),
    ('aug_int_true_div', 574, 4, None,
     ':574:5\n'
     '    s /= 2\n'
     '    ^^^^^^\n'
     'TranslationError: s is i32 and s / 2 is f32: Python would make s a float, but a '
     'variable keeps the type of its first assignment here: start s as a float (s = 0.0, '
     'say), or convert: s = i32(s / 2), or use //= for integer division'),
    ('aug_int_element_by_float', 580, 4, None,
     ':580:5\n'
     '    out[0] *= a[0]\n'
     '    ^^^^^^^^^^^^^^\n'
     'TranslationError: out[0] is u32 and out[0] * a[0] is f32: an element or field keeps '
     'its type: convert explicitly: out[0] = u32(out[0] * a[0])'),
]


@pytest.mark.parametrize(("name", "lineno", "col", "target", "expected"), CASES,
                         ids=[c[0] for c in CASES])
def test_translation_error(name: str, lineno: int, col: int, target: str | None,
                           expected: str) -> None:
    k = getattr(E, name)
    assert isinstance(k, ps.Kernel)          # decorating did not raise (translation is lazy)
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(k, "wgsl")
    e = info.value
    assert str(e) == FILE + expected
    assert (e.lineno, e.col_offset) == (lineno, col)
    assert e.filename == FILE
    assert e.target == target
    assert isinstance(e, SyntaxError)
    assert isinstance(e, ps.PyshadeError)
    # SyntaxError's own fields agree (1-based offset), so tracebacks show the same place.
    assert e.offset == col + 1
    assert e.msg == e.message
    assert str(e).endswith(f"TranslationError{f' [{target}]' if target else ''}: {e.msg}")
    assert e.text is not None and e.text.strip() in str(e)


def test_translation_error_fields_and_pickle() -> None:
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(E.mixed_signedness, "wgsl")
    e = info.value
    assert (e.lineno, e.col_offset, e.end_lineno, e.end_col_offset) == (181, 13, 181, 18)
    assert e.text.strip() == "out[0] = a + b"
    again = pickle.loads(pickle.dumps(e))
    assert str(again) == str(e)
    assert (again.lineno, again.col_offset, again.target) == (e.lineno, e.col_offset, e.target)


def test_decorating_is_lazy_and_errors_repeat() -> None:
    @ps.kernel
    def bad(out: ps.Buffer[ps.u32]):
        out[0] = [1, 2]

    for _ in range(2):                       # a failed translation is not cached as success
        with pytest.raises(ps.TranslationError, match="a list literal is only supported as a variable"):
            ps.translate(bad, "wgsl")


def test_recursion_chain_names_every_function() -> None:
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(E.mutual_recursion, "python")
    assert "ping -> pong -> ping" in str(info.value)
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(E.direct_recursion, "python")
    assert "fact -> fact" in str(info.value)


@pytest.mark.parametrize("name", ["uses_f64", "uses_print"])
def test_target_specific_kernel_translates_for_python(name: str) -> None:
    k = getattr(E, name)
    with pytest.raises(ps.TranslationError) as info:
        ps.translate(k, "wgsl")
    assert info.value.target == "wgsl" and "wgsl" in str(info.value).lower()
    text = ps.translate(k, "python")
    assert f"def {name}(" in text


def test_target_independent_errors_on_every_frontend_run() -> None:
    # Errors that do not depend on the target are raised for "python" too, same place.
    for name, lineno, col, target, _ in CASES:
        if target is not None:
            continue
        with pytest.raises(ps.TranslationError) as info:
            ps.translate(getattr(E, name), "python")
        assert (info.value.lineno, info.value.col_offset) == (lineno, col), name


# -- launch errors ----------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "message"), [
    (-1, "fill(): parameter 'v' is u32 and got -1, which is out of range for u32 "
         "(0..4294967295)"),
    (2**32, "fill(): parameter 'v' is u32 and got 4294967296, which is out of range for u32 "
            "(0..4294967295)"),
    (1.5, "fill(): parameter 'v' is u32 and got 1.5, which is not an integer (pass u32(x) or "
          "int(x) to convert explicitly)"),
])
def test_launch_scalar_out_of_range(value: object, message: str) -> None:
    out = np.zeros(4, np.uint32)
    with pytest.raises(ps.LaunchError) as info:
        E.fill.launch(out, value, threads=4, device="cpu")
    assert str(info.value) == message
    assert isinstance(info.value, ps.PyshadeError)
    assert not out.any()


def test_launch_scalar_edges_fit() -> None:
    out = np.zeros(4, np.uint32)
    E.fill.launch(out, 2**32 - 1, threads=4, device="cpu")
    assert (out == 2**32 - 1).all()


def test_launch_wrong_dtype_array() -> None:
    with pytest.raises(ps.LaunchError) as info:
        E.fill.launch(np.zeros(4, np.float32), 1, threads=4, device="cpu")
    msg = str(info.value)
    assert msg == "fill(): parameter 'out' needs dtype uint32, got float32 with shape (4,)"
    assert isinstance(info.value, ps.PyshadeError)


# -- unavailable backends ---------------------------------------------------------------------
def test_every_target_has_an_emitter() -> None:
    """Each target of the registry translates (there is no unbuilt target left to refuse)."""
    from pyshade.targets import TARGETS
    for t in TARGETS:
        assert ps.translate(E.fill, t).strip()


def test_unavailable_device() -> None:
    for _ in range(2):                       # a cached failure says the same
        with pytest.raises(ps.BackendUnavailable) as info:
            ps.device("metal")
        assert "'metal'" in str(info.value)
        assert isinstance(info.value, ps.PyshadeError)


def test_unknown_target() -> None:
    with pytest.raises(ValueError, match="unknown target 'spirv'"):
        ps.translate(E.fill, "spirv")


def _define(src: str) -> dict:
    """Run ``src`` as its own module (annotations evaluated, not postponed)."""
    ns: dict = {"ps": ps, "__name__": "struct_defaults_case"}
    exec(compile("import enum\nfrom typing import Literal\n" + src, "<case>", "exec",
                 dont_inherit=True), ns)
    return ns


@pytest.mark.parametrize("body, message", [
    ("v: ps.vec2 = 1.0", r"struct field Bad\.v: only scalar and enum fields take a default"),
    ("n: ps.u32 = 1.5", r"struct field Bad\.n: the default 1\.5 is not a u32 constant"),
    ("b: bool = 1", r"struct field Bad\.b: the default 1 is not a bool constant"),
    ("x: ps.f32 = 'a'", r"struct field Bad\.x: the default 'a' is not a f32 constant"),
    ("a: A = B.Y", r"struct field Bad\.a: the default <B\.Y: 1> is not a member of A"),
])
def test_bad_struct_field_default(body: str, message: str) -> None:
    enums = "class A(enum.IntEnum):\n    X = 1\nclass B(enum.IntEnum):\n    Y = 1\n"
    with pytest.raises(TypeError, match=message):
        _define(f"{enums}@ps.struct\nclass Bad:\n    {body}\n")


@pytest.mark.parametrize("key, message", [
    ("ps.f32", r"ps\.Array takes the element type and the length"),
    ("ps.f32, 0", r"N must be a positive int or Literal\[int\], not 0"),
    ("ps.f32, Literal[True]", r"N must be a positive int or Literal\[int\], not True"),
    ("ps.f32, 2.0", r"not 2\.0"),
])
def test_bad_array_annotation(key: str, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        _define(f"ps.Array[{key}]")


def test_array_annotation_spellings_agree() -> None:
    w = _define("@ps.struct\nclass W:\n    a: ps.Array[ps.f32, Literal[3]]\n"
                "    b: ps.Array[ps.u32, 2]\n    c: ps.array(ps.f32, 3)\n")["W"]
    assert w.dtype["a"] == w.dtype["c"] and w.dtype["b"].shape == (2,)
