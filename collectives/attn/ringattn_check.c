/* The forward's check (ringattn_check.h) and the windows both checks compare. */
#include "ringattn_check.h"

#include <math.h>
#include <stdio.h>

#include "attn_util.h"
#include "error_gpu.h"
#include "ringattn_scheme.h"

/* Checks on all rows while rows * S stays below this (the reference kernel reads every key for
 * every query row: cost ~ rows * S * heads * head_dim * 4 bytes); beyond it, windows. */
#define CHECK_ALL_ROWS_MAX (1ull << 22)
#define CHECK_WINDOW_ROWS CB_RA_CHECK_WINDOW_ROWS
#define CHECK_MAX_WINDOWS CB_RA_CHECK_MAX_WINDOWS

int cb_ra_check_all(uint64_t rows, uint64_t S) { return rows * S <= CHECK_ALL_ROWS_MAX; }

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
      const int64_t st = x->runs.stride > 1 ? x->runs.stride : 1;
      w[nw].pos.start0 = run_pos[r] + offs[e] * st;
      w[nw].pos.len0 = len;
      w[nw].pos.start1 = w[nw].pos.start0 + len * st;
      w[nw].pos.stride = x->runs.stride;
      nw++;
    }
  }
  return nw;
}

uint64_t cb_ra_check_seed(uint64_t seed, int iter) {
  return seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull * (uint64_t)(iter + 1);
}

long long cb_ra_fwd_check(cb_inst_t *in, cudaStream_t s, uint64_t sd, double err[2]) {
  cb_ra_t *x = in->priv;
  const cb_attn_config_t *c = x->cfg;
  cb_ra_fill(x, sd, s);
  CB_CUDA(cudaMemsetAsync(x->out, 0xff, x->q_elems * x->elem, s)); /* NaN in bf16 and fp16 */
  x->scheme->forward(in, s);

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
  cb_attn_pos_t natural = {0, (int64_t)x->S, (int64_t)x->S, 0};
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
  err[0] = h[1];
  err[1] = h[0] / (double)(ref_elems ? ref_elems : 1);
  return wrong;
}
