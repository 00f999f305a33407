/* The state every ring-attention row shares (ringattn_state.h). */
#include "ringattn_state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_layout.h"
#include "attn_util.h"
#include "error_gpu.h"

cb_attn_pos_t cb_ra_pos(cb_attn_runs_t r) {
  cb_attn_pos_t p;
  p.start0 = r.start0;
  p.len0 = r.len0;
  p.start1 = r.start1;
  p.stride = r.stride;
  return p;
}

cb_attn_runs_t cb_ra_runs(cb_attn_pos_t p, int64_t rows) {
  cb_attn_runs_t r = {p.start0, p.len0, p.start1, rows > p.len0 ? rows - p.len0 : 0, p.stride};
  return r;
}

void cb_ra_block_pos(const cb_ra_t *x, cb_attn_pos_t *qpos, cb_attn_pos_t *kvpos) {
  cb_attn_runs_t q = cb_ra_runs(*qpos, x->rows), kv = cb_ra_runs(*kvpos, x->rows);
  if (cb_attn_block_pair(&q, &kv))
    CB_DIE(CB_EXIT_RUNTIME, "ring attention: a block pair of strides %lld and %lld has no dense form",
           (long long)qpos->stride, (long long)kvpos->stride);
  *qpos = cb_ra_pos(q);
  *kvpos = cb_ra_pos(kv);
}

cb_attn_pos_t cb_ra_src_pos(const cb_ra_t *x, int src) {
  return cb_ra_pos(cb_attn_layout_runs(x->S, x->P, src, x->layout, x->U));
}

int cb_ra_ring_rank(const cb_ra_t *x, int j) { return x->ring_first + ((j % x->P) + x->P) % x->P * x->ring_stride; }

int cb_ra_ring_local(const cb_ra_t *x, int j) {
  return cb_ra_ring_rank(x, j) - (x->w->mpi.rank - x->w->mpi.local_rank);
}

int cb_ra_shared(const cb_ra_t *x, void *const *field) {
  for (int i = 0; i < x->nshared; i++)
    if (x->shared[i] == field) return 1;
  return 0;
}

void cb_ra_share(cb_ra_t *x, void **field, size_t bytes, void *mem) {
  if (x->nshared == CB_RA_MAX_SHARED) CB_DIE(CB_EXIT_RUNTIME, "cb_ra_share: more than %d buffers", CB_RA_MAX_SHARED);
  if (!cb_ra_shared(x, field)) {
    CB_CUDA(cudaFree(*field));
    x->mem -= bytes;
    x->shared[x->nshared++] = field;
  }
  *field = mem;
}

int cb_ra_alloc(cb_ra_t *x, void **p, size_t bytes, char *why, size_t n) {
  char e[200] = "";
  *p = NULL;
  if (CB_TRY_CUDA(cudaMalloc(p, bytes ? bytes : 1), e, sizeof e)) {
    snprintf(why, n, "rank %d: %s (%.2f GiB)", x->w->mpi.rank, e, bytes / 1073741824.0);
    *p = NULL;
    return -1;
  }
  x->mem += bytes;
  return 0;
}

