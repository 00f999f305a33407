/* CPU test of the correctness tolerance (kernels/pattern.cuh, host path, plain C):
 *   - sum, prod, max and min compare bit-exactly (tolerance 0) for every dtype and rank count,
 *     and so does avg for the integer types (NCCL's truncating division, computed exactly);
 *   - for the floating types (double included, from its own epsilon), avg has a positive tolerance that grows with the
 * rank count relative to the value range R (cb_pattern_range), and in absolute terms wherever R stays fixed;
 *   - the tolerance covers the rounding of real avg implementations, simulated here in each
 *     dtype's precision on the actual pattern values: (a) exact sum, one division, one
 *     rounding (our kernels: fp32 accumulate); (b) NCCL's PreMulSum: every input multiplied by
 *     1/n rounded to the dtype, then a running sum rounded to the dtype after every step;
 *   - it still rejects the classic avg bug (the sum returned undivided) on some element, up
 *     to 16 ranks.
 * The dtype model: round to nearest even with p significand bits, normals down to 2^emin and
 * subnormals below, saturating at the largest finite value (as the encoders in dtype.cuh). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "cb_testing.h"
#include "dtype.h"
#include "pattern.cuh"

static const struct {
  int p;      /* significand bits including the implicit one */
  int emin;   /* exponent of the smallest normal */
  double max; /* largest finite value */
} fmt[CB_NDTYPES] = {
    [CB_FLOAT] = {24, -126, 3.4028234663852886e38},
    [CB_HALF] = {11, -14, 65504.0},
    [CB_BF16] = {8, -126, 3.3895313892515355e38},
    [CB_FP8E4M3] = {4, -6, 448.0},
    [CB_FP8E5M2] = {3, -14, 57344.0},
    [CB_DOUBLE] = {53, -1022, DBL_MAX},
    /* the integer types have no entry (p = 0): they are exact */
};

static int floating(int dt) { return !cb_dtype_is_int(dt); }

static double round_to(int dt, double x) {
  if (x == 0.0 || !isfinite(x)) return x;
  int e;
  frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
  e -= 1;
  if (e < fmt[dt].emin) e = fmt[dt].emin;
  double ulp = ldexp(1.0, e - (fmt[dt].p - 1));
  double r = nearbyint(x / ulp) * ulp; /* default rounding mode: ties to even */
  if (r > fmt[dt].max) r = fmt[dt].max;
  if (r < -fmt[dt].max) r = -fmt[dt].max;
  return r;
}

static void test_model(void) {
  /* the rounding model against facts of each format */
  CHECK(round_to(CB_FP8E4M3, 17.0) == 16.0, "e4m3 17 -> 16 (tie to even)");
  CHECK(round_to(CB_FP8E4M3, 19.0) == 20.0, "e4m3 19 -> 20");
  CHECK(round_to(CB_FP8E4M3, 1000.0) == 448.0, "e4m3 saturates");
  CHECK(round_to(CB_FP8E5M2, 9.0) == 8.0, "e5m2 9 -> 8");
  CHECK(round_to(CB_BF16, 257.0) == 256.0, "bf16 257 -> 256");
  CHECK(round_to(CB_HALF, 2049.0) == 2048.0, "half 2049 -> 2048");
  CHECK(round_to(CB_FLOAT, 16777217.0) == 16777216.0, "float 2^24+1");
  CHECK(round_to(CB_FP8E4M3, ldexp(1.0, -9)) == ldexp(1.0, -9), "e4m3 smallest subnormal");
  CHECK(round_to(CB_FP8E4M3, 1.0 / 3.0) == 0.34375, "e4m3 1/3");
  CHECK(round_to(CB_DOUBLE, 9007199254740993.0) == 9007199254740992.0, "double 2^53+1");
  for (int dt = 0; dt < CB_NDTYPES; dt++)
    if (floating(dt))
      CHECK(ldexp(1.0, 1 - fmt[dt].p) == (double)cb_dtype_eps(dt), "dtype %d: eps %g vs model 2^%d", dt,
            (double)cb_dtype_eps(dt), 1 - fmt[dt].p);
}

static void test_exact_ops(void) {
  for (int dt = 0; dt < CB_NDTYPES; dt++)
    for (int n = 1; n <= 1024; n++)
      for (int op = 0; op < CB_NREDOPS; op++)
        if (op != CB_AVG || !floating(dt))
          CHECK(cb_check_tolerance(dt, op, n) == 0.0f, "%s op %d n %d: tolerance %g, expected 0 (bit-exact)",
                cb_dtype_name((cb_dtype_t)dt), op, n, (double)cb_check_tolerance(dt, op, n));
}

