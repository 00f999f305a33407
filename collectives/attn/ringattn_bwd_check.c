/* The backward pass's check (ringattn_check.h, cb_ra_bwd_check): dQ, dK and dV of the scheme's
 * backward against the fp32 reference (kernels/attn/attn_bwd.h, cb_attn_bwd_reference) on the
 * windows of cb_ra_check_windows: dQ of the rank's query rows in the windows (their queries
 * against the whole sequence's keys), dK and dV of the rank's K/V rows in the windows (the whole
 * sequence's queries against those keys, with every query row's lse and delta).
 *
 * Truth: lse and the fp32 output of each query window from the fp32 forward reference, delta
 * from that fp32 output; for the key windows the whole sequence's lse and output come from one
 * forward of the whole sequence (the reference when S x S is short, cb_ra_check_all, else
 * collbench's forward kernel, whose output the forward check of the same call compares).
 * Tolerance, per tensor, as the forward's (issue 12): 2 x the max error of a naive
 * low-precision backward of the same rows (cb_attn_bwd_reference_naive: scores, P, dP and dS
 * rounded to the dtype, delta from the rounded output, results rounded), plus 1e-6
 * (CB_RA_TOLERANCE, ringattn_check.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_bwd_util.h"
#include "attn_util.h"
#include "error_gpu.h"
#include "ringattn_check.h"
#include "ringattn_scheme.h"

enum { T_DQ, T_DK, T_DV, NT }; /* per tensor: naive error acc[t][0..2], scheme's error acc[NT + t][0..2] */
static const char *const tensor_name[NT] = {"dq", "dk", "dv"};

typedef struct bufs {
  void *qf, *df, *outf, *kvf; /* whole sequence, natural order: q, dout, out (dtype), K|V */
  float *of, *lsef, *deltaf, *deltaf_low;
  void *outw; /* one query window: out (dtype) */
  float *ow, *lsew, *deltaw, *deltaw_low;
  float *dq_ref, *dq_low, *dkv_ref, *dkv_low; /* shard layouts (x->bwd's) */
  float *scratch;                             /* dq of the key windows' calls, dK|dV of the query windows' */
  double *acc;
} bufs_t;

static void *dalloc(size_t bytes) {
  void *p = NULL;
  CB_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
}

static void run_pair(const cb_attn_bwd_args_t *a, int naive, cudaStream_t s) {
  char why[256] = "";
  if ((naive ? cb_attn_bwd_reference_naive(a, s, why, sizeof why) : cb_attn_bwd_reference(a, s, why, sizeof why)))
    CB_DIE(CB_EXIT_RUNTIME, "backward reference refused its arguments: %s", why);
  CB_CUDA_LAUNCH("cb_attn_bwd_reference");
}

/* dq truth and naive of one query window (batch b). */
static void query_window(const cb_ra_t *x, bufs_t *u, int b, const cb_ra_window_t *w, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  const size_t q_row = (size_t)c->heads * c->head_dim, kv_b = x->S * (size_t)c->kv_heads * c->head_dim;
  const size_t qo = ((size_t)b * x->rows + w->row0) * q_row;
  const char *q = (const char *)x->q + qo * x->elem, *d = (const char *)x->bwd.dout + qo * x->elem;
  const char *k = (const char *)u->kvf + (size_t)b * kv_b * x->elem;
  const char *v = (const char *)u->kvf + ((size_t)c->batch + b) * kv_b * x->elem;
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S, 0};
  cb_ra_attend_rows(x, q, u->ow, u->lsew, u->outw, 1, w->len, w->pos, k, v, (int64_t)x->S, natural, 1, 1, 1, 0, s);
  cb_attn_bwd_delta_f32(u->ow, d, u->deltaw, 1, (int)w->len, c->heads, c->head_dim, x->bf16, s);
  char why[256] = "";
  if (cb_attn_bwd_delta(u->outw, d, u->deltaw_low, 1, (int)w->len, c->heads, c->head_dim, x->bf16, s, why, sizeof why))
    CB_DIE(CB_EXIT_RUNTIME, "%s", why);
  for (int naive = 0; naive < 2; naive++) {
    float *dq = (naive ? u->dq_low : u->dq_ref) + qo;
    cb_attn_bwd_args_t a = cb_ra_bwd_pair(x, q, d, u->lsew, naive ? u->deltaw_low : u->deltaw, dq, w->len, w->pos, k,
                                          (int64_t)x->S, natural, u->scratch, (size_t)c->batch * kv_b);
    a.batch = 1;
    run_pair(&a, naive, s);
  }
}

