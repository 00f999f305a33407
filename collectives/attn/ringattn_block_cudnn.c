/* cuDNN's fused attention as the ring's block kernel, forward (the entry cb_ra_block_cudnn of
 * ringattn_block_kernel.h, the *_cudnn rows; its backward: ringattn_block_cudnn_bwd.c).
 *
 * One block-kernel launch of collbench's kernel becomes the calls of attn_split.h: cuDNN has
 * no mask for the zigzag's two-run positions, but every (query run, key run) pair the ring
 * makes is fully visible, diagonal or invisible, which it has (a stripe pair, made dense by
 * cb_ra_attend, can also cut the diagonal: a full part, a causal square, a full rest). Each call is one cuDNN SDPA
 * forward into a scratch block output (dtype, rounded by cuDNN) and its log-sum-exp, then
 * cb_attn_merge_block folds them into the running fp32 o / lse (and writes out when final):
 * the contract of cb_attn_fwd, so ring steps combine exactly whichever kernel ran.
 *
 * Precision: cuDNN rounds each call's block output to the input dtype before the merge (as
 * TransformerEngine's ring does with it); the merge weights of a row sum to 1, so the merged
 * output carries at most one such rounding per row beyond collbench's fp32 path, plus the final
 * one. The check's tolerance (2 x a naive low-precision computation, which also rounds scores
 * and probabilities: ringattn_check.h) is unchanged for these rows.
 *
 * One exception, for the P = 1 reference at its best: a step that is first and final with a
 * single call over every query row (`single`, and the local block of ring_over_single) lets
 * cuDNN write out and lse directly, with no merge pass; o is then not written (nothing reads
 * it after a final step: the check reads out, --save reads out and lse).
 *
 * Every shape a forward or a measurement uses is prepared (cuDNN plans built) in setup:
 * the P source blocks of the ring and the local block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_cudnn_bwd.h"
#include "attn_merge_block.h"
#include "attn_variant.h"
#include "error_gpu.h"
#include "ringattn_block_cudnn.h"
#include "ringattn_block_kernel.h"

/* The members' rows in the ring of P members (P = 1: `single` or pure Ulysses, the whole
 * sequence), the same for every rank: positions follow from (S, P, member, layout) alone. */
static int check_masks(uint64_t S, int P, int causal, int layout, char *why, size_t n) {
  cb_attn_call_t calls[CB_ATTN_MAX_CALLS];
  for (int r = 0; r < P; r++)
    for (int src = 0; src < P; src++) {
      cb_attn_runs_t q = cb_attn_layout_runs(S, P, r, layout, 1), kv = cb_attn_layout_runs(S, P, src, layout, 1);
      const int64_t rows = (int64_t)(S / (uint64_t)P);
      if (cb_attn_block_pair(&q, &kv)) {
        snprintf(why, n, "not supported: layout %s makes a block pair with no dense form", cb_attn_layout_name(layout));
        return -1;
      }
      if (cb_attn_split(q, rows, kv, rows, causal, 1, 1, calls, why, n) < 0) return -1;
    }
  return 0;
}

/* A backward needs a recent enough cuDNN (attn_cudnn_bwd.h; the shapes its engines refuse are
 * found when setup builds the plans), then cuDNN in this build (else CB_ATTN_NO_CUDNN), and a
 * mask cuDNN has for every block pair the ring makes (attn_split.h). */
static int supported(const cb_world_t *w, const cb_params_t *p, int P, char *why, size_t n) {
  if (CB_ATTN_PASS_HAS_BWD(cb_attn_cfg(p)->pass) && !cb_cudnn_bwd_supported(why, n)) return 0;
  if (!cb_cudnn_available(why, n)) return 0;
  /* a sequence that does not shard is the describer's own row (cb_attn_plan) */
  const uint64_t S = cb_attn_seq(p);
  const int layout = cb_attn_layout(p);
  if (cb_attn_layout_seq_check(S, P, layout, why, n) == 0 && check_masks(S, P, cb_attn_causal(p), layout, why, n))
    return 0;
  return 1;
}

