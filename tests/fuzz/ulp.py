"""How far a device's result of a function that is not exact may be from the cpu device's.

``SPEC`` is the one table of accuracy bounds the fuzzer holds each target to, per
function of f32 arguments, taken from each target's specification (docs/devices/
testing.md prints the same table):

- ``vulkan``: the Vulkan specification (1.3), appendix "Precision and Operation of
  SPIR-V Instructions" (the GLSL.std.450 table). Both vulkan routes (GLSL through
  glslang, HLSL through DXC) run SPIR-V on Vulkan, so both are held to it.
- ``wgsl``: the WGSL specification, "Floating Point Accuracy" (the f32 table of
  built-in functions), which copies Vulkan's bounds and adds an absolute bound to
  ``asin``/``acos``.
- ``cuda``: the CUDA C++ Programming Guide, appendix "Mathematical Functions",
  single-precision table (maximum ulp error, without ``-use_fast_math``; pyshade passes
  ``--fmad=false`` and keeps IEEE division and square root).
- ``msl``: the Metal Shading Language specification, "Numerical Compliance", the
  accuracy of single-precision functions with fast math disabled (pyshade's default).
- ``python``: the cpu device, the reference: Python's double result rounded once.

Bound kinds: ``("ulp", n)`` n ulp of the exact result; ``("expulp", a, b)`` a + b|x| ulp;
``("log", n, e)`` n ulp outside [0.5, 2], absolute e inside; ``("abs", e)`` absolute e
(sin and cos, on [-pi, pi], where the generator keeps their arguments);
``("inherit", name)`` the spec's "inherited from" a formula, bounded here from the
formula's operations (``inherited``); ``("exact",)`` the same bits as the cpu device
(CUDA and MSL compute dot, length, mix... by generated functions that round each
operation as the cpu device does). Where pyshade's prelude computes a function on a
target (``emit.spelling_for`` is ``PRELUDE``), the bound is the prelude's, measured
and documented in docs/language.md (``test_exec_math.BOUNDS``), not the target's.

Only results of these functions are compared with a tolerance, and only where they
are stored: the generator never feeds them into further arithmetic, since a bound
compounds through an expression in ways no table covers (cancellation, a comparison
or a conversion that flips).
"""

from __future__ import annotations

import math

import numpy as np

U = 2.0**-24                    # the unit roundoff of f32: half an ulp of 1.0
VK = "vulkan"

