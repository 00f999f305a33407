/* Reference backward block pair (contract: attn_bwd.h) for the checks: plain, slow, obviously
 * right. One thread block per (query row, head, batch), CB_ATTN_BWD_REF_THREADS threads. For a
 * chunk of keys at a time, thread j recomputes key j's probability from the row's log-sum-exp,
 *   p_j = exp(scale * q.k_j - lse),  dp_j = dO.v_j,  ds_j = p_j * (dp_j - delta),
 * puts p_j and ds_j in shared memory; then thread d (one per head-dim lane) adds
 *   dq[d] += scale * sum_j ds_j k_j[d]          (in a register, written once at the end)
 *   dk_j[d] += scale * ds_j q[d],  dv_j[d] += p_j dO[d]   (fp32 atomicAdd: every query row
 *                                                           of the pair adds to each key's row)
 * No tensor cores, no tiling beyond the chunk. The naive variant (attn_bwd_util.h) rounds the
 * scores, p, dp and ds to the 16-bit dtype as a framework's bf16 backward would. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>

#include "attn_bwd.h"
#include "attn_bwd_util.h"
#include "attn_merge.h"
#include "dtype.cuh"
#include "error_gpu.h"

static constexpr int CB_ATTN_BWD_REF_THREADS = 128; /* >= the largest head dim */

template <typename T>
__device__ __forceinline__ float cb_bwd_ref_round(float x, int lowp) {
  return lowp ? cb_scalar<T>::to_float(cb_scalar<T>::from_float(x)) : x;
}

template <typename T>
__global__ void __launch_bounds__(CB_ATTN_BWD_REF_THREADS)
    cb_attn_bwd_reference_kernel(cb_attn_bwd_args_t a, int lowp) {
  __shared__ float q_s[128], do_s[128];
  __shared__ float p_s[CB_ATTN_BWD_REF_THREADS], ds_s[CB_ATTN_BWD_REF_THREADS];
  const int row = blockIdx.x, h = blockIdx.y, b = blockIdx.z, tid = threadIdx.x;
  const int D = a.head_dim, hk = h / (a.heads / a.kv_heads);
  const size_t q_i = (((size_t)b * a.q_len + row) * a.heads + h) * D;
  const T *q = static_cast<const T *>(a.q) + q_i;
  const T *dout = static_cast<const T *>(a.dout) + q_i;
  const size_t kv_row = (size_t)a.kv_heads * D, kv_base = ((size_t)b * a.kv_len * a.kv_heads + hk) * D;
  const T *k = static_cast<const T *>(a.k) + kv_base;
  const T *v = static_cast<const T *>(a.v) + kv_base;
  const size_t lse_i = ((size_t)b * a.heads + h) * a.q_len + row;
  const float lse = a.lse[lse_i], delta = a.delta[lse_i];
  if (lse == -INFINITY) return; /* the row saw no key: contributes nothing (uniform per block) */
  const int64_t qp = cb_attn_pos_at(a.qpos.start0, a.qpos.len0, a.qpos.start1, a.qpos.stride, row);
  if (tid < D) {
    q_s[tid] = cb_scalar<T>::to_float(q[tid]);
    do_s[tid] = cb_scalar<T>::to_float(dout[tid]);
  }
  __syncthreads();

  float dq = 0.0f; /* head-dim lane tid */
  for (int c = 0; c < a.kv_len; c += CB_ATTN_BWD_REF_THREADS) {
    const int j = c + tid;
    float p = 0.0f, ds = 0.0f;
    if (j < a.kv_len &&
        !(a.causal && cb_attn_pos_at(a.kvpos.start0, a.kvpos.len0, a.kvpos.start1, a.kvpos.stride, j) > qp)) {
      float dot = 0.0f, dp = 0.0f;
      for (int d = 0; d < D; d++) {
        dot += q_s[d] * cb_scalar<T>::to_float(k[(size_t)j * kv_row + d]);
        dp += do_s[d] * cb_scalar<T>::to_float(v[(size_t)j * kv_row + d]);
      }
      const float s = cb_bwd_ref_round<T>(cb_bwd_ref_round<T>(dot, lowp) * a.scale, lowp);
      p = cb_bwd_ref_round<T>(expf(s - lse), lowp);
      dp = cb_bwd_ref_round<T>(dp, lowp);
      ds = cb_bwd_ref_round<T>(p * (dp - delta), lowp);
    }
    __syncthreads(); /* the previous chunk's p_s / ds_s consumed */
    p_s[tid] = p;
    ds_s[tid] = ds;
    __syncthreads();
    const int n = min(CB_ATTN_BWD_REF_THREADS, a.kv_len - c);
    if (tid < D)
      for (int jj = 0; jj < n; jj++) {
        if (p_s[jj] == 0.0f && ds_s[jj] == 0.0f) continue; /* masked (or underflowed): adds nothing */
        const size_t kj = (size_t)(c + jj) * kv_row + tid;
        dq += ds_s[jj] * cb_scalar<T>::to_float(k[kj]);
        const size_t g = ((size_t)b * a.kv_len + c + jj) * kv_row + (size_t)hk * D + tid;
        atomicAdd(&a.dk[g], a.scale * ds_s[jj] * q_s[tid]);
        atomicAdd(&a.dv[g], p_s[jj] * do_s[tid]);
      }
  }
  if (tid < D) a.dq[q_i + tid] += cb_bwd_ref_round<T>(a.scale * dq, lowp);
}

static int launch(const cb_attn_bwd_args_t *a, int lowp, cudaStream_t s, char *why, size_t n) {
  if (cb_attn_bwd_check_args(a, why, n) < 0) return -1;
  if (a->q_len == 0 || a->kv_len == 0) return 0;
  const dim3 grid((unsigned)a->q_len, (unsigned)a->heads, (unsigned)a->batch);
  if (a->bf16) cb_attn_bwd_reference_kernel<__nv_bfloat16><<<grid, CB_ATTN_BWD_REF_THREADS, 0, s>>>(*a, lowp);
  else cb_attn_bwd_reference_kernel<__half><<<grid, CB_ATTN_BWD_REF_THREADS, 0, s>>>(*a, lowp);
  return 0;
}

extern "C" int cb_attn_bwd_reference(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n) {
  return launch(a, 0, s, why, n);
}

extern "C" int cb_attn_bwd_reference_naive(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n) {
  return launch(a, 1, s, why, n);
}
