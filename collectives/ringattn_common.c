/* Shared host machinery of the ring-attention algorithms (ringattn_common.h). */
#include "ringattn_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_block.h"
#include "attn_cudnn.h"
#include "attn_util.h"
#include "error_gpu.h"
#include "ringattn_cudnn.h"

/* Checks on all rows while rows * S stays below this (the reference kernel reads every key for
 * every query row: cost ~ rows * S * heads * head_dim * 4 bytes); beyond it, windows. */
#define CHECK_ALL_ROWS_MAX (1ull << 22)
#define CHECK_WINDOW_ROWS CB_RA_CHECK_WINDOW_ROWS
#define CHECK_MAX_WINDOWS CB_RA_CHECK_MAX_WINDOWS

int cb_ra_check_all(uint64_t rows, uint64_t S) { return rows * S <= CHECK_ALL_ROWS_MAX; }

int cb_ra_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (cb_attn_config_check(cb_attn_cfg(p), p->dtype, why, n)) return 0;
  if (w->mpi.nranks > CB_RA_MAX_STEPS) {
    snprintf(why, n, "not supported: %d ranks (ring attention runs up to %d)", w->mpi.nranks, CB_RA_MAX_STEPS);
    return 0;
  }
  return 1;
}

cb_attn_pos_t cb_ra_pos(cb_attn_runs_t r) {
  cb_attn_pos_t p;
  p.start0 = r.start0;
  p.len0 = r.len0;
  p.start1 = r.start1;
  return p;
}

cb_attn_pos_t cb_ra_src_pos(const cb_ra_t *x, int src) { return cb_ra_pos(cb_attn_shard(x->S, x->P, src, x->causal)); }

int cb_ra_alloc(cb_ra_t *x, void **p, size_t bytes, char *why, size_t n) {
  char e[200] = "";
  *p = NULL;
  if (x->nextra == (int)(sizeof x->extra / sizeof x->extra[0])) {
    snprintf(why, n, "ringattn: too many allocations");
    return -1;
  }
  if (CB_TRY_CUDA(cudaMalloc(p, bytes ? bytes : 1), e, sizeof e)) {
    snprintf(why, n, "rank %d: %s (%.2f GiB)", x->w->mpi.rank, e, bytes / 1073741824.0);
    *p = NULL;
    return -1;
  }
  x->extra[x->nextra++] = *p;
  x->mem += bytes;
  return 0;
}

int cb_ra_supported_cudnn(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_ra_cudnn_supported(w, p, 0, why, n);
}

int cb_ra_init(cb_ra_t *x, const cb_inst_t *in, int full, int block, char *why, size_t n) {
  const cb_params_t *p = &in->p;
  const cb_attn_config_t *c = cb_attn_cfg(p);
  memset(x, 0, sizeof *x);
  x->w = in->world;
  x->cfg = c;
  x->P = full ? 1 : in->world->mpi.nranks;
  x->r = full ? 0 : in->world->mpi.rank;
  x->dtype = p->dtype;
  x->bf16 = p->dtype == CB_BF16;
  x->causal = cb_attn_causal(p);
  x->S = cb_attn_seq(p);
  x->rows = (int64_t)(cb_attn_seq(p) / (uint64_t)x->P);
  x->elem = cb_dtype_size(p->dtype);
  x->block = block;
  x->pass = c->pass;
  x->runs = cb_attn_shard(x->S, x->P, x->r, x->causal);
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
  if (block == CB_ATTN_BLOCK_CUDNN && cb_ra_cudnn_init(x, why, n)) {
    cb_ra_free(x);
    return -1;
  }
  cb_ra_fill(x, p->seed, in->world->stream);
  CB_CUDA(cudaMemsetAsync(x->o, 0, x->q_elems * sizeof(float), in->world->stream));
  cb_wait_stream(in->world->stream);
  return 0;
}

