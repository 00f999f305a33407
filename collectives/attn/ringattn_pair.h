/* One (scheme, block kernel) pair made into a state over a part of the ranks (ringattn_state.h
 * cb_ra_part_t): the shared state, then the block kernel's, then the scheme's; freed in the
 * reverse order. A registry row is such a pair over all ranks (ringattn_row.c); a Ulysses row's
 * inner ring is one over its group's members (ringattn_ulysses.c), so both are made alike. */
#ifndef CB_RINGATTN_PAIR_H
#define CB_RINGATTN_PAIR_H

#include <stddef.h>

#include "collective.h"
#include "ringattn_block_kernel.h"
#include "ringattn_scheme.h"

/* Returns 0 with in->priv the scheme's state (its cb_ra_t first) and the block kernel's note
 * appended to in->note, or -1 with why after freeing everything. A scheme with `ulysses` gets no
 * block-kernel state (its inner state has one). */
int cb_ra_pair_make(const cb_ra_scheme_t *scheme, const cb_ra_block_kernel_t *block, cb_inst_t *in,
                    const cb_ra_part_t *part, char *why, size_t n);
/* Frees what cb_ra_pair_make made; in->priv is NULL after. */
void cb_ra_pair_free(cb_inst_t *in);

#endif
