"""Identifiers a Metal Shading Language program must not declare.

Sources:

* Metal Shading Language Specification 3.x: MSL is C++14/C++17 based, so
  every C/C++ keyword (shared with the CUDA table, ``CXX_KEYWORDS``, which
  includes the C++20 ones) is excluded;
* MSL section 2 (data types: ``half4 float3x4 packed_float3 bfloat4
  texture2d depth2d sampler atomic_int ...`` and the enums ``access
  address filter coord ...`` used in ``texture2d<float, access::read>``);
* MSL section 4/5 (function, address space and fast-math qualifiers
  ``kernel vertex fragment visible device constant thread threadgroup
  threadgroup_imageblock ray_data object_data``), the ``metal``, ``fast``,
  ``precise`` and ``simd`` namespaces, which generated code imports with
  ``using namespace metal;``;
* MSL section 6 (standard library: math, common, geometric, integer,
  relational, synchronisation, atomic, SIMD-group, quad-group, packing
  functions) and the ``metal_math`` macros ``MAXFLOAT M_PI_F ...``;
* ``main``, which a Metal program may not define either.

As in C++, identifiers with ``__`` anywhere, or beginning with ``_`` (at
global scope, or followed by an uppercase letter) are reserved.
"""

from __future__ import annotations

from .cuda import CXX_KEYWORDS

_METAL = """
    kernel vertex fragment visible device constant thread threadgroup
    threadgroup_imageblock ray_data object_data object mesh intersection
    stage_in patch
    metal fast precise simd raytracing
    half bfloat uchar ushort ulong uint
    texture1d texture1d_array texture2d texture2d_array texture2d_ms
    texture2d_ms_array texture3d texturecube texturecube_array texture_buffer
    depth2d depth2d_array depth2d_ms depth2d_ms_array depthcube depthcube_array
    sampler array array_ref vec packed_vec matrix atomic atomic_int atomic_uint
    atomic_bool atomic_float atomic_ulong imageblock visible_function_table
    intersection_function_table acceleration_structure
    primitive_acceleration_structure instance_acceleration_structure
    indirect_command_buffer
    render_command compute_command command_buffer
    access address filter mip_filter coord compare_func min_filter mag_filter
    s_address t_address r_address border_color lod_clamp max_anisotropy
    read write read_write sample
    mem_flags mem_none mem_device mem_threadgroup mem_texture
    memory_order memory_order_relaxed memory_order_acquire memory_order_release
    memory_order_acq_rel memory_order_seq_cst memory_scope
    MAXFLOAT MAXHALF HUGE_VALH INFINITY NAN FLT_MAX FLT_MIN FLT_EPSILON
    HALF_MAX HALF_MIN HALF_EPSILON M_E_F M_LOG2E_F M_LOG10E_F M_LN2_F M_LN10_F
    M_PI_F M_PI_2_F M_PI_4_F M_1_PI_F M_2_PI_F M_2_SQRTPI_F M_SQRT2_F
    M_SQRT1_2_F M_E_H M_PI_H
    main
"""

_FUNCTIONS = """
    abs acos acosh asin asinh atan atan2 atanh ceil copysign cos cosh cospi
    divide exp exp2 exp10 fabs fdim floor fma fmax fmax3 fmin fmin3 fmod fract
    frexp ilogb ldexp log log2 log10 max max3 median3 min min3 modf nextafter
    pow powr rint round rsqrt sin sincos sinh sinpi sqrt tan tanh tanpi trunc
    isfinite isinf isnan isnormal isordered isunordered signbit select all any
    clamp mix saturate sign smoothstep step cross distance distance_squared dot
    faceforward length length_squared normalize reflect refract determinant
    transpose absdiff addsat clamp clz ctz extract_bits hadd insert_bits mad24
    madhi madsat mul24 mulhi popcount reverse_bits rhadd rotate subsat as_type
    threadgroup_barrier simdgroup_barrier discard_fragment
    atomic_load_explicit atomic_store_explicit atomic_exchange_explicit
    atomic_compare_exchange_weak_explicit atomic_fetch_add_explicit
    atomic_fetch_sub_explicit atomic_fetch_and_explicit atomic_fetch_or_explicit
    atomic_fetch_xor_explicit atomic_fetch_min_explicit atomic_fetch_max_explicit
    atomic_thread_fence
    dfdx dfdy fwidth
    simd_sum simd_product simd_min simd_max simd_and simd_or simd_xor
    simd_prefix_inclusive_sum simd_prefix_exclusive_sum
    simd_prefix_inclusive_product simd_prefix_exclusive_product simd_broadcast
    simd_broadcast_first simd_shuffle simd_shuffle_up simd_shuffle_down
    simd_shuffle_xor simd_shuffle_rotate_up simd_shuffle_rotate_down
    simd_shuffle_and_fill_up simd_shuffle_and_fill_down simd_ballot simd_all
    simd_any simd_is_first simd_active_threads_mask simd_vote simdgroup_matrix
    simdgroup_load simdgroup_store simdgroup_multiply
    simdgroup_multiply_accumulate
    quad_sum quad_product quad_min quad_max quad_and quad_or quad_xor
    quad_broadcast quad_broadcast_first quad_shuffle quad_shuffle_up
    quad_shuffle_down quad_shuffle_xor quad_ballot quad_all quad_any
    quad_is_first quad_active_threads_mask quad_vote
    pack_float_to_unorm4x8 pack_float_to_snorm4x8 pack_float_to_unorm2x16
    pack_float_to_snorm2x16 pack_half_to_unorm4x8 pack_half_to_snorm4x8
    pack_half_to_unorm2x16 pack_half_to_snorm2x16 unpack_unorm4x8_to_float
    unpack_snorm4x8_to_float unpack_unorm2x16_to_float
    unpack_snorm2x16_to_float unpack_unorm4x8_to_half unpack_snorm4x8_to_half
    unpack_unorm2x16_to_half unpack_snorm2x16_to_half
    get_width get_height get_depth get_num_mip_levels get_array_size
    get_num_samples
"""


def _types() -> set[str]:
    """Vector, packed-vector and matrix type names: ``float4 packed_half3 ...``."""
    out: set[str] = set()
    for b in ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long",
              "ulong", "half", "float", "bfloat"):
        out |= {f"{b}{n}" for n in (2, 3, 4)}
        out |= {f"packed_{b}{n}" for n in (2, 3, 4)}
    for b in ("half", "float", "bfloat"):
        out |= {f"{b}{c}x{r}" for c in (2, 3, 4) for r in (2, 3, 4)}
        out |= {f"simdgroup_{b}8x8"}
    return out


KEYWORDS: frozenset[str] = (
    CXX_KEYWORDS | frozenset((_METAL + _FUNCTIONS).split()) | frozenset(_types())
)

RESERVED_PREFIXES: tuple[str, ...] = ("__", "_")

RESERVED_SUBSTRINGS: tuple[str, ...] = ("__",)
