/* A ring-attention row: one scheme (ringattn_scheme.h) with one block kernel
 * (ringattn_block_kernel.h), as the registry lists it (ringattn_rows.c makes one cb_algo_t per
 * pair). Here the pair becomes one algorithm: its supported() is every row's checks, then the
 * scheme's, then the block kernel's; its setup() makes the shared state, then the block
 * kernel's, then the scheme's, and its teardown() frees them in the reverse order. */
#ifndef CB_RINGATTN_ROW_H
#define CB_RINGATTN_ROW_H

#include <stddef.h>

#include "collective.h"
#include "ringattn_block_kernel.h"
#include "ringattn_scheme.h"

/* The checks every ringattn row makes: shape and dtype (cb_attn_config_check), the rank limit. */
int cb_ra_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);

/* Every row's checks; a row without a Ulysses degree outside the run's first Ulysses group
 * (attn_variant.h: it runs there only); the scheme's; the block kernel's for the ring it sees
 * (one member for `single`, the P/U groups of a Ulysses row, else P ranks). */
int cb_ra_row_supported(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, const cb_world_t *w,
                        const cb_params_t *p, char *why, size_t n);
/* The pair over every rank (ringattn_pair.h), the sequence in the variant's layout, in groups of
 * the variant's Ulysses degree for a scheme with `ulysses`. Returns 0 with in->priv the scheme's
 * state, or -1 with why after freeing everything. */
int cb_ra_row_setup(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, cb_inst_t *in, char *why,
                    size_t n);
/* teardown() of every ringattn row. */
void cb_ra_row_teardown(cb_inst_t *in);

#endif