# function: {family: bound}. Families missing a function are errors (a bug in this table).
SPEC: dict[str, dict[str, tuple]] = {
    "sin": {VK: ("abs", 2.0**-11), "wgsl": ("abs", 2.0**-11), "cuda": ("ulp", 2),
            "msl": ("ulp", 4)},
    "cos": {VK: ("abs", 2.0**-11), "wgsl": ("abs", 2.0**-11), "cuda": ("ulp", 2),
            "msl": ("ulp", 4)},
    "tan": {VK: ("inherit", "tan"), "wgsl": ("inherit", "tan"), "cuda": ("ulp", 4),
            "msl": ("ulp", 6)},
    "asin": {VK: ("inherit", "asin"), "wgsl": ("inherit", "asin"), "cuda": ("ulp", 2),
             "msl": ("ulp", 4)},
    "acos": {VK: ("inherit", "acos"), "wgsl": ("inherit", "acos"), "cuda": ("ulp", 2),
             "msl": ("ulp", 4)},
    "atan": {VK: ("ulp", 4096), "wgsl": ("ulp", 4096), "cuda": ("ulp", 2), "msl": ("ulp", 5)},
    "atan2": {VK: ("ulp", 4096), "wgsl": ("ulp", 4096), "cuda": ("ulp", 3), "msl": ("ulp", 6)},
    "exp": {VK: ("expulp", 3, 2), "wgsl": ("expulp", 3, 2), "cuda": ("ulp", 2),
            "msl": ("ulp", 4)},
    "exp2": {VK: ("expulp", 3, 2), "wgsl": ("expulp", 3, 2), "cuda": ("ulp", 2),
             "msl": ("ulp", 4)},
    "log": {VK: ("log", 3, 2.0**-21), "wgsl": ("log", 3, 2.0**-21), "cuda": ("ulp", 1),
            "msl": ("ulp", 4)},
    "log2": {VK: ("log", 3, 2.0**-21), "wgsl": ("log", 3, 2.0**-21), "cuda": ("ulp", 1),
             "msl": ("ulp", 4)},
    "log10": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 2), "msl": ("ulp", 4)},
    "pow": {VK: ("inherit", "pow"), "wgsl": ("inherit", "pow"), "cuda": ("ulp", 4),
            "msl": ("ulp", 16)},
    "sinh": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 3), "msl": ("ulp", 4)},
    "cosh": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 2), "msl": ("ulp", 4)},
    "tanh": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 2), "msl": ("ulp", 5)},
    "asinh": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 3), "msl": ("ulp", 4)},
    "acosh": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 4), "msl": ("ulp", 4)},
    "atanh": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 3), "msl": ("ulp", 5)},
    "expm1": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 1), "msl": ("prelude",)},
    "log1p": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 1), "msl": ("prelude",)},
    "erf": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 2), "msl": ("prelude",)},
    "erfc": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 4), "msl": ("prelude",)},
    "hypot": {VK: ("prelude",), "wgsl": ("prelude",), "cuda": ("ulp", 3), "msl": ("prelude",)},
    # Inherited from x * (pi / 180): about 1 ulp; SwiftShader's was measured at 1.38
    # (docs/devices/vulkan.md), so pyshade's documented 1.5 (test_exec_math.BOUNDS).
    "degrees": {VK: ("ulp", 1.5), "wgsl": ("ulp", 1.5), "cuda": ("prelude",),
                "msl": ("prelude",)},
    "radians": {VK: ("ulp", 1.5), "wgsl": ("ulp", 1.5), "cuda": ("prelude",),
                "msl": ("prelude",)},
    # Formulas: "inherited from" their operations on Vulkan and WGSL (where a driver may
    # also fuse a * b + c); pyshade's own functions on CUDA and MSL, fused by neither.
    "fma": {VK: ("inherit", "fma"), "wgsl": ("inherit", "fma"), "cuda": ("exact",),
            "msl": ("exact",)},
    "dot": {VK: ("inherit", "dot"), "wgsl": ("inherit", "dot"), "cuda": ("exact",),
            "msl": ("exact",)},
    "length": {VK: ("inherit", "length"), "wgsl": ("inherit", "length"), "cuda": ("exact",),
               "msl": ("exact",)},
    "distance": {VK: ("inherit", "distance"), "wgsl": ("inherit", "distance"),
                 "cuda": ("exact",), "msl": ("exact",)},
    "normalize": {VK: ("inherit", "normalize"), "wgsl": ("inherit", "normalize"),
                  "cuda": ("exact",), "msl": ("exact",)},
    "cross": {VK: ("inherit", "cross"), "wgsl": ("inherit", "cross"), "cuda": ("exact",),
              "msl": ("exact",)},
    "mix": {VK: ("inherit", "mix"), "wgsl": ("inherit", "mix"), "cuda": ("exact",),
            "msl": ("exact",)},
    "smoothstep": {VK: ("inherit", "smoothstep"), "wgsl": ("inherit", "smoothstep"),
                   "cuda": ("exact",), "msl": ("exact",)},
    # Matrix products: dot products of rows and columns. CUDA's are pyshade's operators
    # (left to right, not fused); MSL's are Metal's own.
    "matvec": {VK: ("inherit", "matvec"), "wgsl": ("inherit", "matvec"), "cuda": ("exact",),
               "msl": ("inherit", "matvec")},
    "vecmat": {VK: ("inherit", "vecmat"), "wgsl": ("inherit", "vecmat"), "cuda": ("exact",),
               "msl": ("inherit", "vecmat")},
    "matmat": {VK: ("inherit", "matmat"), "wgsl": ("inherit", "matmat"), "cuda": ("exact",),
               "msl": ("inherit", "matmat")},
}
# Vulkan allows 2.5 ulp for f32 division and inherits sqrt from 1 / inversesqrt (2 ulp);
# WGSL the same. On the Vulkan routes the fuzzer still demands the cpu device's bits from
# + - * / and sqrt (lavapipe and SwiftShader round them correctly there); on wgpu,
# harness.RULES accepts WGSL's allowance (wgsl-inexact, wgsl-reciprocal: SwiftShader's
# WGSL divides by a constant through its reciprocal), counted and reported. A Vulkan
# driver that uses the allowance (NVIDIA's divides within 2.5 ulp: docs/devices/
# vulkan.md) has no rule yet: its differences are reported as failures.
CORRECTLY_ROUNDED = {VK: "+ - * (/ 2.5 ulp, sqrt inherited)", "wgsl": "+ - * (/ 2.5 ulp)",
                     "cuda": "+ - * / sqrt", "msl": "+ - * / sqrt"}
