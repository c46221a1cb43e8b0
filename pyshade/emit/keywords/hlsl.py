"""Identifiers an HLSL program must not declare.

Sources:

* Microsoft Docs, "Keywords (HLSL)" (``AppendStructuredBuffer asm ...
  while``) and "Reserved Words (HLSL)" (``auto case catch char class
  const_cast ... virtual``); the effect-framework keywords there are
  case-insensitive, so both spellings in use are listed;
* DirectXShaderCompiler HLSL 2021 / Shader Model 6.x additions: templates
  and operators, ``select and or``, 16/64-bit scalar types, resource types
  (``RWStructuredBuffer``, ``RasterizerOrdered*``, ``RaytracingAccelerationStructure``
  ...), descriptor heaps, ray tracing and mesh shader built-ins;
* the scalar/vector/matrix type names ``float4 int3x2 min16float2 ...``;
* Microsoft Docs, "Intrinsic Functions (HLSL)" and the wave/quad intrinsics
  of Shader Model 6.0+ (``lerp saturate mad frac rsqrt WaveActiveSum ...``);
* attribute names pyshade emits (``numthreads`` and friends) and ``main``.

DXC is Clang based, so names beginning with two underscores are left to the
implementation.
"""

from __future__ import annotations

_KEYWORDS = """
    AppendStructuredBuffer asm asm_fragment BlendState bool break Buffer
    ByteAddressBuffer case cbuffer centroid class column_major compile
    compile_fragment CompileShader const continue ComputeShader
    ConsumeStructuredBuffer default DepthStencilState DepthStencilView discard do
    double DomainShader dword else export extern false float for fxgroup
    GeometryShader groupshared half Hullshader HullShader if in inline inout
    InputPatch int interface line lineadj linear LineStream matrix min16float
    min10float min16int min12int min16uint namespace nointerpolation noperspective
    NULL out OutputPatch packoffset pass pixelfragment PixelShader point
    PointStream precise RasterizerState RenderTargetView return register
    row_major RWBuffer RWByteAddressBuffer RWStructuredBuffer RWTexture1D
    RWTexture1DArray RWTexture2D RWTexture2DArray RWTexture3D sample sampler
    SamplerState SamplerComparisonState shared snorm stateblock stateblock_state
    static string struct switch StructuredBuffer tbuffer technique technique10
    technique11 texture Texture Texture1D Texture1DArray Texture2D Texture2DArray
    Texture2DMS Texture2DMSArray Texture3D TextureCube TextureCubeArray true
    typedef triangle triangleadj TriangleStream uint uniform unorm unsigned vector
    vertexfragment VertexShader void volatile while
    sampler1D sampler2D sampler3D samplerCUBE sampler_state
    vertexshader pixelshader geometryshader hullshader domainshader
    computeshader blendstate depthstencilstate rasterizerstate
    globallycoherent indices vertices primitives payload nodeoutput
"""

_RESERVED = """
    auto case catch char class const_cast default delete dynamic_cast enum
    explicit friend goto long mutable new operator private protected public
    reinterpret_cast short signed sizeof static_cast template this throw try
    typename union unsigned using virtual
    constexpr decltype nullptr static_assert alignas alignof noexcept
    thread_local
"""

_RESOURCES = """
    ConstantBuffer TextureBuffer RasterizerOrderedBuffer
    RasterizerOrderedByteAddressBuffer RasterizerOrderedStructuredBuffer
    RasterizerOrderedTexture1D RasterizerOrderedTexture1DArray
    RasterizerOrderedTexture2D RasterizerOrderedTexture2DArray
    RasterizerOrderedTexture3D RWTexture2DMS RWTexture2DMSArray
    FeedbackTexture2D FeedbackTexture2DArray RaytracingAccelerationStructure
    RayDesc RayQuery BuiltInTriangleIntersectionAttributes
    ResourceDescriptorHeap SamplerDescriptorHeap
    DispatchNodeInputRecord RWDispatchNodeInputRecord GroupNodeInputRecords
    RWGroupNodeInputRecords ThreadNodeInputRecord RWThreadNodeInputRecord
    EmptyNodeInput NodeOutput EmptyNodeOutput NodeOutputArray
    EmptyNodeOutputArray
    SubobjectToExportsAssociation StateObjectConfig GlobalRootSignature
    LocalRootSignature RaytracingShaderConfig RaytracingPipelineConfig
    TriangleHitGroup ProceduralPrimitiveHitGroup
"""

_ATTRIBUTES = """
    numthreads maxvertexcount outputtopology earlydepthstencil patchconstantfunc
    outputcontrolpoints WaveSize
"""

