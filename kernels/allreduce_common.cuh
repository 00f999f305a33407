/* Pieces the custom all-reduce kernels share: the block size, the split of an element range
 * into per-block slices of whole 16-byte vectors, the reduce-and-write-everywhere loop of the
 * two-shot forms. */
#ifndef CB_ALLREDUCE_COMMON_CUH
#define CB_ALLREDUCE_COMMON_CUH

#include "allreduce.h"
#include "allreduce_shard.h"
#include "error_gpu.h"
#include "reduce.cuh"

constexpr int kArThreads = 512; /* 16 warps: enough 16-byte accesses in flight per SM */

/* Block b's share [lo, hi) of `len` elements: whole vectors of N elements split evenly over
 * `blocks`, the last block also taking the tail that does not fill a vector. */
__host__ __device__ inline void cb_block_slice(size_t len, int N, int b, int blocks, size_t *lo, size_t *hi) {
  size_t nvec = len / (size_t)N, per = (nvec + (size_t)blocks - 1) / (size_t)blocks;
  size_t v0 = per * (size_t)b, v1 = v0 + per;
  if (v0 > nvec) v0 = nvec;
  if (v1 > nvec) v1 = nvec;
  *lo = v0 * (size_t)N;
  *hi = b == blocks - 1 ? len : v1 * (size_t)N;
}

/* Elements [lo, hi) (lo a multiple of the vector width): reduce src[0..n-1] in rank order and
 * store the result into outs[0..nouts-1] (local and NVLink stores), the block's threads
 * sharing the work. Two vectors per thread per step keep 2n independent loads in flight. */
template <typename T>
__device__ __forceinline__ void cb_reduce_to(const void *const *src, int n, T *const *outs, int nouts, size_t lo,
                                             size_t hi, int op) {
  constexpr int N = cb_vec<T>::N;
  const size_t vh = hi / N, T2 = 2 * (size_t)blockDim.x;
  for (size_t v = lo / N + threadIdx.x; v < vh; v += T2) {
    const bool second = v + blockDim.x < vh;
    uint4 x0 = cb_reduce_vec<T>(src, n, v, op);
    uint4 x1 = second ? cb_reduce_vec<T>(src, n, v + blockDim.x, op) : x0;
#pragma unroll
    for (int q = 0; q < CB_MAX_RANKS; q++)
      if (q < nouts) {
        ((uint4 *)outs[q])[v] = x0;
        if (second) ((uint4 *)outs[q])[v + blockDim.x] = x1;
      }
  }
  for (size_t i = (lo > vh * N ? lo : vh * N) + threadIdx.x; i < hi; i += blockDim.x) {
    T x = cb_reduce_scalar<T>(src, n, i, op);
    for (int q = 0; q < nouts; q++) outs[q][i] = x;
  }
}

/* The same, storing into every outs[0..n-1] (one output per source rank). */
template <typename T>
__device__ __forceinline__ void cb_reduce_to_all(const void *const *src, T *const *outs, int n, size_t lo, size_t hi,
                                                 int op) {
  cb_reduce_to<T>(src, n, outs, n, lo, hi, op);
}

#endif
