"""Forms that ports of existing kernels hit on the GLSL route (issue 18, item 9): a
constructor without arguments is the zero of its type (glslang refuses ``vec2()``),
and a local first assigned in the arms of an exhaustive ``match`` (or declared by an
annotation, or a local array of bools) is declared with the zero of its own type
(GLSL had ``bool x = 0u;``, the u32 that memory holds)."""

from enum import IntEnum

import pyshade as ps
from pyshade import bvec2, f32, ivec4, mat2, mat3, u32, uvec3, vec2, vec3, vec4


class Shape(IntEnum):
    CIRCLE = 0
    SQUARE = 1
    TRIANGLE = 2


@ps.struct
class Cell:
    total: f32
    count: u32
    seen: bool
    weight: f32 = 1.5


@ps.struct
class Blank:
    """Every field has a default, so that ``Blank()`` type-checks (tests/test_typing.py;
    the translator also zeroes a field without one, which type checkers refuse)."""
    total: f32 = 0.0
    count: u32 = 0
    seen: bool = False
    weight: f32 = 1.5


@ps.kernel(workgroup_size=64)
def zero_constructors(out: ps.Buffer[f32], cells: ps.Buffer[Blank], bits: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    v = vec2()
    w = vec4()
    m = mat2()
    m3 = mat3()
    u = uvec3()
    iv = ivec4()
    b = bvec2()
    c = Blank()
    s = f32()
    n = u32()
    v.x += f32(i)
    u.y = i
    b.y = i % 2 == 1
    c.count = i + n
    m3[2] = vec3(1.0, 2.0, 3.0)
    out[i] = v.x + v.y + w.w + (m @ vec2(1.0, 1.0)).y + (m3 @ vec3(1.0)).z + f32(u.x + u.y + u.z) \
        + f32(iv.z) + s
    cells[i] = c
    bits[i] = u32(b.x) * 2 + u32(b.y)


@ps.kernel(workgroup_size=64)
def match_locals(shapes: ps.Buffer[u32], sizes: ps.Buffer[f32], area: ps.Buffer[f32],
                 info: ps.Buffer[u32], cells: ps.Buffer[Cell]) -> None:
    i = ps.global_id().x
    if i >= len(area):
        return
    r = sizes[i]
    match Shape(shapes[i]):
        case Shape.CIRCLE:
            curved = True
            corners = u32(0)
            a = 3.1415927 * r * r
            axes = bvec2(True, True)
            cell = Cell(total=r, count=1, seen=True)
            kind = Shape.CIRCLE
        case Shape.SQUARE:
            curved = False
            corners = u32(4)
            a = r * r
            axes = bvec2(True, False)
            cell = Cell(total=r * 4.0, count=4, seen=False)
            kind = Shape.SQUARE
        case Shape.TRIANGLE:
            curved = False
            corners = u32(3)
            a = 0.4330127 * r * r
            axes = bvec2(False, False)
            cell = Cell(total=r * 3.0, count=3, seen=True, weight=0.5)
            kind = Shape.TRIANGLE
    odd: bool
    odd = corners % 2 == 1
    area[i] = a
    info[i] = corners * 100 + u32(curved) * 10 + u32(axes.x) * 4 + u32(axes.y) * 2 + u32(odd) \
        + u32(kind) * 1000
    cells[i] = cell


@ps.kernel(workgroup_size=64)
def bool_arrays(out: ps.Buffer[u32]) -> None:
    i = ps.global_id().x
    if i >= len(out):
        return
    short = ps.array(bool, 4)
    long = ps.array(bool, 12)           # zeroed by a loop in GLSL
    pairs = ps.array(bvec2, 3)
    short[i % 4] = True
    long[i % 12] = True
    pairs[i % 3].y = True
    total = u32(0)
    for k in range(12):
        if long[k]:
            total += u32(k) * 10
    for k in range(4):
        if short[k]:
            total += u32(k) * 1000
    for k in range(3):
        if pairs[k].y and not pairs[k].x:
            total += u32(k) * 100000
    out[i] = total
