/* CPU test of the ringattn layouts and variants (collectives/attn/attn_layout.c, attn_variant.c)
 * and their options (launcher/args.c, --layout and --ulysses):
 *   - every layout over P = 1..8 ranks in groups of every U dividing P, several chunk lengths:
 *     each position held by exactly one rank, every rank S/P rows in at most two runs, a group's
 *     ranks in member order holding exactly its ring member's rows (the layout over R = P/U),
 *     U = 1 the ring's sharding (cb_attn_shard), U = P the natural order, the zigzag's groups
 *     with the same causal work; stripe's one run of stride R (any S a multiple of P);
 *   - the stripe block pair as a dense causal block (cb_attn_block_pair) against brute force;
 *   - the sequence checks and their messages;
 *   - the variant index both ways, which variants a configuration turns on (defaults, --layout,
 *     --ulysses LIST and all), the first Ulysses group, the degree, the checks with the rank count.
 * (--layout and --ulysses at the command line: test_attn_config.c.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_layout.h"
#include "attn_variant.h"
#include "cb_testing.h"

static int64_t pos_at(cb_attn_runs_t r, int64_t i) {
  const int64_t st = r.stride > 1 ? r.stride : 1;
  return i < r.len0 ? r.start0 + i * st : r.start1 + (i - r.len0) * st;
}

static void test_parse_layouts(void) {
  int bits = -1;
  CHECK(cb_attn_parse_layouts("contiguous", &bits) == 0 && bits == CB_ATTN_LAYOUT_BIT(CB_ATTN_CONTIGUOUS), "contig");
  CHECK(cb_attn_parse_layouts("zigzag", &bits) == 0 && bits == CB_ATTN_LAYOUT_BIT(CB_ATTN_ZIGZAG), "zigzag");
  CHECK(cb_attn_parse_layouts("zigzag,contiguous", &bits) == 0 &&
            bits == (CB_ATTN_LAYOUT_BIT(CB_ATTN_CONTIGUOUS) | CB_ATTN_LAYOUT_BIT(CB_ATTN_ZIGZAG)),
        "list");
  CHECK(cb_attn_parse_layouts("stripe", &bits) == 0 && bits == CB_ATTN_LAYOUT_BIT(CB_ATTN_STRIPE), "stripe");
  CHECK(cb_attn_parse_layouts("stripe,zigzag,contiguous", &bits) == 0 && bits == CB_ATTN_LAYOUT_ALL, "all three");
  CHECK(cb_attn_parse_layouts("all", &bits) == 0 && bits == CB_ATTN_LAYOUT_ALL, "all");
  const char *bad[] = {"",           "stripes", "zigzag,", ",zigzag", "ZIGZAG", "zig", "zigzag,,contiguous",
                       "all,zigzag", " zigzag", "Stripe",  "stripe,", "strided"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bits = 77;
    CHECK(cb_attn_parse_layouts(bad[i], &bits) == -1 && bits == 77, "'%s' accepted", bad[i]);
  }
  CHECK_EQ_STR(cb_attn_layout_name(CB_ATTN_CONTIGUOUS), "contiguous");
  CHECK_EQ_STR(cb_attn_layout_name(CB_ATTN_ZIGZAG), "zigzag");
  CHECK_EQ_STR(cb_attn_layout_name(CB_ATTN_STRIPE), "stripe");
  CHECK_EQ_STR(cb_attn_layout_name(7), "?");
  CHECK_EQ_INT(cb_attn_default_layout(0), CB_ATTN_CONTIGUOUS);
  CHECK_EQ_INT(cb_attn_default_layout(1), CB_ATTN_ZIGZAG);
}

/* One (S, P, U, layout): the properties of the header comment. */
static void check_layout(uint64_t S, int P, int U, int layout) {
  const int R = P / U;
  const int64_t L = (int64_t)(S / (uint64_t)P);
  int *held = calloc(S, sizeof *held);
  double *work = calloc((size_t)R, sizeof *work);
  for (int r = 0; r < P; r++) {
    const cb_attn_runs_t x = cb_attn_layout_runs(S, P, r, layout, U);
    CHECK(x.len0 + x.len1 == L, "S=%llu P=%d U=%d layout %d rank %d: %lld rows", (unsigned long long)S, P, U, layout, r,
          (long long)(x.len0 + x.len1));
    CHECK(x.len1 > 0 || x.start1 == x.start0 + x.len0 * (x.stride > 1 ? x.stride : 1),
          "one run: start1 follows it (rank %d)", r);
    CHECK(layout == CB_ATTN_STRIPE ? x.len1 == 0 && x.stride == (R > 1 ? R : 0) : x.stride == 0,
          "stripe: one run of stride R; the others stride 1 (rank %d)", r);
    CHECK(x.len1 == 0 || x.start1 >= x.start0 + x.len0, "two runs in order (rank %d)", r);
    /* the group's ring member's rows, member by member */
    const cb_attn_runs_t grp = cb_attn_layout_runs(S, R, r / U, layout, 1);
    for (int64_t i = 0; i < L; i++) {
      const int64_t p = pos_at(x, i);
      CHECK(p >= 0 && p < (int64_t)S, "position %lld out of range", (long long)p);
      if (p < 0 || p >= (int64_t)S) continue;
      held[p]++;
      work[r / U] += (double)(p + 1); /* causal: keys a query sees */
      CHECK(p == pos_at(grp, (r % U) * L + i), "S=%llu P=%d U=%d layout %d rank %d row %lld: %lld, its group's %lld",
            (unsigned long long)S, P, U, layout, r, (long long)i, (long long)p,
            (long long)pos_at(grp, (r % U) * L + i));
    }
    if (U == 1) {
      const cb_attn_runs_t ring = cb_attn_shard(S, P, r, layout == CB_ATTN_ZIGZAG);
      if (layout != CB_ATTN_STRIPE)
        CHECK(memcmp(&ring, &x, sizeof x) == 0, "U = 1: the ring's shard (P=%d rank %d layout %d)", P, r, layout);
      else
        for (int64_t i = 0; i < L; i++)
          CHECK(pos_at(x, i) == r + i * P, "U = 1 stripe: rank %d row %lld at %lld", r, (long long)i,
                (long long)pos_at(x, i));
    }
    if (U == P)
      CHECK(pos_at(x, 0) == r * L && pos_at(x, L - 1) == (r + 1) * L - 1, "U = P: natural order (rank %d)", r);
  }
  for (uint64_t p = 0; p < S; p++) CHECK(held[p] == 1, "position %llu held %d times", (unsigned long long)p, held[p]);
  if (layout == CB_ATTN_ZIGZAG)
    for (int g = 1; g < R; g++)
      CHECK(work[g] == work[0], "zigzag: group %d's causal work %g, group 0's %g", g, work[g], work[0]);
  free(held);
  free(work);
}

