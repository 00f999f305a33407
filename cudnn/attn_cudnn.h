/* cuDNN's fused attention (the cuDNN 9 graph API, C: cudnn_graph.h / cudnn_backend.h) as a
 * block kernel for ring attention (the binding of cudnn/: it needs only base/, and the
 * attention wing's cuDNN block kernel, collectives/attn/ringattn_block_cudnn.c, is its one
 * user besides the metadata): one scaled-dot-product forward per call, with the softmax
 * statistics, so its block output merges into the running output exactly like collbench's
 * kernel (kernels/attn/attn_merge_block.h).
 *
 * The graph is the SDPA forward pattern cuDNN's flash-attention engines take (the one
 * cudnn-frontend builds for cuDNN before 9.21): S = Q K^T (fp32), S *= scale, [causal: S =
 * row >= col ? S : -inf], softmax as max, sub, exp, sum, div, Stats = max + log(sum), O = P V.
 * Tensors (BSHD memory, cuDNN's [b, h, s, d] dims with strides):
 *   Q     [batch][s_q][heads][d]        dtype, batch stride q_stride_rows x heads x d
 *   K, V  [batch][s_kv][kv_heads][d]    dtype, batch stride kv_stride_rows x kv_heads x d
 *   O     [batch][s_q][heads][d]        dtype, compact (cuDNN rounds the block output to the
 *                                       input dtype: the merge reads it back as such)
 *   Stats [batch][heads][s_q]           fp32 natural log-sum-exp of the scaled scores
 * Grouped K/V heads: head h reads kv head h / (heads / kv_heads), as kernels/attn/attn.h.
 *
 * A context per rank holds the handle, the plans (one per shape, attn_cudnn_key.h, built by
 * cb_cudnn_prepare in setup, never in a timed region; the backward's of attn_cudnn_bwd.h beside
 * them) and one workspace for all of them.
 * Every cuDNN call is checked: a failure that is a property of the shape (no engine) is a
 * reason for the row; any other prints rank, host, file:line, the call, cudnnGetErrorString
 * and cudnnGetLastErrorString and ends the job.
 *
 * Two implementations: with cuDNN, attn_cudnn_graph.c (the context and the backend toolkit)
 * and attn_cudnn.c (this forward); without, attn_cudnn_none.c (every entry point answers
 * CB_ATTN_NO_CUDNN). */
#ifndef CB_ATTN_CUDNN_H
#define CB_ATTN_CUDNN_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_cudnn_key.h"

typedef struct cb_cudnn cb_cudnn_t;

/* What every entry point of a build without cuDNN answers (attn_cudnn_none.c), and so the text
 * of the cuDNN rows there. */
#define CB_ATTN_NO_CUDNN "not available: built without cuDNN"

/* "9.19.0 (headers 9.19.0)": the library this process loaded (cudnnGetVersion) and the headers
 * it was built with; or CB_ATTN_NO_CUDNN. Returns 1 when built with cuDNN, else 0. Needs no GPU. */
int cb_cudnn_version(char *buf, size_t n);

/* 1 when this build has cuDNN; else 0 with why = CB_ATTN_NO_CUDNN. */
int cb_cudnn_available(char *why, size_t n);

/* A context on the current device. Returns 0, or -1 with why. */
int cb_cudnn_create(cb_cudnn_t **ctx, char *why, size_t n);
void cb_cudnn_destroy(cb_cudnn_t *ctx);

/* Builds the plan of shape k unless the context has it, growing the workspace to what it
 * needs. Returns 0, or -1 with why ("not supported: cuDNN has no engine for ...", or the
 * workspace out of memory). */
int cb_cudnn_prepare(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, char *why, size_t n);

/* Device bytes the context allocated (the workspace). */
size_t cb_cudnn_mem(const cb_cudnn_t *ctx);

/* Enqueues one forward of the prepared shape k on s (graph-capturable; the host never waits).
 * A shape that was not prepared is an internal error that ends the job. */
void cb_cudnn_attend(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, float scale, const void *q, const void *kk,
                     const void *v, void *o, float *stats, cudaStream_t s);

#endif
