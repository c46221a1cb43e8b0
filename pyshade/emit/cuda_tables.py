"""Tables of the CUDA C++ emitter: type spellings, literal suffixes, conversions, printf
formats, and the fixed text of the support types (arrays, matrices, bool vectors).

Kept apart from ``cuda.py`` so that the emitter is mostly hooks; everything here is
data or text built from data.
"""

from __future__ import annotations

SCALARS = {"bool": "bool", "i32": "int", "u32": "uint", "f32": "float", "f16": "__half",
           "f64": "double", "i64": "int64_t", "u64": "uint64_t"}
# NVRTC has no standard headers: the one-word names come from typedefs in the header
# (multi-word names such as ``unsigned long long`` would break ``T(x)`` casts).
# The offsets of struct members are checked where NVRTC has __builtin_offsetof: NVRTC
# 13.0 (the H200's CUDA) rejected it ("type name is not allowed"), 13.5 accepts it;
# sizes are checked everywhere, and the explicit padding members fix the offsets.
OFFSETOF = ("#if __CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1305",
            "#define PS_OFFSETOF(T, m) __builtin_offsetof(T, m)",
            "#endif")
TYPEDEFS = {"u32": "typedef unsigned int uint;",
            "i64": "typedef long long int64_t;",
            "u64": "typedef unsigned long long uint64_t;"}
# CUDA's own vector types (``float3``...); bool vectors are pyshade's ``ps_boolN``.
VEC_BASE = {"f32": "float", "i32": "int", "u32": "uint"}
LITERAL_SUFFIX = {"i32": "", "u32": "u", "f32": "f", "f64": "", "i64": "ll", "u64": "ull"}
# The unsigned type of each signed one: signed + - * << are done there, since signed
# overflow is undefined behaviour in C++ (NVVM marks the operations ``nsw`` and folds on
# it) while the kernel language wraps.
UNSIGNED = {"int": "uint", "int64_t": "uint64_t"}
COMPONENTS = "xyzw"
# C++ size and alignment of a vector of 2, 3, 4 four-byte elements (float3 has no padding).
VEC_LAYOUT = {2: (8, 8), 3: (12, 4), 4: (16, 16)}

# Conversions to and from f16 with one rounding (through f32 a double would round twice).
TO_HALF = {"f32": "__float2half_rn({})", "f64": "__double2half({})", "i32": "__int2half_rn({})",
           "u32": "__uint2half_rn({})", "i64": "__ll2half_rn({})", "u64": "__ull2half_rn({})",
           "bool": "__uint2half_rn(uint({}))"}
FROM_HALF = {"f32": "__half2float({})", "f64": "double(__half2float({}))",
             "i32": "__half2int_rz({})", "u32": "__half2uint_rz({})",
             "i64": "__half2ll_rz({})", "u64": "__half2ull_rz({})",
             "bool": "(__half2float({}) != 0.0f)"}
# f16 + - * / with IEEE rounding: the ``_rn`` forms are never contracted into an fma by
# ptxas (the plain operators of cuda_fp16.h may be).
HALF_OPS = {"+": "__hadd_rn({}, {})", "-": "__hsub_rn({}, {})", "*": "__hmul_rn({}, {})",
            "/": "__hdiv({}, {})"}
HALF_ABS = "__habs"         # |x| of an f16

# bitcast(dst, x) by (source, destination); a pair missing here is a value conversion
# (integers of one width keep their bits).
BITCASTS = {("f32", "u32"): "__float_as_uint({})", ("f32", "i32"): "__float_as_int({})",
            ("u32", "f32"): "__uint_as_float({})", ("i32", "f32"): "__int_as_float({})",
            ("f64", "i64"): "__double_as_longlong({})", ("i64", "f64"): "__longlong_as_double({})",
            ("f64", "u64"): "uint64_t(__double_as_longlong({}))",
            ("u64", "f64"): "__longlong_as_double(int64_t({}))"}
# Bit intrinsics by width: (popcount, count leading zeros, reverse), each over the
# unsigned (clz: signed) value of that width.
BIT_INTRINSICS = {32: ("__popc(uint({}))", "__clz(int({}))", "__brev(uint({}))"),
                  64: ("__popcll(uint64_t({}))", "__clzll(int64_t({}))",
                       "__brevll(uint64_t({}))")}
# An f16 literal from its value, exact in f32 (one rounding, as on the CPU).
HALF_LITERAL = "__half({}f)"
# The bits of special floats, for literals (CUDA C has no inf/nan literal).
SPECIAL_FLOAT = {"f32": "__uint_as_float({bits:#010x}u)",
                 "f64": "__longlong_as_double({:#018x}ll)",
                 "f16": "__ushort_as_half((unsigned short){:#06x}u)"}

# printf conversions (f16 goes through f32; floats are printed as doubles with 17
# significant digits, the digits of the CPU device's repr in most cases).
PRINTF = {"i32": ("%d", "{}"), "u32": ("%u", "{}"), "i64": ("%lld", "{}"),
          "u64": ("%llu", "{}"), "f32": ("%.17g", "double({})"), "f64": ("%.17g", "{}"),
          "f16": ("%.17g", "double(__half2float({}))"),
          "bool": ("%s", '({} ? "True" : "False")')}

# Invocation ids, from CUDA's built-in variables (blockDim is the workgroup size).
IDS = {"global_id": ("uint3", "make_uint3(blockIdx.x * blockDim.x + threadIdx.x, "
                              "blockIdx.y * blockDim.y + threadIdx.y, "
                              "blockIdx.z * blockDim.z + threadIdx.z)"),
       "local_id": ("uint3", "threadIdx"),
       "group_id": ("uint3", "blockIdx"),
       "num_groups": ("uint3", "make_uint3(gridDim.x, gridDim.y, gridDim.z)"),
       "local_index": ("uint", "threadIdx.x + threadIdx.y * blockDim.x + "
                               "threadIdx.z * blockDim.x * blockDim.y")}
RAW_IDS = {"group_id": "blockIdx", "num_groups": "gridDim", "local_id": "threadIdx",
           "local_index": IDS["local_index"][1]}

ATOMICS = {"add": "atomicAdd", "sub": "atomicSub", "min": "atomicMin", "max": "atomicMax",
           "and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor",
           "exchange": "atomicExch"}

# An array element; a 3-vector's slot is 16 bytes, its stride in the canonical layout.
SLOT = "template <class T> struct {slot} {{ T v; }};"
SLOT3 = "template <> struct alignas(16) {slot}<{t}> {{ {t} v; }};"
# ps.array(T, N): a value type (C arrays cannot be assigned or passed by value).
ARRAY = """template <class T, int N> struct {array} {{
    {slot}<T> e[N];
    __device__ T& operator[](uint i) {{ return e[i].v; }}
    __device__ const T& operator[](uint i) const {{ return e[i].v; }}
}};"""
# matN: N columns (column-major), a column padded to its canonical alignment.
MATRIX = """struct alignas({align}) {name} {{
    {col_decl} c[{n}];
    __device__ {col}& operator[](uint i) {{ return c[i]{v}; }}
    __device__ const {col}& operator[](uint i) const {{ return c[i]{v}; }}
}};"""
BOOL_VECTOR = "struct {name} {{ bool {fields}; }};"