# A device's family: the specification that binds its results.
FAMILY = {"python": "python", "wgsl": "wgsl", "glsl": VK, "hlsl": VK, "cuda": "cuda",
          "msl": "msl"}


def family(dev) -> str:  # noqa: ANN001
    """The family of a device (by its target: GLSL and HLSL both run on Vulkan here; the
    d3d12 device, which needs Windows, is not fuzzed)."""
    return FAMILY[dev.target]


def ulp_of(x: np.ndarray) -> np.ndarray:
    """The f32 ulp at |x| (float64): the spacing above the next float, so that a value
    just below a power of two, whose exact result may be the power, gets the larger."""
    with np.errstate(over="ignore"):
        a = np.nextafter(np.abs(x).astype(np.float32), np.float32(np.inf))
    return np.spacing(a).astype(np.float64)


def bound_kind(fn: str, fam: str, target: str) -> tuple:
    """The bound of ``fn`` on a device of family ``fam`` compiling ``target``: the prelude's
    where pyshade computes the function there."""
    if fam == "python":
        return ("ulp", 0.5)
    from pyshade.emit import emitter_class
    from pyshade.prelude_math import PRELUDE
    if fn in _PRELUDE_BOUND and emitter_class(target).spelling_for(f"math.{fn}") is PRELUDE:
        return ("ulp", _PRELUDE_BOUND[fn])
    kind = SPEC[fn][fam]
    if kind == ("prelude",):
        raise AssertionError(f"SPEC says {fn} is the prelude's on {fam}, the emitter disagrees")
    return kind


def _prelude_bounds() -> dict[str, float]:
    """The prelude's bounds (ulp), from the math test that measures them on every device."""
    from test_exec_math import BOUNDS
    return {name: b[0] for name, b in BOUNDS.items() if b[0] is not None}


_PRELUDE_BOUND = _prelude_bounds()


def allowed(fn: str, kind: tuple, args: list[np.ndarray], ref: np.ndarray) -> np.ndarray:
    """The largest |device - cpu| allowed per result component. ``args``: each argument
    as float64 of shape (n, components); ``ref``: the cpu device's result, (n, k). The
    cpu's own error (0.5 ulp) is added to the device's bound."""
    half = 0.5 * ulp_of(ref)
    if kind[0] == "exact":
        return np.zeros_like(ref)
    if kind[0] == "ulp":
        return kind[1] * ulp_of(ref) + half
    if kind[0] == "expulp":
        x = np.abs(args[0])
        return (kind[1] + kind[2] * x) * ulp_of(ref) + half
    if kind[0] == "log":
        x = args[0]
        inside = (x >= 0.5) & (x <= 2.0)
        return np.where(inside, kind[2], kind[1] * ulp_of(ref)) + half
    if kind[0] == "abs":
        return kind[1] + half
    return inherited(kind[1], args, ref) + half


def _dot_error(terms: np.ndarray) -> np.ndarray:
    """A bound on the error of a sum of n rounded products in any order, fused or not,
    of both the device and the cpu: 2 n u sum|a_i b_i| (terms: (..., n))."""
    n = terms.shape[-1]
    return 2.0 * (n + 1) * U * np.sum(np.abs(terms), axis=-1)


