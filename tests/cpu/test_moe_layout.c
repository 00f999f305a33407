/* CPU test of collectives/moe_router.c's layout and combine references (test_moe_router.c
 * covers the routing law itself):
 *   layout     cb_moe_layout_host / cb_moe_token_goes_to against destination sets computed here
 *              from expert id / (experts / nranks).
 *   combine    cb_moe_combine_ref against sum_k w_k x, and a host dispatch/combine through the
 *              layout (what the GPU paths do) against the reference.
 *   imbalance, token values (multiples of 1/64, exact in bfloat16). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cb_testing.h"
#include "moe_config.h"
#include "moe_route_util.h"
#include "moe_router.h"

/* ---- layout ------------------------------------------------------------------------------- */

/* Checks a layout against destination sets computed here from id / (E / n). */
static void check_layout(const char *what, const cb_moe_routing_t *r, int E, int n) {
  cb_moe_layout_t l;
  int rc = cb_moe_layout_host(r, E, n, &l);
  CHECK(rc == 0, "%s: cb_moe_layout_host failed", what);
  if (rc) return;
  int T = r->ntokens, per = E / n, bad_dest = 0, bad_pos = 0, bad_goes = 0;
  int *want = calloc((size_t)n, sizeof(int));
  for (int t = 0; t < T; t++)
    for (int d = 0; d < n; d++) {
      int dest = 0;
      for (int k = 0; k < r->topk; k++) dest |= id_at(r, t, k) >= 0 && id_at(r, t, k) / per == d;
      bad_goes += cb_moe_token_goes_to(r, t, E, n, d) != dest;
      int pos = l.send_pos[(size_t)t * n + d];
      if (!dest) {
        bad_pos += pos != -1;
        continue;
      }
      want[d]++;
      if (pos < 0 || pos >= l.send_count[d] || l.send_idx[(size_t)d * T + pos] != t) bad_dest++;
    }
  long total = 0;
  for (int d = 0; d < n; d++) {
    CHECK(l.send_count[d] == want[d], "%s: send_count[%d] = %d, expected %d", what, d, l.send_count[d], want[d]);
    total += l.send_count[d];
    int order = 0;
    for (int j = 0; j < l.send_count[d] && j < T; j++) {
      int t = l.send_idx[(size_t)d * T + j];
      if (j > 0 && t <= l.send_idx[(size_t)d * T + j - 1]) order++;
      if (t < 0 || t >= T || l.send_pos[(size_t)t * n + d] != j) bad_pos++;
    }
    CHECK(order == 0, "%s: destination %d list not in increasing token order (%d places)", what, d, order);
  }
  long want_total = 0;
  for (int d = 0; d < n; d++) want_total += want[d];
  CHECK(total == want_total, "%s: %ld (token, destination) pairs, expected %ld", what, total, want_total);
  CHECK(bad_goes == 0, "%s: cb_moe_token_goes_to wrong for %d (token, destination) pairs", what, bad_goes);
  CHECK(bad_dest == 0, "%s: %d (token, destination) pairs missing from the send lists", what, bad_dest);
  CHECK(bad_pos == 0, "%s: %d send_pos entries do not invert send_idx", what, bad_pos);
  CHECK(l.nranks == n && l.ntokens == T, "%s: layout nranks %d ntokens %d", what, l.nranks, l.ntokens);
  free(want);
  cb_moe_layout_free(&l);
}

