/* Element types on host and device: conversion to and from fp32 for float, half, bfloat16 and
 * the two OCP fp8 formats, the arithmetic type of every type (cb_acc_t: fp32 for those five,
 * the type itself for double and the integers), and the 16-byte packed vector every custom
 * kernel moves.
 *
 * fp8 conversions are our own bit-level code (host and device, tested on the CPU against CUDA's
 * cuda_fp8.h for all 256 codes and for rounding, saturation, NaN, ±0 and subnormals). Encoding
 * rounds to nearest even and saturates to the largest finite value (CUDA's __NV_SATFINITE);
 * NaN stays NaN. On sm_89+ devices the packed paths use the hardware cvt instructions through
 * cuda_fp8.h, which give the same results.
 *
 * Kernels loop over cb_vec<T>::N lanes of a uint4 and accumulate in fp32, so changing the
 * dtype never touches a kernel body: "load bf16/fp8, accumulate fp32, round once". */
#ifndef CB_DTYPE_CUH
#define CB_DTYPE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "dtype.h"
#include "error.h"
#include "hostdev.h"

/* ---- fp8 bit-level conversion (generic over exponent/mantissa widths) ---- */

/* kE exponent bits, kM mantissa bits; kFiniteOnly: e4m3 has no infinities and one NaN code
 * per sign (all ones), e5m2 follows IEEE (exponent all ones = inf/NaN). */
template <int kE, int kM, bool kFiniteOnly>
CB_HD float cb_fp8_decode(uint8_t code) {
  const int bias = (1 << (kE - 1)) - 1;
  const int e = (code >> kM) & ((1 << kE) - 1);
  const int m = code & ((1 << kM) - 1);
  const float sign = (code & 0x80) ? -1.0f : 1.0f;
  if (kFiniteOnly) {
    if (e == (1 << kE) - 1 && m == (1 << kM) - 1) return NAN;
  } else if (e == (1 << kE) - 1) {
    return m ? NAN : sign * INFINITY;
  }
  if (e == 0) return sign * ldexpf((float)m, 1 - bias - kM);
  return sign * ldexpf((float)((1 << kM) + m), e - bias - kM);
}

template <int kE, int kM, bool kFiniteOnly>
CB_HD uint8_t cb_fp8_encode(float x) {
  const int bias = (1 << (kE - 1)) - 1;
  /* Largest finite code magnitude: e4m3 0x7E (448), e5m2 0x7B (57344). */
  const int max_code = kFiniteOnly ? 0x7E : (((1 << kE) - 2) << kM) | ((1 << kM) - 1);
  const uint8_t nan_code = kFiniteOnly ? 0x7F : 0x7F;
  if (isnan(x)) return nan_code;
  const uint8_t sign = signbit(x) ? 0x80 : 0x00;
  float a = fabsf(x);
  if (a == 0.0f) return sign;
  if (isinf(a)) return sign | (uint8_t)max_code;
  int ex;
  frexpf(a, &ex); /* a = f * 2^ex, f in [0.5, 1) */
  int e = ex - 1; /* a in [2^e, 2^(e+1)) */
  const int emin = 1 - bias;
  int code;
  if (e < emin) {
    /* subnormal: a / 2^(emin - kM) is the mantissa count; rounding up to 2^kM lands exactly on
     * the smallest normal code, so the bit layout carries it for free */
    float q = rintf(ldexpf(a, kM - emin));
    code = (int)q;
  } else {
    float q = rintf(ldexpf(a, kM - e));                        /* in [2^kM, 2^(kM+1)] */
    if (e + bias > (1 << kE)) return sign | (uint8_t)max_code; /* far beyond range */
    code = ((e + bias - 1) << kM) + (int)q;
  }
  if (code > max_code) code = max_code;
  return sign | (uint8_t)code;
}

CB_HD float cb_e4m3_to_float(uint8_t c) { return cb_fp8_decode<4, 3, true>(c); }
CB_HD float cb_e5m2_to_float(uint8_t c) { return cb_fp8_decode<5, 2, false>(c); }
CB_HD uint8_t cb_float_to_e4m3(float x) { return cb_fp8_encode<4, 3, true>(x); }
CB_HD uint8_t cb_float_to_e5m2(float x) { return cb_fp8_encode<5, 2, false>(x); }

/* ---- storage types and scalar conversion ---- */

struct cb_e4m3_t {
  uint8_t bits;
};
struct cb_e5m2_t {
  uint8_t bits;
};

