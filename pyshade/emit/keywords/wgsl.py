"""Identifiers a WGSL program must not declare.

Sources (W3C WebGPU Shading Language, Candidate Recommendation, 2024/2025):

* section "Keyword Summary" (the 26 keywords, ``fn let var ...``);
* section "Reserved Words" (the long list of words kept for future use,
  mostly keywords of other languages: ``NULL Self abstract ... yield``);
* "Predeclared Types and Type-Generators" and "Predeclared Type Aliases"
  (``f32 vec4 vec4f mat4x4h texture_2d ...``); user declarations may shadow
  these, which would silently break the generated code, so they are avoided;
* "Predeclared Enumerants": address spaces, access modes and texel formats,
  which appear as template arguments (``var<storage, read_write>``) and are
  resolved like ordinary identifiers, so a user ``storage`` would break them;
* "Built-in Functions" (every function of the chapter, including atomic,
  packing, derivative, texture, synchronisation, subgroup and quad ones).

A single ``_`` is not an identifier in WGSL, and identifiers may not start
with two underscores (section "Identifiers"), hence ``RESERVED_PREFIXES``.
``main`` is added because pyshade names entry points that way in some
targets.
"""

from __future__ import annotations

_KEYWORDS = """
    alias break case const const_assert continue continuing default diagnostic
    discard else enable false fn for if let loop override requires return struct
    switch true var while
"""

_RESERVED = """
    NULL Self abstract active alignas alignof as asm asm_fragment async attribute
    auto await become binding_array cast catch class co_await co_return co_yield
    coherent column_major common compile compile_fragment concept const_cast
    consteval constexpr constinit crate debugger decltype delete demote
    demote_to_helper do dynamic_cast enum explicit export extends extern external
    fallthrough filter final finally friend from fxgroup get goto groupshared
    highp impl implements import inline instanceof interface layout lowp macro
    macro_rules match mediump meta mod module move mut mutable namespace new nil
    noexcept noinline nointerpolation non_coherent noncoherent noperspective null
    nullptr of operator package packoffset partition pass patch pixelfragment
    precise precision premerge priv protected pub public readonly ref regardless
    register reinterpret_cast require resource restrict self set shared sizeof
    smooth snorm static static_assert static_cast std subroutine super target
    template this thread_local throw trait try type typedef typeid typename typeof
    union unless unorm unsafe unsized use using varying virtual volatile wgsl
    where with writeonly yield
    _
    i8 u8 i16 u16 i64 u64 f64
"""

_TYPES = """
    bool f16 f32 i32 u32 array atomic ptr sampler sampler_comparison
    vec2 vec3 vec4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4
    texture_1d texture_2d texture_2d_array texture_3d texture_cube
    texture_cube_array texture_multisampled_2d texture_depth_multisampled_2d
    texture_external texture_storage_1d texture_storage_2d
    texture_storage_2d_array texture_storage_3d texture_depth_2d
    texture_depth_2d_array texture_depth_cube texture_depth_cube_array
"""

_ENUMERANTS = """
    function private workgroup uniform storage handle
    read write read_write
    rgba8unorm rgba8snorm rgba8uint rgba8sint rgba16uint rgba16sint rgba16float
    r32uint r32sint r32float rg32uint rg32sint rg32float rgba32uint rgba32sint
    rgba32float bgra8unorm r8unorm r8snorm r8uint r8sint rg8unorm rg8snorm rg8uint
    rg8sint r16unorm r16snorm r16uint r16sint r16float rg16unorm rg16snorm
    rg16uint rg16sint rg16float rgba16unorm rgba16snorm rgb10a2uint rgb10a2unorm
    rg11b10ufloat
"""

_BUILTIN_FUNCTIONS = """
    bitcast all any select arrayLength
    abs acos acosh asin asinh atan atanh atan2 ceil clamp cos cosh
    countLeadingZeros countOneBits countTrailingZeros cross degrees determinant
    distance dot dot4U8Packed dot4I8Packed exp exp2 extractBits faceForward
    firstLeadingBit firstTrailingBit floor fma fract frexp insertBits inverseSqrt
    ldexp length log log2 max min mix modf normalize pow quantizeToF16 radians
    reflect refract reverseBits round saturate sign sin sinh smoothstep sqrt step
    tan tanh transpose trunc
    dpdx dpdxCoarse dpdxFine dpdy dpdyCoarse dpdyFine fwidth fwidthCoarse
    fwidthFine
    textureDimensions textureGather textureGatherCompare textureLoad
    textureNumLayers textureNumLevels textureNumSamples textureSample
    textureSampleBias textureSampleCompare textureSampleCompareLevel
    textureSampleGrad textureSampleLevel textureSampleBaseClampToEdge textureStore
    atomicLoad atomicStore atomicAdd atomicSub atomicMax atomicMin atomicAnd
    atomicOr atomicXor atomicExchange atomicCompareExchangeWeak
    pack4x8snorm pack4x8unorm pack4xI8 pack4xU8 pack4xI8Clamp pack4xU8Clamp
    pack2x16snorm pack2x16unorm pack2x16float unpack4x8snorm unpack4x8unorm
    unpack4xI8 unpack4xU8 unpack2x16snorm unpack2x16unorm unpack2x16float
    storageBarrier textureBarrier workgroupBarrier workgroupUniformLoad
    subgroupAdd subgroupExclusiveAdd subgroupInclusiveAdd subgroupAll subgroupAnd
    subgroupAny subgroupBallot subgroupBroadcast subgroupBroadcastFirst
    subgroupElect subgroupMax subgroupMin subgroupMul subgroupExclusiveMul
    subgroupInclusiveMul subgroupOr subgroupShuffle subgroupShuffleDown
    subgroupShuffleUp subgroupShuffleXor subgroupXor
    quadBroadcast quadSwapDiagonal quadSwapX quadSwapY
"""

_SPECIAL = "main"


def _aliases() -> set[str]:
    """Predeclared aliases: ``vec4f vec3i ... mat4x4f mat2x3h``."""
    out = {f"vec{n}{s}" for n in (2, 3, 4) for s in "iufh"}
    out |= {f"mat{c}x{r}{s}" for c in (2, 3, 4) for r in (2, 3, 4) for s in "fh"}
    return out


KEYWORDS: frozenset[str] = frozenset(
    (_KEYWORDS + _RESERVED + _TYPES + _ENUMERANTS + _BUILTIN_FUNCTIONS + _SPECIAL).split()
) | frozenset(_aliases())

RESERVED_PREFIXES: tuple[str, ...] = ("__",)

RESERVED_SUBSTRINGS: tuple[str, ...] = ()
