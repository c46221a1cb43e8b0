"""Identifiers a CUDA C++ program must not declare.

Sources:

* ISO C++20 [lex.key] table 5 and 6 (keywords and alternative tokens, such
  as ``and or not``), the identifiers with special meaning ``final override
  import module``, C++23 and TM-TS additions, and the C11 keywords and
  ``<stdbool.h>`` names; exported as ``CXX_KEYWORDS`` for the MSL table;
* CUDA C++ Programming Guide: execution-space and memory-space specifiers
  (all spelled with ``__``), built-in variables ``threadIdx blockIdx blockDim
  gridDim warpSize``, built-in vector types ``float4 uint3 dim3 ...`` and
  their ``make_*`` constructors, atomic, texture, surface, warp, clock and
  formatted-output functions;
* CUDA Math API (single, double, half and bfloat16 functions) and the C99
  ``<math.h>`` functions with their ``f`` variants, which user functions of
  the same name would overload and locals would hide;
* ``<stdint.h>``, ``<stddef.h>``, ``<sys/types.h>`` type names and the
  macros of ``<math.h> <float.h> <limits.h>`` that a variable name would be
  replaced by;
* ``main``.

[lex.name]: identifiers containing a double underscore ``__`` anywhere, or
beginning with ``_`` and an uppercase letter, are reserved; identifiers
beginning with ``_`` are reserved in the global namespace. Hence the ``_``
prefix (which also covers ``__``) and the ``__`` substring.
"""

from __future__ import annotations

_CXX = """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr
    constinit const_cast continue co_await co_return co_yield decltype default
    delete do double dynamic_cast else enum explicit export extern false float
    for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register reinterpret_cast
    requires return short signed sizeof static static_assert static_cast struct
    switch template this thread_local throw true try typedef typeid typename
    union unsigned using virtual void volatile wchar_t while xor xor_eq
    final override import module
    reflexpr atomic_cancel atomic_commit atomic_noexcept synchronized
    transaction_safe transaction_safe_dynamic
    restrict _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary
    _Noreturn _Static_assert _Thread_local _BitInt _Decimal32 _Decimal64
    _Decimal128 typeof typeof_unqual
    std NULL assert offsetof errno
    size_t ptrdiff_t nullptr_t max_align_t intptr_t uintptr_t intmax_t uintmax_t
    int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t
    uint ushort ulong uchar
    INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL FLT_MAX FLT_MIN FLT_EPSILON
    FLT_DIG FLT_MANT_DIG DBL_MAX DBL_MIN DBL_EPSILON DBL_DIG DBL_MANT_DIG
    INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX LLONG_MAX LLONG_MIN
    ULLONG_MAX SHRT_MAX SHRT_MIN USHRT_MAX CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX
    SCHAR_MIN UCHAR_MAX INT8_MAX INT8_MIN INT16_MAX INT16_MIN INT32_MAX INT32_MIN
    INT64_MAX INT64_MIN UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX SIZE_MAX
    M_E M_LOG2E M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI
    M_2_SQRTPI M_SQRT2 M_SQRT1_2 EOF
"""

# C99 <math.h>; every one also exists with an ``f`` suffix.
_C_MATH = """
    acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc
    exp exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb ldexp
    lgamma llrint llround log log10 log1p log2 logb lrint lround modf nan
    nearbyint nextafter nexttoward pow remainder remquo rint round scalbln
    scalbn sin sinh sqrt tan tanh tgamma trunc
    j0 j1 jn y0 y1 yn
    cospi sinpi sincos sincospi rsqrt rcbrt rhypot norm3d norm4d rnorm3d rnorm4d
    norm rnorm normcdf normcdfinv erfinv erfcinv erfcx exp10 cyl_bessel_i0
    cyl_bessel_i1 fdivide
"""

_CUDA = """
    threadIdx blockIdx blockDim gridDim warpSize
    dim3 half half2 nv_bfloat16 nv_bfloat162 nv_half nv_half2
    cudaTextureObject_t cudaSurfaceObject_t cudaError_t cudaStream_t cudaEvent_t
    texture surface
    isfinite isinf isnan signbit abs min max umin umax llmin llmax ullmin
    ullmax fminf fmaxf
    atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec
    atomicCAS atomicAnd atomicOr atomicXor atomicAdd_block atomicAdd_system
    atomicSub_block atomicSub_system atomicExch_block atomicExch_system
    atomicMin_block atomicMin_system atomicMax_block atomicMax_system
    atomicInc_block atomicInc_system atomicDec_block atomicDec_system
    atomicCAS_block atomicCAS_system atomicAnd_block atomicAnd_system
    atomicOr_block atomicOr_system atomicXor_block atomicXor_system
    tex1D tex1Dfetch tex2D tex3D tex1DLayered tex2DLayered texCubemap
    texCubemapLayered tex1DLod tex2DLod tex3DLod tex1DGrad tex2DGrad tex3DGrad
    tex2Dgather tex1DLayeredLod tex2DLayeredLod texCubemapLod
    surf1Dread surf1Dwrite surf2Dread surf2Dwrite surf3Dread surf3Dwrite
    surf1DLayeredread surf1DLayeredwrite surf2DLayeredread surf2DLayeredwrite
    surfCubemapread surfCubemapwrite
    printf malloc free memcpy memset clock clock64
    hsqrt hrsqrt hrcp hexp hexp2 hexp10 hlog hlog2 hlog10 hsin hcos hfloor hceil
    htrunc hrint habs hmax hmin hadd hsub hmul hdiv hfma hneg heq hne hlt hle hgt
    hge hisnan hisinf h2sqrt h2rsqrt h2rcp h2exp h2exp2 h2exp10 h2log h2log2
    h2log10 h2sin h2cos h2floor h2ceil h2trunc h2rint
    cuda nvcuda cooperative_groups cub thrust
    main
"""

_VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                 "longlong", "ulonglong", "float", "double")


def _vector_types() -> set[str]:
    """``float1 ... ulonglong4`` and their ``make_*`` constructors."""
    out: set[str] = set()
    for b in _VECTOR_BASES:
        for n in (1, 2, 3, 4):
            out.add(f"{b}{n}")
            out.add(f"make_{b}{n}")
    out |= {"make_half2", "make_bfloat162"}
    return out


CXX_KEYWORDS: frozenset[str] = frozenset(_CXX.split())
"""C and C++ keywords, standard types and standard macros (shared with MSL)."""

_MATH = _C_MATH.split()

KEYWORDS: frozenset[str] = (
    CXX_KEYWORDS
    | frozenset(_MATH)
    | frozenset(m + "f" for m in _MATH)
    | frozenset(_CUDA.split())
    | frozenset(_vector_types())
)

RESERVED_PREFIXES: tuple[str, ...] = ("__", "_")

RESERVED_SUBSTRINGS: tuple[str, ...] = ("__",)
