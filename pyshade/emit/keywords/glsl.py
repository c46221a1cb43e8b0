"""Identifiers a GLSL program must not declare.

Sources:

* The OpenGL Shading Language 4.60 specification, section 3.6 "Keywords"
  (keywords, type names, and the list "reserved for future use":
  ``common partition active asm class union enum typedef template this
  resource goto inline noinline public static extern external interface long
  short half fixed unsigned superp input output hvec2 ... sampler3DRect
  filter sizeof cast namespace using``), plus the GLSL ES 3.20 list;
* GL_KHR_vulkan_glsl (``texture2D``-style separate texture types,
  ``sampler``, ``samplerShadow``, ``subpassInput*``), and the explicit
  arithmetic type extensions (``float16_t f16vec4 int64_t u8vec2 ...``);
* chapter 8 "Built-in Functions" (angle, exponential, common, packing,
  geometric, matrix, vector relational, integer, texture, atomic, image,
  derivative, interpolation, geometry, barrier and subgroup functions,
  and the deprecated ``texture2D``-style lookups), which user functions of
  the same name would overload or hide;
* the storage qualifiers pyshade itself emits (``layout uniform buffer
  shared in out inout``) are keywords already; ``main`` is the entry point;
* preprocessor: ``defined`` and the predefined macros.

Section 3.7 "Identifiers": names beginning with ``gl_`` are reserved, and
identifiers containing two consecutive underscores are reserved; section 3.3:
macro names beginning with ``GL_`` are reserved. WebGL additionally reserves
the ``webgl_`` and ``_webgl_`` prefixes.
"""

from __future__ import annotations

_KEYWORDS = """
    const uniform buffer shared attribute varying coherent volatile restrict
    readonly writeonly atomic_uint layout centroid flat smooth noperspective patch
    sample invariant precise break continue do for while switch case default if
    else subroutine in out inout int void bool true false float double discard
    return lowp mediump highp precision struct uint demote terminateInvocation
    rayPayloadEXT rayPayloadInEXT hitAttributeEXT callableDataEXT
    callableDataInEXT shaderRecordEXT accelerationStructureEXT rayQueryEXT
    taskPayloadSharedEXT perprimitiveEXT
"""

_RESERVED = """
    common partition active asm class union enum typedef template this resource
    goto inline noinline public static extern external interface long short half
    fixed unsigned superp input output hvec2 hvec3 hvec4 fvec2 fvec3 fvec4
    sampler3DRect filter sizeof cast namespace using
"""

_PREPROCESSOR = """
    defined GL_ES GL_core_profile GL_compatibility_profile GL_SPIRV VULKAN
"""

