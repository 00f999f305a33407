/* A ring-attention scheme: how the ranks' K/V blocks (and, in the backward, the blocks' dK/dV
 * sums) move while the block kernel attends: a ring over peer memory, a ring over NCCL, an
 * all-gather, or one GPU alone. A scheme is one file, ringattn_<name>.c, defining
 * `const cb_ra_scheme_t cb_ra_scheme_<name>`, plus its line in ringattn_schemes.h; it never
 * names a block kernel (it launches through cb_ra_attend / cb_ra_bwd_attend,
 * ringattn_block_kernel.h), and the row (ringattn_row.c) runs it with either.
 *
 * Its state is a struct of its own, state_size bytes, whose first member is the row's cb_ra_t
 * (ringattn_state.h): zeroed, then the shared state and the block kernel's made before setup
 * runs; in->priv points to it. */
#ifndef CB_RINGATTN_SCHEME_H
#define CB_RINGATTN_SCHEME_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "collective.h"

typedef void (*cb_ra_hook_t)(cb_inst_t *in, cudaStream_t s);

typedef struct cb_ra_scheme {
  size_t state_size;
  int full; /* 1: every rank holds the whole sequence (`single`, P = 1); 0: S/P rows each */
  /* 1: the row's Ulysses degree U (attn_variant.h) groups its ranks, and the block kernel runs on
   * the scheme's inner state (its group's rows, its heads: ringattn_ulysses.h), so the row makes
   * no block-kernel state for the shard's; 0: U = 1, the block kernel on the shard's state */
  int ulysses;
  /* What it needs beyond every row's checks (cb_ra_supported, ringattn_row.h), before the
   * block kernel's. NULL: nothing. */
  int (*supported)(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
  /* After the shared state and the block kernel's: its own buffers, the pass's setup
   * (cb_ra_setup_pass, ringattn_pass.h), in->mem_bytes, in->sms where it reports one, and its
   * part of the row's note (the block kernel appends its own). Returns 0, or -1 with why; the
   * row then tears everything down. */
  int (*setup)(cb_inst_t *in, char *why, size_t n);
  /* Frees what setup made (after a partial setup too: its fields start zeroed). NULL: nothing. */
  void (*teardown)(cb_inst_t *in);
  /* The passes (ringattn_pass.c runs the row's), and, for the measurements (cb_ra_measure), each
   * pass's compute alone and communication alone. */
  cb_ra_hook_t forward, backward;
  cb_ra_hook_t fwd_compute, fwd_comm, bwd_compute, bwd_comm;
  /* The pass's local kernels alone (cb_ra_measure's local part); NULL: this rank's queries
   * against its own S/P block (cb_ra_pass_local). */
  cb_ra_hook_t local;
  /* After the check's forward, before --save: puts into the shard's state what --save reads
   * and the forward leaves elsewhere (a Ulysses row's log-sum-exp). NULL: nothing. */
  cb_ra_hook_t save_prepare;
} cb_ra_scheme_t;

#endif