static void test_layout_runs(void) {
  for (int P = 1; P <= 8; P++)
    for (int U = 1; U <= P; U++) {
      if (P % U) continue;
      for (uint64_t c = 1; c <= 5; c++)
        for (int layout = 0; layout < CB_ATTN_NLAYOUTS; layout++) check_layout(2 * c * (uint64_t)P, P, U, layout);
    }
  /* stripe needs S a multiple of P only; rank r = g*U + u holds u*L*R + g + i*R */
  for (int P = 1; P <= 8; P++)
    for (int U = 1; U <= P; U++) {
      if (P % U) continue;
      for (uint64_t c = 1; c <= 5; c += 2) {
        const uint64_t S = c * (uint64_t)P;
        check_layout(S, P, U, CB_ATTN_STRIPE);
        const int R = P / U;
        const int64_t L = (int64_t)c;
        for (int r = 0; r < P; r++) {
          const cb_attn_runs_t x = cb_attn_layout_runs(S, P, r, CB_ATTN_STRIPE, U);
          for (int64_t i = 0; i < L; i++)
            CHECK(pos_at(x, i) == (int64_t)(r % U) * L * R + r / U + i * R, "stripe S=%llu P=%d U=%d rank %d row %lld",
                  (unsigned long long)S, P, U, r, (long long)i);
        }
      }
    }
  /* U = 3 of a zigzag group: the middle rank holds the end of one chunk and the start of the other */
  const cb_attn_runs_t mid = cb_attn_layout_runs(24, 6, 1, CB_ATTN_ZIGZAG, 3); /* R = 2: chunks 6 long */
  CHECK(mid.start0 == 4 && mid.len0 == 2 && mid.start1 == 18 && mid.len1 == 2, "middle member: %lld+%lld, %lld+%lld",
        (long long)mid.start0, (long long)mid.len0, (long long)mid.start1, (long long)mid.len1);
}