static void test_layout_hand(void) {
  /* 8 experts on 4 ranks (2 each), top-3 */
  int32_t ids[] = {1,  0,  7,  /* t0: experts 0 and 1 both on rank 0 -> rank 0 once, rank 3 */
                   -1, -1, -1, /* t1: all dropped -> nowhere */
                   4,  -1, 5,  /* t2: rank 2 once */
                   2,  6,  3,  /* t3: ranks 1, 3 */
                   0,  2,  4}; /* t4: ranks 0, 1, 2 */
  float w[15] = {0};
  cb_moe_routing_t r = {5, 3, ids, w};
  cb_moe_layout_t l;
  if (cb_moe_layout_host(&r, 8, 4, &l)) {
    CHECK(0, "cb_moe_layout_host failed");
    return;
  }
  const int want_count[4] = {2, 2, 2, 2};
  const int want_idx[4][2] = {{0, 4}, {3, 4}, {2, 4}, {0, 3}};
  const int want_pos[5][4] = {{0, -1, -1, 0}, {-1, -1, -1, -1}, {-1, -1, 0, -1}, {-1, 0, -1, 1}, {1, 1, 1, -1}};
  for (int d = 0; d < 4; d++) {
    CHECK_EQ_INT(l.send_count[d], want_count[d]);
    for (int j = 0; j < want_count[d]; j++)
      CHECK(l.send_idx[d * 5 + j] == want_idx[d][j], "send_idx[%d][%d] = %d, expected %d", d, j, l.send_idx[d * 5 + j],
            want_idx[d][j]);
  }
  for (int t = 0; t < 5; t++)
    for (int d = 0; d < 4; d++)
      CHECK(l.send_pos[t * 4 + d] == want_pos[t][d], "send_pos[%d][%d] = %d, expected %d", t, d, l.send_pos[t * 4 + d],
            want_pos[t][d]);
  for (int d = 0; d < 4; d++) CHECK(!cb_moe_token_goes_to(&r, 1, 8, 4, d), "all-dropped token goes to %d", d);
  cb_moe_layout_free(&l);
  check_layout("hand-built", &r, 8, 4);

  /* zero tokens */
  cb_moe_routing_t empty = {0, 3, ids, w};
  if (cb_moe_layout_host(&empty, 8, 4, &l) == 0) {
    for (int d = 0; d < 4; d++) CHECK(l.send_count[d] == 0, "zero tokens: send_count[%d] = %d", d, l.send_count[d]);
    cb_moe_layout_free(&l);
  } else {
    CHECK(0, "cb_moe_layout_host failed for zero tokens");
  }
}

