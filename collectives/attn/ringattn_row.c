/* A ring-attention row: the (scheme, block kernel) pair as one algorithm (ringattn_row.h). */
#include "ringattn_row.h"

#include <stdio.h>
#include <stdlib.h>

#include "error_gpu.h"
#include "ringattn_bwd.h"

int cb_ra_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (cb_attn_config_check(cb_attn_cfg(p), p->dtype, why, n)) return 0;
  if (w->mpi.nranks > CB_RA_MAX_STEPS) {
    snprintf(why, n, "not supported: %d ranks (ring attention runs up to %d)", w->mpi.nranks, CB_RA_MAX_STEPS);
    return 0;
  }
  return 1;
}

int cb_ra_row_supported(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, const cb_world_t *w,
                        const cb_params_t *p, char *why, size_t n) {
  if (!cb_ra_supported(w, p, why, n)) return 0;
  if (scheme->supported && !scheme->supported(w, p, why, n)) return 0;
  return !block->supported || block->supported(w, p, scheme->full ? 1 : w->mpi.nranks, why, n);
}

int cb_ra_row_setup(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, cb_inst_t *in, char *why,
                    size_t n) {
  cb_ra_t *x = calloc(1, scheme->state_size); /* the scheme's state: its cb_ra_t first */
  if (!x) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_ra_init(x, in, scheme->full, why, n)) {
    free(x);
    return -1;
  }
  x->scheme = scheme;
  x->block = block;
  in->priv = x;
  if ((block->init && block->init(x, why, n)) || scheme->setup(in, why, n)) {
    cb_ra_row_teardown(in);
    return -1;
  }
  block->note(x, in->note, sizeof in->note);
  return 0;
}

void cb_ra_row_teardown(cb_inst_t *in) {
  cb_ra_t *x = in->priv;
  if (x->scheme->teardown) x->scheme->teardown(in);
  cb_ra_bwd_free(x);
  if (x->block->free) x->block->free(x);
  cb_ra_free(x);
  free(x);
  in->priv = NULL;
}
