/* CPU test of the custom all-reduce planning (collectives/allreduce_plan.h): auto's pick at the
 * exact threshold bytes, the scaling with the rank count, the environment overrides and their
 * rejection, and twoshot_ce's chunking (whole 16-byte vectors, chunks covering the shard, never
 * more than CB_AR_CE_MAX_CHUNKS ready flags), and hier's pipeline chunks (whole vectors, covering
 * the message, about CB_AR_HIER_CHUNK_BYTES each, the CB_AR_HIER_CHUNKS knob and its rejection). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce_plan.h"
#include "cb_testing.h"

static const char *pick_at(int nranks, uint64_t bytes) {
  cb_ar_thresholds_t t;
  char why[200];
  if (cb_ar_thresholds(nranks, &t, why, sizeof why) < 0) return why[0] ? "error" : "error(no reason)";
  return cb_ar_auto_pick(&t, bytes);
}

static void check_pick(int nranks, uint64_t bytes, const char *want) {
  const char *got = pick_at(nranks, bytes);
  CHECK(strcmp(got, want) == 0, "%d ranks, %llu B: picked %s, want %s", nranks, (unsigned long long)bytes, got, want);
}

static void check_plan(size_t count, size_t es, int nranks, uint64_t chunk_bytes) {
  size_t C;
  int K;
  cb_ar_ce_plan(count, es, nranks, chunk_bytes, &C, &K);
  size_t shard = cb_ar_shard_elems(count, es, nranks), N = 16 / es;
  CHECK(shard * (size_t)nranks >= count && shard % N == 0, "shard %zu of %zu x %d", shard, count, nranks);
  CHECK(shard < N || (shard - N) * (size_t)nranks < count, "shard %zu is more than one vector too long", shard);
  CHECK(C > 0 && C % N == 0, "count %zu: chunk %zu elements is not whole 16-byte vectors", count, C);
  CHECK(K >= 0 && K <= CB_AR_CE_MAX_CHUNKS, "count %zu: %d chunks", count, K);
  CHECK((size_t)K * C >= shard && (K == 0 || (size_t)(K - 1) * C < shard), "count %zu: %d chunks of %zu miss %zu",
        count, K, C, shard);
  if (shard && (shard + chunk_bytes / es - 1) / (chunk_bytes / es) <= CB_AR_CE_MAX_CHUNKS)
    CHECK(C * es == chunk_bytes, "count %zu: chunk %zu B changed from %llu though it fits", count, C * es,
          (unsigned long long)chunk_bytes);
}

static void check_hier(size_t count, size_t es, int knob, int want_chunks) {
  size_t C = 0;
  int m = -1;
  cb_ar_hier_plan(count, es, knob, &C, &m);
  CHECK(C > 0 && C * es % 16 == 0, "count %zu x %zu B: chunk of %zu elements is not whole 16-byte vectors", count, es,
        C);
  CHECK((size_t)m * C >= count && (m == 0 || (size_t)(m - 1) * C < count), "count %zu: %d chunks of %zu", count, m, C);
  if (want_chunks >= 0) CHECK(m == want_chunks, "count %zu x %zu B: %d chunks, want %d", count, es, m, want_chunks);
}

int main(void) {
  unsetenv("CB_AR_HIER_CHUNKS");
  unsetenv("CB_AR_LL_MAX");
  unsetenv("CB_AR_ONESHOT_MAX");
  unsetenv("CB_AR_TWOSHOT_MAX");
  unsetenv("CB_AR_CE_CHUNK");

  /* 2 ranks: the measured values, inclusive upper bounds */
  check_pick(2, 8, "oneshot_ll");
  check_pick(2, CB_AUTO_LL_MAX_2RANKS, "oneshot_ll");
  check_pick(2, CB_AUTO_LL_MAX_2RANKS + 1, "oneshot");
  check_pick(2, CB_AUTO_ONESHOT_MAX_2RANKS, "oneshot");
  check_pick(2, CB_AUTO_ONESHOT_MAX_2RANKS + 1, "twoshot");
  check_pick(2, CB_AUTO_TWOSHOT_MAX_2RANKS, "twoshot");
  check_pick(2, CB_AUTO_TWOSHOT_MAX_2RANKS + 1, "twoshot_ce");
  check_pick(2, 8ull << 30, "twoshot_ce");
  /* 8 ranks: latency thresholds at a quarter, the copy-engine one unscaled; 1 rank as 2 */
  check_pick(8, CB_AUTO_LL_MAX_2RANKS / 4, "oneshot_ll");
  check_pick(8, CB_AUTO_LL_MAX_2RANKS / 4 + 1, "oneshot");
  check_pick(8, CB_AUTO_ONESHOT_MAX_2RANKS / 4 + 1, "twoshot");
  check_pick(8, CB_AUTO_TWOSHOT_MAX_2RANKS, "twoshot");
  check_pick(8, CB_AUTO_TWOSHOT_MAX_2RANKS + 1, "twoshot_ce");
  check_pick(1, CB_AUTO_LL_MAX_2RANKS, "oneshot_ll");
  check_pick(4, CB_AUTO_LL_MAX_2RANKS / 2 + 1, "oneshot");

  /* overrides: 0 turns a stage off, values are exact */
  setenv("CB_AR_LL_MAX", "0", 1);
  setenv("CB_AR_ONESHOT_MAX", "1024", 1);
  setenv("CB_AR_TWOSHOT_MAX", "4096", 1);
  check_pick(2, 8, "oneshot");
  check_pick(2, 1024, "oneshot");
  check_pick(2, 1025, "twoshot");
  check_pick(2, 4097, "twoshot_ce");
  const char *bad_knobs[] = {"CB_AR_LL_MAX", "CB_AR_ONESHOT_MAX", "CB_AR_TWOSHOT_MAX"};
  for (int k = 0; k < 3; k++) {
    setenv(bad_knobs[k], "12k", 1);
    cb_ar_thresholds_t t;
    char why[200] = "";
    CHECK(cb_ar_thresholds(2, &t, why, sizeof why) == -1, "%s=12k accepted", bad_knobs[k]);
    CHECK(strstr(why, bad_knobs[k]) && strstr(why, "12k"), "%s=12k: reason '%s' names neither", bad_knobs[k], why);
    setenv(bad_knobs[k], "64", 1);
  }
  unsetenv("CB_AR_LL_MAX");
  unsetenv("CB_AR_ONESHOT_MAX");
  unsetenv("CB_AR_TWOSHOT_MAX");

  /* chunk knob */
  uint64_t chunk = 0;
  char why[200] = "";
  CHECK(cb_ar_ce_chunk_bytes(&chunk, why, sizeof why) == 0 && chunk == CB_AR_CE_CHUNK_BYTES, "default chunk %llu",
        (unsigned long long)chunk);
  setenv("CB_AR_CE_CHUNK", "1048576", 1);
  CHECK(cb_ar_ce_chunk_bytes(&chunk, why, sizeof why) == 0 && chunk == 1048576, "1 MiB chunk: %llu",
        (unsigned long long)chunk);
  const char *bad_chunks[] = {"1000", "8", "0", "-16", "abc", "16M"};
  for (size_t i = 0; i < sizeof bad_chunks / sizeof bad_chunks[0]; i++) {
    setenv("CB_AR_CE_CHUNK", bad_chunks[i], 1);
    why[0] = 0;
    CHECK(cb_ar_ce_chunk_bytes(&chunk, why, sizeof why) == -1, "CB_AR_CE_CHUNK=%s accepted", bad_chunks[i]);
    CHECK(strstr(why, "CB_AR_CE_CHUNK") && strstr(why, bad_chunks[i]), "CB_AR_CE_CHUNK=%s: reason '%s'", bad_chunks[i],
          why);
  }
  unsetenv("CB_AR_CE_CHUNK");

  /* chunk plans: odd counts, every element size, rank counts 1..8, tiny to 8 GiB */
  const size_t counts[] = {0, 1, 3, 4, 5, 1026, 65540, 1u << 20, (1u << 20) + 7, 268435456, 2147483648ull + 3};
  const size_t sizes[] = {4, 2, 1};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
    for (size_t s = 0; s < 3; s++)
      for (int n = 1; n <= 8; n++) {
        check_plan(counts[c], sizes[s], n, CB_AR_CE_CHUNK_BYTES);
        check_plan(counts[c], sizes[s], n, 16);
        check_plan(counts[c], sizes[s], n, 1u << 20);
      }
  /* a plan that must grow the chunk: 8 GiB of float over 2 ranks in 16-byte chunks */
  size_t C;
  int K;
  cb_ar_ce_plan(2147483648ull, 4, 2, 16, &C, &K);
  CHECK(K == CB_AR_CE_MAX_CHUNKS && C == 2097152, "8 GiB / 2 ranks / 16 B chunks: %d chunks of %zu", K, C);

  /* hier: one chunk up to 2 MiB, then one per 2 MiB up to 16; odd counts keep whole vectors */
  check_hier(0, 4, 0, 0);
  check_hier(1, 2, 0, 1);
  check_hier((32u << 20) / 4, 4, 0, 1);
  check_hier((32u << 20) / 4 + 1, 4, 0, 2);
  check_hier((16u << 20) / 2, 2, 0, 1);
  check_hier((256u << 20) / 2, 2, 0, 8);
  check_hier((1u << 30) + 3, 1, 0, CB_AR_HIER_MAX_CHUNKS);
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
    for (size_t s = 0; s < 3; s++) check_hier(counts[c], sizes[s], 0, -1);
  check_hier(1000003, 4, 3, 3);
  check_hier(5, 1, 3, 1); /* 5 bytes: one 16-byte vector, one chunk whatever the knob */
  int knob = -1;
  why[0] = 0;
  setenv("CB_AR_HIER_CHUNKS", "3", 1);
  CHECK(cb_ar_hier_chunks_knob(&knob, why, sizeof why) == 0 && knob == 3, "CB_AR_HIER_CHUNKS=3 read as %d", knob);
  unsetenv("CB_AR_HIER_CHUNKS");
  CHECK(cb_ar_hier_chunks_knob(&knob, why, sizeof why) == 0 && knob == 0, "unset CB_AR_HIER_CHUNKS read as %d", knob);
  const char *bad_hier[] = {"0", "17", "x", "-1"};
  for (int i = 0; i < 4; i++) {
    setenv("CB_AR_HIER_CHUNKS", bad_hier[i], 1);
    why[0] = 0;
    CHECK(cb_ar_hier_chunks_knob(&knob, why, sizeof why) < 0 && strstr(why, "CB_AR_HIER_CHUNKS"),
          "CB_AR_HIER_CHUNKS=%s accepted (%s)", bad_hier[i], why);
  }
  unsetenv("CB_AR_HIER_CHUNKS");
  return cb_test_finish("test_allreduce_plan");
}
