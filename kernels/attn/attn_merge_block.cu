/* Merge of a finished attention block into the running output (attn_merge_block.h).
 *
 * One thread per 8 elements (16 bytes of bf16/fp16, two float4 of the fp32 output) of one
 * (batch, row, head) vector; the head_dim / 8 threads of a vector are adjacent lanes of one
 * warp (head_dim / 8 divides 32), each computes the merge weights from the two log-sum-exps
 * itself (two expf and a logf: nothing next to the 48 bytes it moves), and lane 0 of the vector
 * writes the new log-sum-exp after the warp has read the old one (__syncwarp: the read of lse
 * by the other lanes must not see the new value). Memory-bound: a pass over o (read and write,
 * fp32), o_blk and, when final, out. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "attn_merge.h"
#include "attn_merge_block.h"
#include "dtype.cuh"

#define CB_MERGE_THREADS 256 /* threads per block: 8 warps */
#define CB_MERGE_LANES 8     /* elements per thread: one 16-byte vector of bf16/fp16 */

typedef struct merge_params {
  const void *o_blk;
  const float *lse_blk;
  float *o, *lse;
  void *out;
  int heads, head_dim, rows, row0, q_len, first, final;
  int64_t total; /* threads: batch x q_len x heads x head_dim / 8 */
} merge_params_t;

template <typename T>
__global__ void __launch_bounds__(CB_MERGE_THREADS) cb_attn_merge_block_kernel(merge_params_t p) {
  static_assert(cb_vec<T>::N == CB_MERGE_LANES, "one 16-byte vector per thread");
  const int64_t t = (int64_t)blockIdx.x * CB_MERGE_THREADS + threadIdx.x;
  const bool active = t < p.total;
  const int per_vec = p.head_dim / CB_MERGE_LANES;
  const int64_t chunk = t % per_vec, hv = t / per_vec;
  const int64_t h = hv % p.heads, br = hv / p.heads;
  const int64_t r = br % p.q_len, b = br / p.q_len;
  const int64_t row = p.row0 + r;
  const int64_t li = (b * p.heads + h) * p.rows + row; /* lse [batch][heads][rows] */
  const int64_t oi = ((b * p.rows + row) * p.heads + h) * p.head_dim + chunk * CB_MERGE_LANES;
  const int64_t bi = ((b * p.q_len + r) * p.heads + h) * p.head_dim + chunk * CB_MERGE_LANES;
  float acc[CB_MERGE_LANES];
  float lse_new = -INFINITY;
  if (active) {
    const float lse_old = p.first ? -INFINITY : p.lse[li];
    const float lse_b = p.o_blk ? p.lse_blk[(b * p.heads + h) * p.q_len + r] : -INFINITY;
    float wa, wb;
    lse_new = cb_attn_merge(lse_old, lse_b, &wa, &wb);
    if (p.first) {
#pragma unroll
      for (int i = 0; i < CB_MERGE_LANES; i++) acc[i] = 0.0f;
    } else {
      const float4 lo = *reinterpret_cast<const float4 *>(p.o + oi);
      const float4 hi = *reinterpret_cast<const float4 *>(p.o + oi + 4);
      const float v[CB_MERGE_LANES] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
      for (int i = 0; i < CB_MERGE_LANES; i++) acc[i] = v[i];
    }
    if (p.o_blk) {
      float f[CB_MERGE_LANES];
      cb_vec_to_float<T>(*reinterpret_cast<const uint4 *>(static_cast<const T *>(p.o_blk) + bi), f);
      /* a first row starts from 0 above (never read: what o holds may be NaN) and gets wa = 0 */
#pragma unroll
      for (int i = 0; i < CB_MERGE_LANES; i++) acc[i] = acc[i] * wa + f[i] * wb;
    }
  }
  __syncwarp(); /* every lane has read lse[li] before lane 0 of the vector overwrites it */
  if (!active) return;
  if (p.o_blk || p.first) {
    *reinterpret_cast<float4 *>(p.o + oi) = make_float4(acc[0], acc[1], acc[2], acc[3]);
    *reinterpret_cast<float4 *>(p.o + oi + 4) = make_float4(acc[4], acc[5], acc[6], acc[7]);
    if (chunk == 0) p.lse[li] = lse_new;
  }
  if (p.final) *reinterpret_cast<uint4 *>(static_cast<T *>(p.out) + oi) = cb_vec_from_float<T>(acc);
}

static int misaligned(const void *p) { return p && ((uintptr_t)p % 16) != 0; }

extern "C" int cb_attn_merge_block(const cb_attn_merge_block_args_t *a, cudaStream_t s, char *why, size_t n) {
  const int per_vec = a->head_dim / CB_MERGE_LANES;
  if (a->head_dim < CB_MERGE_LANES || a->head_dim % CB_MERGE_LANES || 32 % per_vec) {
    snprintf(why, n, "attention merge: head dim %d (needs a multiple of 8 that makes 32 / (d / 8) whole)", a->head_dim);
    return -1;
  }
  if (a->batch < 1 || a->heads < 1 || a->q_len < 0 || a->row0 < 0 || a->row0 + (int64_t)a->q_len > a->rows) {
    snprintf(why, n, "attention merge: rows %d..%d of %d (batch %d, heads %d)", a->row0, a->row0 + a->q_len, a->rows,
             a->batch, a->heads);
    return -1;
  }
  if (!a->o || !a->lse || (a->o_blk && !a->lse_blk) || (a->final && !a->out) || misaligned(a->o) ||
      misaligned(a->o_blk) || misaligned(a->out)) {
    snprintf(why, n, "attention merge: a buffer is missing or not 16-byte aligned");
    return -1;
  }
  merge_params_t p = {a->o_blk,
                      a->lse_blk,
                      a->o,
                      a->lse,
                      a->out,
                      a->heads,
                      a->head_dim,
                      a->rows,
                      a->row0,
                      a->q_len,
                      a->first,
                      a->final,
                      (int64_t)a->batch * a->q_len * a->heads * per_vec};
  if (p.total == 0) return 0;
  const int64_t blocks = (p.total + CB_MERGE_THREADS - 1) / CB_MERGE_THREADS;
  if (blocks > INT32_MAX) {
    snprintf(why, n, "attention merge: %lld thread blocks (too many)", (long long)blocks);
    return -1;
  }
  if (a->bf16) cb_attn_merge_block_kernel<__nv_bfloat16><<<(unsigned)blocks, CB_MERGE_THREADS, 0, s>>>(p);
  else cb_attn_merge_block_kernel<__half><<<(unsigned)blocks, CB_MERGE_THREADS, 0, s>>>(p);
  return 0;
}