_BUILTIN_FUNCTIONS = """
    radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh
    pow exp log exp2 log2 sqrt inversesqrt
    abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix
    step smoothstep isnan isinf floatBitsToInt floatBitsToUint intBitsToFloat
    uintBitsToFloat fma frexp ldexp doubleBitsToInt64 doubleBitsToUint64
    int64BitsToDouble uint64BitsToDouble halfBitsToInt16 halfBitsToUint16
    int16BitsToHalf uint16BitsToHalf
    packUnorm2x16 packSnorm2x16 packUnorm4x8 packSnorm4x8 unpackUnorm2x16
    unpackSnorm2x16 unpackUnorm4x8 unpackSnorm4x8 packHalf2x16 unpackHalf2x16
    packDouble2x32 unpackDouble2x32 packInt2x32 unpackInt2x32 packUint2x32
    unpackUint2x32 packFloat2x16 unpackFloat2x16
    length distance dot cross normalize ftransform faceforward reflect refract
    matrixCompMult outerProduct transpose determinant inverse
    lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual any all not
    uaddCarry usubBorrow umulExtended imulExtended bitfieldExtract bitfieldInsert
    bitfieldReverse bitCount findLSB findMSB
    textureSize textureQueryLod textureQueryLevels textureSamples texture
    textureProj textureLod textureOffset texelFetch texelFetchOffset
    textureProjOffset textureLodOffset textureProjLod textureProjLodOffset
    textureGrad textureGradOffset textureProjGrad textureProjGradOffset
    textureGather textureGatherOffset textureGatherOffsets
    texture1D texture1DProj texture1DLod texture1DProjLod texture2D
    texture2DProj texture2DLod texture2DProjLod texture3D texture3DProj
    texture3DLod texture3DProjLod textureCube textureCubeLod shadow1D shadow2D
    shadow1DProj shadow2DProj shadow1DLod shadow2DLod shadow1DProjLod
    shadow2DProjLod texture2DRect texture2DRectProj shadow2DRect
    shadow2DRectProj texture2DLodEXT texture2DProjLodEXT textureCubeLodEXT
    texture2DGradEXT texture2DProjGradEXT textureCubeGradEXT
    atomicCounterIncrement atomicCounterDecrement atomicCounter atomicCounterAdd
    atomicCounterSubtract atomicCounterMin atomicCounterMax atomicCounterAnd
    atomicCounterOr atomicCounterXor atomicCounterExchange
    atomicCounterCompSwap
    atomicAdd atomicMin atomicMax atomicAnd atomicOr atomicXor atomicExchange
    atomicCompSwap atomicLoad atomicStore
    imageSize imageSamples imageLoad imageStore imageAtomicAdd imageAtomicMin
    imageAtomicMax imageAtomicAnd imageAtomicOr imageAtomicXor
    imageAtomicExchange imageAtomicCompSwap imageAtomicLoad imageAtomicStore
    dFdx dFdy dFdxFine dFdyFine dFdxCoarse dFdyCoarse fwidth fwidthFine
    fwidthCoarse interpolateAtCentroid interpolateAtSample interpolateAtOffset
    noise1 noise2 noise3 noise4
    EmitStreamVertex EndStreamPrimitive EmitVertex EndPrimitive
    barrier memoryBarrier memoryBarrierAtomicCounter memoryBarrierBuffer
    memoryBarrierShared memoryBarrierImage groupMemoryBarrier
    subpassLoad anyInvocation allInvocations allInvocationsEqual
    subgroupBarrier subgroupMemoryBarrier subgroupMemoryBarrierBuffer
    subgroupMemoryBarrierShared subgroupMemoryBarrierImage subgroupElect
    subgroupAll subgroupAny subgroupAllEqual subgroupBroadcast
    subgroupBroadcastFirst subgroupBallot subgroupInverseBallot
    subgroupBallotBitExtract subgroupBallotBitCount
    subgroupBallotInclusiveBitCount subgroupBallotExclusiveBitCount
    subgroupBallotFindLSB subgroupBallotFindMSB subgroupShuffle
    subgroupShuffleXor subgroupShuffleUp subgroupShuffleDown subgroupAdd
    subgroupMul subgroupMin subgroupMax subgroupAnd subgroupOr subgroupXor
    subgroupInclusiveAdd subgroupInclusiveMul subgroupInclusiveMin
    subgroupInclusiveMax subgroupInclusiveAnd subgroupInclusiveOr
    subgroupInclusiveXor subgroupExclusiveAdd subgroupExclusiveMul
    subgroupExclusiveMin subgroupExclusiveMax subgroupExclusiveAnd
    subgroupExclusiveOr subgroupExclusiveXor subgroupClusteredAdd
    subgroupClusteredMul subgroupClusteredMin subgroupClusteredMax
    subgroupClusteredAnd subgroupClusteredOr subgroupClusteredXor
    subgroupQuadBroadcast subgroupQuadSwapHorizontal subgroupQuadSwapVertical
    subgroupQuadSwapDiagonal
    traceRayEXT reportIntersectionEXT executeCallableEXT ignoreIntersectionEXT
    terminateRayEXT EmitMeshTasksEXT SetMeshOutputsEXT
"""

_SPECIAL = "main"

_SCALARS_EXT = """
    float16_t float32_t float64_t int8_t uint8_t int16_t uint16_t int32_t uint32_t
    int64_t uint64_t sampler samplerShadow
"""


def _types() -> set[str]:
    """Vector, matrix, sampler, image and texture type names."""
    out: set[str] = set()
    for p in ("", "b", "i", "u", "d", "f16", "f32", "f64", "i8", "u8", "i16", "u16",
              "i32", "u32", "i64", "u64"):
        out |= {f"{p}vec{n}" for n in (2, 3, 4)}
    for p in ("", "d", "f16", "f32", "f64"):
        out |= {f"{p}mat{n}" for n in (2, 3, 4)}
        out |= {f"{p}mat{c}x{r}" for c in (2, 3, 4) for r in (2, 3, 4)}
    dims = ("1D", "1DArray", "2D", "2DArray", "2DRect", "2DMS", "2DMSArray", "3D",
            "Cube", "CubeArray", "Buffer")
    for p in ("", "i", "u", "f16"):
        out |= {f"{p}{kind}{d}" for kind in ("sampler", "image", "texture") for d in dims}
        out |= {f"{p}subpassInput", f"{p}subpassInputMS"}
    out |= {f"sampler{d}Shadow" for d in ("1D", "1DArray", "2D", "2DArray", "2DRect",
                                          "Cube", "CubeArray")}
    out |= {"samplerExternalOES", "atomic_uint"}
    return out


KEYWORDS: frozenset[str] = frozenset(
    (_KEYWORDS + _RESERVED + _PREPROCESSOR + _BUILTIN_FUNCTIONS + _SPECIAL
     + _SCALARS_EXT).split()
) | frozenset(_types())

RESERVED_PREFIXES: tuple[str, ...] = ("gl_", "GL_", "__", "webgl_", "_webgl_")

RESERVED_SUBSTRINGS: tuple[str, ...] = ("__",)