/* dk, dv truth and naive of one key window (batch b): every query of the sequence. */
static void key_window(const cb_ra_t *x, bufs_t *u, int b, const cb_ra_window_t *w, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  const size_t q_b = x->S * (size_t)c->heads * c->head_dim, kv_row = (size_t)c->kv_heads * c->head_dim;
  const size_t ko = ((size_t)b * x->rows + w->row0) * kv_row, lo = (size_t)b * c->heads * x->S;
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S, 0};
  const char *q = (const char *)u->qf + b * q_b * x->elem, *d = (const char *)u->df + b * q_b * x->elem;
  for (int naive = 0; naive < 2; naive++) {
    float *dkv = (naive ? u->dkv_low : u->dkv_ref) + ko;
    cb_attn_bwd_args_t a =
        cb_ra_bwd_pair(x, q, d, u->lsef + lo, (naive ? u->deltaf_low : u->deltaf) + lo, u->scratch, (int64_t)x->S,
                       natural, (const char *)x->kv + ko * x->elem, w->len, w->pos, dkv, x->kv_elems);
    a.batch = 1;
    run_pair(&a, naive, s);
    if (naive) {
      cb_attn_f32_round(dkv, (size_t)w->len * kv_row, x->bf16, s);
      cb_attn_f32_round(dkv + x->kv_elems, (size_t)w->len * kv_row, x->bf16, s);
    }
  }
}

/* The whole sequence's q, dout, K/V, lse and deltas (truth and naive) for the key windows. */
static void whole_sequence(const cb_ra_t *x, bufs_t *u, uint64_t sd, cudaStream_t s) {
  const cb_attn_config_t *c = x->cfg;
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S, 0};
  const size_t kv_full = (size_t)c->batch * x->S * c->kv_heads * c->head_dim;
  cb_attn_fill(u->qf, x->bf16, 0, c->batch, (int64_t)x->S, c->heads, c->head_dim, natural, sd, s);
  cb_attn_fill(u->df, x->bf16, 3, c->batch, (int64_t)x->S, c->heads, c->head_dim, natural, sd, s);
  cb_attn_fill(u->kvf, x->bf16, 1, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim, natural, sd, s);
  cb_attn_fill((char *)u->kvf + kv_full * x->elem, x->bf16, 2, c->batch, (int64_t)x->S, c->kv_heads, c->head_dim,
               natural, sd, s);
  cb_ra_attend_rows(x, u->qf, u->of, u->lsef, u->outf, c->batch, (int64_t)x->S, natural, u->kvf,
                    (char *)u->kvf + kv_full * x->elem, (int64_t)x->S, natural, 1, 1, cb_ra_check_all(x->S, x->S), 0,
                    s);
  cb_attn_bwd_delta_f32(u->of, u->df, u->deltaf, c->batch, (int)x->S, c->heads, c->head_dim, x->bf16, s);
  char why[256] = "";
  if (cb_attn_bwd_delta(u->outf, u->df, u->deltaf_low, c->batch, (int)x->S, c->heads, c->head_dim, x->bf16, s, why,
                        sizeof why))
    CB_DIE(CB_EXIT_RUNTIME, "%s", why);
}

/* Errors of the window regions of got (or of the naive result) against the truth into acc. */
static void compare(const cb_ra_t *x, const float *got, const float *ref, size_t row, size_t second,
                    const cb_ra_window_t *win, int nw, float tol, double *acc, cudaStream_t s) {
  for (int b = 0; b < x->cfg->batch; b++)
    for (int i = 0; i < nw; i++) {
      const size_t o = ((size_t)b * x->rows + win[i].row0) * row + second;
      cb_attn_error_f32(got + o, ref + o, (size_t)win[i].len * row, tol, acc, s);
    }
}

