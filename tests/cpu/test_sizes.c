/* CPU test of launcher/sizes.c: size parsing (K/M/G/T = powers of 1024, as nccl-tests),
 * printing, and sweep expansion. The sweep endpoints are checked against nccl-tests' loop
 *   for (size = minBytes; size <= maxBytes; size = stepFactor > 1 ? size * stepFactor : size + stepBytes)
 * which never passes maxBytes and only lands on it when a step reaches it exactly. */
#include <stdint.h>
#include <stdlib.h>

#include "cb_testing.h"
#include "sizes.h"

static void expect_size(const char *s, uint64_t want) {
  uint64_t v = 12345;
  int rc = cb_parse_size(s, &v);
  CHECK(rc == 0 && v == want, "cb_parse_size('%s') rc %d value %llu, expected %llu", s, rc, (unsigned long long)v,
        (unsigned long long)want);
}

static void expect_bad_size(const char *s) {
  uint64_t v = 777;
  int rc = cb_parse_size(s, &v);
  CHECK(rc == -1, "cb_parse_size('%s') accepted (%llu)", s ? s : "(null)", (unsigned long long)v);
  CHECK(v == 777, "cb_parse_size('%s') wrote %llu on failure", s ? s : "(null)", (unsigned long long)v);
}

static void expect_format(uint64_t bytes, const char *want) {
  char buf[64];
  cb_format_size(bytes, buf, sizeof buf);
  CHECK(strcmp(buf, want) == 0, "cb_format_size(%llu) = '%s', expected '%s'", (unsigned long long)bytes, buf, want);
}

/* nccl-tests' loop for an integer factor or step, as the reference. */
static int nccl_tests_sweep(uint64_t min, uint64_t max, uint64_t factor, uint64_t step, uint64_t *out, int cap) {
  int k = 0;
  for (uint64_t s = min; s <= max && k < cap;) {
    out[k++] = s;
    if (factor > 1) {
      if (s > UINT64_MAX / factor) break; /* the next size would not fit, so it is > max */
      s *= factor;
    } else {
      if (s > UINT64_MAX - step) break;
      s += step;
    }
  }
  return k;
}

static void expect_sweep_like_nccl_tests(uint64_t min, uint64_t max, uint64_t factor, uint64_t step) {
  static uint64_t got[CB_MAX_SWEEP_POINTS], want[CB_MAX_SWEEP_POINTS];
  char why[256] = "";
  int n = cb_sweep(min, max, (double)factor, step, got, CB_MAX_SWEEP_POINTS, why, sizeof why);
  int m = nccl_tests_sweep(min, max, factor, step, want, CB_MAX_SWEEP_POINTS);
  int same = n == m;
  for (int i = 0; same && i < n; i++) same = got[i] == want[i];
  CHECK(
      same,
      "cb_sweep(%llu, %llu, f %llu, i %llu): %d points (first %llu last %llu), nccl-tests %d (first %llu last %llu) %s",
      (unsigned long long)min, (unsigned long long)max, (unsigned long long)factor, (unsigned long long)step, n,
      n > 0 ? (unsigned long long)got[0] : 0ull, n > 0 ? (unsigned long long)got[n - 1] : 0ull, m,
      m > 0 ? (unsigned long long)want[0] : 0ull, m > 0 ? (unsigned long long)want[m - 1] : 0ull, why);
}

