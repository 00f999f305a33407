/* A block pair as cuDNN calls (ringattn_block_cudnn.h): the split with cuDNN's masks, each
 * call's plan key, and the plans of every pair the schemes run, built in setup so that nothing
 * timed ever builds one. */
#include "ringattn_block_cudnn.h"

#include "attn_cudnn_bwd.h"

int cb_ra_cudnn_split(const cb_ra_t *x, cb_attn_pos_t qpos, cb_attn_pos_t kvpos, int first, int final,
                      cb_attn_call_t *calls, char *why, size_t n) {
  return cb_attn_split(cb_ra_runs(qpos, x->rows), x->rows, cb_ra_runs(kvpos, x->rows), x->rows, x->causal, first, final,
                       calls, why, n);
}

cb_cudnn_key_t cb_ra_cudnn_key(const cb_ra_t *x, const cb_attn_call_t *c) {
  const cb_attn_config_t *cfg = x->cfg;
  cb_cudnn_key_t k = {.batch = cfg->batch,
                      .heads = cfg->heads,
                      .kv_heads = cfg->kv_heads,
                      .head_dim = cfg->head_dim,
                      .q_len = c->q_len,
                      .kv_len = c->kv_len,
                      .q_stride_rows = x->rows,
                      .kv_stride_rows = x->rows,
                      .bf16 = x->bf16,
                      .causal = c->causal,
                      .bwd = 0};
  return k;
}

/* The plans of every call of one block pair (queries at qpos, K/V at kvpos). */
static int prepare_pair(cb_ra_t *x, cb_attn_pos_t qpos, cb_attn_pos_t kvpos, int bwd, char *why, size_t n) {
  const cb_ra_cudnn_t *st = x->block_state;
  cb_attn_call_t calls[CB_ATTN_MAX_CALLS];
  const int nc = cb_ra_cudnn_split(x, qpos, kvpos, 1, 1, calls, why, n);
  if (nc < 0) return -1;
  for (int i = 0; i < nc; i++) {
    if (!calls[i].kv_len) continue;
    cb_cudnn_key_t k = cb_ra_cudnn_key(x, &calls[i]);
    if ((bwd ? cb_cudnn_prepare_bwd : cb_cudnn_prepare)(st->ctx, &k, why, n)) return -1;
  }
  return 0;
}

int cb_ra_cudnn_prepare(cb_ra_t *x, int bwd, char *why, size_t n) {
  cb_attn_pos_t contiguous = {0, x->rows, x->rows, 0};
  if (prepare_pair(x, contiguous, contiguous, bwd, why, n)) return -1;
  for (int src = 0; src < x->P; src++) {
    cb_attn_pos_t q = cb_ra_pos(x->runs), kv = cb_ra_src_pos(x, src);
    cb_ra_block_pos(x, &q, &kv); /* (as cb_ra_attend hands them over) */
    if (prepare_pair(x, q, kv, bwd, why, n)) return -1;
  }
  return 0;
}