template <typename T>
struct cb_scalar;
template <>
struct cb_scalar<float> {
  static CB_HD float to_float(float x) { return x; }
  static CB_HD float from_float(float x) { return x; }
};
template <>
struct cb_scalar<__half> {
  static CB_HD float to_float(__half x) { return __half2float(x); }
  static CB_HD __half from_float(float x) { return __float2half_rn(x); }
};
template <>
struct cb_scalar<__nv_bfloat16> {
  static CB_HD float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  static CB_HD __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
};
template <>
struct cb_scalar<cb_e4m3_t> {
  static CB_HD float to_float(cb_e4m3_t x) { return cb_e4m3_to_float(x.bits); }
  static CB_HD cb_e4m3_t from_float(float x) { return cb_e4m3_t{cb_float_to_e4m3(x)}; }
};
template <>
struct cb_scalar<cb_e5m2_t> {
  static CB_HD float to_float(cb_e5m2_t x) { return cb_e5m2_to_float(x.bits); }
  static CB_HD cb_e5m2_t from_float(float x) { return cb_e5m2_t{cb_float_to_e5m2(x)}; }
};

/* ---- arithmetic types ---- */

/* acc: what kernels accumulate in; ref: what the check computes exact expected values in
 * (kernels/check.cu: double for every floating type, the type itself for the integers). */
template <typename T>
struct cb_arith {
  using acc = float; /* the narrow floating types */
  using ref = double;
};
template <>
struct cb_arith<double> {
  using acc = double;
  using ref = double;
};
#define CB_INT_ARITH(I) \
  template <>           \
  struct cb_arith<I> {  \
    using acc = I;      \
    using ref = I;      \
  };
CB_INT_ARITH(int8_t)
CB_INT_ARITH(uint8_t)
CB_INT_ARITH(int32_t)
CB_INT_ARITH(uint32_t)
CB_INT_ARITH(int64_t)
CB_INT_ARITH(uint64_t)
#undef CB_INT_ARITH
template <typename T>
using cb_acc_t = typename cb_arith<T>::acc;
template <typename T>
using cb_ref_t = typename cb_arith<T>::ref;

/* C++'s own arithmetic types convert with a cast; the storage structs through cb_scalar. */
template <typename T>
constexpr bool cb_is_native = std::is_integral<T>::value || std::is_floating_point<T>::value;

template <typename T>
CB_HD cb_acc_t<T> cb_to_acc(T x) {
  if constexpr (cb_is_native<T>) return (cb_acc_t<T>)x;
  else return cb_scalar<T>::to_float(x);
}
template <typename T>
CB_HD T cb_from_acc(cb_acc_t<T> a) {
  if constexpr (cb_is_native<T>) return (T)a;
  else return cb_scalar<T>::from_float(a);
}
template <typename T>
CB_HD cb_ref_t<T> cb_to_ref(T x) {
  return (cb_ref_t<T>)cb_to_acc<T>(x);
}
/* An exact reference value rounded once to T (the integers: already T). */
template <typename T>
CB_HD T cb_from_ref(cb_ref_t<T> r) {
  if constexpr (std::is_integral<T>::value) return r;
  else return cb_from_acc<T>((cb_acc_t<T>)r);
}

/* ---- 16-byte packed vectors ---- */

template <typename T>
struct cb_vec {
  static constexpr int N = 16 / sizeof(T); /* lanes per 16 bytes */
  union {
    uint4 raw;
    T e[N];
  };
};

/* Unpacks a 16-byte vector into N fp32 values. */
template <typename T>
__device__ __forceinline__ void cb_vec_to_float(const uint4 &raw, float (&f)[cb_vec<T>::N]) {
  cb_vec<T> v;
  v.raw = raw;
#pragma unroll
  for (int i = 0; i < cb_vec<T>::N; i++) f[i] = cb_scalar<T>::to_float(v.e[i]);
}