static void test_parse(void) {
  expect_size("0", 0);
  expect_size("8", 8);
  expect_size("8B", 8);
  expect_size("8b", 8);
  expect_size("1K", 1024);
  expect_size("1k", 1024);
  expect_size("1KB", 1024);
  expect_size("1KiB", 1024);
  expect_size("1kib", 1024);
  expect_size("3M", 3ull << 20);
  expect_size("256M", 256ull << 20);
  expect_size("1MiB", 1ull << 20);
  expect_size("8G", 8ull << 30);
  expect_size("8g", 8ull << 30);
  expect_size("2T", 2ull << 40);
  expect_size("007", 7);
  expect_size("18446744073709551615", UINT64_MAX);
  expect_size("16777215T", 16777215ull << 40);
  expect_size("17179869183G", 17179869183ull << 30);

  expect_bad_size(NULL);
  expect_bad_size("");
  expect_bad_size("K");
  expect_bad_size("B");
  expect_bad_size("-1");
  expect_bad_size("+1");
  expect_bad_size(" 1");
  expect_bad_size("1 ");
  expect_bad_size("1 K");
  expect_bad_size("1.5K");
  expect_bad_size("1e6");
  expect_bad_size("0x10");
  expect_bad_size("1X");
  expect_bad_size("1KK");
  expect_bad_size("1KiBB");
  expect_bad_size("1iB");
  expect_bad_size("1Ki");
  expect_bad_size("1P");
  expect_bad_size("18446744073709551616");
  expect_bad_size("99999999999999999999999");
  expect_bad_size("16777216T");
  expect_bad_size("17179869184G");
}

static void test_format(void) {
  expect_format(0, "0 B");
  expect_format(8, "8 B");
  expect_format(1023, "1023 B");
  expect_format(1024, "1 KiB");
  expect_format(1536, "1.5 KiB");
  expect_format(1025, "1.0 KiB");
  expect_format(4096, "4 KiB");
  expect_format(1023ull * 1024, "1023 KiB");
  expect_format(1ull << 20, "1 MiB");
  expect_format(1536ull << 10, "1.5 MiB");
  expect_format(256ull << 20, "256 MiB");
  expect_format(3ull << 30, "3 GiB");
  expect_format(8ull << 30, "8 GiB");
  expect_format(1ull << 40, "1 TiB");
  expect_format(1ull << 50, "1024 TiB");
  /* Every power of two formats to an exact value with no decimal point. */
  for (int s = 0; s < 50; s++) {
    char buf[64];
    cb_format_size(1ull << s, buf, sizeof buf);
    CHECK(!strchr(buf, '.'), "2^%d formatted as '%s'", s, buf);
    /* and parses back (without the space) to the same value */
    char compact[64];
    int j = 0;
    for (int i = 0; buf[i] && j < 63; i++)
      if (buf[i] != ' ') compact[j++] = buf[i];
    compact[j] = 0;
    uint64_t back = 0;
    CHECK(cb_parse_size(compact, &back) == 0 && back == 1ull << s, "'%s' does not parse back to 2^%d", compact, s);
  }
  /* a short buffer truncates without overflow */
  char small[4] = "xxx";
  cb_format_size(1ull << 20, small, sizeof small);
  CHECK(small[3] == 0 && strlen(small) == 3, "truncated '%s'", small);
}

