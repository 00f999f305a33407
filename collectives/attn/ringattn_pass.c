/* The pass dispatch of every ring-attention row (ringattn_pass.h). */
#include "ringattn_pass.h"

#include <math.h>
#include <stdio.h>

#include "error_gpu.h"
#include "ringattn_block_kernel.h"
#include "ringattn_bwd.h"
#include "ringattn_check.h"
#include "ringattn_save.h"
#include "ringattn_scheme.h"

void cb_ra_run(cb_inst_t *in, int phase, cudaStream_t s) {
  (void)phase;
  cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) x->scheme->forward(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) x->scheme->backward(in, s);
}

long long cb_ra_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  cb_ra_t *x = in->priv;
  const uint64_t sd = cb_ra_check_seed(seed, iter);
  double err[2];
  long long wrong = cb_ra_fwd_check(in, s, sd, err); /* every pass: the backward starts from its out and lse */
  /* the error columns: the output's (fwd), the gradients' (bwd), or over both (both) */
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) {
    in->metric[CB_ATTN_ERR_MAX] = fmax(in->metric[CB_ATTN_ERR_MAX], err[0]);
    in->metric[CB_ATTN_ERR_MEAN] = err[1];
  }
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) wrong += cb_ra_bwd_check(in, s, sd);
  if (iter == 0 && x->cfg->save_dir[0]) {
    char why[512];
    if (x->scheme->save_prepare) x->scheme->save_prepare(in, s);
    if (cb_ra_save(in, x, why, sizeof why)) CB_DIE(CB_EXIT_RUNTIME, "--save: %s", why);
  }
  return wrong;
}

int cb_ra_setup_pass(cb_ra_t *x, cb_inst_t *in, float *home, int parts, char *why, size_t n) {
  in->metric[CB_ATTN_FLOPS] = cb_attn_flops(x->cfg, cb_attn_seq(&in->p), cb_attn_causal(&in->p)) *
                              cb_attn_pass_flops_factor(x->pass) / (x->scheme->full ? 1 : in->world->mpi.nranks);
  if (!CB_ATTN_PASS_HAS_BWD(x->pass)) return 0;
  return cb_ra_bwd_init(x, in, home, parts, why, n);
}

/* ---- timing of parts alone ---------------------------------------------------------------- */

/* Mean time in us of `reps` calls of fn on s (CUDA events; one warm-up call first). */
static double time_us(cudaStream_t s, int reps, void (*fn)(cb_inst_t *in, cudaStream_t s), cb_inst_t *in) {
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
  cb_attn_pos_t contiguous = {0, x->rows, x->rows, 0};
  x->block->forward(x, contiguous, x->kv, contiguous, 1, 1, s);
}

/* The pass's parts (cb_ra_measure): its hooks (or local kernels) one after the other. */
static void pass_compute(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) x->scheme->fwd_compute(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) x->scheme->bwd_compute(in, s);
}
static void pass_comm(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) x->scheme->fwd_comm(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) x->scheme->bwd_comm(in, s);
}
void cb_ra_pass_local(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  if (CB_ATTN_PASS_HAS_FWD(x->pass)) local_block(in, s);
  if (CB_ATTN_PASS_HAS_BWD(x->pass)) cb_ra_bwd_local(in, s);
}
static void pass_local(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  (x->scheme->local ? x->scheme->local : cb_ra_pass_local)(in, s);
}

void cb_ra_measure(cb_inst_t *in, cudaStream_t s) {
  in->metric[CB_ATTN_COMPUTE_US] = time_us(s, 3, pass_compute, in);
  cb_wait_stream(s);
  cb_mpi_barrier(in->world->mpi.comm);
  in->metric[CB_ATTN_COMM_US] = in->world->mpi.nranks > 1 ? time_us(s, 3, pass_comm, in) : 0.0;
  cb_wait_stream(s);
  cb_mpi_barrier(in->world->mpi.comm);
  in->metric[CB_ATTN_LOCAL_US] = time_us(s, 5, pass_local, in);
}
