/* --save DIR of ringattn (ringattn_save.c): the first check's tensors as .npy files, every rank's
 * shard put back in sequence order (the layout and the folder names: ringattn_save.c). */
#ifndef CB_RINGATTN_SAVE_H
#define CB_RINGATTN_SAVE_H

#include <stddef.h>

#include "ringattn_state.h"

/* Rank 0 writes q, k, v, out (float32, [batch][seq][heads][head_dim], sequence order) and lse
 * ([batch][heads][seq]) as .npy plus meta.json (with a backward also dout, dq, dk, dv);
 * collective over the world unless the state holds the full sequence (`single`: rank 0 alone).
 * Returns 0, or -1 with why. */
int cb_ra_save(const cb_inst_t *in, const cb_ra_t *x, char *why, size_t n);

#endif
