/* CPU test of the split of a block pair into calls with cuDNN's masks (collectives/attn/attn_split.c):
 *   - every (rank, source) pair of the zigzag ring for P = 1..8 and chunk lengths 1..5, causal
 *     and not, every first/final combination: each (query row, key row) pair is covered by
 *     exactly one call when the key is visible (causal: key position <= query position) and by
 *     none otherwise; a diagonal call has the same positions on both sides; every query row's
 *     merges carry first on the first and final on the last; rows without keys get a call only
 *     when first or final; at most CB_ATTN_MAX_CALLS calls;
 *   - how many calls the ring's steps take (1 or 3: the coalescing works);
 *   - one run against one run at every offset (the cut diagonal: a full part, a causal square,
 *     a full rest) and the stripe ring's pairs made dense (attn_layout.h cb_attn_block_pair);
 *   - random one- and two-run blocks: a split either covers exactly the visible pairs or fails
 *     with "not supported: cuDNN has no mask", and the failures are exactly the pairs that are
 *     partly visible without being diagonal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_config.h"
#include "attn_layout.h"
#include "attn_split.h"
#include "cb_testing.h"

static int64_t pos_at(cb_attn_runs_t r, int64_t i) { return i < r.len0 ? r.start0 + i : r.start1 + (i - r.len0); }

/* Which calls cover (query row i, key row j). */
static int coverage(const cb_attn_call_t *c, int nc, int64_t i, int64_t j) {
  int k = 0;
  for (int x = 0; x < nc; x++) {
    if (!c[x].kv_len || i < c[x].q_row0 || i >= c[x].q_row0 + c[x].q_len || j < c[x].kv_row0 ||
        j >= c[x].kv_row0 + c[x].kv_len)
      continue;
    if (c[x].causal && j - c[x].kv_row0 > i - c[x].q_row0) continue;
    k++;
  }
  return k;
}

/* Checks calls against the truth; returns the number of failed checks so callers can stop. */
static int check_calls(const char *what, cb_attn_runs_t q, int64_t qn, cb_attn_runs_t kv, int64_t kn, int causal,
                       int first, int final, const cb_attn_call_t *c, int nc) {
  const int before = cb_test_failures;
  CHECK(nc >= 0 && nc <= CB_ATTN_MAX_CALLS, "%s: %d calls", what, nc);
  for (int x = 0; x < nc; x++) {
    CHECK(c[x].q_row0 >= 0 && c[x].q_len > 0 && c[x].q_row0 + c[x].q_len <= qn, "%s: call %d query rows", what, x);
    CHECK(c[x].kv_row0 >= 0 && c[x].kv_len >= 0 && c[x].kv_row0 + c[x].kv_len <= kn, "%s: call %d key rows", what, x);
    if (c[x].causal) {
      CHECK(c[x].q_len == c[x].kv_len, "%s: diagonal call %d not square", what, x);
      for (int64_t t = 0; t < c[x].q_len; t++)
        CHECK(pos_at(q, c[x].q_row0 + t) == pos_at(kv, c[x].kv_row0 + t), "%s: diagonal call %d off the diagonal", what,
              x);
    }
  }
  for (int64_t i = 0; i < qn && cb_test_failures == before; i++) {
    for (int64_t j = 0; j < kn; j++) {
      const int visible = !causal || pos_at(kv, j) <= pos_at(q, i);
      const int k = coverage(c, nc, i, j);
      CHECK(k == visible, "%s: query row %lld key row %lld covered %d times (visible %d)", what, (long long)i,
            (long long)j, k, visible);
    }
    /* the merges of row i in call order: first on the first, final on the last */
    int touches = 0, firsts = 0, finals = 0, first_at = -1, final_at = -1, last = -1, start = -1;
    for (int x = 0; x < nc; x++) {
      if (i < c[x].q_row0 || i >= c[x].q_row0 + c[x].q_len) continue;
      if (start < 0) start = x;
      last = x;
      touches++;
      if (c[x].first) firsts++, first_at = x;
      if (c[x].final) finals++, final_at = x;
    }
    CHECK_EQ_INT(firsts, first && touches ? 1 : 0);
    CHECK_EQ_INT(finals, final && touches ? 1 : 0);
    if (first)
      CHECK(first_at == start, "%s: row %lld: first on call %d, not on its first %d", what, (long long)i, first_at,
            start);
    if (final)
      CHECK(final_at == last, "%s: row %lld: final on call %d, not on its last %d", what, (long long)i, final_at, last);
    if (first || final) CHECK(touches > 0, "%s: row %lld untouched in a first/final step", what, (long long)i);
  }
  for (int x = 0; x < nc; x++)
    if (!c[x].kv_len) CHECK(c[x].first || c[x].final, "%s: call %d without keys and without a flag", what, x);
  return cb_test_failures - before;
}