/* cb_attn_block_pair against brute force: every (query member, key member) pair of the stripe
 * layout, P ranks in groups of U (the inner ring: R members of the group's rows, and the
 * ranks' own rows), small S; the dense pair's causal mask equals the strided one entry by
 * entry, and it has stride 1. */
static void check_pair(cb_attn_runs_t q, cb_attn_runs_t k, const char *what) {
  cb_attn_runs_t dq = q, dk = k;
  CHECK(cb_attn_block_pair(&dq, &dk) == 0, "%s: refused", what);
  CHECK(dq.stride <= 1 && dk.stride <= 1 && dq.len1 == 0 && dk.len1 == 0, "%s: one run of stride 1", what);
  CHECK(dq.start0 >= 0 && dk.start0 >= 0, "%s: positions >= 0", what);
  CHECK(q.stride <= 1 || dq.start0 == 0 || dk.start0 == 0, "%s: one start 0", what);
  CHECK(dq.len0 == q.len0 && dk.len0 == k.len0, "%s: lengths kept", what);
  for (int64_t i = 0; i < q.len0; i++)
    for (int64_t j = 0; j < k.len0; j++) {
      const int want = pos_at(k, j) <= pos_at(q, i), got = pos_at(dk, j) <= pos_at(dq, i);
      CHECK(want == got, "%s: query %lld key %lld: mask %d, dense %d", what, (long long)i, (long long)j, want, got);
    }
}

static void test_block_pair(void) {
  char what[96];
  for (int P = 1; P <= 8; P++)
    for (int U = 1; U <= P; U++) {
      if (P % U) continue;
      const int R = P / U;
      for (uint64_t c = 1; c <= 4; c++) {
        const uint64_t S = c * (uint64_t)P;
        for (int a = 0; a < P; a++) /* the ranks' own rows, every pair */
          for (int b = 0; b < P; b++) {
            snprintf(what, sizeof what, "S=%llu P=%d U=%d ranks %d, %d", (unsigned long long)S, P, U, a, b);
            check_pair(cb_attn_layout_runs(S, P, a, CB_ATTN_STRIPE, U), cb_attn_layout_runs(S, P, b, CB_ATTN_STRIPE, U),
                       what);
          }
        for (int a = 0; a < R; a++) /* the ring's members (the inner ring of a hybrid row) */
          for (int b = 0; b < R; b++) {
            snprintf(what, sizeof what, "S=%llu R=%d members %d, %d", (unsigned long long)S, R, a, b);
            check_pair(cb_attn_layout_runs(S, R, a, CB_ATTN_STRIPE, 1), cb_attn_layout_runs(S, R, b, CB_ATTN_STRIPE, 1),
                       what);
          }
      }
    }
  /* stride 1 pairs (contiguous, zigzag) are left as they are */
  cb_attn_runs_t q = cb_attn_layout_runs(16, 4, 1, CB_ATTN_ZIGZAG, 1),
                 k = cb_attn_layout_runs(16, 4, 2, CB_ATTN_ZIGZAG, 1);
  const cb_attn_runs_t q0 = q, k0 = k;
  CHECK(cb_attn_block_pair(&q, &k) == 0 && memcmp(&q, &q0, sizeof q) == 0 && memcmp(&k, &k0, sizeof k) == 0,
        "zigzag pair unchanged");
  /* a strided block against a consecutive one, or two runs with a stride: refused, unchanged */
  q = cb_attn_layout_runs(16, 4, 1, CB_ATTN_STRIPE, 1);
  const cb_attn_runs_t qs = q;
  CHECK(cb_attn_block_pair(&q, &k) == -1 && memcmp(&q, &qs, sizeof q) == 0, "mixed strides refused");
  cb_attn_runs_t two = q;
  two.len1 = 1;
  cb_attn_runs_t q2 = q;
  CHECK(cb_attn_block_pair(&q2, &two) == -1, "two strided runs refused");
  /* the cut diagonal: member 0 against member 1 of R = 4 is strictly below the diagonal */
  q = cb_attn_layout_runs(16, 4, 0, CB_ATTN_STRIPE, 1), k = cb_attn_layout_runs(16, 4, 1, CB_ATTN_STRIPE, 1);
  CHECK(cb_attn_block_pair(&q, &k) == 0 && q.start0 == 0 && k.start0 == 1, "member 0 vs 1: A - B = -1 (%lld, %lld)",
        (long long)q.start0, (long long)k.start0);
}

