/* cuDNN's SDPA backward (the cuDNN 9 graph API in C) as the backward pass's baseline block
 * kernel: one call computes dQ, dK, dV of one (query block, K/V block) pair from the forward's
 * FINAL log-sum-exp of every query row (Stats) and its final output O, so the gradients of a
 * ring's steps simply add up (kernels/attn/attn_bwd.h's contract, which is what TransformerEngine's
 * context parallelism runs per ring step with cuDNN).
 *
 * The graph is the one cudnn-frontend's sdpa_backward builds for cuDNN 9.x before 9.21 (its
 * composite SDPA backward node), with cuDNN's flash backward engines recognizing it:
 *   softmax_sum = rowsum(dO * O) * 1        (materialized: fp32 [b, h, s_q, 1])
 *   S  = Q K^T * scale - Stats  [causal: top-left, row >= col, else -inf]     P = exp(S)
 *   dV = P^T dO                  (grouped K/V heads: over all heads, then summed per kv head)
 *   dP = dO V^T     dS = (dP - softmax_sum) * P * scale
 *   dK = dS^T Q                  (grouped: the same)
 *   dQ_accum = dS K (materialized fp32 [b, h, s_q, d], BHSD)     dQ = identity(dQ_accum)
 * cuDNN computes the rowsum itself (the engines take that chain, not a given delta).
 * Tensors (BSHD memory, cuDNN's [b, h, s, d] dims with strides; the key's row counts give the
 * batch strides as for the forward, attn_cudnn.h):
 *   Q, O, dO   [batch][s_q][heads][d]        dtype, batch stride q_stride_rows x heads x d
 *   K, V       [batch][s_kv][kv_heads][d]    dtype, batch stride kv_stride_rows x kv_heads x d
 *   Stats      [batch][heads][s_q]           fp32, compact, 16-byte aligned: natural log-sum-exp
 *                                            of the scaled scores over the whole sequence
 *   dQ         [batch][s_q][heads][d]        dtype, compact (cuDNN rounds this call's gradients
 *   dK, dV     [batch][s_kv][kv_heads][d]    dtype, compact   to the input dtype; the caller
 *                                            adds them into its fp32 sums)
 * dQ_accum and softmax_sum live in the context's workspace (attn_cudnn_graph.h), after the
 * engine's own.
 *
 * Versions: cuDNN 9.10.2 or newer (cudnn-frontend refuses 9.10.0/9.10.1 for known bugs, and
 * older ones need a different mask value and a zeroed dQ_accum); up to 9.15, s_kv must be a
 * multiple of 128 (cudnn-frontend then adds a padding mask as a workaround, not built here).
 * Other shapes: what the engines take; none is a "not supported: cuDNN has no engine for ..."
 * reason. Built with cuDNN in attn_cudnn_bwd.c; without, attn_cudnn_none.c answers
 * CB_ATTN_NO_CUDNN. */
#ifndef CB_ATTN_CUDNN_BWD_H
#define CB_ATTN_CUDNN_BWD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_cudnn.h"

typedef struct cb_cudnn_bwd_io {
  const void *q, *k, *v, *o, *dout;
  const float *stats;
  void *dq, *dk, *dv;
} cb_cudnn_bwd_io_t;

/* 1 when the cuDNN this process loaded can run the backward (9.10.2 or newer); else 0 with why
 * ("not supported: ...", or CB_ATTN_NO_CUDNN without cuDNN). Needs no GPU. */
int cb_cudnn_bwd_supported(char *why, size_t n);

/* Builds the backward plan of shape k (k->bwd is ignored: the backward's key is used) unless the
 * context has it, growing the workspace. Returns 0, or -1 with why ("not supported: ..."). */
int cb_cudnn_prepare_bwd(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, char *why, size_t n);

/* Enqueues one backward of the prepared shape k on s (graph-capturable; the host never waits).
 * A shape that was not prepared is an internal error that ends the job. */
void cb_cudnn_attend_bwd(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, float scale, const cb_cudnn_bwd_io_t *io,
                         cudaStream_t s);

#endif