static void test_ring(void) {
  cb_attn_call_t c[CB_ATTN_MAX_CALLS];
  char why[256], what[128];
  int bad = 0;
  for (int P = 1; P <= 8 && !bad; P++)
    for (int chunk = 1; chunk <= 5 && !bad; chunk++)
      for (int causal = 0; causal <= 1; causal++) {
        const uint64_t S = (uint64_t)chunk * 2 * P;
        const int64_t rows = (int64_t)(S / P);
        for (int r = 0; r < P; r++)
          for (int src = 0; src < P; src++)
            for (int fl = 0; fl < 4; fl++) {
              cb_attn_runs_t q = cb_attn_shard(S, P, r, causal), kv = cb_attn_shard(S, P, src, causal);
              snprintf(what, sizeof what, "P %d chunk %d causal %d rank %d src %d flags %d", P, chunk, causal, r, src,
                       fl);
              int nc = cb_attn_split(q, rows, kv, rows, causal, fl & 1, fl >> 1, c, why, sizeof why);
              CHECK(nc >= 0, "%s: %s", what, why);
              if (nc < 0 || check_calls(what, q, rows, kv, rows, causal, fl & 1, fl >> 1, c, nc)) {
                bad = 1;
                continue;
              }
              /* calls with keys: one non-causal; causal: the own block 3 (own chunks, the late
               * chunk against the early one) unless its chunks are adjacent (rank P - 1 holds
               * chunks P - 1 and P: one diagonal; chunks of 1 row: the late chunk's diagonal
               * is a full 1 x 1 pair that joins its other call, 2), another block 1 */
              int keyed = 0;
              for (int x = 0; x < nc; x++) keyed += c[x].kv_len > 0;
              const int want = causal && src == r && r != P - 1 ? (chunk > 1 ? 3 : 2) : 1;
              CHECK(keyed == want, "%s: %d calls with keys, expected %d", what, keyed, want);
            }
      }
}

