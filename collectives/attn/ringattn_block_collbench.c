/* collbench's own kernels as the ring's block kernel (ringattn_block_kernel.h): the forward is
 * cb_attn_fwd (kernels/attn/attn.h: the Hopper kernel on sm_90, the mma.sync fallback elsewhere),
 * the backward cb_attn_bwd (kernels/attn/attn_bwd.h: sm_90 only) with delta = rowsum(dout * out) made
 * once per backward by cb_attn_bwd_delta. No state of its own: it runs on the shared buffers. */
#include <stdio.h>
#include <string.h>

#include "attn_bwd_util.h"
#include "error_gpu.h"
#include "grid.h"
#include "ringattn_block_kernel.h"

static void forward(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, int first, int final,
                    cudaStream_t s) {
  const char *k = kv, *v = (const char *)kv + x->kv_elems * x->elem;
  cb_ra_attend_rows(x, x->q, x->o, x->lse, x->out, x->cfg->batch, x->rows, qpos, k, v, x->rows, kvpos, first, final, 0,
                    0, s);
}

/* this rank's queries at qpos against kv at kvpos, sums into dkv */
static cb_attn_bwd_args_t own_pair(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos,
                                   float *dkv) {
  const cb_ra_bwd_t *b = &x->bwd;
  return cb_ra_bwd_pair(x, x->q, b->dout, x->lse, b->delta, b->dq, x->rows, qpos, kv, x->rows, kvpos, dkv, x->kv_elems);
}

static void backward(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, float *dkv,
                     cudaStream_t s) {
  cb_attn_bwd_args_t a = own_pair(x, qpos, kv, kvpos, dkv);
  char why[256] = "";
  if (cb_attn_bwd(&a, s, why, sizeof why)) CB_DIE(CB_EXIT_RUNTIME, "backward attention kernel refused: %s", why);
  CB_CUDA_LAUNCH("cb_attn_bwd");
}

/* the probe: a GPU or build without the backward kernel says why here, as the row's reason. The
 * rank's own block, handed over as every step's is (cb_ra_block_pos: a stripe block's positions
 * are strided, the kernel takes their dense pair) */
static int bwd_init(cb_ra_t *x, float *sums, char *why, size_t n) {
  cb_attn_pos_t q = cb_ra_pos(x->runs), kv = q;
  cb_ra_block_pos(x, &q, &kv);
  cb_attn_bwd_args_t a = own_pair(x, q, x->kv, kv, sums);
  if (cb_attn_bwd(&a, x->w->stream, why, n)) return -1;
  CB_CUDA_LAUNCH("cb_attn_bwd");
  return 0;
}

static void bwd_begin(const cb_ra_t *x, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  char why[256] = "";
  if (cb_attn_bwd_delta(x->out, x->bwd.dout, x->bwd.delta, c->batch, (int)x->rows, c->heads, c->head_dim, x->bf16, s,
                        why, sizeof why))
    CB_DIE(CB_EXIT_RUNTIME, "%s", why);
}

/* Said only where the mma.sync fallback runs instead of the Hopper kernel, and why (issue 30). */
static void note(const cb_ra_t *x, char *note, size_t n) {
  cb_attn_args_t a;
  memset(&a, 0, sizeof a);
  a.q = x->q, a.k = x->kv, a.v = (const char *)x->kv + x->kv_elems * x->elem;
  a.kv_len = (int)(x->rows > 0 ? x->rows : 1);
  char name[160], v[192];
  cb_attn_fwd_kernel_name(&a, name, sizeof name);
  if (strncmp(name, "wgmma", 5) == 0) return;
  snprintf(v, sizeof v, "block kernel %s", name);
  cb_ra_note_append(note, n, v);
}

/* the attention kernel's grid (cb_attn_fwd_ctas), capped at the device's SMs */
static int sms(const cb_ra_t *x) {
  const int64_t ctas = cb_attn_fwd_ctas(x->rows, x->cfg->heads, x->cfg->batch);
  const int sm_count = x->w->sm_count;
  return cb_grid_sms(ctas > sm_count ? sm_count : (int)ctas, sm_count);
}

const cb_ra_block_kernel_t cb_ra_block_collbench = {
    .forward = forward,
    .bwd_init = bwd_init,
    .bwd_begin = bwd_begin,
    .backward = backward,
    .note = note,
    .sms = sms,
};