/* The context, the forward's scratch and the plans of every pair a forward or a measurement runs. */
static int init(cb_ra_t *x, char *why, size_t n) {
  cb_ra_cudnn_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  x->block_state = st;
  if (cb_cudnn_create(&st->ctx, why, n)) return -1;
  if (cb_ra_alloc(x, &st->o, x->q_elems * x->elem, why, n) ||
      cb_ra_alloc(x, (void **)&st->stats, x->lse_elems * sizeof(float), why, n))
    return -1;
  if (cb_ra_cudnn_prepare(x, 0, why, n)) return -1;
  x->mem += cb_cudnn_mem(st->ctx);
  return 0;
}

static void free_state(cb_ra_t *x) {
  cb_ra_cudnn_t *st = x->block_state;
  if (!st) return;
  cb_cudnn_destroy(st->ctx);
  void *buf[] = {st->o, st->stats, st->dq, st->dkv, st->bwd_stats};
  for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++) CB_CUDA(cudaFree(buf[i]));
  free(st);
  x->block_state = NULL;
}

static void forward(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, int first, int final,
                    cudaStream_t s) {
  const cb_ra_cudnn_t *st = x->block_state;
  const cb_attn_config_t *cfg = x->cfg;
  cb_attn_call_t calls[CB_ATTN_MAX_CALLS];
  char why[512];
  const int nc = cb_ra_cudnn_split(x, qpos, kvpos, first, final, calls, why, sizeof why);
  if (nc < 0) CB_DIE(CB_EXIT_RUNTIME, "cuDNN block kernel: %s (supported() lets no such row run)", why);
  const size_t q_row = (size_t)cfg->heads * cfg->head_dim * x->elem; /* bytes of one row */
  const size_t kv_row = (size_t)cfg->kv_heads * cfg->head_dim * x->elem;
  const char *q = x->q, *k = kv, *v = (const char *)kv + x->kv_elems * x->elem;
  const float scale = x->scale;
  for (int i = 0; i < nc; i++) {
    const cb_attn_call_t *c = &calls[i];
    const cb_cudnn_key_t key = cb_ra_cudnn_key(x, c);
    const int direct = nc == 1 && c->first && c->final && c->q_len == x->rows && c->kv_len > 0;
    if (c->kv_len > 0)
      cb_cudnn_attend(st->ctx, &key, scale, q + (size_t)c->q_row0 * q_row, k + (size_t)c->kv_row0 * kv_row,
                      v + (size_t)c->kv_row0 * kv_row, direct ? x->out : st->o, direct ? x->lse : st->stats, s);
    if (direct) return;
    cb_attn_merge_block_args_t m = {.o_blk = c->kv_len > 0 ? st->o : NULL,
                                    .lse_blk = st->stats,
                                    .o = x->o,
                                    .lse = x->lse,
                                    .out = x->out,
                                    .batch = cfg->batch,
                                    .heads = cfg->heads,
                                    .head_dim = cfg->head_dim,
                                    .rows = (int)x->rows,
                                    .row0 = (int)c->q_row0,
                                    .q_len = (int)c->q_len,
                                    .bf16 = x->bf16,
                                    .first = c->first,
                                    .final = c->final};
    if (cb_attn_merge_block(&m, s, why, sizeof why)) CB_DIE(CB_EXIT_RUNTIME, "cuDNN block kernel: %s", why);
    CB_CUDA_LAUNCH("cb_attn_merge_block");
  }
}

static void note(const cb_ra_t *x, char *note, size_t n) {
  char ver[96], v[192];
  cb_cudnn_version(ver, sizeof ver);
  snprintf(v, sizeof v, "block kernel cuDNN %s", ver);
  cb_ra_note_append(note, n, v);
}

/* cuDNN does not say what grid it launches: no sms (reported as 0) */
const cb_ra_block_kernel_t cb_ra_block_cudnn = {
    .supported = supported,
    .init = init,
    .free = free_state,
    .forward = forward,
    .bwd_init = cb_ra_cudnn_bwd_init,
    .backward = cb_ra_cudnn_bwd_attend,
    .note = note,
};
