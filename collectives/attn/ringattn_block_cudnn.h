/* cuDNN's fused attention as the ring's block kernel (the entry cb_ra_block_cudnn of
 * ringattn_block_kernel.h): its state, and the pieces its forward (ringattn_block_cudnn.c, which
 * holds the entry) and its backward (ringattn_block_cudnn_bwd.c) share: a block pair as calls
 * with cuDNN's masks (attn_split.h), each call's plan key, and the plans of a pair
 * (ringattn_block_cudnn_pair.c). Calls the binding (cudnn/attn_cudnn.h, attn_cudnn_bwd.h) and
 * the shared state only. */
#ifndef CB_RINGATTN_BLOCK_CUDNN_H
#define CB_RINGATTN_BLOCK_CUDNN_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_cudnn.h"
#include "attn_cudnn_key.h"
#include "attn_split.h"
#include "ringattn_state.h"

/* x->block_state of a cuDNN row. */
typedef struct cb_ra_cudnn {
  cb_cudnn_t *ctx; /* the rank's handle, plans and workspace (attn_cudnn.h) */
  void *o;         /* forward: one call's block output [batch][rows][heads][head_dim], dtype */
  float *stats;    /* forward: its log-sum-exp [batch][heads][rows] */
  /* backward: one call's dQ [batch][q_len][heads][head_dim] and dK | dV
   * [batch][kv_len][kv_heads][head_dim] in the dtype, and its rows' lse [batch][heads][q_len] */
  void *dq, *dkv;
  float *bwd_stats;
} cb_ra_cudnn_t;

/* The calls of this rank's query rows at qpos against a K/V block at kvpos (both blocks of
 * x->rows rows): cb_attn_split's. Returns how many, or -1 with why. */
int cb_ra_cudnn_split(const cb_ra_t *x, cb_attn_pos_t qpos, cb_attn_pos_t kvpos, int first, int final,
                      cb_attn_call_t *calls, char *why, size_t n);

/* The plan key of call c (the forward's; cb_cudnn_prepare_bwd makes it the backward's). */
cb_cudnn_key_t cb_ra_cudnn_key(const cb_ra_t *x, const cb_attn_call_t *c);

/* Builds the plans of every pair the schemes run: this rank's queries against its own block on
 * contiguous positions (the local block of the measurements) and against each rank's block;
 * the forward's (bwd 0) or the backward's (bwd 1). Returns 0, or -1 with why. */
int cb_ra_cudnn_prepare(cb_ra_t *x, int bwd, char *why, size_t n);

/* The backward (ringattn_block_cudnn_bwd.c): bwd_init and backward of the entry. */
int cb_ra_cudnn_bwd_init(cb_ra_t *x, float *sums, char *why, size_t n);
void cb_ra_cudnn_bwd_attend(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, float *dkv,
                            cudaStream_t s);

#endif