static void test_plain(void) {
  cb_attn_call_t c[CB_ATTN_MAX_CALLS];
  char why[256];
  /* the P = 1 reference: one causal call over everything (single_cudnn writes out directly) */
  cb_attn_runs_t all = {0, 1000, 1000, 0, 0};
  int nc = cb_attn_split(all, 1000, all, 1000, 1, 1, 1, c, why, sizeof why);
  CHECK_EQ_INT(nc, 1);
  CHECK(nc == 1 && c[0].causal && c[0].q_len == 1000 && c[0].kv_len == 1000 && c[0].first && c[0].final, "single");
  /* two adjacent runs are one run */
  cb_attn_runs_t two = {0, 400, 400, 600, 0};
  nc = cb_attn_split(two, 1000, two, 1000, 1, 0, 0, c, why, sizeof why);
  CHECK(nc == 1 && c[0].causal && c[0].q_len == 1000, "adjacent runs: %d calls", nc);
  /* joining would hide the diagonal here: the runs as given, 2 calls */
  cb_attn_runs_t q2 = {0, 2, 2, 2, 0}, k2 = {0, 2, 2, 0, 0};
  nc = cb_attn_split(q2, 4, k2, 2, 1, 1, 1, c, why, sizeof why);
  CHECK(nc == 2 && c[0].causal && !c[1].causal, "unjoined: %d calls (%s)", nc, nc < 0 ? why : "");
  /* a middle step sees nothing: no call at all; a final one still writes out */
  cb_attn_runs_t early = {0, 10, 10, 0, 0}, late = {100, 10, 110, 0, 0};
  nc = cb_attn_split(early, 10, late, 10, 1, 0, 0, c, why, sizeof why);
  CHECK_EQ_INT(nc, 0);
  nc = cb_attn_split(early, 10, late, 10, 1, 0, 1, c, why, sizeof why);
  CHECK(nc == 1 && c[0].kv_len == 0 && c[0].final && !c[0].first, "final without keys");
  /* one run against one run with the diagonal cut (keys 5 ahead): a causal square of 5 after
   * 5 query rows that see nothing */
  cb_attn_runs_t q = {0, 10, 10, 0, 0}, kv = {5, 10, 15, 0, 0};
  nc = cb_attn_split(q, 10, kv, 10, 1, 1, 1, c, why, sizeof why);
  CHECK(nc == 2 && c[0].kv_len == 0 && c[0].q_len == 5 && c[1].causal && c[1].q_row0 == 5 && c[1].q_len == 5 &&
            c[1].kv_row0 == 0,
        "cut diagonal: %d calls", nc);
  if (nc > 0) check_calls("cut diagonal", q, 10, kv, 10, 1, 1, 1, c, nc);
  /* partial visibility of two runs that is not diagonal: the reason, no calls */
  cb_attn_runs_t q5 = {0, 5, 20, 5, 0}, k5 = {2, 10, 12, 0, 0};
  nc = cb_attn_split(q5, 10, k5, 10, 1, 1, 1, c, why, sizeof why);
  CHECK_EQ_INT(nc, -1);
  CHECK_CONTAINS(why, "not supported: cuDNN has no mask for queries at positions 0..4 against keys at 2..11");
  /* ... which non-causal does not care about */
  CHECK_EQ_INT(cb_attn_split(q, 10, kv, 10, 0, 1, 1, c, why, sizeof why), 1);
  /* empty blocks */
  CHECK_EQ_INT(cb_attn_split(q, 0, kv, 10, 1, 1, 1, c, why, sizeof why), 0);
  nc = cb_attn_split(q, 10, kv, 0, 0, 1, 0, c, why, sizeof why);
  CHECK(nc == 1 && c[0].kv_len == 0 && c[0].first, "no keys, first: %d calls", nc);
}

/* A pair of runs is expressible when it is invisible, full or diagonal. */
static int pair_ok(int64_t qs, int64_t ql, int64_t ks, int64_t kl) {
  return ks > qs + ql - 1 || ks + kl - 1 <= qs || (ks == qs && kl == ql);
}

static void test_random(void) {
  cb_attn_call_t c[CB_ATTN_MAX_CALLS];
  char why[256], what[128];
  uint64_t s = 12345;
  int bad = 0;
  for (int t = 0; t < 20000 && !bad; t++) {
    cb_attn_runs_t b[2];
    int64_t n[2];
    for (int z = 0; z < 2; z++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const int64_t len0 = 1 + (int64_t)((s >> 33) % 4), len1 = (int64_t)((s >> 40) % 4);
      const int64_t start0 = (int64_t)((s >> 20) % 8), gap = (int64_t)((s >> 50) % 4);
      b[z] = (cb_attn_runs_t){start0, len0, start0 + len0 + gap, len1, 0};
      n[z] = len0 + len1;
    }
    int expect_ok = 1;
    for (int a = 0; a < 2; a++)
      for (int k = 0; k < 2; k++) {
        const int64_t ql = a ? b[0].len1 : b[0].len0, kl = k ? b[1].len1 : b[1].len0;
        const int64_t qs = a ? b[0].start1 : b[0].start0, ks = k ? b[1].start1 : b[1].start0;
        if (ql && kl) expect_ok &= pair_ok(qs, ql, ks, kl);
      }
    const int first = (int)(s & 1), final = (int)((s >> 1) & 1);
    int nc = cb_attn_split(b[0], n[0], b[1], n[1], 1, first, final, c, why, sizeof why);
    snprintf(what, sizeof what, "random %d: q (%lld,%lld,%lld,%lld) kv (%lld,%lld,%lld,%lld)", t,
             (long long)b[0].start0, (long long)b[0].len0, (long long)b[0].start1, (long long)b[0].len1,
             (long long)b[1].start0, (long long)b[1].len0, (long long)b[1].start1, (long long)b[1].len1);
    if (nc < 0) {
      /* a refusal only where some pair of the runs as given is not expressible (joining
       * adjacent runs may make more pairs expressible, never fewer: the split retries) */
      CHECK(!expect_ok, "%s: refused (%s)", what, why);
      CHECK_CONTAINS(why, "not supported: cuDNN has no mask");
      bad = !expect_ok;
    } else {
      bad = check_calls(what, b[0], n[0], b[1], n[1], 1, first, final, c, nc) > 0;
    }
  }
}