static void test_sweep(void) {
  uint64_t out[80];
  char why[256];
  int n;

  /* -b 8 -e 100 -f 2 -> 8 16 32 64 (nccl-tests stops before 128) */
  n = cb_sweep(8, 100, 2.0, 0, out, 64, why, sizeof why);
  CHECK(n == 4 && out[0] == 8 && out[1] == 16 && out[2] == 32 && out[3] == 64, "8..100 x2: n %d", n);
  /* max reached exactly is included */
  n = cb_sweep(8, 128, 2.0, 0, out, 64, why, sizeof why);
  CHECK(n == 5 && out[4] == 128, "8..128 x2: n %d last %llu", n, n > 0 ? (unsigned long long)out[n - 1] : 0ull);
  n = cb_sweep(8, 8, 2.0, 0, out, 64, why, sizeof why);
  CHECK(n == 1 && out[0] == 8, "8..8: n %d", n);
  n = cb_sweep(0, 0, 2.0, 0, out, 64, why, sizeof why);
  CHECK(n == 1 && out[0] == 0, "0..0: n %d", n);
  /* arithmetic */
  n = cb_sweep(1024, 4096, 0.0, 1024, out, 64, why, sizeof why);
  CHECK(n == 4 && out[0] == 1024 && out[3] == 4096, "1K..4K +1K: n %d", n);
  n = cb_sweep(0, 10, 0.0, 4, out, 64, why, sizeof why);
  CHECK(n == 3 && out[0] == 0 && out[1] == 4 && out[2] == 8, "0..10 +4: n %d", n);
  n = cb_sweep(5, 5, 0.0, 1, out, 64, why, sizeof why);
  CHECK(n == 1 && out[0] == 5, "5..5 +1: n %d", n);
  n = cb_sweep(UINT64_MAX - 5, UINT64_MAX, 0.0, 4, out, 64, why, sizeof why);
  CHECK(n == 2 && out[1] == UINT64_MAX - 1, "near UINT64_MAX +4 (no wrap): n %d", n);
  /* geometric up to the largest sizes: no overflow, strictly increasing */
  n = cb_sweep(1, UINT64_MAX, 2.0, 0, out, 80, why, sizeof why);
  CHECK(n >= 64, "1..2^64-1 x2: n %d (%s)", n, why);
  for (int i = 1; i < n; i++) CHECK(out[i] > out[i - 1], "not increasing at %d", i);
  for (int i = 0; i < 64 && i < n; i++) CHECK(out[i] == 1ull << i, "point %d = %llu", i, (unsigned long long)out[i]);
  /* a fractional factor still makes progress (floor, at least +1) */
  n = cb_sweep(1, 10, 1.5, 0, out, 64, why, sizeof why);
  CHECK(n == 6 && out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4 && out[4] == 6 && out[5] == 9,
        "1..10 x1.5: n %d", n);
  /* exactly cap points is fine, one more is not */
  n = cb_sweep(1, 10, 0.0, 1, out, 10, why, sizeof why);
  CHECK(n == 10, "10 points in cap 10: n %d (%s)", n, why);
  why[0] = 0;
  n = cb_sweep(1, 11, 0.0, 1, out, 10, why, sizeof why);
  CHECK(n == -1, "11 points in cap 10: n %d", n);
  CHECK_CONTAINS(why, "10");

  /* the same endpoints as nccl-tests over a grid of integer factors and steps */
  uint64_t mins[] = {1, 3, 7, 8, 100, 1000, 4096};
  uint64_t maxs[] = {1, 8, 100, 1000, 4096, 65535, 1 << 20, (1u << 30) + 1};
  for (size_t i = 0; i < sizeof mins / sizeof mins[0]; i++)
    for (size_t j = 0; j < sizeof maxs / sizeof maxs[0]; j++) {
      if (mins[i] > maxs[j]) continue;
      for (uint64_t f = 2; f <= 5; f++) expect_sweep_like_nccl_tests(mins[i], maxs[j], f, 0);
      for (uint64_t s = 1; s <= 1000; s *= 10)
        if ((maxs[j] - mins[i]) / s < CB_MAX_SWEEP_POINTS) expect_sweep_like_nccl_tests(mins[i], maxs[j], 0, s);
    }

  /* errors, each with a reason */
  why[0] = 0;
  CHECK(cb_sweep(1024, 8, 2.0, 0, out, 64, why, sizeof why) == -1, "min > max accepted");
  CHECK_CONTAINS(why, "1024");
  CHECK_CONTAINS(why, "8");
  why[0] = 0;
  CHECK(cb_sweep(8, 64, 2.0, 8, out, 64, why, sizeof why) == -1, "factor and step accepted");
  CHECK(why[0] != 0, "no reason given");
  why[0] = 0;
  CHECK(cb_sweep(8, 64, 0.0, 0, out, 64, why, sizeof why) == -1, "neither factor nor step accepted");
  CHECK(why[0] != 0, "no reason given");
  why[0] = 0;
  CHECK(cb_sweep(8, 64, 1.0, 0, out, 64, why, sizeof why) == -1, "factor 1 accepted");
  CHECK_CONTAINS(why, "1");
  why[0] = 0;
  CHECK(cb_sweep(8, 64, 0.5, 0, out, 64, why, sizeof why) == -1, "factor 0.5 accepted");
  why[0] = 0;
  CHECK(cb_sweep(0, 64, 2.0, 0, out, 64, why, sizeof why) == -1, "geometric from 0 accepted");
  CHECK_CONTAINS(why, "0");
}

int main(void) {
  test_parse();
  test_format();
  test_sweep();
  return cb_test_finish("test_sizes");
}