void cb_ra_free(cb_ra_t *x) {
  if (x->cudnn) cb_ra_cudnn_free(x);
  for (int i = 0; i < x->nextra; i++) CB_CUDA(cudaFree(x->extra[i]));
  x->nextra = 0;
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

/* One launch of the block kernel (or, with reference, of the reference kernel). */
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

void cb_ra_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, int first, int final, cudaStream_t s) {
  if (x->block == CB_ATTN_BLOCK_CUDNN) {
    cb_ra_cudnn_attend(x, cb_ra_pos(x->runs), kv, kvpos, first, final, s);
    return;
  }
  const char *k = kv, *v = (const char *)kv + x->kv_elems * x->elem;
  cb_ra_attend_rows(x, x->q, x->o, x->lse, x->out, x->cfg->batch, x->rows, cb_ra_pos(x->runs), k, v, x->rows, kvpos,
                    first, final, 0, 0, s);
}

void cb_ra_fill(cb_ra_t *x, uint64_t seed, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  cb_attn_pos_t pos = cb_ra_pos(x->runs);
  cb_attn_fill(x->q, x->bf16, 0, c->batch, x->rows, c->heads, c->head_dim, pos, seed, s);
  cb_attn_fill(x->kv, x->bf16, 1, c->batch, x->rows, c->kv_heads, c->head_dim, pos, seed, s);
  cb_attn_fill((char *)x->kv + x->kv_elems * x->elem, x->bf16, 2, c->batch, x->rows, c->kv_heads, c->head_dim, pos,
               seed, s);
}

/* ---- the check ---------------------------------------------------------------------------- */

/* All rows (one window with the shard's runs), or CHECK_WINDOW_ROWS at the start and the end
 * of each run. */
int cb_ra_check_windows(const cb_ra_t *x, cb_ra_window_t *w) {
  if (cb_ra_check_all((uint64_t)x->rows, x->S)) {
    w[0].row0 = 0;
    w[0].len = x->rows;
    w[0].pos = cb_ra_pos(x->runs);
    return 1;
  }
  int nw = 0;
  const int64_t run_row0[2] = {0, x->runs.len0};
  const int64_t run_len[2] = {x->runs.len0, x->runs.len1};
  const int64_t run_pos[2] = {x->runs.start0, x->runs.start1};
  for (int r = 0; r < 2; r++) {
    if (run_len[r] <= 0) continue;
    int64_t len = run_len[r] < CHECK_WINDOW_ROWS ? run_len[r] : CHECK_WINDOW_ROWS;
    int64_t offs[2] = {0, run_len[r] - len};
    for (int e = 0; e < (offs[1] > 0 ? 2 : 1) && nw < CHECK_MAX_WINDOWS; e++) {
      w[nw].row0 = run_row0[r] + offs[e];
      w[nw].len = len;
      w[nw].pos.start0 = run_pos[r] + offs[e];
      w[nw].pos.len0 = len;
      w[nw].pos.start1 = w[nw].pos.start0 + len;
      nw++;
    }
  }
  return nw;
}

uint64_t cb_ra_check_seed(uint64_t seed, int iter) {
  return seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull * (uint64_t)(iter + 1);
}

