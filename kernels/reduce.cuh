/* Reduction of 16-byte vectors from several sources into accumulators of cb_acc_t<T> (fp32 for
 * the narrow floating types, the type itself for double and the integers; the op arithmetic
 * is redop.cuh).
 *
 * Sources are combined in rank order 0, 1, ..., n-1 whichever rank computes, and rounded to the
 * output dtype once at the end, so every rank produces bit-identical results (a requirement for
 * all-reduce: replicas of a model must stay equal). avg = sum / n, computed in the accumulator
 * type. Loads are issued for all sources before the first add (n independent 16-byte loads in
 * flight). */
#ifndef CB_REDUCE_CUH
#define CB_REDUCE_CUH

#include "dtype.cuh"
#include "redop.cuh"
#include "signal.cuh"

/* Loads a 16-byte vector bypassing L1 (ld.global.cg): peer data written during this kernel
 * must never be served from a stale L1 line. */
__device__ __forceinline__ uint4 cb_ld_cg_v4(const void *p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

/* Reduces element vector `vi` (16-byte index) over n sources src[0..n-1] (rank order) and
 * returns the packed result. */
template <typename T>
__device__ __forceinline__ uint4 cb_reduce_vec(const void *const *src, int n, size_t vi, int op) {
  constexpr int N = cb_vec<T>::N;
  uint4 raw[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++)
    if (q < n) raw[q] = cb_ld_cg_v4((const uint4 *)src[q] + vi);
  cb_acc_t<T> acc[N], x[N];
  cb_vec_to_acc<T>(raw[0], acc);
#pragma unroll
  for (int q = 1; q < CB_MAX_RANKS; q++) {
    if (q < n) {
      cb_vec_to_acc<T>(raw[q], x);
#pragma unroll
      for (int i = 0; i < N; i++) acc[i] = cb_combine(op, acc[i], x[i]);
    }
  }
#pragma unroll
  for (int i = 0; i < N; i++) acc[i] = cb_finish_op(op, acc[i], n);
  return cb_vec_from_acc<T>(acc);
}

/* One element, bypassing L1 like cb_ld_cg_v4. */
template <typename T>
__device__ __forceinline__ T cb_ld_cg_scalar(const void *base, size_t i) {
  T r;
  if constexpr (sizeof(T) == 8) {
    unsigned long long v = __ldcg((const unsigned long long *)base + i);
    memcpy(&r, &v, 8);
  } else if constexpr (sizeof(T) == 4) {
    unsigned int v = __ldcg((const unsigned int *)base + i);
    memcpy(&r, &v, 4);
  } else if constexpr (sizeof(T) == 2) {
    unsigned short v = __ldcg((const unsigned short *)base + i);
    memcpy(&r, &v, 2);
  } else {
    unsigned char v = __ldcg((const unsigned char *)base + i);
    memcpy(&r, &v, 1);
  }
  return r;
}

/* Scalar form for the tail elements that do not fill a vector. */
template <typename T>
__device__ __forceinline__ T cb_reduce_scalar(const void *const *src, int n, size_t i, int op) {
  cb_acc_t<T> acc = cb_to_acc<T>(cb_ld_cg_scalar<T>(src[0], i));
  for (int q = 1; q < n; q++) acc = cb_combine(op, acc, cb_to_acc<T>(cb_ld_cg_scalar<T>(src[q], i)));
  return cb_from_acc<T>(cb_finish_op(op, acc, n));
}

#endif
