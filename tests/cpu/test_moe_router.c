/* CPU test of collectives/moe_router.c, the host references the MoE device check relies on.
 *
 *   law        top-1 routing draws exactly from cb_moe_expert_law, so per-expert counts over
 *              200k tokens must match N*p within 5 sigma and a chi-square bound; the law itself
 *              is recomputed here from its definition (zipf 1/i^s over H(E,s), hot F/E);
 *              the second selection follows the without-replacement law.
 *   top-k      ids distinct and in range, drop fraction within a binomial bound, weights > 0
 *              summing to 1 over kept selections and 0 where dropped; every configuration that
 *              cb_moe_config_check accepts must route (run in a child: a bad one can crash).
 *   determinism  routing is a pure function of (config, seed, rank, token): the MPI test and
 *              the device check regenerate other ranks' routings from it; tokens per rank.
 * The layout and combine references are tested in test_moe_layout.c, preset parsing and
 * configuration checks in test_moe_config.c. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cb_testing.h"
#include "moe_config.h"
#include "moe_route_util.h"
#include "moe_router.h"

static cb_moe_config_t make_preset(const char *model, const char *routing, double drop) {
  cb_moe_config_t c;
  memset(&c, 0, sizeof c);
  CHECK(cb_moe_preset(model, &c) == 0, "preset %s", model);
  c.drop = drop;
  char why[256] = "";
  CHECK(cb_routing_parse(routing, &c.routing, why, sizeof why) == 0, "routing '%s': %s", routing, why);
  return c;
}

/* 5-sigma binomial bound on a count of n draws with probability p, +1 for p near 0 or 1. */
static double binom_bound(double n, double p) { return 5.0 * sqrt(n * p * (1.0 - p)) + 1.0; }

/* Compares observed per-expert counts (n draws) with the law p: each within 5 sigma, a zero-
 * probability expert never drawn, and the chi-square statistic below dof + 6 sqrt(2 dof). */
static void check_counts(const char *what, const long *count, const double *p, int E, long n) {
  double chi2 = 0.0;
  int dof = -1, bad = 0;
  for (int e = 0; e < E; e++) {
    double want = (double)n * p[e];
    if (p[e] <= 0.0) {
      CHECK(count[e] == 0, "%s: expert %d has probability 0 but was drawn %ld times", what, e, count[e]);
      continue;
    }
    dof++;
    chi2 += (count[e] - want) * (count[e] - want) / want;
    if (fabs(count[e] - want) > binom_bound((double)n, p[e]) && bad++ < 4)
      CHECK(0, "%s: expert %d drawn %ld times, expected %.1f (p %.6f)", what, e, count[e], want, p[e]);
  }
  CHECK(bad == 0, "%s: %d experts outside 5 sigma", what, bad);
  double limit = dof + 6.0 * sqrt(2.0 * dof);
  CHECK(chi2 <= limit, "%s: chi-square %.1f with %d dof, limit %.1f", what, chi2, dof, limit);
}