_INTRINSICS = """
    abort abs acos all AllMemoryBarrier AllMemoryBarrierWithGroupSync any
    asdouble asfloat asfloat16 asin asint asint16 asuint asuint16 atan atan2 ceil
    CheckAccessFullyMapped clamp clip cos cosh countbits cross
    D3DCOLORtoUBYTE4 ddx ddx_coarse ddx_fine ddy ddy_coarse ddy_fine degrees
    determinant DeviceMemoryBarrier DeviceMemoryBarrierWithGroupSync distance
    dot dst errorf EvaluateAttributeCentroid EvaluateAttributeAtSample
    EvaluateAttributeSnapped exp exp2 f16tof32 f32tof16 faceforward firstbithigh
    firstbitlow floor fma fmod frac frexp fwidth GetRenderTargetSampleCount
    GetRenderTargetSamplePosition GroupMemoryBarrier
    GroupMemoryBarrierWithGroupSync InterlockedAdd InterlockedAnd
    InterlockedCompareExchange InterlockedCompareExchangeFloatBitwise
    InterlockedCompareStore InterlockedCompareStoreFloatBitwise
    InterlockedExchange InterlockedMax InterlockedMin InterlockedOr
    InterlockedXor isfinite isinf isnan ldexp length lerp lit log log10 log2 mad
    max min modf msad4 mul noise normalize pow printf
    Process2DQuadTessFactorsAvg Process2DQuadTessFactorsMax
    Process2DQuadTessFactorsMin ProcessIsolineTessFactors
    ProcessQuadTessFactorsAvg ProcessQuadTessFactorsMax
    ProcessQuadTessFactorsMin ProcessTriTessFactorsAvg ProcessTriTessFactorsMax
    ProcessTriTessFactorsMin radians rcp reflect refract reversebits round
    rsqrt saturate sign sin sincos sinh smoothstep sqrt step tan tanh
    tex1D tex1Dbias tex1Dgrad tex1Dlod tex1Dproj tex2D tex2Dbias tex2Dgrad
    tex2Dlod tex2Dproj tex3D tex3Dbias tex3Dgrad tex3Dlod tex3Dproj texCUBE
    texCUBEbias texCUBEgrad texCUBElod texCUBEproj transpose trunc
    select and or
    WaveIsFirstLane WaveGetLaneIndex WaveGetLaneCount WaveActiveAnyTrue
    WaveActiveAllTrue WaveActiveBallot WaveReadLaneAt WaveReadLaneFirst
    WaveActiveAllEqual WaveActiveCountBits WaveActiveSum WaveActiveProduct
    WaveActiveBitAnd WaveActiveBitOr WaveActiveBitXor WaveActiveMin
    WaveActiveMax WavePrefixCountBits WavePrefixSum WavePrefixProduct WaveMatch
    WaveMultiPrefixBitAnd WaveMultiPrefixBitOr WaveMultiPrefixBitXor
    WaveMultiPrefixCountBits WaveMultiPrefixProduct WaveMultiPrefixSum
    QuadReadLaneAt QuadReadAcrossX QuadReadAcrossY QuadReadAcrossDiagonal
    QuadAny QuadAll
    dot4add_u8packed dot4add_i8packed dot2add pack_u8 pack_s8 pack_clamp_u8
    pack_clamp_s8 unpack_u8u16 unpack_u8u32 unpack_s8s16 unpack_s8s32
    NonUniformResourceIndex GetAttributeAtVertex IsHelperLane
    DispatchRaysIndex DispatchRaysDimensions TraceRay ReportHit CallShader
    IgnoreHit AcceptHitAndEndSearch InstanceID InstanceIndex PrimitiveIndex
    GeometryIndex HitKind RayFlags RayTCurrent RayTMin WorldRayOrigin
    WorldRayDirection ObjectRayOrigin ObjectRayDirection ObjectToWorld
    ObjectToWorld3x4 ObjectToWorld4x3 WorldToObject WorldToObject3x4
    WorldToObject4x3 SetMeshOutputCounts DispatchMesh Barrier
    GetRemainingRecursionLevels
"""

_SPECIAL = "main"


def _types() -> set[str]:
    """Scalar, vector and matrix type names: ``float4 uint2x3 min16float4``."""
    scalars = ("bool", "int", "uint", "dword", "half", "float", "double",
               "min16float", "min10float", "min16int", "min12int", "min16uint",
               "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
               "float16_t", "float32_t", "float64_t")
    out = set(scalars) | {"uint8_t4_packed", "int8_t4_packed", "snorm", "unorm"}
    for s in scalars:
        out |= {f"{s}{n}" for n in (1, 2, 3, 4)}
        out |= {f"{s}{r}x{c}" for r in (1, 2, 3, 4) for c in (1, 2, 3, 4)}
    return out


KEYWORDS: frozenset[str] = frozenset(
    (_KEYWORDS + _RESERVED + _RESOURCES + _ATTRIBUTES + _INTRINSICS + _SPECIAL).split()
) | frozenset(_types())

RESERVED_PREFIXES: tuple[str, ...] = ("__",)

RESERVED_SUBSTRINGS: tuple[str, ...] = ()
