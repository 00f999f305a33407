/* cuDNN's SDPA backward as the backward pass's block kernel (the bwd_init and backward of
 * cb_ra_block_cudnn, ringattn_block_cudnn.h; the *_cudnn rows with --pass bwd|both), what
 * TransformerEngine's context parallelism runs per ring step.
 *
 * One block pair becomes the calls of attn_split.h, as in the forward (ringattn_block_cudnn.c): every
 * (query run, key run) pair of the zigzag ring is fully visible (a non-causal call), diagonal (a
 * top-left causal call) or invisible (no call); a stripe pair's cut diagonal is a few of those
 * over row groups (attn_split.h). Each call is one cuDNN SDPA backward
 * (attn_cudnn_bwd.h) from the rank's queries, dO, the final output and the final log-sum-exp of
 * its rows (lse over the whole sequence, from the forward: so each call's P is exact and the
 * calls' gradients add up) into scratch dQ, dK, dV in the dtype, which cb_attn_add_rows then
 * adds into the fp32 dq of the call's query rows and the fp32 dK | dV of its key rows.
 *
 * cuDNN wants Stats compact: a call over part of the query rows reads its rows' lse through a
 * strided copy into scratch (cudaMemcpy2DAsync: graph-capturable). cuDNN computes
 * rowsum(dO * O) itself, so this entry has no bwd_begin: its rows make no delta. Their timed backward
 * includes the per-call adds into the fp32 sums and the lse copies (as TransformerEngine's does).
 *
 * Precision: each call's gradients are rounded to the dtype before the fp32 sums (as
 * TransformerEngine's ring does with cuDNN): a row's dQ carries one such rounding per call
 * that touches it (P steps, up to 2 calls each with the zigzag), dK and dV one per call that
 * touches their rows (a pair may make two), and with grouped heads cuDNN rounds each query
 * head's dK/dV before its group sum (as cudnn-frontend's graph does), then rounds the sum.
 * The check's tolerance (2 x a naive low-precision backward that rounds its results too:
 * ringattn_bwd_check.c) is unchanged for these rows; the first GPU run has to show that it holds
 * (read the grouped rows' error against the tolerance).
 *
 * Plans: every pair the schemes run (the local block on contiguous positions, and this rank's
 * queries against each rank's block) is prepared in setup, before anything is timed. */
#include <stdio.h>

#include "attn_add_rows.h"
#include "attn_cudnn_bwd.h"
#include "error_gpu.h"
#include "ringattn_block_cudnn.h"

/* The scratch of one call, every plan the backward's pairs use (on the context the forward's
 * init made), then the probe: one real pair into sums. */
int cb_ra_cudnn_bwd_init(cb_ra_t *x, float *sums, char *why, size_t n) {
  cb_ra_cudnn_t *st = x->block_state;
  if (cb_ra_alloc(x, &st->dq, x->q_elems * x->elem, why, n) ||
      cb_ra_alloc(x, &st->dkv, 2 * x->kv_elems * x->elem, why, n) ||
      cb_ra_alloc(x, (void **)&st->bwd_stats, x->lse_elems * sizeof(float), why, n))
    return -1;
  const size_t ws = cb_cudnn_mem(st->ctx);
  if (cb_ra_cudnn_prepare(x, 1, why, n)) return -1;
  x->mem += cb_cudnn_mem(st->ctx) - ws; /* the workspace grew to the backward's largest */
  cb_ra_cudnn_bwd_attend(x, cb_ra_pos(x->runs), x->kv, cb_ra_pos(x->runs), sums, x->w->stream);
  return 0;
}

static void add_rows(float *dst, const void *src, const cb_ra_t *x, int64_t row0, int64_t len, int64_t width,
                     cudaStream_t s) {
  char why[256];
  if (cb_attn_add_rows(dst, src, x->cfg->batch, x->rows, row0, len, width, x->bf16, s, why, sizeof why))
    CB_DIE(CB_EXIT_RUNTIME, "cuDNN backward block kernel: %s", why);
}

/* The lse of the call's query rows, compact (Stats of attn_cudnn_bwd.h). */
static const float *call_stats(const cb_ra_t *x, const cb_attn_call_t *c, cudaStream_t s) {
  const cb_ra_cudnn_t *st = x->block_state;
  if (c->q_row0 == 0 && c->q_len == x->rows) return x->lse;
  const size_t pitch = (size_t)x->rows * sizeof(float), width = (size_t)c->q_len * sizeof(float);
  const size_t height = (size_t)x->cfg->batch * (size_t)x->cfg->heads;
  CB_CUDA(
      cudaMemcpy2DAsync(st->bwd_stats, width, x->lse + c->q_row0, pitch, width, height, cudaMemcpyDeviceToDevice, s));
  return st->bwd_stats;
}

void cb_ra_cudnn_bwd_attend(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, float *dkv,
                            cudaStream_t s) {
  const cb_attn_config_t *cfg = x->cfg;
  const cb_ra_bwd_t *b = &x->bwd;
  const cb_ra_cudnn_t *st = x->block_state;
  cb_attn_call_t calls[CB_ATTN_MAX_CALLS];
  char why[512];
  const int nc = cb_ra_cudnn_split(x, qpos, kvpos, 0, 0, calls, why, sizeof why);
  if (nc < 0) CB_DIE(CB_EXIT_RUNTIME, "cuDNN backward block kernel: %s (supported() lets no such row run)", why);
  const int64_t q_width = (int64_t)cfg->heads * cfg->head_dim, kv_width = (int64_t)cfg->kv_heads * cfg->head_dim;
  const size_t q_row = (size_t)q_width * x->elem, kv_row = (size_t)kv_width * x->elem; /* bytes of one row */
  const char *q = x->q, *out = x->out, *dout = b->dout;
  const char *k = kv, *v = (const char *)kv + x->kv_elems * x->elem;
  char *dk_blk = st->dkv, *dv_blk = (char *)st->dkv + x->kv_elems * x->elem;
  const float scale = x->scale;
  for (int i = 0; i < nc; i++) {
    const cb_attn_call_t *c = &calls[i];
    if (!c->kv_len) continue;
    const cb_cudnn_key_t key = cb_ra_cudnn_key(x, c);
    const size_t qo = (size_t)c->q_row0 * q_row, ko = (size_t)c->kv_row0 * kv_row;
    const cb_cudnn_bwd_io_t io = {.q = q + qo,
                                  .k = k + ko,
                                  .v = v + ko,
                                  .o = out + qo,
                                  .dout = dout + qo,
                                  .stats = call_stats(x, c, s),
                                  .dq = st->dq,
                                  .dk = dk_blk,
                                  .dv = dv_blk};
    cb_cudnn_attend_bwd(st->ctx, &key, scale, &io, s);
    add_rows(b->dq, st->dq, x, c->q_row0, c->q_len, q_width, s);
    add_rows(dkv, dk_blk, x, c->kv_row0, c->kv_len, kv_width, s);
    add_rows(dkv + x->kv_elems, dv_blk, x, c->kv_row0, c->kv_len, kv_width, s);
  }
}