static void test_seq_check(void) {
  char why[256];
  CHECK(cb_attn_layout_seq_check(8, 4, CB_ATTN_CONTIGUOUS, why, sizeof why) == 0, "%s", why);
  CHECK(cb_attn_layout_seq_check(8, 4, CB_ATTN_ZIGZAG, why, sizeof why) == 0, "%s", why);
  CHECK(cb_attn_layout_seq_check(12, 4, CB_ATTN_ZIGZAG, why, sizeof why) == -1, "12 over 8 zigzag chunks");
  CHECK_CONTAINS(why, "does not split into 8 equal chunks (zigzag: 2 chunks per rank over 4 ranks)");
  CHECK(cb_attn_layout_seq_check(10, 4, CB_ATTN_CONTIGUOUS, why, sizeof why) == -1, "10 over 4");
  CHECK_CONTAINS(why, "does not split into 4 equal chunks (one chunk per rank over 4 ranks)");
  CHECK(cb_attn_layout_seq_check(12, 4, CB_ATTN_STRIPE, why, sizeof why) == 0, "%s", why);
  CHECK(cb_attn_layout_seq_check(14, 4, CB_ATTN_STRIPE, why, sizeof why) == -1, "14 over 4 stripe");
  CHECK_CONTAINS(why, "does not split into 4 equal chunks (stripe: S/P rows per rank over 4 ranks)");
  CHECK(cb_attn_layout_seq_check(0, 3, CB_ATTN_STRIPE, why, sizeof why) == -1, "empty stripe");
  CHECK(cb_attn_layout_seq_check(0, 1, CB_ATTN_CONTIGUOUS, why, sizeof why) == -1, "empty sequence");
  CHECK(cb_attn_layout_seq_check(CB_ATTN_MAX_SEQ * 2, 2, CB_ATTN_CONTIGUOUS, why, sizeof why) == -1, "too long");
  CHECK_CONTAINS(why, "is longer than");
  /* the default layout's check is the one the bench made before layouts */
  CHECK(cb_attn_seq_check(12, 4, 1, why, sizeof why) == -1 && cb_attn_seq_check(12, 4, 0, why, sizeof why) == 0,
        "causal default zigzag");
}

static int count_on(const cb_attn_config_t *c, int nranks, int *slots) {
  int k = 0;
  for (int v = 0; v < CB_ATTN_NVARIANTS + 3; v++)
    if (cb_attn_variant_on(c, v, nranks)) slots[k++] = v;
  return k;
}

