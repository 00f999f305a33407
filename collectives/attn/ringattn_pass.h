/* The pass of a ring-attention row (--pass fwd | bwd | both, attn_config.h), dispatched in this
 * one place: the row's run() (the scheme's forward, backward, or both), its check() (the
 * forward's check for every pass, the backward's where the pass has one, then --save), its
 * measure() (each part of the pass alone) and the setup every scheme makes for its pass (the
 * FLOPs, the backward's buffers). */
#ifndef CB_RINGATTN_PASS_H
#define CB_RINGATTN_PASS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "collective.h"
#include "ringattn_state.h"

/* run() of every ringattn row. */
void cb_ra_run(cb_inst_t *in, int phase, cudaStream_t s);

/* check() of every ringattn row (ringattn_check.h): sets in->metric[CB_ATTN_ERR_MAX, ERR_MEAN]
 * (attn_family.h) for the pass's columns (the output's for fwd, the gradients' for bwd, over
 * both for both); with --save, the first check's tensors are written. Returns the elements
 * beyond the tolerance. */
long long cb_ra_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter);

/* measure() of the ring forms: compute alone (the pass's attention launches), then, behind a
 * barrier, communication alone (skipped on one rank), then the pass's local kernels alone on
 * one S/P block (or the scheme's `local`); into in->metric[CB_ATTN_COMPUTE_US, COMM_US, LOCAL_US]
 * (attn_family.h). */
void cb_ra_measure(cb_inst_t *in, cudaStream_t s);

/* The pass's local kernels on this rank's queries against its own block with contiguous
 * positions 0..rows-1 (a plain causal or non-causal block of the state's rows). */
void cb_ra_pass_local(cb_inst_t *in, cudaStream_t s);

/* The setup steps every scheme makes after its own allocations: the row's FLOPs (this rank's
 * share: the whole problem / ranks, times the pass's factor; a scheme with `full`: the whole
 * problem) and, for a pass with a backward, the backward's buffers (cb_ra_bwd_init: home and
 * parts as there). Returns 0, or -1 with why. */
int cb_ra_setup_pass(cb_ra_t *x, cb_inst_t *in, float *home, int parts, char *why, size_t n);

#endif
