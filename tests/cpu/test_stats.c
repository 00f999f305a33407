/* CPU test of the local statistics in launcher/stats.c: cb_percentile (nearest-rank: the
 * smallest value with at least q% of the values <= it, i.e. the ceil(q/100 * n)-th smallest)
 * and cb_mean. The reference rank is computed in integer arithmetic, so floating-point noise in
 * q/100 * n cannot hide an off-by-one. Cross-rank aggregation is tested in tests/mpi. */
#include <stdint.h>
#include <stdlib.h>

#include "cb_testing.h"
#include "stats.h"

/* Nearest rank for an integer percentile q: ceil(q * n / 100), at least 1. */
static int reference_rank(int q, int n) {
  int k = (q * n + 99) / 100;
  return k < 1 ? 1 : k;
}

static void shuffle(double *v, int n, uint64_t *state) {
  for (int i = n - 1; i > 0; i--) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    int j = (int)((*state >> 33) % (uint64_t)(i + 1));
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

static void test_percentile(void) {
  double v[1000];
  /* Wikipedia's nearest-rank example: {15, 20, 35, 40, 50}. */
  double ex[5] = {50, 15, 40, 20, 35};
  CHECK(cb_percentile(ex, 5, 5) == 15, "p5");
  CHECK(cb_percentile(ex, 5, 30) == 20, "p30");
  CHECK(cb_percentile(ex, 5, 40) == 20, "p40");
  CHECK(cb_percentile(ex, 5, 50) == 35, "p50");
  CHECK(cb_percentile(ex, 5, 100) == 50, "p100");
  CHECK(ex[0] == 15 && ex[4] == 50, "values are sorted in place");

  /* single value, q at the ends */
  double one = 7.5;
  CHECK(cb_percentile(&one, 1, 50) == 7.5, "n=1 p50");
  CHECK(cb_percentile(&one, 1, 99) == 7.5, "n=1 p99");
  for (int i = 0; i < 10; i++) v[i] = 10 - i;
  CHECK(cb_percentile(v, 10, 0) == 1, "p0 is the minimum");
  CHECK(cb_percentile(v, 10, 100) == 10, "p100 is the maximum");
  CHECK(cb_percentile(v, 10, 50) == 5, "p50 of 1..10 is 5 (nearest rank), not 5.5");
  CHECK(cb_percentile(v, 10, 99) == 10, "p99 of 1..10 is 10");
  CHECK(cb_percentile(v, 10, 90) == 9, "p90 of 1..10 is 9");
  CHECK(isnan(cb_percentile(v, 0, 50)), "no values: NaN");

  /* every integer percentile for every n up to 200, values 1..n shuffled: the answer is the
   * reference rank itself */
  uint64_t state = 42;
  int reported = 0;
  for (int n = 1; n <= 200; n++) {
    for (int q = 0; q <= 100; q++) {
      for (int i = 0; i < n; i++) v[i] = i + 1;
      shuffle(v, n, &state);
      double got = cb_percentile(v, n, q);
      int want = reference_rank(q, n);
      cb_test_checks++;
      if (got != want) {
        cb_test_failures++;
        if (reported++ < 5)
          fprintf(stderr, "FAIL %s:%d: cb_percentile(1..%d, q=%d) = %g, nearest rank is %d (ceil(%d*%d/100))\n",
                  __FILE__, __LINE__, n, q, got, want, q, n);
      }
    }
  }
  if (reported > 5) fprintf(stderr, "  ... %d nearest-rank mismatches in all\n", reported);

  /* p50 and p99 (what rows report) on a typical latency sample with outliers and ties */
  for (int i = 0; i < 100; i++) v[i] = 10.0;
  v[3] = 500.0; /* one outlier: p99 of 100 values is the 99th smallest, not the outlier */
  v[50] = 9.0;
  CHECK(cb_percentile(v, 100, 50) == 10.0, "p50 with ties");
  CHECK(cb_percentile(v, 100, 99) == 10.0, "p99 ignores a single outlier in 100");
  CHECK(cb_percentile(v, 100, 100) == 500.0, "p100 is the outlier");
  for (int i = 0; i < 1000; i++) v[i] = i < 985 ? 1.0 : 2.0; /* 15 slow of 1000 */
  shuffle(v, 1000, &state);
  CHECK(cb_percentile(v, 1000, 99) == 2.0, "p99 sees 1.5%% slow iterations");
  CHECK(cb_percentile(v, 1000, 50) == 1.0, "p50 of mostly fast");
  /* negative and fractional values sort numerically */
  double neg[4] = {0.5, -3.0, 2.25, -0.25};
  CHECK(cb_percentile(neg, 4, 25) == -3.0, "p25");
  CHECK(cb_percentile(neg, 4, 50) == -0.25, "p50");
  CHECK(cb_percentile(neg, 4, 75) == 0.5, "p75");
}

static void test_mean(void) {
  double v[5] = {1, 2, 3, 4, 5};
  CHECK(cb_mean(v, 5) == 3.0, "mean 1..5");
  CHECK(cb_mean(v, 4) == 2.5, "mean 1..4");
  CHECK(cb_mean(v, 1) == 1.0, "mean of one");
  CHECK(isnan(cb_mean(v, 0)), "mean of none is NaN");
  double w[3] = {1e-3, 2e-3, 3e-3};
  CHECK_NEAR(cb_mean(w, 3), 2e-3, 1e-15);
  double big[1000];
  for (int i = 0; i < 1000; i++) big[i] = 0.1 * i;
  CHECK_NEAR(cb_mean(big, 1000), 49.95, 1e-12);
  CHECK(v[0] == 1 && v[4] == 5, "cb_mean does not reorder");
}

int main(void) {
  test_percentile();
  test_mean();
  return cb_test_finish("test_stats");
}