static void test_layout_random(void) {
  static const struct {
    int experts, topk, nranks;
    const char *routing;
    double drop;
    int T;
  } cases[] = {
      {256, 8, 8, "uniform", 0.0, 3000}, {256, 8, 2, "zipf:1.2", 0.25, 2000}, {128, 8, 4, "hot:4:8", 0.0, 2000},
      {8, 2, 2, "uniform", 0.5, 5000},   {8, 2, 8, "zipf:2", 0.0, 1000},      {16, 3, 4, "hot:1:2", 0.9, 4000},
      {64, 4, 1, "uniform", 0.1, 500},   {32, 32, 4, "zipf:0.5", 0.3, 300},   {256, 8, 4, "uniform", 0.0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cb_moe_config_t c = make_cfg(cases[i].experts, cases[i].topk, cases[i].routing, cases[i].drop);
    for (int rank = 0; rank < 2; rank++) {
      cb_moe_routing_t r;
      if (route(&c, 1000 + i, rank, cases[i].nranks, cases[i].T, &r)) continue;
      char what[96];
      snprintf(what, sizeof what, "layout E %d k %d n %d %s drop %g rank %d", cases[i].experts, cases[i].topk,
               cases[i].nranks, cases[i].routing, cases[i].drop, rank);
      check_layout(what, &r, cases[i].experts, cases[i].nranks);
      cb_moe_routing_free(&r);
    }
  }
}

/* ---- combine ------------------------------------------------------------------------------ */

static void test_combine_hand(void) {
  int32_t ids[] = {2, -1, 5, -1, -1, -1};
  float w[] = {0.25f, 0.7f, 0.5f, 0.0f, 0.0f, 0.0f}; /* a dropped slot's weight never counts */
  cb_moe_routing_t r = {2, 3, ids, w};
  const float x[4] = {1.0f, -2.0f, 0.5f, 64.0f};
  const double want[4] = {0.75, -1.5, 0.375, 48.0};
  double out[4] = {9, 9, 9, 9};
  cb_moe_combine_ref(&r, 0, x, 4, out);
  for (int h = 0; h < 4; h++) CHECK(out[h] == want[h], "combine_ref h %d = %.17g, expected %.17g", h, out[h], want[h]);
  cb_moe_combine_ref(&r, 1, x, 4, out);
  for (int h = 0; h < 4; h++) CHECK(out[h] == 0.0, "all-dropped token: combine_ref h %d = %g, expected 0", h, out[h]);
}

static void test_combine_random(void) {
  const int H = 48;
  cb_moe_config_t c = make_cfg(64, 6, "zipf:1.2", 0.3);
  cb_moe_routing_t r;
  if (route(&c, 5, 1, 4, 2000, &r)) return;
  float x[48];
  double out[48];
  int bad = 0;
  for (int t = 0; t < r.ntokens; t++) {
    for (int h = 0; h < H; h++) x[h] = cb_moe_token_value(5, 1, 0, t, h);
    cb_moe_combine_ref(&r, t, x, H, out);
    double wsum = 0.0;
    for (int k = 0; k < r.topk; k++)
      if (id_at(&r, t, k) >= 0) wsum += w_at(&r, t, k);
    for (int h = 0; h < H; h++) bad += fabs(out[h] - wsum * x[h]) > 1e-12;
  }
  CHECK(bad == 0, "combine_ref differs from sum_k w_k x in %d elements", bad);
  cb_moe_routing_free(&r);

  /* nothing dropped, weights sum to 1: combine returns x */
  c = make_cfg(64, 6, "hot:4:8", 0.0);
  if (route(&c, 6, 0, 4, 2000, &r)) return;
  bad = 0;
  for (int t = 0; t < r.ntokens; t++) {
    for (int h = 0; h < H; h++) x[h] = cb_moe_token_value(6, 0, 0, t, h);
    cb_moe_combine_ref(&r, t, x, H, out);
    for (int h = 0; h < H; h++) bad += fabs(out[h] - x[h]) > 1e-6 * fabs(x[h]) + 1e-12;
  }
  CHECK(bad == 0, "combine_ref with every selection kept differs from x in %d elements", bad);
  cb_moe_routing_free(&r);
}

/* Host dispatch/combine across n simulated ranks through cb_moe_layout_host, as the GPU paths
 * run it: source s sends token t to each destination d in its list (with its id and weight
 * rows); d applies identity experts, y = sum over its local selections of w_k x (fp32); the
 * rows come back by send_pos and the source sums them over destinations in rank order. The
 * result must equal cb_moe_combine_ref within 1e-6 relative. */
static void simulate(const char *routing, int experts, int topk, int n, int T, double drop, int uneven) {
  const int H = 64;
  cb_moe_config_t c = make_cfg(experts, topk, routing, drop);
  c.uneven = uneven;
  cb_moe_routing_t *rt = calloc((size_t)n, sizeof *rt);
  cb_moe_layout_t *ly = calloc((size_t)n, sizeof *ly);
  int per = experts / n;
  for (int s = 0; s < n; s++) {
    route(&c, 2024, s, n, cb_moe_tokens_for_rank(&c, (uint64_t)T, s, n), &rt[s]);
    CHECK(cb_moe_layout_host(&rt[s], experts, n, &ly[s]) == 0, "layout rank %d", s);
  }
  if (uneven && n > 1) CHECK(rt[n - 1].ntokens == 0, "uneven: last rank has %d tokens", rt[n - 1].ntokens);
  /* ret[s][d][j][h]: destination d's output for the j-th row source s sent it */
  float **ret = calloc((size_t)n * n, sizeof(float *));
  long *expert_rows = calloc((size_t)experts, sizeof(long)), *expert_want = calloc((size_t)experts, sizeof(long));
  int misrouted = 0;
  for (int d = 0; d < n; d++)
    for (int s = 0; s < n; s++) {
      int cnt = ly[s].send_count[d], Ts = rt[s].ntokens;
      float *y = ret[s * n + d] = calloc((size_t)(cnt > 0 ? cnt : 1) * H, sizeof(float));
      for (int j = 0; j < cnt; j++) {
        int t = ly[s].send_idx[(size_t)d * Ts + j]; /* the row carries (s, t) */
        int local = 0;
        for (int k = 0; k < topk; k++) {
          int id = id_at(&rt[s], t, k);
          if (id < 0 || id / per != d) continue;
          local++;
          expert_rows[id]++;
          float w = w_at(&rt[s], t, k);
          for (int h = 0; h < H; h++) y[(size_t)j * H + h] += w * cb_moe_token_value(2024, s, 0, t, h);
        }
        misrouted += local == 0;
      }
    }
  CHECK(misrouted == 0, "%s n %d: %d rows reached a rank hosting none of their experts", routing, n, misrouted);
  for (int s = 0; s < n; s++)
    for (int t = 0; t < rt[s].ntokens; t++)
      for (int k = 0; k < topk; k++)
        if (id_at(&rt[s], t, k) >= 0) expert_want[id_at(&rt[s], t, k)]++;
  int bad_experts = 0;
  for (int e = 0; e < experts; e++) bad_experts += expert_rows[e] != expert_want[e];
  CHECK(bad_experts == 0, "%s n %d: %d experts received a wrong number of rows", routing, n, bad_experts);

  long bad = 0, checked = 0;
  float x[64];
  double ref[64];
  for (int s = 0; s < n; s++)
    for (int t = 0; t < rt[s].ntokens; t++) {
      float out[64] = {0};
      for (int d = 0; d < n; d++) {
        int pos = ly[s].send_pos[(size_t)t * n + d];
        if (pos < 0) continue;
        for (int h = 0; h < H; h++) out[h] += ret[s * n + d][(size_t)pos * H + h];
      }
      for (int h = 0; h < H; h++) x[h] = cb_moe_token_value(2024, s, 0, t, h);
      cb_moe_combine_ref(&rt[s], t, x, H, ref);
      for (int h = 0; h < H; h++, checked++)
        if (fabs(out[h] - ref[h]) > 1e-6 * fabs(ref[h]) + 1e-12) {
          if (bad++ < 3)
            fprintf(stderr, "  %s n %d: rank %d token %d h %d: combine %.9g, reference %.9g\n", routing, n, s, t, h,
                    out[h], ref[h]);
        }
    }
  CHECK(bad == 0, "%s E %d k %d n %d drop %g uneven %d: %ld of %ld combined elements differ from the reference",
        routing, experts, topk, n, drop, uneven, bad, checked);
  CHECK(checked > 0 || T == 0, "%s n %d: nothing checked", routing, n);
  for (int i = 0; i < n * n; i++) free(ret[i]);
  free(ret);
  free(expert_rows);
  free(expert_want);
  for (int s = 0; s < n; s++) {
    cb_moe_routing_free(&rt[s]);
    cb_moe_layout_free(&ly[s]);
  }
  free(rt);
  free(ly);
}

static void test_dispatch_combine(void) {
  simulate("uniform", 256, 8, 8, 300, 0.0, 0);
  simulate("zipf:1.2", 256, 8, 4, 300, 0.2, 1);
  simulate("hot:4:8", 128, 8, 2, 500, 0.0, 1);
  simulate("zipf:1.2", 8, 2, 4, 1000, 0.5, 0);
  simulate("uniform", 16, 4, 1, 200, 0.1, 0);
}

/* ---- imbalance ---------------------------------------------------------------------------- */

static void test_imbalance(void) {
  /* 4 experts on 2 ranks. rank 0: t0 {0,1} -> dest 0; t1 {0,2} -> 0, 1; t2 {-1,3} -> 1.
   * rank 1: t0 {0,-1} -> 0; t1 all dropped. Received: rank 0: 3, rank 1: 2 -> 3 / 2.5.
   * Selections: expert 0: 3, experts 1..3: 1 each -> 3 / 1.5. */
  int32_t ids0[] = {0, 1, 0, 2, -1, 3}, ids1[] = {0, -1, -1, -1};
  float w0[6] = {0}, w1[4] = {0};
  cb_moe_routing_t all[3] = {{3, 2, ids0, w0}, {2, 2, ids1, w1}, {0, 2, ids1, w1}};
  double ri = -1, ei = -1;
  cb_moe_imbalance(all, 2, 4, &ri, &ei);
  CHECK_NEAR(ri, 3.0 / 2.5, 1e-12);
  CHECK_NEAR(ei, 3.0 / 1.5, 1e-12);
  /* the same with a third rank that has no tokens (6 experts, 2 each): rank 0 receives t0, t1
   * of rank 0 and t0 of rank 1 (3); rank 1 gets t1 (expert 2) and t2 (expert 3) (2); rank 2
   * nothing -> 3 / (5/3). Experts 4, 5 idle: 3 / (6/6). */
  cb_moe_imbalance(all, 3, 6, &ri, &ei);
  CHECK_NEAR(ri, 3.0 / (5.0 / 3.0), 1e-12);
  CHECK_NEAR(ei, 3.0, 1e-12);
  /* perfectly balanced: every expert once, every rank twice */
  int32_t ids2[] = {0, 1, 2, 3};
  cb_moe_routing_t bal = {2, 2, ids2, w0};
  cb_moe_imbalance(&bal, 1, 4, &ri, &ei);
  CHECK_NEAR(ri, 1.0, 1e-12);
  CHECK_NEAR(ei, 1.0, 1e-12);
  /* nothing selected anywhere */
  int32_t ids3[] = {-1, -1};
  cb_moe_routing_t none = {1, 2, ids3, w0};
  cb_moe_imbalance(&none, 1, 4, &ri, &ei);
  CHECK(ri == 0.0 && ei == 0.0, "all dropped: imbalance %g %g, expected 0 0", ri, ei);
}

/* ---- token values ------------------------------------------------------------------------- */

static void test_token_value(void) {
  long bad_grid = 0, bad_bf16 = 0, n = 0, hist[129] = {0};
  double sum = 0.0;
  for (uint64_t seed = 1; seed <= 3; seed++)
    for (int rank = 0; rank < 4; rank++)
      for (int iter = 0; iter < 3; iter++)
        for (int t = 0; t < 40; t++)
          for (int h = 0; h < 64; h++) {
            float v = cb_moe_token_value(seed, rank, iter, t, h);
            double m = (double)v * 64.0;
            if (!(fabs(v) <= 1.0f) || m != floor(m)) {
              bad_grid++;
              continue;
            }
            uint32_t bits;
            memcpy(&bits, &v, sizeof bits);
            bad_bf16 += (bits & 0xffffu) != 0; /* bfloat16 = the top 16 bits of a float */
            hist[(int)m + 64]++;
            sum += v;
            n++;
          }
  CHECK(bad_grid == 0, "%ld token values not multiples of 1/64 in [-1, 1]", bad_grid);
  CHECK(bad_bf16 == 0, "%ld token values not exact in bfloat16", bad_bf16);
  CHECK(hist[0] > 0 && hist[128] > 0, "values -1 (%ld) and 1 (%ld) never occur", hist[0], hist[128]);
  int empty = 0;
  for (int i = 0; i < 129; i++) empty += hist[i] == 0;
  CHECK(empty == 0, "%d of the 129 values never occur in %ld draws", empty, n);
  CHECK(fabs(sum / n) < 0.02, "token values mean %.4f, expected ~0", sum / n);
  /* every argument matters */
  float base[64], v[5][64];
  int diff[5] = {0};
  for (int h = 0; h < 64; h++) {
    base[h] = cb_moe_token_value(9, 1, 2, 3, h);
    v[0][h] = cb_moe_token_value(10, 1, 2, 3, h);
    v[1][h] = cb_moe_token_value(9, 2, 2, 3, h);
    v[2][h] = cb_moe_token_value(9, 1, 3, 3, h);
    v[3][h] = cb_moe_token_value(9, 1, 2, 4, h);
    v[4][h] = cb_moe_token_value(9, 1, 2, 3, (h + 1) % 64);
    CHECK(cb_moe_token_value(9, 1, 2, 3, h) == base[h], "token value not deterministic at h %d", h);
  }
  static const char *arg[5] = {"seed", "rank", "iter", "token", "channel"};
  for (int i = 0; i < 5; i++) {
    for (int h = 0; h < 64; h++) diff[i] += v[i][h] != base[h];
    CHECK(diff[i] > 48, "changing the %s changes only %d of 64 values", arg[i], diff[i]);
  }
}

int main(void) {
  test_layout_hand();
  test_layout_random();
  test_combine_hand();
  test_combine_random();
  test_dispatch_combine();
  test_imbalance();
  test_token_value();
  return cb_test_finish("test_moe_layout");
}
