/* Reference block attention (contract: attn.h) for the checks: plain, slow, obviously right.
 * One thread block per (query row, head, batch). Three passes over the keys, each recomputing
 * the scores: the row's maximum, the sum of exponentials, then the probabilities (a chunk of
 * CB_ATTN_REF_THREADS keys at a time through shared memory) times V. No online rescaling, no
 * tensor cores; the block result then merges into the running o / lse with the same functions
 * as the fast kernel (attn_merge.h).
 *
 * lowp = 0: fp32 throughout: the truth. lowp = 1: what a framework computing
 * softmax(scale * Q K^T) V in bf16/fp16 gets: Q.K^T rounded to the dtype, times scale rounded
 * again, softmax in fp32 from those scores with the probabilities rounded, P.V accumulated in
 * fp32 and rounded. The fast kernel's tolerance is a multiple of that error. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "attn.h"
#include "attn_merge.h"

static constexpr int CB_ATTN_REF_THREADS = 128; /* >= the largest head dim */

template <typename T>
__device__ __forceinline__ float cb_attn_ref_round(float x);
template <>
__device__ __forceinline__ float cb_attn_ref_round<__nv_bfloat16>(float x) {
  return __bfloat162float(__float2bfloat16_rn(x));
}
template <>
__device__ __forceinline__ float cb_attn_ref_round<__half>(float x) {
  return __half2float(__float2half_rn(x));
}
template <typename T>
__device__ __forceinline__ float cb_attn_ref_load(const T *p);
template <>
__device__ __forceinline__ float cb_attn_ref_load<__nv_bfloat16>(const __nv_bfloat16 *p) {
  return __bfloat162float(*p);
}
template <>
__device__ __forceinline__ float cb_attn_ref_load<__half>(const __half *p) {
  return __half2float(*p);
}

/* block-wide max or sum of one float per thread (all threads get the result) */
__device__ float cb_attn_ref_reduce(float x, bool is_max, float *scratch) {
  for (int o = 16; o > 0; o /= 2) {
    const float y = __shfl_xor_sync(0xffffffffu, x, o);
    x = is_max ? fmaxf(x, y) : x + y;
  }
  __syncthreads(); /* scratch may still be read from a previous call */
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  x = scratch[0];
  for (int w = 1; w < CB_ATTN_REF_THREADS / 32; w++) x = is_max ? fmaxf(x, scratch[w]) : x + scratch[w];
  return x;
}

template <typename T>
__global__ void __launch_bounds__(CB_ATTN_REF_THREADS) cb_attn_reference_kernel(cb_attn_args_t a, int lowp) {
  __shared__ float q_s[128];
  __shared__ float p_s[CB_ATTN_REF_THREADS];
  __shared__ float scratch[CB_ATTN_REF_THREADS / 32];
  const int row = blockIdx.x, h = blockIdx.y, b = blockIdx.z, tid = threadIdx.x;
  const int D = a.head_dim, hk = h / (a.heads / a.kv_heads);
  const T *q = static_cast<const T *>(a.q) + (((size_t)b * a.q_len + row) * a.heads + h) * D;
  const T *k = static_cast<const T *>(a.k) + ((size_t)b * a.kv_len * a.kv_heads + hk) * D;
  const T *v = static_cast<const T *>(a.v) + ((size_t)b * a.kv_len * a.kv_heads + hk) * D;
  const size_t kv_row = (size_t)a.kv_heads * D;
  const int64_t qp = cb_attn_pos_at(a.qpos.start0, a.qpos.len0, a.qpos.start1, a.qpos.stride, row);
  if (tid < D) q_s[tid] = cb_attn_ref_load(q + tid);
  const size_t lse_i = ((size_t)b * a.heads + h) * a.q_len + row;
  /* read before the barriers below: thread 0 writes the new value at the end */
  const float lse_old = a.first ? -INFINITY : a.lse[lse_i];
  __syncthreads();

  /* scaled score of key j, or -inf when the key is masked */
  auto score = [&](int j) -> float {
    if (a.causal && cb_attn_pos_at(a.kvpos.start0, a.kvpos.len0, a.kvpos.start1, a.kvpos.stride, j) > qp)
      return -INFINITY;
    float dot = 0.0f;
    for (int d = 0; d < D; d++) dot += q_s[d] * cb_attn_ref_load(k + (size_t)j * kv_row + d);
    return lowp ? cb_attn_ref_round<T>(cb_attn_ref_round<T>(dot) * a.scale) : dot * a.scale;
  };

  float mx = -INFINITY;
  for (int j = tid; j < a.kv_len; j += CB_ATTN_REF_THREADS) mx = fmaxf(mx, score(j));
  mx = cb_attn_ref_reduce(mx, true, scratch);
  const float mref = mx == -INFINITY ? 0.0f : mx;
  float sum = 0.0f;
  for (int j = tid; j < a.kv_len; j += CB_ATTN_REF_THREADS) sum += expf(score(j) - mref);
  sum = cb_attn_ref_reduce(sum, false, scratch);

  float acc = 0.0f; /* output dim tid */
  for (int c = 0; c < a.kv_len; c += CB_ATTN_REF_THREADS) {
    const int j = c + tid;
    float pj = 0.0f;
    if (j < a.kv_len && sum > 0.0f) {
      pj = expf(score(j) - mref) / sum;
      if (lowp) pj = cb_attn_ref_round<T>(pj);
    }
    __syncthreads(); /* p_s of the previous chunk consumed */
    p_s[tid] = pj;
    __syncthreads();
    const int n = min(CB_ATTN_REF_THREADS, a.kv_len - c);
    if (tid < D)
      for (int jj = 0; jj < n; jj++) acc += p_s[jj] * cb_attn_ref_load(v + (size_t)(c + jj) * kv_row + tid);
  }
  if (lowp) acc = cb_attn_ref_round<T>(acc);
  if (tid >= D) return;

  const float lse_blk = sum > 0.0f ? mx + logf(sum) : -INFINITY;
  const size_t o_i = (((size_t)b * a.q_len + row) * a.heads + h) * D + tid;
  float w_old, w_blk;
  const float lse_new = cb_attn_merge(lse_old, lse_blk, &w_old, &w_blk);
  const float o_old = a.first ? 0.0f : a.o[o_i];
  const float o_new = o_old * w_old + acc * w_blk;
  if (a.first || lse_blk != -INFINITY) {
    a.o[o_i] = o_new;
    if (tid == 0) a.lse[lse_i] = lse_new;
  }
  if (a.final) static_cast<T *>(a.out)[o_i] = static_cast<T>(o_new);
}

extern "C" int cb_attn_reference(const cb_attn_args_t *a, int lowp, cudaStream_t s, char *why, size_t n) {
  if (cb_attn_check_args(a, why, n) < 0) return -1;
  if (lowp != 0 && lowp != 1) {
    snprintf(why, n, "attention reference: lowp must be 0 or 1, not %d", lowp);
    return -1;
  }
  if (a->q_len == 0) return 0;
  const dim3 grid((unsigned)a->q_len, (unsigned)a->heads, (unsigned)a->batch);
  if (a->bf16) cb_attn_reference_kernel<__nv_bfloat16><<<grid, CB_ATTN_REF_THREADS, 0, s>>>(*a, lowp);
  else cb_attn_reference_kernel<__half><<<grid, CB_ATTN_REF_THREADS, 0, s>>>(*a, lowp);
  return 0;
}
