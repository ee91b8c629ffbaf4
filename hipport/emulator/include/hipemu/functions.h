// hipport emulator: device qualifiers, atomics, bit and math functions, vector types.
// Written for hipport; semantics from HIP 6.4 (amd_device_functions.h, amd_hip_atomic.h).
#pragma once
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "device.h"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __managed__
// `__shared__` declarations are rewritten by hipport emulate; one it could not rewrite stops here.
#define __shared__ _Pragma("GCC error \"hipport emulator: a __shared__ declaration outside a function body (or inside a macro) is not supported\"")

// ---- atomics (real atomics: __atomic builtins, sequentially consistent) ----
template <class T>
inline T hipemu_atomic_update(T* address, T (*update)(T, T), T value) {
    T old = __atomic_load_n(address, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(address, &old, update(old, value), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T>
inline T hipemu_atomic_update_fp(T* address, T (*update)(T, T), T value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    Bits* bits = reinterpret_cast<Bits*>(address);
    Bits old = __atomic_load_n(bits, __ATOMIC_SEQ_CST), next;
    for (;;) {
        T current, result;
        std::memcpy(&current, &old, sizeof(T));
        result = update(current, value);
        std::memcpy(&next, &result, sizeof(T));
        if (__atomic_compare_exchange_n(bits, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return current;
    }
}
#define HIPEMU_INT_ATOMICS(T)                                                                           \
    inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }                \
    inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }                \
    inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }              \
    inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }                \
    inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }                  \
    inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }                \
    inline T atomicMin(T* a, T v) { return hipemu_atomic_update<T>(a, [](T o, T x) { return x < o ? x : o; }, v); } \
    inline T atomicMax(T* a, T v) { return hipemu_atomic_update<T>(a, [](T o, T x) { return x > o ? x : o; }, v); } \
    inline T atomicCAS(T* a, T compare, T v) {                                                          \
        __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
        return compare;                                                                                 \
    }
HIPEMU_INT_ATOMICS(int)
HIPEMU_INT_ATOMICS(unsigned int)
HIPEMU_INT_ATOMICS(unsigned long)
HIPEMU_INT_ATOMICS(long long)
HIPEMU_INT_ATOMICS(unsigned long long)
#undef HIPEMU_INT_ATOMICS
inline float atomicAdd(float* a, float v) { return hipemu_atomic_update_fp<float>(a, [](float o, float x) { return o + x; }, v); }
inline double atomicAdd(double* a, double v) { return hipemu_atomic_update_fp<double>(a, [](double o, double x) { return o + x; }, v); }
inline float atomicSub(float* a, float v) { return hipemu_atomic_update_fp<float>(a, [](float o, float x) { return o - x; }, v); }
inline double atomicSub(double* a, double v) { return hipemu_atomic_update_fp<double>(a, [](double o, double x) { return o - x; }, v); }
inline float atomicExch(float* a, float v) { return hipemu_atomic_update_fp<float>(a, [](float, float x) { return x; }, v); }
inline float atomicMin(float* a, float v) { return hipemu_atomic_update_fp<float>(a, [](float o, float x) { return x < o ? x : o; }, v); }
inline float atomicMax(float* a, float v) { return hipemu_atomic_update_fp<float>(a, [](float o, float x) { return x > o ? x : o; }, v); }
inline double atomicMin(double* a, double v) { return hipemu_atomic_update_fp<double>(a, [](double o, double x) { return x < o ? x : o; }, v); }
inline double atomicMax(double* a, double v) { return hipemu_atomic_update_fp<double>(a, [](double o, double x) { return x > o ? x : o; }, v); }
// atomicInc/atomicDec: ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1)
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
    return hipemu_atomic_update<unsigned int>(a, [](unsigned int o, unsigned int l) { return o >= l ? 0u : o + 1; }, limit);
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
    return hipemu_atomic_update<unsigned int>(a, [](unsigned int o, unsigned int l) { return (o == 0 || o > l) ? l : o - 1; }, limit);
}

inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// ---- bit functions ----
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffs(unsigned int x) { return __builtin_ffs(int(x)); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned int __brev(unsigned int x) {
    unsigned int r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}
inline int __mul24(int x, int y) { return int((long long)((x << 8) >> 8) * ((y << 8) >> 8)); }
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xFFFFFFu) * (y & 0xFFFFFFu); }
inline int __mulhi(int x, int y) { return int(((long long)x * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) { return unsigned(((unsigned long long)x * y) >> 32); }
inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}

// ---- math: <cmath> plus the CUDA/HIP device names it lacks ----
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float fdividef(float x, float y) { return x / y; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline float __uint_as_float(unsigned int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline unsigned int __float_as_uint(float x) { unsigned int i; std::memcpy(&i, &x, 4); return i; }
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline int __float2int_rn(float x) { return int(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline int __float2int_rd(float x) { return int(std::floor(x)); }
inline int __float2int_ru(float x) { return int(std::ceil(x)); }
inline float __int2float_rn(int x) { return float(x); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
// Mixed argument types: clang 19's HIP headers (__clang_hip_cmath.h __HIP_OVERLOAD2(double, min))
// promote both to double, so min(unsigned, int) is the mathematical minimum.
template <class A, class B, class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                                     !std::is_same<A, B>::value>>
inline double min(A a, B b) { return std::fmin(double(a), double(b)); }
template <class A, class B, class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                                     !std::is_same<A, B>::value>>
inline double max(A a, B b) { return std::fmax(double(a), double(b)); }
template <class T>
inline T __ldg(const T* p) { return *p; }

inline long long clock64() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline long long wall_clock64() { return clock64(); }
[[noreturn]] inline void __trap() { ::hipemu::fatal("__trap() called in device code"); }

// ---- vector types ----
#define HIPEMU_VECTOR(T, N)                                                            \
    struct N##1 { T x; };                                                               \
    struct N##2 { T x, y; };                                                            \
    struct N##3 { T x, y, z; };                                                         \
    struct __attribute__((aligned(sizeof(T) * 4))) N##4 { T x, y, z, w; };              \
    inline N##1 make_##N##1(T x) { return N##1{x}; }                                    \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                            \
    inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                    \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
HIPEMU_VECTOR(float, float)
HIPEMU_VECTOR(double, double)
HIPEMU_VECTOR(int, int)
HIPEMU_VECTOR(signed char, char)
HIPEMU_VECTOR(unsigned char, uchar)
HIPEMU_VECTOR(short, short)
HIPEMU_VECTOR(unsigned short, ushort)
HIPEMU_VECTOR(long long, longlong)
HIPEMU_VECTOR(unsigned long long, ulonglong)
#undef HIPEMU_VECTOR
struct uint1 { unsigned int x; };
struct uint2 { unsigned int x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
inline uint1 make_uint1(unsigned int x) { return uint1{x}; }
inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }
