/* Minimal assertions for the C test programs of tests/cpu and tests/mpi: each failed check
 * prints file:line and a message to stderr and counts; the program's exit code is the verdict
 * (cb_test_finish). No test framework: these programs are small and CTest runs them. */
#ifndef CB_TESTING_H
#define CB_TESTING_H

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One counter per test program; only the test's own translation unit includes this. */
static int cb_test_failures;
static int cb_test_checks;

#define CHECK(cond, ...)                                               \
  do {                                                                 \
    cb_test_checks++;                                                  \
    if (!(cond)) {                                                     \
      cb_test_failures++;                                              \
      fprintf(stderr, "FAIL %s:%d: (%s) ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                    \
      fprintf(stderr, "\n");                                           \
    }                                                                  \
  } while (0)

/* haystack contains needle (NULL haystack never does). */
static inline int cb_test_contains(const char *haystack, const char *needle) {
  return haystack && needle && strstr(haystack, needle) != NULL;
}

static inline const char *cb_test_str(const char *s) { return s ? s : "(null)"; }

#define CHECK_CONTAINS(hay, needle) \
  CHECK(cb_test_contains((hay), (needle)), "'%s' does not contain '%s'", cb_test_str(hay), (needle))

#define CHECK_EQ_INT(got, want)                                \
  do {                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);   \
    CHECK(g_ == w_, "%s = %lld, expected %lld", #got, g_, w_); \
  } while (0)

#define CHECK_EQ_STR(got, want)                                                                \
  do {                                                                                         \
    const char *g_ = (got), *w_ = (want);                                                      \
    CHECK(g_ &&strcmp(g_, w_) == 0, "%s = '%s', expected '%s'", #got, g_ ? g_ : "(null)", w_); \
  } while (0)

/* |got - want| <= tol (relative to max(1, |want|)). */
#define CHECK_NEAR(got, want, tol)                                                \
  do {                                                                            \
    double g_ = (double)(got), w_ = (double)(want);                               \
    double s_ = fabs(w_) > 1.0 ? fabs(w_) : 1.0;                                  \
    CHECK(fabs(g_ - w_) <= (tol)*s_, "%s = %.17g, expected %.17g", #got, g_, w_); \
  } while (0)

static inline int cb_test_finish(const char *name) {
  if (cb_test_failures) {
    fprintf(stderr, "%s: %d of %d checks failed\n", name, cb_test_failures, cb_test_checks);
    return 1;
  }
  printf("%s: all %d checks passed\n", name, cb_test_checks);
  return 0;
}

#endif
