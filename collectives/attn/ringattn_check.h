/* The checks of a ring-attention row against the fp32 reference (kernels/attn/attn.h, attn_bwd.h):
 * the forward's output (ringattn_check.c) and the backward's dQ, dK, dV (ringattn_bwd_check.c),
 * on fresh inputs for (seed, iter) with poisoned outputs, all of this rank's rows of a short
 * problem, else windows at the start and end of every run (where the zigzag masks change; a
 * stripe run's windows are its first and last rows, at stride R). The
 * pass dispatch (ringattn_pass.c) runs the forward's check for every pass (the backward starts
 * from its out and lse), then the backward's where the pass has one.
 *
 * Every check's bound (bf16/fp16, issue 12): max abs error <= 2 x the max error of a naive
 * low-precision computation of the same rows, measured in the same check; the 1e-6 floor keeps a
 * degenerate problem (all-equal scores) from demanding exactness. */
#ifndef CB_RINGATTN_CHECK_H
#define CB_RINGATTN_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "ringattn_state.h"

#define CB_RA_TOLERANCE(naive_err) ((float)(2.0 * (naive_err) + 1e-6))

/* Windows of this rank's rows the checks compare (all rows of a short problem, else
 * CB_RA_CHECK_WINDOW_ROWS at the start and end of each run): row0/len in the shard, pos their
 * global positions. Returns how many (<= CB_RA_CHECK_MAX_WINDOWS). */
#define CB_RA_CHECK_WINDOW_ROWS 32
#define CB_RA_CHECK_MAX_WINDOWS 4
typedef struct cb_ra_window {
  int64_t row0, len;
  cb_attn_pos_t pos;
} cb_ra_window_t;
int cb_ra_check_windows(const cb_ra_t *x, cb_ra_window_t *w);
/* 1 when the reference kernels may read the whole sequence against itself (short problems). */
int cb_ra_check_all(uint64_t rows, uint64_t S);
/* The check's inputs of (seed, iter). */
uint64_t cb_ra_check_seed(uint64_t seed, int iter);

/* The forward's check: inputs from sd (cb_ra_check_seed), poisoned output, the scheme's forward,
 * then the output against the reference. err[0] = max abs error, err[1] = mean abs error of the
 * compared elements. Returns the number of elements beyond the tolerance. */
long long cb_ra_fwd_check(cb_inst_t *in, cudaStream_t s, uint64_t sd, double err[2]);

/* The backward's check (ringattn_bwd_check.c): after a checked forward of the same inputs, fresh
 * dout, poisoned gradients, the scheme's backward, then dq, dk, dv against the fp32 reference
 * (cb_attn_bwd_reference). Adds to in->metric[CB_ATTN_ERR_MAX], sets [CB_ATTN_ERR_MEAN]
 * (attn_family.h); returns the wrong elements. */
long long cb_ra_bwd_check(cb_inst_t *in, cudaStream_t s, uint64_t sd);

#endif