static void test_avg_growth(void) {
  for (int dt = 0; dt < CB_NDTYPES; dt++) {
    if (!floating(dt)) continue;
    double prev_rel = 0.0, prev_abs = 0.0;
    int prev_r = 0;
    for (int n = 1; n <= 512; n++) {
      double tol = cb_check_tolerance(dt, CB_AVG, n);
      int r = cb_pattern_range(dt, n);
      CHECK(tol > 0.0, "%s avg n %d: tolerance %g not positive", cb_dtype_name((cb_dtype_t)dt), n, tol);
      double rel = tol / r;
      CHECK(rel > prev_rel, "%s avg: tolerance/range does not grow from n=%d (%g) to n=%d (%g)",
            cb_dtype_name((cb_dtype_t)dt), n - 1, prev_rel, n, rel);
      if (r == prev_r)
        CHECK(tol > prev_abs, "%s avg: tolerance does not grow from n=%d (%g) to n=%d (%g) at the same range %d",
              cb_dtype_name((cb_dtype_t)dt), n - 1, prev_abs, n, tol, r);
      prev_rel = rel;
      prev_abs = tol;
      prev_r = r;
    }
  }
  /* fp32 keeps the full range to 2^18 ranks: the tolerance itself grows with n */
  CHECK(cb_check_tolerance(CB_FLOAT, CB_AVG, 2) < cb_check_tolerance(CB_FLOAT, CB_AVG, 4), "float 2 < 4");
  CHECK(cb_check_tolerance(CB_FLOAT, CB_AVG, 4) < cb_check_tolerance(CB_FLOAT, CB_AVG, 8), "float 4 < 8");
  CHECK(cb_check_tolerance(CB_FLOAT, CB_AVG, 8) < cb_check_tolerance(CB_FLOAT, CB_AVG, 72), "float 8 < 72");
  /* a small fraction of the values, for float: far below one unit of the integer pattern */
  CHECK(cb_check_tolerance(CB_FLOAT, CB_AVG, 1024) < 0.01f, "float avg tolerance at 1024 ranks %g",
        (double)cb_check_tolerance(CB_FLOAT, CB_AVG, 1024));
}

/* Worst |result - exact average| over many elements for both implementations, vs tolerance. */
static void test_avg_covers_rounding(void) {
  const int ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 64};
  for (int dt = 0; dt < CB_NDTYPES; dt++)
    for (size_t k = 0; k < sizeof ns / sizeof ns[0] && floating(dt); k++) {
      int n = ns[k];
      double tol = cb_check_tolerance(dt, CB_AVG, n);
      double worst_a = 0.0, worst_b = 0.0, caught = 0.0;
      const double scale = round_to(dt, 1.0 / n);
      for (uint64_t i = 0; i < 20000; i++) {
        double exact_sum = 0.0, pre = 0.0;
        for (int r = 0; r < n; r++) {
          double v = cb_pattern_value(11, r, 2, i, dt, n);
          CHECK(v == round_to(dt, v), "pattern value %g not representable in %s", v, cb_dtype_name((cb_dtype_t)dt));
          exact_sum += v;
          double term = round_to(dt, v * scale);
          pre = r == 0 ? term : round_to(dt, pre + term);
        }
        double exact = exact_sum / n;
        /* the verify kernel compares in double against the exact expected value */
        double want = exact;
        double a = round_to(dt, exact);
        double da = fabs(a - want), db = fabs(pre - want);
        if (da > worst_a) worst_a = da;
        if (db > worst_b) worst_b = db;
        if (fabs(exact_sum - want) > caught) caught = fabs(exact_sum - want);
      }
      CHECK(worst_a <= tol, "%s avg n=%d: one-rounding error %g exceeds tolerance %g", cb_dtype_name((cb_dtype_t)dt), n,
            worst_a, tol);
      CHECK(worst_b <= tol, "%s avg n=%d: PreMulSum error %g exceeds tolerance %g", cb_dtype_name((cb_dtype_t)dt), n,
            worst_b, tol);
      /* Up to 16 ranks. Beyond, fp8e5m2's tolerance ((n+1) eps R with R = 1) exceeds every
       * possible |average| (at most 8/n), so no wrong average can be caught there. */
      if (n > 1 && n <= 16)
        CHECK(caught > tol, "%s avg n=%d: returning the undivided sum is never caught (max diff %g, tolerance %g)",
              cb_dtype_name((cb_dtype_t)dt), n, caught, tol);
    }
}

int main(void) {
  test_model();
  test_exact_ops();
  test_avg_growth();
  test_avg_covers_rounding();
  return cb_test_finish("test_tolerance");
}
