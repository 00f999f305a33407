/* Backward attention over one (query block, key/value block) pair: the building block of the ring
 * attention backward pass (collectives/ringattn_*). FlashAttention-2's backward: the
 * probabilities are recomputed from the forward's final log-sum-exp, so every ring step's
 * partial gradients simply add up:
 *   P = exp(scale * Q K^T - lse)  (masked as the forward: causal over global positions)
 *   dV += P^T dO      dP = dO V^T      dS = P * (dP - delta),  delta = rowsum(dO * O)
 *   dQ += scale * dS K               dK += scale * dS^T Q
 * with fp32 accumulation. Grouped K/V heads: dK and dV of kv head j sum over the heads that read
 * it (h / (heads / kv_heads) = j).
 *
 * Layouts (row-major, "BSHD", as attn.h):
 *   q, dout, out   [batch][q_len][heads][head_dim]      bf16 or fp16
 *   k, v           [batch][kv_len][kv_heads][head_dim]  bf16 or fp16
 *   lse, delta     [batch][heads][q_len]                fp32: the forward's FINAL log-sum-exp of the
 *                                                       row (natural log, over every key of the
 *                                                       sequence, -inf = no key) and rowsum(dO * O)
 *   dq             [batch][q_len][heads][head_dim]      fp32, accumulated (+=)
 *   dk, dv         [batch][kv_len][kv_heads][head_dim]  fp32, accumulated (+=)
 * Positions: as attn.h (one or two runs per block; zigzag). A row with lse = -inf contributes
 * nothing. The sums' order is not fixed: dq is added tile by tile by TMA reductions from every
 * key tile, and dk, dv atomically where grouped query heads are split across CTAs
 * (attn_bwd_sm90_schedule.h), so the fp32 results may differ in their last bits from run to run. */
#ifndef CB_ATTN_BWD_H
#define CB_ATTN_BWD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_attn_bwd_args {
  const void *q, *k, *v, *dout;
  const float *lse, *delta;
  float *dq, *dk, *dv;
  int batch, heads, kv_heads, head_dim; /* head_dim 64 or 128; kv_heads divides heads */
  int q_len, kv_len;                    /* rows of this pair's blocks (any value >= 0) */
  int bf16;                             /* 1: bfloat16 inputs, 0: fp16 */
  int causal;
  cb_attn_pos_t qpos, kvpos;
  float scale; /* softmax scale, normally 1/sqrt(head_dim) */
} cb_attn_bwd_args_t;

/* delta[b][h][i] = sum_d dout[b][i][h][d] * out[b][i][h][d] (fp32), once per backward pass
 * before the block pairs (out: the forward's 16-bit output; the preprocess,
 * kernels/attn/attn_bwd_preprocess.cu). Returns 0 or -1 with why. */
int cb_attn_bwd_delta(const void *out, const void *dout, float *delta, int batch, int q_len, int heads, int head_dim,
                      int bf16, cudaStream_t s, char *why, size_t n);

/* One block pair: dq, dk, dv += this pair's gradients. The Hopper kernel (wgmma + TMA,
 * kernels/attn/attn_bwd_sm90.cu) on sm_90, else -1 with why ("not supported: ..."). */
int cb_attn_bwd(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n);

/* The fp32 reference with the same contract (slow: one block per query row; the checks' truth). */
int cb_attn_bwd_reference(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n);

/* The argument checks both run first: 0, or -1 with the reason. */
int cb_attn_bwd_check_args(const cb_attn_bwd_args_t *a, char *why, size_t n);

/* The forward's arguments on the same shape (dq as o, first set): the forward's checks and the
 * kernel's parameters take the shape from them. */
cb_attn_args_t cb_attn_bwd_fwd_args(const cb_attn_bwd_args_t *a);

#ifdef __cplusplus
}
#endif
#endif
