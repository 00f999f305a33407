/* The shape of one cuDNN attention call and the per-rank cache of execution plans keyed by it
 * (attn_cudnn.c). Host-only and CUDA-free: the CPU tests check the key and the cache without
 * cuDNN.
 *
 * A plan is fixed by the tensors' shapes and strides, never by their addresses or by the
 * attention scale (a by-value scalar given at each call). The strides follow from the shape
 * and the row counts of the buffers the call's rows live in (q_stride_rows, kv_stride_rows:
 * the batch stride of a BSHD tensor is rows x heads x head_dim), so those are in the key. */
#ifndef CB_ATTN_CUDNN_KEY_H
#define CB_ATTN_CUDNN_KEY_H

#include <stddef.h>
#include <stdint.h>

typedef struct cb_cudnn_key {
  int64_t batch, heads, kv_heads, head_dim;
  int64_t q_len, kv_len;                 /* rows of this call */
  int64_t q_stride_rows, kv_stride_rows; /* rows of the buffers they are part of */
  int bf16;                              /* 1: bfloat16, 0: half */
  int causal;                            /* 1: top-left causal mask */
  int bwd;                               /* 1: the backward's graph (attn_cudnn_bwd.h), 0: the forward's */
} cb_cudnn_key_t;

/* Plans one rank's ring needs at one sweep point: a handful per pass (attn_split.h: at most 4
 * shapes a step, the same for every step of one kind, plus the local block), forward and backward. */
#define CB_CUDNN_MAX_PLANS 32

typedef struct cb_cudnn_cache {
  cb_cudnn_key_t key[CB_CUDNN_MAX_PLANS];
  void *plan[CB_CUDNN_MAX_PLANS]; /* the plan of key[i], owned by the caller */
  int n;
} cb_cudnn_cache_t;

int cb_cudnn_key_equal(const cb_cudnn_key_t *a, const cb_cudnn_key_t *b);

/* "b 1, h 32, kv 8, s_q 4096, s_kv 8192, d 128, bfloat16, causal" (for reasons and logs; a
 * backward's key ends in ", backward"). */
void cb_cudnn_key_text(const cb_cudnn_key_t *k, char *buf, size_t n);

/* The plan of k, or NULL when the cache has none. */
void *cb_cudnn_cache_find(const cb_cudnn_cache_t *c, const cb_cudnn_key_t *k);

/* Adds (k, plan). Returns 0, or -1 with why when the cache is full or already holds k. */
int cb_cudnn_cache_add(cb_cudnn_cache_t *c, const cb_cudnn_key_t *k, void *plan, char *why, size_t n);

#endif