def inherited(name: str, a: list[np.ndarray], ref: np.ndarray) -> np.ndarray:  # noqa: C901, PLR0911
    """Bounds of the formulas that Vulkan and WGSL define a function by, from its
    operations' own bounds (division 2.5 ulp, inversesqrt 2, exp2 3 + 2|x|, log2 3 or
    2^-21, atan2 4096, sin and cos 2^-11 absolute)."""
    ulp = ulp_of(ref)
    if name == "tan":                       # sin(x) / cos(x)
        c = np.abs(np.cos(a[0]))
        return (2.0**-11 * (1 + np.abs(ref))) / np.maximum(c - 2.0**-11, 2.0**-11) + 3 * ulp
    if name in ("asin", "acos"):            # atan2 of x and sqrt(1 - x * x)
        x = np.abs(a[0])
        r = np.sqrt(np.maximum(1 - x * x, 0.0))
        dr = np.where(r > 2.0**-10, 4 * U / np.maximum(r, 2.0**-10) + 10 * U * r,
                      np.sqrt(4 * U))
        return np.maximum(4097 * ulp + dr + 2 * U, 6.77e-5)
    if name == "pow":                       # exp2(y * log2(x))
        x, y = a[0], a[1]
        lg = np.log2(x)
        dl = np.where((x >= 0.5) & (x <= 2.0), 2.0**-21, 3 * ulp_of(lg))
        t = y * lg
        dt = np.abs(y) * dl + ulp_of(t)
        return np.abs(ref) * (math.log(2) * dt) * 1.01 + (3 + 2 * np.abs(t) + 1) * ulp
    if name == "fma":                       # a * b + c, fused or not
        return 0.5 * ulp_of(a[0] * a[1]) + ulp
    if name == "dot":
        return _dot_error(a[0] * a[1])[:, None] + ulp
    if name in ("length", "distance"):      # sqrt(dot(v, v)), of a - b for distance
        n = a[0].shape[1]
        return np.abs(ref) * ((n + 4) * U + 10 * U) + 2 * ulp
    if name == "normalize":                 # v / length(v)
        n = a[0].shape[1]
        return (np.abs(ref) + U) * ((n + 4) * U + 20 * U) + 2 * ulp
    if name == "cross":
        x, y = a[0], a[1]
        t = np.abs(np.stack([x[:, 1] * y[:, 2], x[:, 2] * y[:, 1], x[:, 2] * y[:, 0],
                             x[:, 0] * y[:, 2], x[:, 0] * y[:, 1], x[:, 1] * y[:, 0]], 1))
        return 4 * U * (t[:, 0::2] + t[:, 1::2]) + ulp
    if name == "mix":                       # x * (1 - t) + y * t
        x, y, t = a[0], a[1], a[2]
        return 4 * U * (np.abs(x) * (1 + np.abs(t)) + np.abs(y * t)) + 2 * ulp
    if name == "smoothstep":                # t * t * (3 - 2 t), t from a division
        return np.full_like(ref, 24 * U) + ulp
    if name in ("matvec", "vecmat", "matmat"):
        return _matrix_error(name, a) + ulp
    raise KeyError(name)


def _matrix_error(name: str, a: list[np.ndarray]) -> np.ndarray:
    """Dot-product bounds of each component of a matrix product; a matrix argument is
    (n, k * k) column by column, as the kernel stores it."""
    if name == "matvec":                    # (m @ v)[r] = sum_c m[c][r] * v[c]
        k = a[1].shape[1]
        m = a[0].reshape(-1, k, k)          # [sample, column, row]
        return _dot_error(np.transpose(m, (0, 2, 1)) * a[1][:, None, :])
    if name == "vecmat":                    # (v @ m)[c] = sum_r v[r] * m[c][r]
        k = a[0].shape[1]
        m = a[1].reshape(-1, k, k)
        return _dot_error(m * a[0][:, None, :])
    k = int(round(math.sqrt(a[0].shape[1])))   # (p @ q)[j][r] = sum_c p[c][r] * q[j][c]
    p, q = a[0].reshape(-1, k, k), a[1].reshape(-1, k, k)
    terms = np.transpose(p, (0, 2, 1))[:, None, :, :] * q[:, :, None, :]
    return _dot_error(terms).reshape(-1, k * k)