long long cb_ra_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  cb_ra_t *x = in->priv;
  const cb_attn_config_t *c = x->cfg;
  const uint64_t sd = cb_ra_check_seed(seed, iter);
  cb_ra_fill(x, sd, s);
  CB_CUDA(cudaMemsetAsync(x->out, 0xff, x->q_elems * x->elem, s)); /* NaN in bf16 and fp16 */
  x->forward(in, s); /* every pass checks the forward: the backward starts from its out and lse */

  /* The whole sequence's K and V in natural order, made from the same seed. */
  const size_t kv_full = (size_t)c->batch * x->S * c->kv_heads * c->head_dim;
  cb_ra_window_t win[CHECK_MAX_WINDOWS];
  int nw = cb_ra_check_windows(x, win);
  int64_t wrows = 0;
  for (int i = 0; i < nw; i++) wrows += win[i].len;
  const size_t per_row = (size_t)c->heads * c->head_dim;
  void *kf = NULL, *vf = NULL, *scratch_out = NULL;
  float *ref_o = NULL, *low_o = NULL, *lse = NULL;
  double *acc = NULL;
  size_t ref_elems = (size_t)c->batch * (size_t)wrows * per_row;
  CB_CUDA(cudaMalloc(&kf, kv_full * x->elem));
  CB_CUDA(cudaMalloc(&vf, kv_full * x->elem));
  CB_CUDA(cudaMalloc((void **)&ref_o, ref_elems * sizeof(float)));
  CB_CUDA(cudaMalloc((void **)&low_o, ref_elems * sizeof(float)));
  CB_CUDA(cudaMalloc(&scratch_out, ref_elems * x->elem));
  CB_CUDA(cudaMalloc((void **)&lse, (size_t)c->heads * (size_t)wrows * sizeof(float)));
  CB_CUDA(cudaMalloc((void **)&acc, 6 * sizeof(double)));
  CB_CUDA(cudaMemsetAsync(acc, 0, 6 * sizeof(double), s));
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S};
  cb_attn_fill(kf, x->bf16, 1, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, sd, s);
  cb_attn_fill(vf, x->bf16, 2, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, sd, s);

  /* Reference (fp32) and naive low-precision outputs of every window, batch by batch. */
  size_t off = 0;
  for (int b = 0; b < c->batch; b++)
    for (int i = 0; i < nw; i++) {
      const char *q = (const char *)x->q + ((size_t)b * x->rows + win[i].row0) * per_row * x->elem;
      const char *k = (const char *)kf + (size_t)b * x->S * c->kv_heads * c->head_dim * x->elem;
      const char *v = (const char *)vf + (size_t)b * x->S * c->kv_heads * c->head_dim * x->elem;
      char *so = (char *)scratch_out + off * x->elem;
      cb_ra_attend_rows(x, q, ref_o + off, lse, so, 1, win[i].len, win[i].pos, k, v, (int64_t)x->S, natural, 1, 1, 1, 0,
                        s);
      cb_ra_attend_rows(x, q, low_o + off, lse, so, 1, win[i].len, win[i].pos, k, v, (int64_t)x->S, natural, 1, 1, 1, 1,
                        s);
      /* the naive computation's own rounded output against the truth: acc[3..5] */
      cb_attn_error(so, x->bf16, ref_o + off, win[i].len * per_row, INFINITY, acc + 3, s);
      off += win[i].len * per_row;
    }
  double h[6];
  CB_CUDA(cudaMemcpyAsync(h, acc, sizeof h, cudaMemcpyDeviceToHost, s));
  cb_wait_stream(s);
  const float tol = CB_RA_TOLERANCE(h[4]);
  off = 0;
  for (int b = 0; b < c->batch; b++)
    for (int i = 0; i < nw; i++) {
      const char *o = (const char *)x->out + ((size_t)b * x->rows + win[i].row0) * per_row * x->elem;
      cb_attn_error(o, x->bf16, ref_o + off, win[i].len * per_row, tol, acc, s);
      off += win[i].len * per_row;
    }
  CB_CUDA(cudaMemcpyAsync(h, acc, 3 * sizeof(double), cudaMemcpyDeviceToHost, s));
  cb_wait_stream(s);
  long long wrong = (long long)h[2];
  if (wrong)
    fprintf(stderr,
            "collbench: [rank %d] %s S=%llu causal=%d: %lld outputs beyond %.3g (max error %.3g, naive %s %.3g)\n",
            x->w->mpi.rank, in->algo->name, (unsigned long long)x->S, x->causal, wrong, tol, h[1],
            cb_dtype_name(x->dtype), h[4]);
  CB_CUDA(cudaFree(kf));
  CB_CUDA(cudaFree(vf));
  CB_CUDA(cudaFree(ref_o));
  CB_CUDA(cudaFree(low_o));
  CB_CUDA(cudaFree(scratch_out));
  CB_CUDA(cudaFree(lse));
  CB_CUDA(cudaFree(acc));
  /* the error columns: the output's (fwd), the gradients' (bwd), or over both (both) */
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) {
    in->metric[CB_ATTN_ERR_MAX] = fmax(in->metric[CB_ATTN_ERR_MAX], h[1]);
    in->metric[CB_ATTN_ERR_MEAN] = h[0] / (double)(ref_elems ? ref_elems : 1);
  }
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) wrong += cb_ra_bwd_check(in, s, sd);
  if (iter == 0 && c->save_dir[0]) {
    char why[512];
    int rc = cb_ra_save(in, x, why, sizeof why);
    if (rc) CB_DIE(CB_EXIT_RUNTIME, "--save: %s", why);
  }
  return wrong;
}

