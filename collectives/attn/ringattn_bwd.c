/* The backward pass's shared pieces (ringattn_bwd.h): its buffers, its start, the local kernel
 * for ring_over_single, the ring forms' compute alone and `single`'s backward. */
#include "ringattn_bwd.h"

#include <stdio.h>
#include <string.h>

#include "attn_bwd_util.h"
#include "attn_util.h"
#include "error_gpu.h"
#include "ringattn_block_kernel.h"
#include "ringattn_bwd_plan.h"
#include "ringattn_scheme.h"

#define DOUT_TENSOR 3 /* attn_util.h's fill: tensors 0-2 are q, k, v */

void cb_ra_bwd_begin(const cb_ra_t *x, cudaStream_t s) {
  if (x->block->bwd_begin) x->block->bwd_begin(x, s);
  CB_CUDA(cudaMemsetAsync(x->bwd.dq, 0, x->q_elems * sizeof(float), s));
}

/* The stripe form of local_forward: the fast kernel takes consecutive positions only, so the
 * rank's queries attend member by member, each member's K/V block (made from the seed at its
 * stride-R positions) handed over as its dense pair (cb_ra_block_pos), as the ring does. kv: room
 * for the whole sequence, used as the P blocks. */
static void local_forward_members(cb_ra_t *x, void *kv, uint64_t seed, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  for (int j = 0; j < x->P; j++) {
    char *k = (char *)kv + (size_t)j * x->kv_bytes, *v = k + x->kv_elems * x->elem;
    cb_attn_pos_t q = cb_ra_pos(x->runs), kp = cb_ra_src_pos(x, j);
    cb_attn_fill(k, x->bf16, 1, c->batch, x->rows, c->kv_heads, c->head_dim, kp, seed, s);
    cb_attn_fill(v, x->bf16, 2, c->batch, x->rows, c->kv_heads, c->head_dim, kp, seed, s);
    cb_ra_block_pos(x, &q, &kp);
    cb_ra_attend_rows(x, x->q, x->o, x->lse, x->out, c->batch, x->rows, q, k, v, x->rows, kp, j == 0, j == x->P - 1, 0,
                      0, s);
  }
}

/* --pass bwd: out and lse of the rank's queries against the whole sequence, made here from the
 * seed (the K/V the check makes the same way), so setup needs no peer. */
static int local_forward(cb_ra_t *x, uint64_t seed, cudaStream_t s, char *why, size_t n) {
  const cb_attn_config_t *c = x->cfg;
  const size_t full = (size_t)c->batch * x->S * c->kv_heads * c->head_dim;
  void *kv = NULL;
  if (cb_ra_alloc(x, &kv, 2 * full * x->elem, why, n)) return -1;
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S, 0};
  char *v = (char *)kv + full * x->elem;
  if (x->runs.stride > 1) {
    local_forward_members(x, kv, seed, s);
  } else {
    cb_attn_fill(kv, x->bf16, 1, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, seed, s);
    cb_attn_fill(v, x->bf16, 2, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, seed, s);
    cb_ra_attend_rows(x, x->q, x->o, x->lse, x->out, c->batch, x->rows, cb_ra_pos(x->runs), kv, v, (int64_t)x->S,
                      natural, 1, 1, 0, 0, s);
  }
  cb_wait_stream(s);
  /* the temporary K/V: given back at once */
  CB_CUDA(cudaFree(kv));
  x->mem -= 2 * full * x->elem;
  return 0;
}

int cb_ra_bwd_init(cb_ra_t *x, const cb_inst_t *in, float *home, int parts, char *why, size_t n) {
  const cb_attn_config_t *c = x->cfg;
  cb_ra_bwd_t *b = &x->bwd;
  b->dkv = home; /* (its sizes: cb_ra_init) */
  b->dkv_owned = home == NULL;
  if (cb_ra_alloc(x, &b->dout, x->q_elems * x->elem, why, n) ||
      cb_ra_alloc(x, (void **)&b->delta, x->lse_elems * sizeof(float), why, n) ||
      cb_ra_alloc(x, (void **)&b->dq, x->q_elems * sizeof(float), why, n) ||
      (!home && cb_ra_alloc(x, (void **)&b->dkv, b->dkv_bytes, why, n)) ||
      (parts && cb_ra_alloc(x, (void **)&b->part, b->dkv_bytes, why, n)))
    return -1;
  cudaStream_t s = in->world->stream;
  cb_attn_fill(b->dout, x->bf16, DOUT_TENSOR, c->batch, x->rows, c->heads, c->head_dim, cb_ra_pos(x->runs), in->p.seed,
               s);
  /* (a Ulysses row's block kernel runs on its inner state, which makes its own) */
  const int inner = x->scheme && x->scheme->ulysses;
  if (x->pass == CB_ATTN_PASS_BWD && !inner && local_forward(x, in->p.seed, s, why, n)) return -1;
  /* the block kernel's own state and its probe (its sums are cleared by every backward's start) */
  if (!inner && x->block->bwd_init(x, b->part ? b->part : b->dkv, why, n)) return -1;
  cb_wait_stream(s);
  return 0;
}

void cb_ra_bwd_free(cb_ra_t *x) {
  cb_ra_bwd_t *b = &x->bwd;
  void **buf[] = {&b->dout, (void **)&b->delta, (void **)&b->dq, (void **)&b->part};
  for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
    if (!cb_ra_shared(x, buf[i])) CB_CUDA(cudaFree(*buf[i]));
  if (b->dkv_owned) CB_CUDA(cudaFree(b->dkv));
  b->dout = NULL;
  b->delta = b->dq = b->part = b->dkv = NULL;
  b->dkv_owned = 0;
}

/* ring_over_single's backward part: this rank's queries against its own block, contiguous
 * positions 0..rows-1, into the home sums (cleared by the next backward). */
void cb_ra_bwd_local(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  cb_attn_pos_t contiguous = {0, x->rows, x->rows, 0};
  cb_ra_bwd_begin(x, s);
  x->block->backward(x, contiguous, x->kv, contiguous, x->bwd.dkv, s);
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
