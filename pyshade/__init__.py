"""pyshade: write a GPU compute kernel once in typed Python; run it everywhere.

A kernel is translated from its Python AST into WGSL, GLSL, HLSL, MSL, CUDA C
or Python (for the CPU device), compiled by the platform's own toolchain and
run through one Device API. The documentation (``docs/``, built with MkDocs)
describes the language and this API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import lang, math, targets  # noqa: F401  (ps.math: the standard math, typed for vectors)
from .errors import (
    BackendUnavailable,
    CompileError,
    LaunchError,
    PyshadeError,
    TranslationError,
    user_traceback,
)
from .kernel import Kernel, func, kernel
from .lang import (
    atomic_add,
    atomic_and,
    atomic_compare_exchange,
    atomic_exchange,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    barrier,
    bitcast,
    clamp,
    count_leading_zeros,
    cross,
    distance,
    dot,
    fma,
    global_id,
    group_id,
    length,
    local_id,
    local_index,
    mix,
    normalize,
    num_groups,
    popcount,
    reverse_bits,
    select,
    smoothstep,
    step,
    target,
    tid,
    unroll,
)
from .runtime import DeviceInfo, device, devices
from .runtime.base import Compiled, Device, DeviceArray
from .structs import struct
from .types import (
    Array,
    Buffer,
    Const,
    array,
    bool_,
    bvec2,
    bvec3,
    bvec4,
    f16,
    f32,
    f64,
    i32,
    i64,
    ivec2,
    ivec3,
    ivec4,
    mat2,
    mat3,
    mat4,
    shared_array,
    u32,
    u64,
    uvec2,
    uvec3,
    uvec4,
    vec2,
    vec3,
    vec4,
)

__version__ = "0.1.0"

# The GPU languages of the target registry (``pyshade.targets``), as built in.
GPU_TARGETS = targets.GPU_TARGETS


def _as_kernel(k: Any) -> Kernel:
    if isinstance(k, Kernel):
        return k
    if callable(k):
        return Kernel(k)
    raise TypeError(f"{k!r} is not a kernel")


def translate(k: Any, /, target: str = "wgsl", **bindings: Any) -> str:
    """The source text of kernel ``k`` for ``target``; TypeVars/Consts as keywords."""
    __tracebackhide__ = True
    k = _as_kernel(k)
    try:
        return k.translate_spec(target, k.spec(bindings)).source
    except PyshadeError as e:
        raise user_traceback(e) from e.__cause__


def translate_all(k: Any, /, **bindings: Any) -> dict[str, Any]:
    """{target: source} for the five GPU targets; a target that cannot be produced
    maps to the exception that says why."""
    out: dict[str, Any] = {}
    for t in targets.GPU_TARGETS:
        try:
            out[t] = translate(k, t, **bindings)
        except PyshadeError as e:
            out[t] = e
    return out


def compile(k: Any, /, target: str = "wgsl", **bindings: Any) -> Compiled:  # noqa: A001
    """Translate and compile with the target's toolchain (WGSL: validated by naga)."""
    __tracebackhide__ = True
    k = _as_kernel(k)
    try:
        return k.compile_spec(target, k.spec(bindings), validate=_validator(target))
    except PyshadeError as e:
        raise user_traceback(e) from e.__cause__


def _validator(target: str) -> Any:
    """What checks ``target``'s output at compile time: WGSL is validated by the naga
    inside a wgpu device (the shared ``device("wgpu")``); other toolchains stand alone."""
    return device("wgpu") if targets.get(target).name == "wgsl" else True


@dataclass
class CheckReport:
    """Result of ``ps.check``: per target "ok", an error, or why it was skipped."""

    kernel: str
    results: dict[str, str] = field(default_factory=dict)
    errors: dict[str, Exception] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no available toolchain failed."""
        return not self.errors

    def __str__(self) -> str:
        return "\n".join(f"{self.kernel:24} {t:7} {r}" for t, r in self.results.items())


def check(k: Any, /, **bindings: Any) -> CheckReport:
    """Compile ``k`` with every toolchain present; TypeVars default to their first option."""
    k = _as_kernel(k)
    for tv in k.typevars():
        if tv.__name__ not in bindings and tv.__constraints__:
            bindings[tv.__name__] = tv.__constraints__[0]
    rep = CheckReport(k.__name__)
    for t in targets.TARGETS:
        try:
            k.compile_spec(t, k.spec(dict(bindings)), validate=_validator(t))
            rep.results[t] = "ok"
        except BackendUnavailable as e:
            rep.results[t] = f"skipped: {str(e).splitlines()[0]}"
        except PyshadeError as e:
            rep.results[t] = f"FAILED: {str(e).splitlines()[-1]}"
            rep.errors[t] = e
    return rep


__all__ = [
    "Array", "Buffer", "Const", "Compiled", "CheckReport", "Device", "DeviceArray", "DeviceInfo",
    "Kernel", "array", "shared_array", "struct", "kernel", "func", "target", "unroll",
    "translate", "translate_all", "compile", "check", "device", "devices",
    "PyshadeError", "TranslationError", "CompileError", "LaunchError", "BackendUnavailable",
    "bool_", "i32", "u32", "f32", "f16", "f64", "i64", "u64",
    "vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "uvec2", "uvec3", "uvec4",
    "bvec2", "bvec3", "bvec4", "mat2", "mat3", "mat4",
    "global_id", "tid", "local_id", "group_id", "num_groups", "local_index", "barrier",
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or",
    "atomic_xor", "atomic_exchange", "atomic_compare_exchange",
    "clamp", "mix", "step", "smoothstep", "dot", "cross", "length", "normalize", "distance",
    "fma", "select", "bitcast", "popcount", "reverse_bits", "count_leading_zeros", "lang",
]
