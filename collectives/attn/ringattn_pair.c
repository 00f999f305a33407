/* A (scheme, block kernel) pair made over a part of the ranks (ringattn_pair.h). */
#include "ringattn_pair.h"

#include <stdlib.h>

#include "error_gpu.h"
#include "ringattn_bwd.h"

int cb_ra_pair_make(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, cb_inst_t *in,
                    const cb_ra_part_t *part, char *why, size_t n) {
  cb_ra_t *x = calloc(1, scheme->state_size); /* the scheme's state: its cb_ra_t first */
  if (!x) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_ra_init(x, in, part, why, n)) {
    free(x);
    return -1;
  }
  x->scheme = scheme;
  x->block = block;
  in->priv = x;
  if ((!scheme->ulysses && block->init && block->init(x, why, n)) || scheme->setup(in, why, n)) {
    cb_ra_pair_free(in);
    return -1;
  }
  block->note(x, in->note, sizeof in->note);
  return 0;
}

void cb_ra_pair_free(cb_inst_t *in) {
  cb_ra_t *x = in->priv;
  if (x->scheme->teardown) x->scheme->teardown(in);
  cb_ra_bwd_free(x);
  if (x->block->free) x->block->free(x);
  cb_ra_free(x);
  free(x);
  in->priv = NULL;
}