/* Experts in order of decreasing probability (stable on ties). */
static void order_by_law(const double *p, int E, int *order) {
  for (int e = 0; e < E; e++) order[e] = e;
  for (int i = 1; i < E; i++)
    for (int j = i; j > 0 && p[order[j]] > p[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
}

/* ---- the law ---------------------------------------------------------------------------- */

/* The law against its definition: sorted probabilities are 1/E, (1/i^s)/H(E,s), or F/E for K
 * experts and (1 - K F/E)/(E - K) for the rest; they sum to 1; the zipf/hot order is seeded. */
static void test_law_definition(void) {
  const int E = 64;
  double p[64], q[64];
  int order[64];
  cb_moe_config_t c = make_cfg(E, 1, "uniform", 0.0);
  cb_moe_expert_law(&c, 7, p);
  for (int e = 0; e < E; e++) CHECK_NEAR(p[e], 1.0 / E, 1e-12);

  c = make_cfg(E, 1, "zipf:1.2", 0.0);
  cb_moe_expert_law(&c, 7, p);
  double H = 0.0, sum = 0.0;
  for (int i = 1; i <= E; i++) H += pow(i, -1.2);
  order_by_law(p, E, order);
  for (int i = 0; i < E; i++) {
    CHECK(fabs(p[order[i]] - pow(i + 1, -1.2) / H) <= 1e-12, "zipf:1.2 rank %d p %.17g, expected %.17g", i, p[order[i]],
          pow(i + 1, -1.2) / H);
    sum += p[i];
  }
  CHECK_NEAR(sum, 1.0, 1e-12);
  int identity = 1;
  for (int i = 0; i < E; i++) identity &= order[i] == i;
  CHECK(!identity, "zipf popularity follows the expert index: the permutation is not seeded");
  cb_moe_expert_law(&c, 8, q);
  int same = 1;
  for (int e = 0; e < E; e++) same &= p[e] == q[e];
  CHECK(!same, "zipf law identical for seeds 7 and 8");

  c = make_cfg(E, 1, "hot:4:8", 0.0);
  cb_moe_expert_law(&c, 7, p);
  order_by_law(p, E, order);
  sum = 0.0;
  for (int i = 0; i < E; i++) {
    double want = i < 4 ? 8.0 / E : (1.0 - 4 * 8.0 / E) / (E - 4);
    CHECK(fabs(p[order[i]] - want) <= 1e-12, "hot:4:8 rank %d p %.17g, expected %.17g", i, p[order[i]], want);
    sum += p[i];
  }
  CHECK_NEAR(sum, 1.0, 1e-12);
  cb_moe_expert_law(&c, 8, q);
  same = 1;
  for (int e = 0; e < E; e++) same &= (p[e] > 0.1) == (q[e] > 0.1);
  CHECK(!same, "hot experts identical for seeds 7 and 8");
}

/* Top-1 over N tokens: every draw comes from the law. */
static void test_law_top1(const char *routing) {
  const int E = 64, N = 200000;
  cb_moe_config_t c = make_cfg(E, 1, routing, 0.0);
  double p[64];
  long count[64] = {0};
  cb_moe_expert_law(&c, 1234, p);
  cb_moe_routing_t r;
  if (route(&c, 1234, 0, 1, N, &r)) return;
  int bad = 0;
  for (int t = 0; t < N; t++) {
    int id = id_at(&r, t, 0);
    if (id < 0 || id >= E) {
      bad++;
      continue;
    }
    count[id]++;
    if (w_at(&r, t, 0) != 1.0f) bad++;
  }
  CHECK(bad == 0, "%s top-1: %d tokens with an id out of range or a weight other than 1", routing, bad);
  char what[64];
  snprintf(what, sizeof what, "%s top-1", routing);
  check_counts(what, count, p, E, N);

  int order[64];
  order_by_law(p, E, order);
  if (c.routing.kind == CB_ROUTE_ZIPF) {
    double s = c.routing.zipf_s, H = 0.0;
    for (int i = 1; i <= E; i++) H += pow(i, -s);
    /* the most popular expert carries 1/H(E,s) of the tokens */
    double share = (double)count[order[0]] / N;
    CHECK(fabs(share - 1.0 / H) <= binom_bound(N, 1.0 / H) / N, "%s: top expert share %.5f, expected 1/H = %.5f",
          routing, share, 1.0 / H);
    /* frequencies decrease along the law order: strictly where the gaps are wide (the first
     * 8 ranks, > 10 sigma apart), up to noise further down */
    for (int i = 0; i + 1 < E; i++) {
      long a = count[order[i]], b = count[order[i + 1]];
      if (i < 8) CHECK(a > b, "%s: rank %d drawn %ld times, rank %d %ld", routing, i, a, i + 1, b);
      else
        CHECK(b <= a + 5.0 * sqrt((double)a + (double)b), "%s: rank %d drawn %ld, rank %d %ld", routing, i, a, i + 1,
              b);
    }
  }
  if (c.routing.kind == CB_ROUTE_HOT) {
    int K = c.routing.hot_k;
    double F = c.routing.hot_f, hot = F / E;
    for (int i = 0; i < E; i++) {
      double share = (double)count[order[i]] / N;
      if (i < K)
        CHECK(fabs(share - hot) <= binom_bound(N, hot) / N, "%s: hot expert %d share %.5f, expected F/E = %.5f",
              routing, order[i], share, hot);
      else CHECK(share < hot / 2, "%s: cold expert %d share %.5f", routing, order[i], share);
    }
  }
  cb_moe_routing_free(&r);
}

/* The second selection of top-2: P(second = j) = sum_i p_i p_j / (1 - p_i), i != j. A router
 * that does not renormalize what is left (or that may repeat an expert) fails this. */
static void test_law_second_draw(const char *routing) {
  const int E = 64, N = 200000;
  cb_moe_config_t c = make_cfg(E, 2, routing, 0.0);
  double p[64], p2[64];
  long count[64] = {0};
  cb_moe_expert_law(&c, 99, p);
  for (int j = 0; j < E; j++) {
    p2[j] = 0.0;
    for (int i = 0; i < E; i++)
      if (i != j) p2[j] += p[i] * p[j] / (1.0 - p[i]);
  }
  cb_moe_routing_t r;
  if (route(&c, 99, 3, 4, N, &r)) return;
  int repeats = 0;
  for (int t = 0; t < N; t++) {
    int a = id_at(&r, t, 0), b = id_at(&r, t, 1);
    if (a == b || b < 0 || b >= E) repeats++;
    else count[b]++;
  }
  CHECK(repeats == 0, "%s top-2: %d tokens repeat an expert or have an id out of range", routing, repeats);
  char what[64];
  snprintf(what, sizeof what, "%s second selection", routing);
  check_counts(what, count, p2, E, N);
  cb_moe_routing_free(&r);
}

/* ---- top-k ------------------------------------------------------------------------------ */

/* Distinct ids in range, drop fraction, weights. Returns the number of dropped selections. */
static long check_topk(const char *what, const cb_moe_routing_t *r, int E, double drop) {
  int K = r->topk, bad_ids = 0, bad_w = 0;
  long dropped = 0;
  for (int t = 0; t < r->ntokens; t++) {
    double wsum = 0.0;
    int kept = 0;
    for (int k = 0; k < K; k++) {
      int id = id_at(r, t, k);
      float w = w_at(r, t, k);
      if (id == -1) {
        dropped++;
        if (w != 0.0f) bad_w++;
        continue;
      }
      if (id < 0 || id >= E) bad_ids++;
      for (int j = 0; j < k; j++)
        if (id_at(r, t, j) == id) bad_ids++;
      if (!(w > 0.0f)) bad_w++;
      wsum += w;
      kept++;
    }
    if (kept && fabs(wsum - 1.0) > 1e-5) bad_w++;
  }
  CHECK(bad_ids == 0, "%s: %d repeated or out-of-range expert ids", what, bad_ids);
  CHECK(bad_w == 0, "%s: %d weights not > 0, not 0 where dropped, or not summing to 1", what, bad_w);
  double n = (double)r->ntokens * K;
  if (drop == 0.0) CHECK(dropped == 0, "%s: %ld selections dropped with --drop 0", what, dropped);
  else
    CHECK(fabs(dropped - n * drop) <= binom_bound(n, drop), "%s: %ld of %.0f selections dropped, expected %.0f", what,
          dropped, n, n * drop);
  return dropped;
}

static void test_topk(void) {
  static const char *laws[] = {"uniform", "zipf:1.2", "hot:4:8"};
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 2; d++) {
      double drop = d ? 0.25 : 0.0;
      cb_moe_config_t c = make_cfg(256, 8, laws[i], drop);
      cb_moe_routing_t r;
      if (route(&c, 5 + i, 1, 8, 50000, &r)) continue;
      char what[80];
      snprintf(what, sizeof what, "%s top-8 of 256 drop %g", laws[i], drop);
      check_topk(what, &r, 256, drop);
      cb_moe_routing_free(&r);
    }

  /* uniform top-8 of 256: each expert is in a token's set with probability exactly 8/256 */
  const int N = 50000;
  cb_moe_config_t c = make_cfg(256, 8, "uniform", 0.0);
  cb_moe_routing_t r;
  if (!route(&c, 77, 0, 1, N, &r)) {
    long count[256] = {0};
    double p[256];
    for (int t = 0; t < N; t++)
      for (int k = 0; k < 8; k++) count[id_at(&r, t, k) & 255]++;
    int bad = 0;
    for (int e = 0; e < 256; e++) {
      p[e] = 8.0 / 256;
      if (fabs(count[e] - N * p[e]) > binom_bound(N, p[e])) bad++;
    }
    CHECK(bad == 0, "uniform top-8: %d experts outside 5 sigma of N*8/256", bad);
    cb_moe_routing_free(&r);
  }

  /* topk == experts: every token selects every expert once, whatever the law */
  static const char *all_laws[] = {"uniform", "zipf:3", "hot:2:3.5", "hot:1:1"};
  for (int i = 0; i < 4; i++) {
    c = make_cfg(8, 8, all_laws[i], 0.0);
    if (route(&c, 3, 0, 2, 20000, &r)) continue;
    int bad = 0;
    for (int t = 0; t < r.ntokens; t++) {
      unsigned seen = 0;
      for (int k = 0; k < 8; k++) {
        int id = id_at(&r, t, k);
        if (id >= 0 && id < 8) seen |= 1u << id;
      }
      bad += seen != 0xffu;
    }
    CHECK(bad == 0, "%s top-8 of 8: %d tokens do not select all 8 experts", all_laws[i], bad);
    cb_moe_routing_free(&r);
  }

  /* a high drop rate leaves tokens with every selection dropped: all weights 0 */
  c = make_cfg(16, 2, "zipf:1.2", 0.9);
  if (!route(&c, 11, 2, 4, 10000, &r)) {
    check_topk("zipf:1.2 top-2 of 16 drop 0.9", &r, 16, 0.9);
    int none = 0;
    for (int t = 0; t < r.ntokens; t++) none += id_at(&r, t, 0) < 0 && id_at(&r, t, 1) < 0;
    CHECK(none > 7000, "drop 0.9: only %d of 10000 tokens fully dropped (expected ~8100)", none);
    cb_moe_routing_free(&r);
  }
}

/* A preset (model) or a custom shape (hidden 128), with a routing law. */
static void make_config(const char *model, int experts, int topk, const char *routing, cb_moe_config_t *c) {
  memset(c, 0, sizeof *c);
  if (model) CHECK(cb_moe_preset(model, c) == 0, "preset %s", model);
  else {
    c->hidden = 128;
    c->experts = experts;
    c->topk = topk;
  }
  char why[256] = "";
  CHECK(cb_routing_parse(routing, &c->routing, why, sizeof why) == 0, "%s", why);
}

/* Every configuration cb_moe_config_check accepts must route: distinct valid ids, weights as
 * above. hot:K:F with K*F == experts leaves the cold experts probability 0, so with topk > K
 * there is nothing left to draw after K selections. Each case runs in a child process so a
 * crash is reported instead of ending the test program. */
static void check_routable(const char *model, int experts, int topk, const char *routing) {
  cb_moe_config_t c;
  make_config(model, experts, topk, routing, &c);
  char why[256] = "";
  if (cb_moe_config_check(&c, 2, CB_BF16, why, sizeof why) != 0) return; /* rejected: fine */
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  CHECK(pid >= 0, "fork failed");
  if (pid < 0) return;
  if (pid == 0) {
    cb_moe_routing_t r;
    if (cb_moe_route(&c, 1, 0, 2, 1000, &r)) _exit(2);
    int bad = 0;
    for (int t = 0; t < r.ntokens; t++) {
      double wsum = 0.0;
      for (int k = 0; k < r.topk; k++) {
        int id = id_at(&r, t, k);
        bad += id < 0 || id >= c.experts;
        for (int j = 0; j < k; j++) bad += id_at(&r, t, j) == id;
        wsum += w_at(&r, t, k);
      }
      bad += fabs(wsum - 1.0) > 1e-5;
    }
    if (bad)
      fprintf(stderr, "  %s E %d top-%d %s: %d bad selections (token 0: id %d weight %g, id %d weight %g)\n", c.model,
              c.experts, c.topk, routing, bad, id_at(&r, 0, 0), w_at(&r, 0, 0), id_at(&r, 0, 1), w_at(&r, 0, 1));
    cb_moe_routing_free(&r);
    _exit(bad ? 1 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "%s E %d top-%d --routing %s passes cb_moe_config_check but cb_moe_route %s %d", model ? model : "custom",
        c.experts, c.topk, routing, WIFSIGNALED(st) ? "died of signal" : "exited",
        WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* hot:K:F with K*F == experts and topk > K cannot be drawn: the check must say so. */
static void check_rejected(const char *model, int experts, int topk, const char *routing) {
  cb_moe_config_t c;
  make_config(model, experts, topk, routing, &c);
  char why[256] = "";
  CHECK(cb_moe_config_check(&c, 2, CB_BF16, why, sizeof why) != 0 && strstr(why, "no probability"),
        "%s E %d top-%d --routing %s must be rejected (got '%s')", model ? model : "custom", c.experts, c.topk, routing,
        why);
}

static void test_routable(void) {
  check_rejected("mixtral-8x7b", 0, 0, "hot:1:8");
  check_rejected(NULL, 8, 4, "hot:2:4");
  check_rejected("qwen3-30b-a3b", 0, 0, "hot:4:32");
  check_routable("mixtral-8x7b", 0, 0, "hot:2:3.5");
  check_routable("deepseek-v3", 0, 0, "hot:64:4"); /* K*F == E, topk <= K: fine */
  check_routable("mixtral-8x7b", 0, 0, "hot:1:8"); /* K*F == E, topk 2 > K 1 */
  check_routable(NULL, 8, 4, "hot:2:4");           /* K*F == E, topk 4 > K 2 */
  check_routable("qwen3-30b-a3b", 0, 0, "hot:4:32");
}

/* zipf:S past ~340 gives the 8th expert of deepseek-v3 a zero weight (8^S overflows), so top-8
 * cannot be drawn: cb_moe_config_check must reject exactly the S for which routing fails, so
 * the CLI says so (exit 2) instead of setup failing on the GPU (exit 3). */
static void test_steep_zipf(void) {
  int rejected = 0;
  for (int S = 300; S <= 1200; S += 5) {
    char routing[32];
    snprintf(routing, sizeof routing, "zipf:%d", S);
    cb_moe_config_t c = make_preset("deepseek-v3", routing, 0.0);
    char why[256] = "";
    int check_ok = cb_moe_config_check(&c, 8, CB_BF16, why, sizeof why) == 0;
    cb_moe_routing_t r;
    int route_ok = cb_moe_route(&c, 1, 0, 8, 16, &r) == 0;
    if (route_ok) cb_moe_routing_free(&r);
    CHECK(check_ok == route_ok, "%s: config check %s but routing %s (%s)", routing, check_ok ? "passes" : "fails",
          route_ok ? "works" : "fails", why);
    if (!check_ok) CHECK_CONTAINS(why, "--topk 8");
    rejected += !check_ok;
  }
  CHECK(rejected > 0, "no zipf:S up to 1200 rejected for deepseek-v3 top-8");
  cb_moe_config_t mixtral = make_preset("mixtral-8x7b", "zipf:600", 0.0); /* top-2 of 8: 2^600 is finite */
  char why[256] = "";
  CHECK(cb_moe_config_check(&mixtral, 2, CB_BF16, why, sizeof why) == 0, "mixtral zipf:600: %s", why);
}

/* ---- determinism -------------------------------------------------------------------------- */

static int rows_equal(const cb_moe_routing_t *a, int ta, const cb_moe_routing_t *b, int tb) {
  size_t K = (size_t)a->topk;
  return memcmp(a->ids + ta * K, b->ids + tb * K, K * sizeof(int32_t)) == 0 &&
         memcmp(a->weights + ta * K, b->weights + tb * K, K * sizeof(float)) == 0;
}

static void test_determinism(void) {
  cb_moe_config_t c = make_preset("deepseek-v3", "zipf:1.2", 0.1);
  const int T = 1000;
  cb_moe_routing_t a, b, pre, other_seed, other_rank, high_seed;
  if (route(&c, 42, 3, 8, T, &a)) return;
  route(&c, 42, 3, 8, T, &b);
  route(&c, 42, 3, 2, 37, &pre); /* fewer tokens, other nranks: the same first 37 tokens */
  route(&c, 43, 3, 8, T, &other_seed);
  route(&c, 42, 4, 8, T, &other_rank);
  route(&c, 42 ^ (1ull << 63), 3, 8, T, &high_seed);
  int same = 0, same_pre = 0, same_seed = 0, same_rank = 0, same_high = 0;
  for (int t = 0; t < T; t++) {
    same += rows_equal(&a, t, &b, t);
    if (t < 37) same_pre += rows_equal(&a, t, &pre, t);
    same_seed += rows_equal(&a, t, &other_seed, t);
    same_rank += rows_equal(&a, t, &other_rank, t);
    same_high += rows_equal(&a, t, &high_seed, t);
  }
  CHECK(same == T, "same (config, seed, rank): %d of %d tokens routed identically", same, T);
  CHECK(same_pre == 37, "routing depends on ntokens or nranks: %d of 37 tokens identical", same_pre);
  CHECK(same_seed < 10, "seeds 42 and 43: %d of %d tokens routed identically", same_seed, T);
  CHECK(same_rank < 10, "ranks 3 and 4: %d of %d tokens routed identically", same_rank, T);
  CHECK(same_high < 10, "seeds differing in bit 63: %d of %d tokens routed identically", same_high, T);
  /* rank r's token t must not be rank r+1's token t-1 or similar shifted streams */
  int shifted = 0;
  for (int t = 1; t < T; t++) shifted += rows_equal(&a, t, &other_rank, t - 1) || rows_equal(&a, t - 1, &other_rank, t);
  CHECK(shifted < 10, "ranks 3 and 4: %d tokens equal a neighbour's", shifted);
  cb_moe_routing_free(&a);
  cb_moe_routing_free(&b);
  cb_moe_routing_free(&pre);
  cb_moe_routing_free(&other_seed);
  cb_moe_routing_free(&other_rank);
  cb_moe_routing_free(&high_seed);
}

/* round(2 T (n-1-r) / n), half away from zero, in integers */
static long long uneven_tokens(long long T, int r, int n) { return (4 * T * (n - 1 - r) + n) / (2LL * n); }

static void test_tokens_for_rank(void) {
  static const long long Ts[] = {0, 1, 2, 3, 7, 128, 1000, 4096, 8192, 1000003};
  cb_moe_config_t c = make_preset("deepseek-v3", "uniform", 0.0);
  for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++)
    for (int n = 1; n <= 8; n++) {
      long long sum = 0, prev = -1;
      for (int r = 0; r < n; r++) {
        c.uneven = 0;
        CHECK(cb_moe_tokens_for_rank(&c, (uint64_t)Ts[i], r, n) == Ts[i], "even T %lld rank %d/%d", Ts[i], r, n);
        c.uneven = 1;
        long long got = cb_moe_tokens_for_rank(&c, (uint64_t)Ts[i], r, n);
        /* one rank: nothing to be uneven against, it keeps its tokens */
        long long want = n == 1 ? Ts[i] : uneven_tokens(Ts[i], r, n);
        CHECK(got == want, "uneven T %lld rank %d of %d: %lld tokens, expected %lld", Ts[i], r, n, got, want);
        if (prev >= 0) CHECK(got <= prev, "uneven T %lld: rank %d has more tokens than rank %d", Ts[i], r, r - 1);
        prev = got;
        sum += got;
      }
      if (n > 1) {
        CHECK(prev == 0, "uneven T %lld n %d: last rank has %lld tokens", Ts[i], n, prev);
        CHECK(llabs(sum - Ts[i] * (n - 1)) <= n, "uneven T %lld n %d: %lld tokens in all, expected ~%lld", Ts[i], n,
              sum, Ts[i] * (n - 1));
      }
    }
}

int main(void) {
  test_law_definition();
  test_law_top1("uniform");
  test_law_top1("zipf:1.2");
  test_law_top1("hot:4:8");
  test_law_second_draw("zipf:1.2");
  test_law_second_draw("hot:4:8");
  test_topk();
  test_routable();
  test_steep_zipf();
  test_determinism();
  test_tokens_for_rank();
  return cb_test_finish("test_moe_router");
}
