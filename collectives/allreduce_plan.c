/* Implementation of allreduce_plan.h. */
#include "allreduce_plan.h"

#include "cb_limits.h"

#include <stdio.h>

#include "env.h"

int cb_ar_thresholds(int nranks, cb_ar_thresholds_t *t, char *why, size_t n) {
  uint64_t scale = (uint64_t)(nranks > 1 ? nranks : 2);
  t->ll_max = CB_AUTO_LL_MAX_2RANKS * 2 / scale;
  t->oneshot_max = CB_AUTO_ONESHOT_MAX_2RANKS * 2 / scale;
  t->twoshot_max = CB_AUTO_TWOSHOT_MAX_2RANKS;
  if (cb_env_u64("CB_AR_LL_MAX", 0, UINT64_MAX, &t->ll_max, why, n) < 0) return -1;
  if (cb_env_u64("CB_AR_ONESHOT_MAX", 0, UINT64_MAX, &t->oneshot_max, why, n) < 0) return -1;
  if (cb_env_u64("CB_AR_TWOSHOT_MAX", 0, UINT64_MAX, &t->twoshot_max, why, n) < 0) return -1;
  return 0;
}

const char *cb_ar_auto_pick(const cb_ar_thresholds_t *t, uint64_t bytes) {
  if (bytes <= t->ll_max) return "oneshot_ll";
  if (bytes <= t->oneshot_max) return "oneshot";
  if (bytes <= t->twoshot_max) return "twoshot";
  return "twoshot_ce";
}

int cb_ar_ce_chunk_bytes(uint64_t *bytes, char *why, size_t n) {
  *bytes = CB_AR_CE_CHUNK_BYTES;
  if (cb_env_u64("CB_AR_CE_CHUNK", 16, 1ull << 40, bytes, why, n) < 0) return -1;
  if (*bytes % 16) {
    snprintf(why, n, "CB_AR_CE_CHUNK=%llu: must be a multiple of 16 bytes", (unsigned long long)*bytes);
    return -1;
  }
  return 0;
}

void cb_ar_ce_plan(size_t count, size_t elem_bytes, int nranks, uint64_t chunk_bytes, size_t *chunk_elems,
                   int *chunks) {
  size_t N = 16 / elem_bytes, shard = cb_ar_shard_elems(count, elem_bytes, nranks);
  size_t C = (size_t)(chunk_bytes / elem_bytes);
  if (shard > 0 && (shard + C - 1) / C > CB_AR_CE_MAX_CHUNKS)
    C = ((shard + CB_AR_CE_MAX_CHUNKS - 1) / CB_AR_CE_MAX_CHUNKS + N - 1) / N * N;
  *chunk_elems = C;
  *chunks = shard ? (int)((shard + C - 1) / C) : 0;
}

int cb_ar_hier_chunks_knob(int *chunks, char *why, size_t n) {
  uint64_t v = 0;
  if (cb_env_u64("CB_AR_HIER_CHUNKS", 1, CB_AR_HIER_MAX_CHUNKS, &v, why, n) < 0) return -1;
  *chunks = (int)v;
  return 0;
}

void cb_ar_hier_plan(size_t count, size_t elem_bytes, int knob, size_t *chunk_elems, int *chunks) {
  size_t N = 16 / elem_bytes, bytes = count * elem_bytes;
  uint64_t want = (bytes + CB_AR_HIER_CHUNK_BYTES - 1) / CB_AR_HIER_CHUNK_BYTES;
  if (want < 1) want = 1;
  if (want > CB_AR_HIER_MAX_CHUNKS) want = CB_AR_HIER_MAX_CHUNKS;
  if (knob > 0) want = (uint64_t)knob;
  size_t C = (count + want - 1) / want;
  C = CB_ALIGN_UP(C, N);
  if (C == 0) C = N;
  *chunk_elems = C;
  *chunks = (int)((count + C - 1) / C);
}