long long cb_ra_bwd_check(cb_inst_t *in, cudaStream_t s, uint64_t seed) {
  cb_ra_t *x = in->priv;
  const cb_attn_config_t *c = x->cfg;
  cb_ra_bwd_t *g = &x->bwd;
  cb_attn_fill(g->dout, x->bf16, 3, c->batch, x->rows, c->heads, c->head_dim, cb_ra_pos(x->runs), seed, s);
  CB_CUDA(cudaMemsetAsync(g->dq, 0xff, x->q_elems * sizeof(float), s)); /* NaN */
  CB_CUDA(cudaMemsetAsync(g->dkv, 0xff, g->dkv_bytes, s));
  x->scheme->backward(in, s);

  cb_ra_window_t win[CB_RA_CHECK_MAX_WINDOWS];
  const int nw = cb_ra_check_windows(x, win);
  int64_t wmax = 0;
  for (int i = 0; i < nw; i++) wmax = win[i].len > wmax ? win[i].len : wmax;
  const size_t q_row = (size_t)c->heads * c->head_dim, kv_row = (size_t)c->kv_heads * c->head_dim;
  const size_t q_full = (size_t)c->batch * x->S * q_row, kv_full = (size_t)c->batch * x->S * kv_row;
  const size_t lse_full = (size_t)c->batch * c->heads * x->S, lse_w = (size_t)c->heads * (size_t)wmax;
  bufs_t u;
  u.qf = dalloc(q_full * x->elem), u.df = dalloc(q_full * x->elem), u.outf = dalloc(q_full * x->elem);
  u.kvf = dalloc(2 * kv_full * x->elem);
  u.of = dalloc(q_full * sizeof(float));
  u.lsef = dalloc(lse_full * sizeof(float)), u.deltaf = dalloc(lse_full * sizeof(float));
  u.deltaf_low = dalloc(lse_full * sizeof(float));
  u.outw = dalloc((size_t)wmax * q_row * x->elem), u.ow = dalloc((size_t)wmax * q_row * sizeof(float));
  u.lsew = dalloc(lse_w * sizeof(float)), u.deltaw = dalloc(lse_w * sizeof(float));
  u.deltaw_low = dalloc(lse_w * sizeof(float));
  u.dq_ref = dalloc(x->q_elems * sizeof(float)), u.dq_low = dalloc(x->q_elems * sizeof(float));
  u.dkv_ref = dalloc(g->dkv_bytes), u.dkv_low = dalloc(g->dkv_bytes);
  const size_t scratch = q_full > 2 * kv_full ? q_full : 2 * kv_full;
  u.scratch = dalloc(scratch * sizeof(float));
  u.acc = dalloc(2 * NT * 3 * sizeof(double));
  CB_CUDA(cudaMemsetAsync(u.acc, 0, 2 * NT * 3 * sizeof(double), s));
  float *zero[] = {u.dq_ref, u.dq_low, u.dkv_ref, u.dkv_low};
  for (int i = 0; i < 4; i++)
    CB_CUDA(cudaMemsetAsync(zero[i], 0, i < 2 ? x->q_elems * sizeof(float) : g->dkv_bytes, s));

  whole_sequence(x, &u, seed, s);
  for (int b = 0; b < c->batch; b++)
    for (int i = 0; i < nw; i++) {
      query_window(x, &u, b, &win[i], s);
      key_window(x, &u, b, &win[i], s);
    }
  const float *got[NT] = {g->dq, g->dkv, g->dkv}, *ref[NT] = {u.dq_ref, u.dkv_ref, u.dkv_ref};
  const float *low[NT] = {u.dq_low, u.dkv_low, u.dkv_low};
  const size_t row[NT] = {q_row, kv_row, kv_row}, second[NT] = {0, 0, x->kv_elems};
  for (int t = 0; t < NT; t++) compare(x, low[t], ref[t], row[t], second[t], win, nw, INFINITY, u.acc + 3 * t, s);
  double h[2 * NT * 3];
  CB_CUDA(cudaMemcpyAsync(h, u.acc, sizeof h, cudaMemcpyDeviceToHost, s));
  cb_wait_stream(s);
  float tol[NT];
  for (int t = 0; t < NT; t++) {
    tol[t] = CB_RA_TOLERANCE(h[3 * t + 1]);
    compare(x, got[t], ref[t], row[t], second[t], win, nw, tol[t], u.acc + 3 * (NT + t), s);
  }
  CB_CUDA(cudaMemcpyAsync(h, u.acc, sizeof h, cudaMemcpyDeviceToHost, s));
  cb_wait_stream(s);
  long long wrong = 0;
  double sum = 0.0, count = 0.0;
  for (int t = 0; t < NT; t++) {
    const double *e = h + 3 * (NT + t);
    const long long bad = (long long)e[2];
    wrong += bad;
    in->metric[CB_ATTN_ERR_MAX] = fmax(in->metric[CB_ATTN_ERR_MAX], e[1]);
    sum += e[0];
    for (int i = 0; i < nw; i++) count += (double)c->batch * (double)win[i].len * (double)row[t];
    if (bad)
      fprintf(
          stderr,
          "collbench: [rank %d] %s S=%llu causal=%d: %lld %s elements beyond %.3g (max error %.3g, naive %s %.3g)\n",
          x->w->mpi.rank, in->algo->name, (unsigned long long)x->S, x->causal, bad, tensor_name[t], tol[t], e[1],
          cb_dtype_name(x->dtype), h[3 * t + 1]);
  }
  in->metric[CB_ATTN_ERR_MEAN] = sum / (count > 0 ? count : 1.0);
  void *all[] = {u.qf,   u.df,     u.outf,       u.kvf,    u.of,     u.lsef,    u.deltaf,  u.deltaf_low, u.outw, u.ow,
                 u.lsew, u.deltaw, u.deltaw_low, u.dq_ref, u.dq_low, u.dkv_ref, u.dkv_low, u.scratch,    u.acc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CB_CUDA(cudaFree(all[i]));
  return wrong;
}