/* Rounds N fp32 values once into a 16-byte vector. */
template <typename T>
__device__ __forceinline__ uint4 cb_vec_from_float(const float (&f)[cb_vec<T>::N]) {
  cb_vec<T> v;
#pragma unroll
  for (int i = 0; i < cb_vec<T>::N; i++) v.e[i] = cb_scalar<T>::from_float(f[i]);
  return v.raw;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
/* Hardware conversions for fp8 (cvt.*.e4m3x2 / e5m2x2) through cuda_fp8.h's x4 types. */
template <typename X4>
__device__ __forceinline__ void cb_fp8x16_to_float(const uint4 &raw, float (&f)[16]) {
  const X4 *p = reinterpret_cast<const X4 *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; i++) {
    float4 q = static_cast<float4>(p[i]);
    f[4 * i] = q.x;
    f[4 * i + 1] = q.y;
    f[4 * i + 2] = q.z;
    f[4 * i + 3] = q.w;
  }
}
template <typename X4>
__device__ __forceinline__ uint4 cb_fp8x16_from_float(const float (&f)[16]) {
  uint4 raw;
  X4 *p = reinterpret_cast<X4 *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; i++) p[i] = X4(make_float4(f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]));
  return raw;
}
template <>
__device__ __forceinline__ void cb_vec_to_float<cb_e4m3_t>(const uint4 &raw, float (&f)[16]) {
  cb_fp8x16_to_float<__nv_fp8x4_e4m3>(raw, f);
}
template <>
__device__ __forceinline__ void cb_vec_to_float<cb_e5m2_t>(const uint4 &raw, float (&f)[16]) {
  cb_fp8x16_to_float<__nv_fp8x4_e5m2>(raw, f);
}
template <>
__device__ __forceinline__ uint4 cb_vec_from_float<cb_e4m3_t>(const float (&f)[16]) {
  return cb_fp8x16_from_float<__nv_fp8x4_e4m3>(f);
}
template <>
__device__ __forceinline__ uint4 cb_vec_from_float<cb_e5m2_t>(const float (&f)[16]) {
  return cb_fp8x16_from_float<__nv_fp8x4_e5m2>(f);
}
#endif

/* Unpacks / packs in the arithmetic type: the fp32 paths above for the narrow floating types,
 * plain lane copies for double and the integers. */
template <typename T>
__device__ __forceinline__ void cb_vec_to_acc(const uint4 &raw, cb_acc_t<T> (&a)[cb_vec<T>::N]) {
  if constexpr (std::is_same<cb_acc_t<T>, float>::value && !std::is_same<T, float>::value) {
    cb_vec_to_float<T>(raw, a);
  } else {
    cb_vec<T> v;
    v.raw = raw;
#pragma unroll
    for (int i = 0; i < cb_vec<T>::N; i++) a[i] = v.e[i];
  }
}
template <typename T>
__device__ __forceinline__ uint4 cb_vec_from_acc(const cb_acc_t<T> (&a)[cb_vec<T>::N]) {
  if constexpr (std::is_same<cb_acc_t<T>, float>::value && !std::is_same<T, float>::value) {
    return cb_vec_from_float<T>(a);
  } else {
    cb_vec<T> v;
#pragma unroll
    for (int i = 0; i < cb_vec<T>::N; i++) v.e[i] = a[i];
    return v.raw;
  }
}

/* ---- dispatch ---- */

/* Calls F<T>(...) with the storage type of the cb_dtype_t value; any other value ends the job
 * naming `what`. The one place where a dtype number becomes a C++ type. */
#define CB_DISPATCH_DTYPE(what, dtype, F, ...)                                    \
  switch (dtype) {                                                                \
  case CB_FLOAT: F<float>(__VA_ARGS__); break;                                    \
  case CB_HALF: F<__half>(__VA_ARGS__); break;                                    \
  case CB_BF16: F<__nv_bfloat16>(__VA_ARGS__); break;                             \
  case CB_FP8E4M3: F<cb_e4m3_t>(__VA_ARGS__); break;                              \
  case CB_FP8E5M2: F<cb_e5m2_t>(__VA_ARGS__); break;                              \
  case CB_INT8: F<int8_t>(__VA_ARGS__); break;                                    \
  case CB_UINT8: F<uint8_t>(__VA_ARGS__); break;                                  \
  case CB_INT32: F<int32_t>(__VA_ARGS__); break;                                  \
  case CB_UINT32: F<uint32_t>(__VA_ARGS__); break;                                \
  case CB_INT64: F<int64_t>(__VA_ARGS__); break;                                  \
  case CB_UINT64: F<uint64_t>(__VA_ARGS__); break;                                \
  case CB_DOUBLE: F<double>(__VA_ARGS__); break;                                  \
  default: CB_DIE(CB_EXIT_RUNTIME, "%s: unknown dtype %d", (what), (int)(dtype)); \
  }

#endif