static void test_variants(void) {
  for (int v = 0; v < CB_ATTN_NVARIANTS; v++) {
    const cb_attn_variant_t f = cb_attn_variant(v);
    CHECK(f.causal >= 0 && f.causal <= 1 && f.layout >= 0 && f.layout < CB_ATTN_NLAYOUTS && f.ulysses >= 0 &&
              f.ulysses <= CB_ATTN_MAX_ULYSSES && f.bslot >= 0 && f.bslot < CB_ATTN_MAX_BATCHES,
          "variant %d decodes in range", v);
    CHECK_EQ_INT(cb_attn_variant_index(f), v);
  }
  /* variants 0 and 1 are the two forms of a run without --layout and --ulysses, as before them */
  CHECK(cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_CONTIGUOUS, 0, 0}) == 0 &&
            cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 0, 0}) == 1,
        "variants 0 and 1: non-causal contiguous, causal zigzag");
  cb_attn_config_t c;
  cb_attn_defaults(&c);
  static char names[CB_ATTN_NVARIANTS][48];
  for (int v = 0; v < CB_ATTN_NFORMS; v++) cb_attn_nvtx_variant(&c, v, names[v], sizeof names[v]);
  CHECK_EQ_STR(names[0], "-noncausal");
  CHECK_EQ_STR(names[1], "-causal");
  CHECK_EQ_STR(names[cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_CONTIGUOUS, 64, 0})],
               "-causal-contiguous-U64");
  CHECK_EQ_STR(names[cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_ZIGZAG, 3, 0})], "-noncausal-zigzag-U3");
  CHECK_EQ_STR(names[cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_STRIPE, 0, 0})], "-causal-stripe");
  CHECK_EQ_STR(names[cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_STRIPE, 2, 0})], "-noncausal-stripe-U2");
  /* with a --batch list every variant names its batch; all names differ */
  char why[256];
  CHECK(cb_attn_parse_batches("16,1,2,3,4,5,6,7,8,9,10,11,12,13,14,4096", &c, why, sizeof why) == 0, "%s", why);
  for (int v = 0; v < CB_ATTN_NVARIANTS; v++) cb_attn_nvtx_variant(&c, v, names[v], sizeof names[v]);
  CHECK_EQ_STR(names[1], "-causal-b16");
  CHECK_EQ_STR(names[cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_ZIGZAG, 64, 15})],
               "-noncausal-zigzag-U64-b4096");
  qsort(names, CB_ATTN_NVARIANTS, sizeof names[0], (int (*)(const void *, const void *))strcmp);
  for (int v = 1; v < CB_ATTN_NVARIANTS; v++)
    CHECK(strcmp(names[v - 1], names[v]) != 0, "NVTX suffix %s twice", names[v]);
  cb_attn_defaults(&c);
  int on[CB_ATTN_NVARIANTS], n = count_on(&c, 8, on);
  CHECK_EQ_INT(n, 2); /* non-causal contiguous, causal zigzag; no Ulysses degree asked for */
  CHECK(n == 2 && on[0] == cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_CONTIGUOUS, 0, 0}) &&
            on[1] == cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 0, 0}),
        "the defaults keep the causal layouts of before");
  CHECK_EQ_INT(cb_attn_ulysses_degree(on[0], 8), 8);
  CHECK(cb_attn_variant_first(&c, on[0], 8), "slot 0 is the first");
  c.causal_modes = CB_ATTN_CAUSAL;
  c.layouts = CB_ATTN_LAYOUT_ALL;
  CHECK_EQ_INT(count_on(&c, 8, on), 3); /* causal contiguous, zigzag and stripe */
  c.layouts = CB_ATTN_LAYOUT_BIT(CB_ATTN_STRIPE);
  CHECK_EQ_INT(count_on(&c, 8, on), 1);
  CHECK(cb_attn_variant(on[0]).layout == CB_ATTN_STRIPE && cb_attn_variant(on[0]).causal, "causal stripe alone");
  c.layouts = CB_ATTN_LAYOUT_ALL;
  CHECK(cb_attn_parse_ulysses("2,4", &c) == 0, "2,4");
  n = count_on(&c, 8, on);
  CHECK_EQ_INT(n, 6);
  int u2 = 0, u4 = 0;
  for (int i = 0; i < n; i++) {
    const cb_attn_variant_t f = cb_attn_variant(on[i]);
    u2 += f.ulysses == 2, u4 += f.ulysses == 4;
    CHECK_EQ_INT(cb_attn_ulysses_degree(on[i], 8), f.ulysses);
    CHECK(cb_attn_variant_first(&c, on[i], 8) == (f.ulysses == 2), "first Ulysses group: U = 2 (variant %d)", on[i]);
  }
  CHECK(u2 == 3 && u4 == 3, "U = 2 and 4, each in the three layouts");
  CHECK(cb_attn_ulysses_check(&c, 8, why, sizeof why) == 0, "%s", why);
  CHECK(cb_attn_ulysses_check(&c, 6, why, sizeof why) == -1, "4 does not divide 6");
  CHECK_CONTAINS(why, "--ulysses 4 does not divide 6 ranks");
  const int v4 = cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 4, 0});
  CHECK(cb_attn_variant_check(v4, 64, 6, why, sizeof why) == -1, "group check with 6 ranks");
  CHECK_CONTAINS(why, "--ulysses 4 does not divide 6 ranks");
  CHECK(cb_attn_variant_check(v4, 64, 8, why, sizeof why) == 0, "%s", why);
  CHECK(cb_attn_variant_check(v4, 40, 8, why, sizeof why) == -1, "40 over 16 zigzag chunks");
  /* a group's description names what is not the causal default */
  char text[64];
  cb_attn_variant_text(v4, text, sizeof text);
  CHECK_EQ_STR(text, "U=4");
  cb_attn_variant_text(cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_CONTIGUOUS, 0, 0}), text, sizeof text);
  CHECK_EQ_STR(text, "");
  cb_attn_variant_text(cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_CONTIGUOUS, 2, 0}), text, sizeof text);
  CHECK_EQ_STR(text, "contiguous U=2");
  cb_attn_variant_text(cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_ZIGZAG, 0, 0}), text, sizeof text);
  CHECK_EQ_STR(text, "zigzag");
  /* all: every U dividing the rank count, the smallest first */
  CHECK(cb_attn_parse_ulysses("all", &c) == 0 && c.ulysses_all && !c.ulysses, "all");
  c.layouts = CB_ATTN_LAYOUT_BIT(CB_ATTN_ZIGZAG);
  n = count_on(&c, 6, on);
  CHECK_EQ_INT(n, 4); /* U = 1, 2, 3, 6 */
  const int want[4] = {1, 2, 3, 6};
  for (int i = 0; i < n && i < 4; i++) {
    CHECK_EQ_INT(cb_attn_variant(on[i]).ulysses, want[i]);
    CHECK(cb_attn_variant_first(&c, on[i], 6) == (i == 0), "first: U = 1 only");
  }
  CHECK(cb_attn_ulysses_check(&c, 6, why, sizeof why) == 0, "all always divides");
  /* --batch 2,8: every form of batch 2, then of batch 8 */
  cb_attn_defaults(&c);
  CHECK(cb_attn_parse_batches("2,8", &c, why, sizeof why) == 0, "%s", why);
  n = count_on(&c, 4, on);
  CHECK_EQ_INT(n, 4);
  for (int i = 0; i < n && i < 4; i++) CHECK_EQ_INT(cb_attn_variant(on[i]).bslot, i / 2);
  CHECK(on[0] == 0 && on[1] == 1 && on[2] == CB_ATTN_NFORMS && on[3] == CB_ATTN_NFORMS + 1, "batch slots");
  /* out of range indices are off */
  CHECK(!cb_attn_variant_on(&c, -1, 6) && !cb_attn_variant_on(&c, CB_ATTN_NVARIANTS, 6), "out of range");
}

static void test_parse_ulysses(void) {
  cb_attn_config_t c;
  cb_attn_defaults(&c);
  CHECK(cb_attn_parse_ulysses("1", &c) == 0 && c.ulysses == 1 && !c.ulysses_all, "1");
  CHECK(cb_attn_parse_ulysses("64", &c) == 0 && c.ulysses == 1ull << 63, "64");
  CHECK(cb_attn_parse_ulysses("8,2,4", &c) == 0 && c.ulysses == (2u | 8u | 128u), "8,2,4");
  const char *bad[] = {"", "0", "65", "-1", "+2", "2,", ",2", "2,,4", "a", "2a", " 2", "2 ", "ALL", "all,2", "1e1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cb_attn_defaults(&c);
    CHECK(cb_attn_parse_ulysses(bad[i], &c) == -1 && c.ulysses == 0 && !c.ulysses_all, "'%s' accepted", bad[i]);
  }
}

int main(void) {
  test_parse_layouts();
  test_layout_runs();
  test_block_pair();
  test_seq_check();
  test_variants();
  test_parse_ulysses();
  return cb_test_finish("test_attn_layout");
}