int cb_ra_init(cb_ra_t *x, const cb_inst_t *in, const cb_ra_part_t *part, char *why, size_t n) {
  const cb_params_t *p = &in->p;
  memset(x, 0, sizeof *x);
  x->w = in->world;
  x->row_cfg = cb_attn_row_config(p);
  x->cfg = &x->row_cfg;
  const cb_attn_config_t *c = x->cfg;
  x->P = part->P;
  x->r = part->r;
  x->U = part->U;
  x->layout = part->layout;
  x->ring_stride = part->stride;
  x->ring_first = part->first;
  x->dtype = p->dtype;
  x->bf16 = p->dtype == CB_BF16;
  x->causal = cb_attn_causal(p);
  x->S = cb_attn_seq(p);
  x->rows = (int64_t)(cb_attn_seq(p) / (uint64_t)x->P);
  x->elem = cb_dtype_size(p->dtype);
  x->pass = c->pass;
  x->runs = cb_attn_layout_runs(x->S, x->P, x->r, x->layout, x->U);
  x->q_elems = (size_t)c->batch * (size_t)x->rows * (size_t)c->heads * (size_t)c->head_dim;
  x->kv_elems = (size_t)c->batch * (size_t)x->rows * (size_t)c->kv_heads * (size_t)c->head_dim;
  x->kv_bytes = 2 * x->kv_elems * x->elem;
  x->lse_elems = (size_t)c->batch * (size_t)c->heads * (size_t)x->rows;
  x->scale = 1.0f / sqrtf((float)c->head_dim);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) { /* one block's dK | dV sums (fp32): what the backward moves */
    x->bwd.dkv_elems = 2 * x->kv_elems;
    x->bwd.dkv_bytes = x->bwd.dkv_elems * sizeof(float);
  }
  if (cb_ra_alloc(x, &x->q, x->q_elems * x->elem, why, n) || cb_ra_alloc(x, &x->kv, x->kv_bytes, why, n) ||
      cb_ra_alloc(x, (void **)&x->o, x->q_elems * sizeof(float), why, n) ||
      cb_ra_alloc(x, (void **)&x->lse, x->lse_elems * sizeof(float), why, n) ||
      cb_ra_alloc(x, &x->out, x->q_elems * x->elem, why, n)) {
    cb_ra_free(x);
    return -1;
  }
  /* highest priority: the ring's small flag kernels get an SM ahead of the attention kernel's
   * pending thread blocks, so a transfer never waits for a whole step of compute */
  int lo = 0, hi = 0;
  CB_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  CB_CUDA(cudaStreamCreateWithPriority(&x->comm, cudaStreamNonBlocking, hi));
  CB_CUDA(cudaEventCreateWithFlags(&x->fork, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&x->join, cudaEventDisableTiming));
  for (int i = 0; i < CB_RA_MAX_STEPS; i++) {
    CB_CUDA(cudaEventCreateWithFlags(&x->step_a[i], cudaEventDisableTiming));
    CB_CUDA(cudaEventCreateWithFlags(&x->step_b[i], cudaEventDisableTiming));
  }
  cb_ra_fill(x, p->seed, in->world->stream);
  CB_CUDA(cudaMemsetAsync(x->o, 0, x->q_elems * sizeof(float), in->world->stream));
  cb_wait_stream(in->world->stream);
  return 0;
}

void cb_ra_free(cb_ra_t *x) {
  void **buf[] = {&x->q, &x->kv, (void **)&x->o, (void **)&x->lse, &x->out};
  for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
    if (!cb_ra_shared(x, buf[i])) CB_CUDA(cudaFree(*buf[i]));
  x->q = x->kv = x->out = NULL;
  x->o = x->lse = NULL;
  if (x->comm) {
    CB_CUDA(cudaStreamDestroy(x->comm));
    CB_CUDA(cudaEventDestroy(x->fork));
    CB_CUDA(cudaEventDestroy(x->join));
    for (int i = 0; i < CB_RA_MAX_STEPS; i++) {
      CB_CUDA(cudaEventDestroy(x->step_a[i]));
      CB_CUDA(cudaEventDestroy(x->step_b[i]));
    }
    x->comm = NULL;
  }
}

void cb_ra_attend_rows(const cb_ra_t *x, const void *q, float *o, float *lse, void *out, int batch, int64_t q_len,
                       cb_attn_pos_t qpos, const void *k, const void *v, int64_t kv_len, cb_attn_pos_t kvpos, int first,
                       int final, int reference, int lowp, cudaStream_t s) {
  cb_attn_args_t a;
  memset(&a, 0, sizeof a);
  a.q = q;
  a.k = k;
  a.v = v;
  a.o = o;
  a.lse = lse;
  a.out = out;
  a.batch = batch;
  a.heads = x->cfg->heads;
  a.kv_heads = x->cfg->kv_heads;
  a.head_dim = x->cfg->head_dim;
  a.q_len = (int)q_len;
  a.kv_len = (int)kv_len;
  a.bf16 = x->bf16;
  a.causal = x->causal;
  a.qpos = qpos;
  a.kvpos = kvpos;
  a.scale = x->scale;
  a.first = first;
  a.final = final;
  char why[256] = "";
  int rc = reference ? cb_attn_reference(&a, lowp, s, why, sizeof why) : cb_attn_fwd(&a, s, why, sizeof why);
  if (rc) CB_DIE(CB_EXIT_RUNTIME, "attention kernel refused its arguments: %s", why);
  CB_CUDA_LAUNCH(reference ? "cb_attn_reference" : "cb_attn_fwd");
}

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

void cb_ra_fill(cb_ra_t *x, uint64_t seed, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  cb_attn_pos_t pos = cb_ra_pos(x->runs);
  cb_attn_fill(x->q, x->bf16, 0, c->batch, x->rows, c->heads, c->head_dim, pos, seed, s);
  cb_attn_fill(x->kv, x->bf16, 1, c->batch, x->rows, c->kv_heads, c->head_dim, pos, seed, s);
  cb_attn_fill((char *)x->kv + x->kv_elems * x->elem, x->bf16, 2, c->batch, x->rows, c->kv_heads, c->head_dim, pos,
               seed, s);
}
