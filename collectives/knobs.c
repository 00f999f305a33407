/* Implementation of knobs.h: one reader per knob, all called at start. */
#include "knobs.h"

#include <string.h>

#include "env.h"
#include "signal.h"

int cb_knobs_read(cb_knobs_t *k, int nranks, char *why, size_t n) {
  memset(k, 0, sizeof *k);
  uint64_t v = 0;
  if (cb_env_u64("CB_MAX_BLOCKS", 1, CB_SIGNAL_MAX_BLOCKS, &v, why, n) < 0) return -1;
  k->max_blocks = (int)v;
  v = 0;
  if (cb_env_u64("CB_SM_COUNT", 1, 1u << 16, &v, why, n) < 0) return -1;
  k->sm_count = (int)v;
  if (cb_ar_thresholds(nranks, &k->ar, why, n) < 0) return -1;
  if (cb_ar_ce_chunk_bytes(&k->ar_ce_chunk, why, n) < 0) return -1;
  if (cb_ar_hier_chunks_knob(&k->ar_hier_chunks, why, n) < 0) return -1;
  return 0;
}
