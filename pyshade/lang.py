"""Kernel-side builtins: ids, barrier, atomics, math and the ``ps.*`` helpers.

Each builtin is ONE ``Builtin`` registry entry holding what is the same on every
target: its name, the Python object, its signature rule (``typer``), its
docstring, its purity and its kinds. Entries are keyed by the Python object a
kernel refers to (``ps.global_id``, ``math.sqrt``, the builtin ``abs``...), so
name resolution in the frontend is a dictionary lookup after evaluating the
dotted name.

How each target writes a builtin lives with its emitter: one table per target
in ``pyshade/emit/spellings/`` (``clike.py`` for the defaults of the brace
languages, ``wgsl.py``, ``glsl.py``, ``hlsl.py``, ``msl.py``, ``cuda.py``,
``python.py``), keyed by the registry name. A builtin added here needs an entry
(a spelling, or ``None`` where it is not available) for every target:
``tests/test_spellings.py`` checks it.

Python's semantics of operators and of ``min``/``max``/``abs``/``int()``... on
GPU targets live in ``pyshade.prelude`` (kernel-language helpers the frontend
calls instead of the operator); only the unsigned and native-float cases of
those builtins reach their spellings.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from . import types as T


class _Target(str):
    """``ps.target``: the target being translated, a compile-time constant.

    On the host it compares equal to "python" (the CPU device's target), but
    inside a kernel every comparison with it is folded before type checking.
    """


target = _Target("python")


def _kernel_only(name: str) -> Callable[..., Any]:
    def f(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"pyshade.{name}() can only be called inside a kernel or helper "
                           "(launch the kernel, or run it on device 'cpu')")
    f.__name__ = f.__qualname__ = name
    return f


@dataclass
class Builtin:
    """Registry entry of one builtin function usable in kernels."""

    name: str
    obj: Any
    typer: Callable[..., Any]            # typer(tc, call_node, arg_types) -> result type
    doc: str = ""
    pure: bool = True                    # no side effects (may be evaluated speculatively)
    kinds: tuple = field(default_factory=tuple)   # free-form tags: "atomic", "barrier"...


REGISTRY: dict[int, Builtin] = {}
BY_NAME: dict[str, Builtin] = {}


def _register(name: str, obj: Any, typer: Callable[..., Any], doc: str,
              pure: bool = True, kinds: tuple = ()) -> Any:
    if obj is None:
        obj = _kernel_only(name)
    if doc and getattr(obj, "__module__", None) == __name__:
        obj.__doc__ = doc
    b = Builtin(name, obj, typer, doc, pure, kinds)
    REGISTRY[id(obj)] = b
    BY_NAME[name] = b
    return obj


def lookup(obj: Any) -> Builtin | None:
    """The registry entry for a Python object, or None."""
    return REGISTRY.get(id(obj))


# ----------------------------------------------------------------------------
# Typers. ``tc`` is the type checker: it offers ``error(node, msg)``,
# ``coerce(node, type)``, ``unify(call, args, what)`` and ``float_like(t)``.

def _t_const(result: T.Type) -> Callable[..., Any]:
    def typer(tc: Any, node: Any, args: list) -> T.Type:
        tc.arity(node, 0)
        return result
    return typer


def _t_void(tc: Any, node: Any, args: list) -> None:
    tc.arity(node, 0)
    return None


def _t_float_map(n: int) -> Callable[..., Any]:
    """n float arguments (scalar or vector) of one type -> that type."""
    def typer(tc: Any, node: Any, args: list) -> T.Type:
        tc.arity(node, n)
        t = tc.unify(node, node.args, "arguments", default=T.f32)
        tc.require_float(node, t)
        return t
    return typer


def _t_num_map(n: int) -> Callable[..., Any]:
    """n numeric arguments (int or float, scalar or vector) of one type -> that type."""
    def typer(tc: Any, node: Any, args: list) -> T.Type:
        tc.arity(node, n)
        t = tc.unify(node, node.args, "arguments")
        tc.require_numeric(node, t)
        return t
    return typer


def _t_minmax(tc: Any, node: Any, args: list) -> T.Type:
    if len(node.args) != 2:
        tc.error(node, f"{tc.callee_name(node)}() takes exactly 2 arguments in a kernel")
    return _t_num_map(2)(tc, node, args)


def _t_round(tc: Any, node: Any, args: list) -> T.Type:
    if len(node.args) != 1:
        tc.error(node, "round() with ndigits is not supported in kernels: use round(x)")
    return _t_float_map(1)(tc, node, args)


def _t_float_pred(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.unify(node, node.args, "argument", default=T.f32)
    tc.require_float(node, t)
    return T.vector_of(T.bool_, t.n) if isinstance(t, T.VectorType) else T.bool_


def _t_int_bits(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.unify(node, node.args, "argument", default=T.u32)
    if not (isinstance(t, T.ScalarType) and t.is_int):
        tc.error(node, f"{tc.callee_name(node)}() needs an integer argument, got {t}")
    return t


def _t_clamp(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 3)
    t = tc.unify(node, node.args, "arguments")
    tc.require_numeric(node, t)
    return t


def _t_mix(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 3)
    t = tc.unify(node, node.args[:2], "arguments", default=T.f32)
    tc.require_float(node, t)
    elem = t.elem if isinstance(t, T.VectorType) else t
    tt = tc.types_of([node.args[2]])[0]
    if tt != t:
        tc.coerce(node.args[2], elem)
    return t


def _t_step(tc: Any, node: Any, args: list) -> T.Type:
    return _t_float_map(2)(tc, node, args)


def _t_smoothstep(tc: Any, node: Any, args: list) -> T.Type:
    return _t_float_map(3)(tc, node, args)


def _t_vec_reduce(n: int) -> Callable[..., Any]:
    """dot/distance: n float vectors -> scalar; length: one vector -> scalar."""
    def typer(tc: Any, node: Any, args: list) -> T.Type:
        tc.arity(node, n)
        t = tc.unify(node, node.args, "arguments", default=T.f32)
        tc.require_float(node, t)
        return t.elem if isinstance(t, T.VectorType) else t
    return typer


def _t_cross(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 2)
    t = tc.unify(node, node.args, "arguments")
    if t != T.vec3:
        tc.error(node, f"cross() needs two vec3, got {t}")
    return t


def _t_normalize(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.unify(node, node.args, "argument")
    if not (isinstance(t, T.VectorType) and t.elem == T.f32):
        tc.error(node, f"normalize() needs a float vector, got {t}")
    return t


def _t_select(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 3)
    t = tc.unify(node, node.args[:2], "first two arguments")
    c = tc.types_of([node.args[2]])[0]
    want = T.vector_of(T.bool_, t.n) if isinstance(t, T.VectorType) else T.bool_
    if c not in (T.bool_, want):
        tc.error(node.args[2], f"select()'s condition must be bool (or {want}), got {c}")
    return t


def _t_bitcast(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 2)
    dst = tc.type_argument(node.args[0])
    src = tc.types_of([node.args[1]])[0]
    if isinstance(src, T.AbstractType):
        src = tc.coerce(node.args[1], T.i32 if src.kind == "int" else T.f32)
    if not (isinstance(dst, T.ScalarType) and isinstance(src, T.ScalarType)
            and dst.size == src.size and "bool" not in (dst.kind, src.kind)):
        tc.error(node, f"bitcast() converts between scalar types of one size, not {src} -> {dst}")
    return dst


def _t_len(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.types_of(node.args)[0]
    if not isinstance(t, (T.BufferType, T.ArrayType)):
        tc.error(node, f"len() needs a Buffer or array, got {t}")
    return T.u32


def _t_bool_reduce(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.types_of(node.args)[0]
    if not (isinstance(t, T.VectorType) and t.elem == T.bool_):
        name = tc.callee_name(node)
        fix = "use the bool itself" if t == T.bool_ else f"compare first, as in {name}(v > 0.0)"
        tc.error(node, f"{name}() takes a bool vector (bvec2, bvec3 or bvec4), got {t}: {fix}")
    return T.bool_


def _t_int(tc: Any, node: Any, args: list) -> T.Type:
    return tc.cast_call(node, T.i32)


def _t_float(tc: Any, node: Any, args: list) -> T.Type:
    return tc.cast_call(node, T.f32)


def _t_bool(tc: Any, node: Any, args: list) -> T.Type:
    return tc.cast_call(node, T.bool_)


def _t_print(tc: Any, node: Any, args: list) -> None:
    return tc.print_call(node)


def _t_atomic(nargs: int) -> Callable[..., Any]:
    def typer(tc: Any, node: Any, args: list) -> T.Type:
        return tc.atomic_call(node, nargs)
    return typer


def _t_fma(tc: Any, node: Any, args: list) -> T.Type:
    return _t_float_map(3)(tc, node, args)


# ----------------------------------------------------------------------------
# Invocation ids and synchronisation

global_id = _register("global_id", None, _t_const(T.uvec3),
                      "The invocation's global id (uvec3).")
local_id = _register("local_id", None, _t_const(T.uvec3),
                     "The invocation's id within its workgroup (uvec3).")
group_id = _register("group_id", None, _t_const(T.uvec3), "The workgroup's id (uvec3).")
num_groups = _register("num_groups", None, _t_const(T.uvec3),
                       "The number of workgroups of the launch (uvec3).")
local_index = _register("local_index", None, _t_const(T.u32),
                        "The invocation's flattened index within its workgroup (u32).")
tid = _register("tid", None, _t_const(T.i32),
                "The 1-D global id as an i32, ``i32(global_id().x)`` (Warp's ``wp.tid()``): "
                "for ports that index with signed integers, so that ``i - 1 >= 0`` works.")
barrier = _register("barrier", None, _t_void,
                    "Workgroup execution and memory barrier (uniform control flow only).",
                    pure=False, kinds=("barrier",))

ATOMIC_OPS = ("add", "sub", "min", "max", "and", "or", "xor", "exchange")
"""The read-modify-write atomics: ``atomic_<op>`` for each (the spelling tables loop over it)."""
_ATOMIC_DOCS = {op: f"atomic_{op}(buf, i, v): atomically ``buf[i] = {new}``; returns the old "
                    f"value. Elements: {elems} (of a buffer or shared array){note}."
                for op, new, elems, note in (
                    ("add", "buf[i] + v", "u32, i32, f32", ""),
                    ("sub", "buf[i] - v", "u32, i32, f32", ""),
                    ("min", "min(buf[i], v)", "u32, i32, f32", "; f32 as Python's ``min``, "
                     "NaN and -0.0 included"),
                    ("max", "max(buf[i], v)", "u32, i32, f32", "; f32 as Python's ``max``, "
                     "NaN and -0.0 included"),
                    ("and", "buf[i] & v", "u32, i32", ""), ("or", "buf[i] | v", "u32, i32", ""),
                    ("xor", "buf[i] ^ v", "u32, i32", ""),
                    ("exchange", "v", "u32, i32, f32", ""))}
for _op in ATOMIC_OPS:
    globals()[f"atomic_{_op}"] = _register(
        f"atomic_{_op}", None, _t_atomic(3),
        _ATOMIC_DOCS[_op],
        pure=False, kinds=("atomic", _op))
atomic_compare_exchange = _register(
    "atomic_compare_exchange", None, _t_atomic(4),
    "Atomically store ``new`` in ``buf[i]`` if it equals ``expected`` (f32 elements: if its "
    "bits are those of ``expected``); returns the old value.",
    pure=False, kinds=("atomic", "cas"))

# ----------------------------------------------------------------------------
# Python builtins

_register("abs", builtins.abs, _t_num_map(1), "Absolute value.")
_register("min", builtins.min, _t_minmax, "Smaller of two values.")
_register("max", builtins.max, _t_minmax, "Larger of two values.")
_register("round", builtins.round, _t_round, "Round to nearest, ties to even (returns a float).")
_register("int", builtins.int, _t_int, "Convert to i32 (floats truncate toward zero).")
_register("float", builtins.float, _t_float, "Convert to f32.")
_register("bool", builtins.bool, _t_bool, "Convert to bool (non-zero is True).")
_register("len", builtins.len, _t_len, "Number of elements of a Buffer or array (u32).")
_register("all", builtins.all, _t_bool_reduce,
          "True when every component of the bool vector is.")
_register("any", builtins.any, _t_bool_reduce, "True when some component of the bool vector is.")
_register("print", builtins.print, _t_print, "Print values (CPU and CUDA only).", pure=False,
          kinds=("print",))

# ----------------------------------------------------------------------------
# The math module

_GPU_DOMAIN = "where Python raises ValueError (the cpu device raises it too), a GPU gives"
MATH_MORE_1 = {
    "tanh": "Hyperbolic tangent; tanh(+-inf) is +-1.",
    "sinh": "Hyperbolic sine.",
    "cosh": "Hyperbolic cosine.",
    "asinh": "Inverse hyperbolic sine.",
    "acosh": f"Inverse hyperbolic cosine: for x < 1, {_GPU_DOMAIN} nan.",
    "atanh": f"Inverse hyperbolic tangent: for abs(x) >= 1, {_GPU_DOMAIN} +-inf at +-1, "
             "nan beyond.",
    "exp2": "2 ** x (math.exp2 is Python 3.11's; pyshade.math has it on 3.10 too).",
    "expm1": "exp(x) - 1, accurate for small x.",
    "log10": f"Base-10 logarithm: for x <= 0, {_GPU_DOMAIN} -inf at 0, nan below.",
    "log1p": f"log(1 + x), accurate for small x: for x <= -1, {_GPU_DOMAIN} -inf at -1, "
             "nan below.",
    "degrees": "Radians to degrees: x * (180 / pi).",
    "radians": "Degrees to radians: x * (pi / 180).",
    "erf": "The error function.",
    "erfc": "The complementary error function 1 - erf(x), accurate where erf(x) is near 1.",
}
"""More ``math`` functions of one float argument, with their docs (the accuracy of each
on each device: docs/language.md)."""
MATH_MORE_2 = {
    "hypot": "sqrt(x*x + y*y) without overflow or underflow in between (two arguments); "
             "hypot(+-inf, nan) is inf.",
    "copysign": "abs(x) with the sign bit of y (copied as bits: copysign(1.0, -0.0) is -1.0).",
    "fmod": f"C's fmod, exact, with the sign of x (not x % y, which takes y's sign): for "
            f"y == 0 or an infinite x, {_GPU_DOMAIN} nan; fmod(x, inf) is x.",
}
"""More ``math`` functions of two float arguments."""


def _exp2(x: float, /) -> float:
    """2 ** x (the host's stand-in for ``math.exp2`` before Python 3.11)."""
    return 2.0 ** x


for _name in ("sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "log2", "fabs"):
    _register(f"math.{_name}", getattr(math, _name), _t_float_map(1),
              f"math.{_name} on float scalars or vectors (f16 and f64 where the target has them).")
for _name in ("floor", "ceil", "trunc"):
    _register(f"math.{_name}", getattr(math, _name), _t_float_map(1),
              f"math.{_name}: returns the float type (an integral value), as GPUs do.")
_register("math.atan2", math.atan2, _t_float_map(2), "math.atan2(y, x).")
for _name, _doc in MATH_MORE_1.items():
    _register(f"math.{_name}", getattr(math, _name, None) or _exp2, _t_float_map(1), _doc)
for _name, _doc in MATH_MORE_2.items():
    _register(f"math.{_name}", getattr(math, _name), _t_float_map(2), _doc)
_register("math.pow", math.pow, _t_float_map(2), "math.pow(x, y) on floats.")
_register("math.isnan", math.isnan, _t_float_pred, "True where x is NaN.")
_register("math.isinf", math.isinf, _t_float_pred, "True where x is +-infinity.")

# ----------------------------------------------------------------------------
# pyshade helpers

clamp = _register("clamp", None, _t_clamp,
                  "min(max(x, lo), hi), element-wise; needs lo <= hi (the CPU device raises "
                  "otherwise: GPUs disagree on the result).")
mix = _register("mix", None, _t_mix, "Linear interpolation a*(1-t) + b*t.")
step = _register("step", None, _t_step, "0.0 where x < edge, else 1.0: step(edge, x).")
smoothstep = _register("smoothstep", None, _t_smoothstep,
                       "Hermite interpolation between edges e0 and e1: smoothstep(e0, e1, x).")
dot = _register("dot", None, _t_vec_reduce(2), "Dot product of two float vectors.")
cross = _register("cross", None, _t_cross, "Cross product of two vec3.")
length = _register("length", None, _t_vec_reduce(1), "Euclidean length of a float vector.")
normalize = _register("normalize", None, _t_normalize, "The vector scaled to length 1.")
distance = _register("distance", None, _t_vec_reduce(2), "length(a - b).")
fma = _register("fma", None, _t_fma,
                "a * b + c, rounded once on the cpu device and CUDA; Vulkan and WGSL let a "
                "driver round the product and the sum apart (their precision of fma is "
                "inherited from a multiply and an add), and lavapipe and SwiftShader do, on "
                "every route (bench/probes/fma_fused_probe.py).")
select = _register("select", None, _t_select,
                   "select(f, t, cond): t where cond else f (both evaluated).")
bitcast = _register("bitcast", None, _t_bitcast,
                    "bitcast(T, x): reinterpret the bits of x as scalar type T.")
popcount = _register("popcount", None, _t_int_bits, "Number of 1 bits.")
reverse_bits = _register("reverse_bits", None, _t_int_bits, "Bits in reverse order.")
count_leading_zeros = _register("count_leading_zeros", None, _t_int_bits,
                                "Number of leading 0 bits.")


# ----------------------------------------------------------------------------
# Prelude primitives: the few operations ``pyshade.prelude`` is written over.
# They are not part of the public API (kernels call the prelude through
# operators and builtins). Each target spells them in its table, as the other builtins.

def _t_tdiv(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 2)
    t = tc.unify(node, node.args, "arguments")
    e = t.elem if isinstance(t, T.VectorType) else t
    if not (isinstance(e, T.ScalarType) and e.is_int):
        tc.error(node, f"truncating division needs integers, got {t}")
    return t


def _t_bits(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.types_of(node.args)[0]
    e = t.elem if isinstance(t, T.VectorType) else t
    if e != T.f32:
        tc.error(node, f"float bits need f32 (scalar or vector), got {t}")
    return T.vector_of(T.i32, t.n) if isinstance(t, T.VectorType) else T.i32


def _t_from_bits(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 1)
    t = tc.types_of(node.args)[0]
    if isinstance(t, T.AbstractType):
        t = tc.coerce(node.args[0], T.i32)
    e = t.elem if isinstance(t, T.VectorType) else t
    if e != T.i32:
        tc.error(node, f"f32 from bits needs i32 (scalar or vector), got {t}")
    return T.vector_of(T.f32, t.n) if isinstance(t, T.VectorType) else T.f32


def _t_convert(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 2)
    dst = tc.type_argument(node.args[0])
    src = tc.types_of([node.args[1]])[0]
    n = lambda t: t.n if isinstance(t, T.VectorType) else 0  # noqa: E731
    if not isinstance(dst, (T.ScalarType, T.VectorType)) or n(dst) != n(src):
        tc.error(node, f"convert() keeps the shape: {src} -> {dst}")
    return dst


def _t_same_int(tc: Any, node: Any, args: list) -> T.Type:
    tc.arity(node, 2)
    t = tc.unify(node, node.args, "arguments")
    e = t.elem if isinstance(t, T.VectorType) else t
    if not (isinstance(e, T.ScalarType) and e.kind == "int"):
        tc.error(node, f"signed min/max need signed integers, got {t}")
    return t


# Signed min/max that the CUDA compilers cannot turn into a min/max instruction (inline
# PTX selecting by a mask, emit/cuda_ops.asm_minmax): on the H200, max(-x, x) clamped to
# [lo, hi] went wrong as VIMNMX (bench/probes/cuda_diff_probe.py). Only the prelude's
# cuda branch uses them.
_smin = _register("prelude.smin", None, _t_same_int, "Signed min, opaque to the optimiser.")
_smax = _register("prelude.smax", None, _t_same_int, "Signed max, opaque to the optimiser.")
_tdiv = _register("prelude.tdiv", None, _t_tdiv,
                  "a / b rounded toward zero, for b != 0 and not MIN / -1 (the prelude "
                  "guards those: C-family targets leave them undefined).")
_bits = _register("prelude.bits", None, _t_bits,
                  "The bits of an f32 (vector) as i32 (same shape).")
_from_bits = _register("prelude.from_bits", None, _t_from_bits,
                       "The f32 (vector) whose bits are the i32 (same shape): bits' inverse.")
_native_pow = _register("prelude.pow", None, _t_float_map(2),
                        "The target's own pow(x, y), for x >= 0 (prelude_math.ps_math_pow "
                        "gives C's values for the rest).")
_convert = _register("prelude.convert", None, _t_convert,
                     "convert(T, x): the target's own conversion of an in-range value "
                     "(a float already truncatable, an integer that fits).")


def unroll(r: Any) -> Any:
    """``for i in ps.unroll(range(N))``: the loop is unrolled (N a constant)."""
    return r


__all__ = ["target", "unroll", "tid", "global_id", "local_id", "group_id", "num_groups",
           "local_index", "barrier", "clamp", "mix", "step", "smoothstep", "dot", "cross",
           "length", "normalize", "distance", "fma", "select", "bitcast", "popcount",
           "reverse_bits", "count_leading_zeros", "atomic_compare_exchange"] + [
           f"atomic_{o}" for o in ATOMIC_OPS]
