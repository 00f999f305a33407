/* A ring-attention row: the (scheme, block kernel) pair as one algorithm (ringattn_row.h). */
#include "ringattn_row.h"

#include <stdio.h>

#include "attn_variant.h"
#include "ringattn_pair.h"

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
  const int P = w->mpi.nranks;
  if (!scheme->ulysses && !cb_attn_variant_first(cb_attn_cfg(p), p->variant, P)) {
    snprintf(why, n, "not supported: no Ulysses degree (measured in the run's first --ulysses group)");
    return 0;
  }
  if (scheme->supported && !scheme->supported(w, p, why, n)) return 0;
  const int ring = scheme->full ? 1 : scheme->ulysses ? P / cb_attn_ulysses(p, P) : P;
  return !block->supported || block->supported(w, p, ring, why, n);
}

int cb_ra_row_setup(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, cb_inst_t *in, char *why,
                    size_t n) {
  const int P = in->world->mpi.nranks;
  cb_ra_part_t part = {.P = P, .r = in->world->mpi.rank, .stride = 1, .U = 1, .layout = cb_attn_layout(&in->p)};
  if (scheme->full) part.P = 1, part.r = 0;
  else if (scheme->ulysses) part.U = cb_attn_ulysses(&in->p, P);
  /* the row's U x R (the ulysses and ring columns) */
  in->metric[CB_ATTN_ULYSSES] = part.U;
  in->metric[CB_ATTN_RING] = part.P / part.U;
  return cb_ra_pair_make(scheme, block, in, &part, why, n);
}

void cb_ra_row_teardown(cb_inst_t *in) { cb_ra_pair_free(in); }
