/* ringattn `single`: the P = 1 reference, the block kernel alone over the whole sequence (every
 * query against every key, one launch) with the same inputs the ring forms shard. Every rank
 * runs it on its own GPU at the same time (no communication), so its row is the single-GPU
 * time; its TFLOP/s counts the whole problem on one GPU. */
#include <stdio.h>

#include "ringattn_block_kernel.h"
#include "ringattn_bwd.h"
#include "ringattn_pass.h"
#include "ringattn_scheme.h"

static int single_setup(cb_inst_t *in, char *why, size_t n) {
  cb_ra_t *x = in->priv;
  if (cb_ra_setup_pass(x, in, NULL, 0, why, n)) return -1;
  in->mem_bytes = x->mem;
  in->p.bytes = 0; /* nothing crosses a link */
  snprintf(in->note, sizeof in->note, "one GPU, whole sequence");
  return 0;
}

static void single_fwd(cb_inst_t *in, cudaStream_t s) {
  const cb_ra_t *x = in->priv;
  cb_ra_attend(x, x->kv, cb_ra_pos(x->runs), 1, 1, s);
}

const cb_ra_scheme_t cb_ra_scheme_single = {
    .state_size = sizeof(cb_ra_t),
    .full = 1,
    .setup = single_setup,
    .forward = single_fwd,
    .backward = cb_ra_bwd_single,
};
