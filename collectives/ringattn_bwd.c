/* The backward pass's shared part (ringattn_bwd.h): the pass dispatch, the backward buffers, the
 * block-pair launch (collbench's kernel, or cuDNN's SDPA backward for the *_cudnn rows:
 * ringattn_cudnn_bwd.c), the local kernel for ring_over_single and `single`'s backward. */
#include "ringattn_bwd.h"

#include <stdio.h>
#include <string.h>

#include "attn_block.h"
#include "attn_bwd.h"
#include "attn_bwd_util.h"
#include "attn_cudnn_bwd.h"
#include "attn_util.h"
#include "error_gpu.h"
#include "ringattn_bwd_plan.h"
#include "ringattn_common.h"
#include "ringattn_cudnn.h"

#define DOUT_TENSOR 3 /* attn_util.h's fill: tensors 0-2 are q, k, v */

void cb_ra_run(cb_inst_t *in, int phase, cudaStream_t s) {
  (void)phase;
  cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) x->forward(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) x->backward(in, s);
}

int cb_ra_pass_supported(const cb_params_t *p, int cudnn, char *why, size_t n) {
  /* cuDNN's backward needs a recent enough cuDNN (attn_cudnn_bwd.h); the shapes its engines
   * refuse are found when setup builds the plans */
  if (cudnn && CB_ATTN_PASS_HAS_BWD(cb_attn_cfg(p)->pass)) return cb_cudnn_bwd_supported(why, n);
  return 1;
}

int cb_ra_setup_pass(cb_ra_t *x, cb_inst_t *in, int full, float *home, int parts, char *why, size_t n) {
  in->metric[CB_ATTN_FLOPS] = cb_attn_flops(cb_attn_cfg(&in->p), cb_attn_seq(&in->p), cb_attn_causal(&in->p)) *
                              cb_attn_pass_flops_factor(x->pass) / (full ? 1 : in->world->mpi.nranks);
  if (!CB_ATTN_PASS_HAS_BWD(x->pass)) return 0;
  return cb_ra_bwd_init(x, in, home, parts, why, n);
}

/* The arguments of one pair: q_len query rows (q, dout, lse, delta, dq) at qpos against kv_len
 * K/V rows (kv: K then V, kv_elems elements each) at kvpos, sums into dkv (dK then dV). */
cb_attn_bwd_args_t cb_ra_bwd_pair(const cb_ra_t *x, const void *q, const void *dout, const float *lse,
                                  const float *delta, float *dq, int64_t q_len, cb_attn_pos_t qpos, const void *kv,
                                  int64_t kv_len, cb_attn_pos_t kvpos, float *dkv, size_t kv_elems) {
  cb_attn_bwd_args_t a;
  memset(&a, 0, sizeof a);
  a.q = q, a.dout = dout, a.lse = lse, a.delta = delta, a.dq = dq;
  a.k = kv, a.v = (const char *)kv + kv_elems * x->elem;
  a.dk = dkv, a.dv = dkv + kv_elems;
  a.batch = x->cfg->batch, a.heads = x->cfg->heads, a.kv_heads = x->cfg->kv_heads, a.head_dim = x->cfg->head_dim;
  a.q_len = (int)q_len, a.kv_len = (int)kv_len;
  a.bf16 = x->bf16, a.causal = x->causal;
  a.qpos = qpos, a.kvpos = kvpos;
  a.scale = x->scale;
  return a;
}

static cb_attn_bwd_args_t own_pair(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos,
                                   float *dkv) {
  const cb_ra_bwd_t *b = &x->bwd;
  return cb_ra_bwd_pair(x, x->q, b->dout, x->lse, b->delta, b->dq, x->rows, qpos, kv, x->rows, kvpos, dkv, x->kv_elems);
}

/* One pair with the row's block kernel: this rank's queries at qpos against kv at kvpos. */
static void attend_pair(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, float *dkv,
                        cudaStream_t s) {
  if (x->block == CB_ATTN_BLOCK_CUDNN) {
    cb_ra_cudnn_bwd_attend(x, qpos, kv, kvpos, dkv, s);
    return;
  }
  cb_attn_bwd_args_t a = own_pair(x, qpos, kv, kvpos, dkv);
  char why[256] = "";
  if (cb_attn_bwd(&a, s, why, sizeof why)) CB_DIE(CB_EXIT_RUNTIME, "backward attention kernel refused: %s", why);
  CB_CUDA_LAUNCH("cb_attn_bwd");
}

void cb_ra_bwd_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, float *dkv, cudaStream_t s) {
  attend_pair(x, cb_ra_pos(x->runs), kv, kvpos, dkv, s);
}

void cb_ra_bwd_begin(const cb_ra_t *x, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  char why[256] = "";
  /* cuDNN's backward computes rowsum(dO * O) itself: its rows time no delta they never read */
  if (x->block != CB_ATTN_BLOCK_CUDNN && cb_attn_bwd_delta(x->out, x->bwd.dout, x->bwd.delta, c->batch, (int)x->rows,
                                                           c->heads, c->head_dim, x->bf16, s, why, sizeof why))
    CB_DIE(CB_EXIT_RUNTIME, "%s", why);
  CB_CUDA(cudaMemsetAsync(x->bwd.dq, 0, x->q_elems * sizeof(float), s));
}

