/* The launches through the row's block kernel (ringattn_block_kernel.h): the one place a scheme's
 * step reaches a kernel, whichever entry of the table the row holds. */
#include "ringattn_block_kernel.h"

#include <stdio.h>
#include <string.h>

void cb_ra_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, int first, int final, cudaStream_t s) {
  cb_attn_pos_t qpos = cb_ra_pos(x->runs);
  cb_ra_block_pos(x, &qpos, &kvpos);
  x->block->forward(x, qpos, kv, kvpos, first, final, s);
}

void cb_ra_bwd_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, float *dkv, cudaStream_t s) {
  cb_attn_pos_t qpos = cb_ra_pos(x->runs);
  cb_ra_block_pos(x, &qpos, &kvpos);
  x->block->backward(x, qpos, kv, kvpos, dkv, s);
}

void cb_ra_note_append(char *note, size_t n, const char *text) {
  const size_t len = strlen(note);
  snprintf(note + len, n > len ? n - len : 0, "%s%s", len ? "; " : "", text);
}