/* One run against one run, every offset: the split never refuses (invisible, full, diagonal or
 * cut) and covers exactly the visible pairs. */
static void test_offsets(void) {
  cb_attn_call_t c[CB_ATTN_MAX_CALLS];
  char why[256], what[128];
  int bad = 0;
  for (int64_t ql = 1; ql <= 6 && !bad; ql++)
    for (int64_t kl = 1; kl <= 6 && !bad; kl++)
      for (int64_t d = -8; d <= 8 && !bad; d++)
        for (int fl = 0; fl < 4 && !bad; fl++) {
          const int64_t qs = d > 0 ? d : 0, ks = d < 0 ? -d : 0;
          cb_attn_runs_t q = {qs, ql, qs + ql, 0, 0}, kv = {ks, kl, ks + kl, 0, 0};
          snprintf(what, sizeof what, "q %lld x %lld, k %lld x %lld, flags %d", (long long)qs, (long long)ql,
                   (long long)ks, (long long)kl, fl);
          const int nc = cb_attn_split(q, ql, kv, kl, 1, fl & 1, fl >> 1, c, why, sizeof why);
          CHECK(nc >= 0, "%s: %s", what, why);
          bad = nc < 0 || check_calls(what, q, ql, kv, kl, 1, fl & 1, fl >> 1, c, nc) > 0;
        }
}

/* The stripe ring's pairs (attn_layout.h): every (member, source) pair of R members, made dense by
 * cb_attn_block_pair, splits into calls that cover exactly the visible pairs, in 1 or 2 calls
 * with keys (the cut diagonal of a source after the member: its square; the rest none). */
static void test_stripe(void) {
  cb_attn_call_t c[CB_ATTN_MAX_CALLS];
  char why[256], what[128];
  int bad = 0;
  for (int R = 1; R <= 8 && !bad; R++)
    for (uint64_t L = 1; L <= 6 && !bad; L++)
      for (int g = 0; g < R; g++)
        for (int src = 0; src < R; src++)
          for (int fl = 0; fl < 4; fl++) {
            const uint64_t S = L * (uint64_t)R;
            cb_attn_runs_t q = cb_attn_layout_runs(S, R, g, CB_ATTN_STRIPE, 1),
                           kv = cb_attn_layout_runs(S, R, src, CB_ATTN_STRIPE, 1);
            CHECK(cb_attn_block_pair(&q, &kv) == 0, "pair refused");
            snprintf(what, sizeof what, "stripe R %d L %llu member %d src %d flags %d", R, (unsigned long long)L, g,
                     src, fl);
            const int nc = cb_attn_split(q, (int64_t)L, kv, (int64_t)L, 1, fl & 1, fl >> 1, c, why, sizeof why);
            CHECK(nc >= 0, "%s: %s", what, why);
            if (nc < 0 || check_calls(what, q, (int64_t)L, kv, (int64_t)L, 1, fl & 1, fl >> 1, c, nc)) {
              bad = 1;
              continue;
            }
            int keyed = 0;
            for (int x = 0; x < nc; x++) keyed += c[x].kv_len > 0;
            CHECK(keyed <= 1 || (L > 1 && src > g), "%s: %d calls with keys", what, keyed);
          }
}

int main(void) {
  test_ring();
  test_plain();
  test_offsets();
  test_stripe();
  test_random();
  return cb_test_finish("test_attn_split");
}
