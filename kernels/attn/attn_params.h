/* What the block-attention kernels read (the Hopper kernels, attn_fwd_sm90.cu and
 * attn_bwd_sm90.cu, and the mma.sync fallback, attn_fwd_mma_kernel.cuh), built once from the
 * caller's cb_attn_args_t (attn.h) after cb_attn_check_args has bounded every position to int
 * range. */
#ifndef CB_ATTN_PARAMS_H
#define CB_ATTN_PARAMS_H

#include <string.h>

#include "attn.h"
#include "attn_merge.h"
#include "hostdev.h"

struct cb_attn_params {
  const void *q, *k, *v;
  float *o, *lse;
  void *out;
  int heads, group; /* group = heads / kv_heads: head h reads kv head h / group */
  int kv_heads, q_len, kv_len;
  int q_start0, q_len0, q_start1; /* q_len0 <= q_len */
  int k_start0, k_len0, k_start1; /* k_len0 <= kv_len */
  float scale_log2;               /* scale * log2(e) */
  int causal, first, final;
  int sections; /* the Hopper forward's causal launch order: sections of (head, batch) pairs (attn_sm90_order.h) */
  /* the Hopper forward's (query tile, head, batch) units, and its scheduler's counter slot
   * (attn_fwd_sm90_kernel.cuh: cb_fwd_sm90_sched) */
  int tiles, sched_slot;
};

static inline cb_attn_params cb_attn_params_of(const cb_attn_args_t *a) {
  cb_attn_params p;
  memset(&p, 0, sizeof p);
  p.q = a->q;
  p.k = a->k;
  p.v = a->v;
  p.o = a->o;
  p.lse = a->lse;
  p.out = a->out;
  p.heads = a->heads;
  p.kv_heads = a->kv_heads;
  p.group = a->heads / a->kv_heads;
  p.q_len = a->q_len;
  p.kv_len = a->kv_len;
  p.q_len0 = a->q_len;
  p.k_len0 = a->kv_len;
  if (a->causal) { /* narrowed to int: cb_attn_check_args bounded every position */
    p.q_start0 = (int)a->qpos.start0;
    p.q_len0 = (int)(a->qpos.len0 < a->q_len ? a->qpos.len0 : a->q_len);
    p.q_start1 = p.q_len0 < a->q_len ? (int)a->qpos.start1 : 0;
    p.k_start0 = (int)a->kvpos.start0;
    p.k_len0 = (int)(a->kvpos.len0 < a->kv_len ? a->kvpos.len0 : a->kv_len);
    p.k_start1 = p.k_len0 < a->kv_len ? (int)a->kvpos.start1 : 0;
  }
  p.scale_log2 = a->scale * CB_ATTN_LOG2E;
  p.causal = a->causal;
  p.first = a->first;
  p.final = a->final;
  return p;
}

/* The backward's grid besides the attention's shape (attn_bwd_sm90_schedule.h): batch, the split
 * of each kv head's query heads (> 1: CTAs add dK and dV atomically), the causal order's
 * sections (of units, attn_sm90_order.h) and the query rows per tile (the head dim's,
 * attn_sm90_tile.h: cb_bwd_block_m). */
struct cb_bwd_sm90_grid {
  int batch, split, sections, block_m;
};

/* What the Hopper backward kernel reads (attn_bwd_sm90_kernel.cuh), built by its launcher
 * (attn_bwd_sm90.cu) from cb_attn_bwd_args_t (attn_bwd.h). */
struct cb_attn_bwd_params {
  cb_attn_params f; /* q, k, v, shapes, positions, scale (the forward's) */
  const void *dout;
  const float *lse, *delta;
  float *dq, *dk, *dv;
  float scale; /* dQ and dK are scaled by it (dS is taken against the scaled scores) */
  cb_bwd_sm90_grid grid;
};

/* Global position of row i of a block (one or two runs, attn.h), in int. */
CB_HD int cb_attn_pos(int start0, int len0, int start1, int i) { return i < len0 ? start0 + i : start1 + (i - len0); }

/* Keys of the block a query at row `row` sees: a prefix (positions increase with the row);
 * kv_len when not causal. */
CB_HD int cb_attn_row_keys(const cb_attn_params &p, int row) {
  if (!p.causal) return p.kv_len;
  const int qp = cb_attn_pos(p.q_start0, p.q_len0, p.q_start1, row);
  return (int)cb_attn_keys_upto(p.k_start0, p.k_len0, p.k_start1, p.kv_len, qp);
}

#endif