/* ---- timing of parts alone ---------------------------------------------------------------- */

double cb_ra_time_us(cudaStream_t s, int reps, void (*fn)(cb_inst_t *in, cudaStream_t s), cb_inst_t *in) {
  cudaEvent_t a, b;
  CB_CUDA(cudaEventCreate(&a));
  CB_CUDA(cudaEventCreate(&b));
  fn(in, s);
  CB_CUDA(cudaEventRecord(a, s));
  for (int i = 0; i < reps; i++) fn(in, s);
  CB_CUDA(cudaEventRecord(b, s));
  cb_wait_stream(s);
  float ms = 0.0f;
  CB_CUDA(cudaEventElapsedTime(&ms, a, b));
  CB_CUDA(cudaEventDestroy(a));
  CB_CUDA(cudaEventDestroy(b));
  return 1000.0 * ms / reps;
}

/* ring_over_single's denominator: this rank's queries against its own block with contiguous
 * positions 0..rows-1 (a plain causal or non-causal block of S/P). */
static void local_block(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  cb_attn_pos_t contiguous = {0, x->rows, x->rows};
  const char *k = x->kv, *v = (const char *)x->kv + x->kv_elems * x->elem;
  if (x->block == CB_ATTN_BLOCK_CUDNN) {
    cb_ra_cudnn_attend(x, contiguous, x->kv, contiguous, 1, 1, s);
    return;
  }
  cb_ra_attend_rows(x, x->q, x->o, x->lse, x->out, x->cfg->batch, x->rows, contiguous, k, v, x->rows, contiguous, 1, 1,
                    0, 0, s);
}

/* The pass's parts (cb_ra_measure): its hooks (or local kernels) one after the other. */
static void pass_compute(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) x->fwd_compute(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) x->bwd_compute(in, s);
}
static void pass_comm(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) x->fwd_comm(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) x->bwd_comm(in, s);
}
static void pass_local(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) local_block(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) cb_ra_bwd_local(in, s);
}

void cb_ra_measure(cb_inst_t *in, cudaStream_t s) {
  in->metric[CB_ATTN_COMPUTE_US] = cb_ra_time_us(s, 3, pass_compute, in);
  cb_wait_stream(s);
  cb_mpi_barrier(in->world->mpi.comm);
  in->metric[CB_ATTN_COMM_US] = in->world->mpi.nranks > 1 ? cb_ra_time_us(s, 3, pass_comm, in) : 0.0;
  cb_wait_stream(s);
  cb_mpi_barrier(in->world->mpi.comm);
  in->metric[CB_ATTN_LOCAL_US] = cb_ra_time_us(s, 5, pass_local, in);
}

void cb_ra_teardown(cb_inst_t *in) {
  cb_ra_free((cb_ra_t *)in->priv);
  free(in->priv);
  in->priv = NULL;
}

/* The row note's block-kernel part: the cuDNN version of a cuDNN row; for collbench's kernel,
 * only where the mma.sync fallback runs instead of the Hopper kernel, and why (issue 30). */
void cb_ra_block_note(const cb_ra_t *x, char *note, size_t n) {
  char v[192];
  if (x->block == CB_ATTN_BLOCK_CUDNN) {
    char ver[96];
    cb_cudnn_version(ver, sizeof ver);
    snprintf(v, sizeof v, "block kernel cuDNN %s", ver);
  } else {
    /* collbench's kernel: say so only when it is the fallback (not the Hopper kernel) */
    cb_attn_args_t a;
    memset(&a, 0, sizeof a);
    a.q = x->q, a.k = x->kv, a.v = (const char *)x->kv + x->kv_elems * x->elem;
    a.kv_len = (int)(x->rows > 0 ? x->rows : 1);
    char name[160];
    cb_attn_fwd_kernel_name(&a, name, sizeof name);
    if (strncmp(name, "wgmma", 5) == 0) return;
    snprintf(v, sizeof v, "block kernel %s", name);
  }
  const size_t len = strlen(note);
  snprintf(note + len, n > len ? n - len : 0, "%s%s", len ? "; " : "", v);
}
