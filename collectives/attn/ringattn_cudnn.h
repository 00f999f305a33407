/* The cuDNN block kernel's ring glue shared by its forward (ringattn_cudnn.c) and its backward
 * (ringattn_cudnn_bwd.c): a block pair as calls with cuDNN's masks (attn_split.h) and each
 * call's plan key; the forward's context, plans and launch, which ringattn_common.c calls for the
 * *_cudnn rows; and the backward's setup and launch, which ringattn_bwd.c dispatches to. */
#ifndef CB_RINGATTN_CUDNN_H
#define CB_RINGATTN_CUDNN_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_cudnn_key.h"
#include "attn_split.h"
#include "ringattn_common.h"

/* The calls of this rank's query rows at qpos against a K/V block at kvpos (both blocks of
 * x->rows rows): cb_attn_split's. Returns how many, or -1 with why. */
int cb_ra_cudnn_split(const cb_ra_t *x, cb_attn_pos_t qpos, cb_attn_pos_t kvpos, int first, int final,
                      cb_attn_call_t *calls, char *why, size_t n);

/* The plan key of call c (the forward's; cb_cudnn_prepare_bwd makes it the backward's). */
cb_cudnn_key_t cb_ra_cudnn_key(const cb_ra_t *x, const cb_attn_call_t *c);

/* The forward (ringattn_cudnn.c): context and plans (cb_ra_init calls it) and the launch of one
 * block pair (qpos: positions of the query rows). */
int cb_ra_cudnn_init(cb_ra_t *x, char *why, size_t n);
void cb_ra_cudnn_free(cb_ra_t *x);
void cb_ra_cudnn_attend(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, int first, int final,
                        cudaStream_t s);

/* Builds the plans of every call of one block pair (queries at qpos, K/V at kvpos): the
 * forward's (bwd 0) or the backward's (bwd 1). Returns 0, or -1 with why. */
int cb_ra_cudnn_prepare_pair(cb_ra_t *x, cb_attn_pos_t qpos, cb_attn_pos_t kvpos, int bwd, char *why, size_t n);

/* The backward's scratch (x->bwd's cudnn_*) and every plan its block pairs use (the local block
 * and this rank's queries against each rank's block), on the context the forward's setup made.
 * Returns 0, or -1 with why (out of memory, "not supported: ..."). */
int cb_ra_cudnn_bwd_init(cb_ra_t *x, char *why, size_t n);

/* One backward block pair with cuDNN: this rank's queries at qpos against the K/V block kv at
 * kvpos; x->bwd.dq and dkv (dK | dV of that block, fp32) += its gradients (cb_ra_bwd_attend's
 * contract). */
void cb_ra_cudnn_bwd_attend(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, float *dkv,
                            cudaStream_t s);

#endif