/* --pass bwd: out and lse of the rank's queries against the whole sequence, made here from the
 * seed (the K/V the check makes the same way), so setup needs no peer. */
static int local_forward(cb_ra_t *x, uint64_t seed, cudaStream_t s, char *why, size_t n) {
  const cb_attn_config_t *c = x->cfg;
  const size_t full = (size_t)c->batch * x->S * c->kv_heads * c->head_dim;
  void *kv = NULL;
  if (cb_ra_alloc(x, &kv, 2 * full * x->elem, why, n)) return -1;
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S};
  char *v = (char *)kv + full * x->elem;
  cb_attn_fill(kv, x->bf16, 1, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, seed, s);
  cb_attn_fill(v, x->bf16, 2, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, seed, s);
  cb_ra_attend_rows(x, x->q, x->o, x->lse, x->out, c->batch, x->rows, cb_ra_pos(x->runs), kv, v, (int64_t)x->S, natural,
                    1, 1, 0, 0, s);
  cb_wait_stream(s);
  /* the temporary K/V is the last allocation: give it back */
  CB_CUDA(cudaFree(kv));
  x->nextra--;
  x->mem -= 2 * full * x->elem;
  return 0;
}

int cb_ra_bwd_init(cb_ra_t *x, const cb_inst_t *in, float *home, int parts, char *why, size_t n) {
  const cb_attn_config_t *c = x->cfg;
  cb_ra_bwd_t *b = &x->bwd;
  b->dkv = home; /* (its sizes: cb_ra_init) */
  if (cb_ra_alloc(x, &b->dout, x->q_elems * x->elem, why, n) ||
      cb_ra_alloc(x, (void **)&b->delta, x->lse_elems * sizeof(float), why, n) ||
      cb_ra_alloc(x, (void **)&b->dq, x->q_elems * sizeof(float), why, n) ||
      (!home && cb_ra_alloc(x, (void **)&b->dkv, b->dkv_bytes, why, n)) ||
      (parts && cb_ra_alloc(x, (void **)&b->part, b->dkv_bytes, why, n)))
    return -1;
  cudaStream_t s = in->world->stream;
  cb_attn_fill(b->dout, x->bf16, DOUT_TENSOR, c->batch, x->rows, c->heads, c->head_dim, cb_ra_pos(x->runs), in->p.seed,
               s);
  if (x->pass == CB_ATTN_PASS_BWD && local_forward(x, in->p.seed, s, why, n)) return -1;
  /* cuDNN: its scratch and plans (after local_forward, which gives back its last allocation) */
  if (x->block == CB_ATTN_BLOCK_CUDNN && cb_ra_cudnn_bwd_init(x, why, n)) return -1;
  /* the probe: one real pair (its sums are cleared by every backward's start) */
  float *sums = b->part ? b->part : b->dkv;
  if (x->block == CB_ATTN_BLOCK_CUDNN) {
    attend_pair(x, cb_ra_pos(x->runs), x->kv, cb_ra_pos(x->runs), sums, s);
  } else {
    cb_attn_bwd_args_t a = own_pair(x, cb_ra_pos(x->runs), x->kv, cb_ra_pos(x->runs), sums);
    if (cb_attn_bwd(&a, s, why, n)) return -1;
    CB_CUDA_LAUNCH("cb_attn_bwd");
  }
  cb_wait_stream(s);
  return 0;
}

/* ring_over_single's backward part: this rank's queries against its own block, contiguous
 * positions 0..rows-1, into the home sums (cleared by the next backward). */
void cb_ra_bwd_local(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  cb_attn_pos_t contiguous = {0, x->rows, x->rows};
  cb_ra_bwd_begin(x, s);
  attend_pair(x, contiguous, x->kv, contiguous, x->bwd.dkv, s);
}

void cb_ra_bwd_ring_compute(const cb_ra_t *x, void *const kv_slot[2], float *acc0, float *const d[2], cudaStream_t s) {
  cb_ra_bwd_begin(x, s);
  for (int i = 0; i < x->P; i++) {
    float *sums = i == 0 ? acc0 : x->bwd.part;
    CB_CUDA(cudaMemsetAsync(sums, 0, x->bwd.dkv_bytes, s));
    cb_ra_bwd_attend(x, i == 0 ? x->kv : kv_slot[i % 2], cb_ra_src_pos(x, cb_ra_bwd_step(x->P, x->r, i).kv_src), sums,
                     s);
    if (i >= 1) cb_attn_f32_add(d[i % 2], x->bwd.part, x->bwd.dkv_elems, s);
  }
}

void cb_ra_bwd_single(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  cb_ra_bwd_begin(x, s);
  CB_CUDA(cudaMemsetAsync(x->bwd.dkv, 0, x->bwd.dkv_bytes, s));
  cb_ra_bwd_attend(x, x->kv, cb_ra_pos(x->runs), x->bwd.dkv, s);
}
