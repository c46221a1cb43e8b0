// A stand-in for the part of CUDA that pyshade's CUDA emission uses, so that the
// generated .cu compiles as C++20 with g++ and runs on the CPU (tests/cuda_host.py).
// It checks the emitter's C++ (precedence, conversions, overloads, layouts) and its
// semantics against numpy; it cannot check NVRTC or the GPU (the H200 does that).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ps_fibers.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 5

template <class T> struct alignas(sizeof(T) * 2) ps_v2 { T x, y; };
template <class T> struct ps_v3 { T x, y, z; };
template <class T> struct alignas(sizeof(T) * 4) ps_v4 { T x, y, z, w; };
typedef ps_v2<float> float2; typedef ps_v3<float> float3; typedef ps_v4<float> float4;
typedef ps_v2<int> int2; typedef ps_v3<int> int3; typedef ps_v4<int> int4;
typedef ps_v2<unsigned> uint2; typedef ps_v3<unsigned> uint3; typedef ps_v4<unsigned> uint4;
static_assert(alignof(float2) == 8 && alignof(float3) == 4 && alignof(float4) == 16);  // as CUDA

#define PS_MAKE(T, S) \
    inline T##2 make_##T##2(S a, S b) { return {a, b}; } \
    inline T##3 make_##T##3(S a, S b, S c) { return {a, b, c}; } \
    inline T##4 make_##T##4(S a, S b, S c, S d) { return {a, b, c, d}; }
PS_MAKE(float, float)
PS_MAKE(int, int)
PS_MAKE(uint, unsigned)
#undef PS_MAKE

thread_local uint3 threadIdx, blockIdx;
uint3 blockDim, gridDim;
inline void __syncthreads() { if (ps_host_fibers) ps_host_fibers->yield(); }
inline void __threadfence_block() {}
inline void __threadfence() {}

// Atomics: sequentially consistent (a device may be used from several threads).
template <class T> T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicCAS(T* p, T cmp, T v) {
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
template <class T> T atomicMin(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T> T atomicMax(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST)) {}
    return old;
}

// Bits.
template <class D, class S> inline D ps_bits(S s) { D d; std::memcpy(&d, &s, sizeof d); return d; }
inline unsigned __float_as_uint(float x) { return ps_bits<unsigned>(x); }
// CUDA's f32 atomicAdd and atomicExch (GCC's __atomic_fetch_add takes no float).
inline float atomicAdd(float* p, float v) {
    unsigned* u = reinterpret_cast<unsigned*>(p);
    unsigned old = __atomic_load_n(u, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(u, &old, ps_bits<unsigned>(ps_bits<float>(old) + v),
                                        false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return ps_bits<float>(old);
}
inline float atomicExch(float* p, float v) {
    float old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
inline int __float_as_int(float x) { return ps_bits<int>(x); }
inline float __uint_as_float(unsigned x) { return ps_bits<float>(x); }
inline float __int_as_float(int x) { return ps_bits<float>(x); }
inline long long __double_as_longlong(double x) { return ps_bits<long long>(x); }
inline double __longlong_as_double(long long x) { return ps_bits<double>(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    unsigned long long r = 0;
    for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i);
    return r;
}
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
using std::abs; using std::fabs; using std::fmin; using std::fmax; using std::floor;
using std::ceil; using std::trunc; using std::sqrt; using std::exp; using std::log;
using std::sin; using std::cos; using std::tan; using std::pow; using std::rint;
using std::isnan; using std::isinf; using std::fma; using std::atan2;
using std::tanh; using std::sinh; using std::cosh; using std::asinh; using std::acosh;
using std::atanh; using std::exp2; using std::expm1; using std::log10; using std::log1p;
using std::hypot; using std::copysign; using std::fmod; using std::erf; using std::erfc;
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

// f16 as _Float16 (GCC 12, x86-64): each operation rounds once to half.
struct __half {
    _Float16 v;
    __half() = default;
    explicit __half(float f) : v((_Float16)f) {}
};
inline __half ps_h(_Float16 v) { __half h; h.v = v; return h; }
inline __half __float2half_rn(float f) { return ps_h((_Float16)f); }
inline __half __double2half(double d) { return ps_h((_Float16)d); }
inline __half __int2half_rn(int i) { return ps_h((_Float16)i); }
inline __half __uint2half_rn(unsigned i) { return ps_h((_Float16)i); }
inline __half __ll2half_rn(long long i) { return ps_h((_Float16)i); }
inline __half __ull2half_rn(unsigned long long i) { return ps_h((_Float16)i); }
inline float __half2float(__half h) { return (float)h.v; }
inline int __half2int_rz(__half h) { return (int)h.v; }
inline unsigned __half2uint_rz(__half h) { return (unsigned)h.v; }
inline long long __half2ll_rz(__half h) { return (long long)h.v; }
inline unsigned long long __half2ull_rz(__half h) { return (unsigned long long)h.v; }
inline __half __ushort_as_half(unsigned short b) { return ps_h(ps_bits<_Float16>(b)); }
inline unsigned short __half_as_ushort(__half h) { return ps_bits<unsigned short>(h.v); }
inline __half __hadd_rn(__half a, __half b) { return ps_h(a.v + b.v); }
inline __half __hsub_rn(__half a, __half b) { return ps_h(a.v - b.v); }
inline __half __hmul_rn(__half a, __half b) { return ps_h(a.v * b.v); }
inline __half __hdiv(__half a, __half b) { return ps_h(a.v / b.v); }
inline __half __hfma(__half a, __half b, __half c) {
    return ps_h((_Float16)std::fma((double)a.v, (double)b.v, (double)c.v));
}
// cuda_fp16's __habs clears the sign bit: +0.0 for -0.0 (a compare-and-negate kept the
// -0.0: fuzz seed 6579655493099019436 kernel 58, regressions/).
inline __half __habs(__half a) {
    return ps_h(ps_bits<_Float16>((unsigned short)(ps_bits<unsigned short>(a.v) & 0x7fffu)));
}
inline __half __hneg(__half a) { return ps_h(-a.v); }
inline bool __heq(__half a, __half b) { return a.v == b.v; }
inline bool __hne(__half a, __half b) { return a.v != b.v; }
inline bool __hlt(__half a, __half b) { return a.v < b.v; }
inline bool __hle(__half a, __half b) { return a.v <= b.v; }
inline bool __hgt(__half a, __half b) { return a.v > b.v; }
inline bool __hge(__half a, __half b) { return a.v >= b.v; }
// cuda_fp16.hpp's comparison operators (the emission compares __half with < and >).
inline bool operator==(__half a, __half b) { return a.v == b.v; }
inline bool operator!=(__half a, __half b) { return a.v != b.v; }
inline bool operator<(__half a, __half b) { return a.v < b.v; }
inline bool operator<=(__half a, __half b) { return a.v <= b.v; }
inline bool operator>(__half a, __half b) { return a.v > b.v; }
inline bool operator>=(__half a, __half b) { return a.v >= b.v; }
inline __half operator-(__half a) { return ps_h(-a.v); }
inline bool __hisnan(__half a) { return a.v != a.v; }
inline bool __hisinf(__half a) { return std::isinf((float)a.v); }

// The emission typedefs int64_t/uint64_t as long long (NVRTC has no <cstdint>); the
// system headers above typedef them as long: the emission's get other names here.
#define int64_t ps_int64_t
#define uint64_t ps_uint64_t
