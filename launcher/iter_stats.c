/* Implementation of iter_stats.h, in nccl-tests' order of operations (sorted, then summed in
 * sorted order), so the same times give the same digits. */
#include "iter_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* nccl-tests' percentileIndex: the 0-based nearest rank ceil(n q / 100) - 1, at most n - 1. */
static int nearest_rank(int n, int q) {
  const int k = (n * q + 99) / 100 - 1;
  return k < n - 1 ? k : n - 1;
}

void cb_iter_stats(const double *times_us, int n, cb_iter_stats_t *out) {
  if (n <= 0) {
    out->min = out->max = out->avg = out->p50 = out->p95 = out->p99 = out->stdev = out->cv_pct = NAN;
    return;
  }
  double *sorted = malloc(sizeof *sorted * (size_t)n);
  if (!sorted) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  memcpy(sorted, times_us, sizeof *sorted * (size_t)n);
  qsort(sorted, (size_t)n, sizeof *sorted, by_value);
  out->min = sorted[0];
  out->max = sorted[n - 1];
  out->p50 = sorted[n / 2];
  out->p95 = sorted[nearest_rank(n, 95)];
  out->p99 = sorted[nearest_rank(n, 99)];
  double sum = 0.0, var = 0.0;
  for (int i = 0; i < n; i++) sum += sorted[i];
  out->avg = sum / n;
  for (int i = 0; i < n; i++) var += (sorted[i] - out->avg) * (sorted[i] - out->avg);
  out->stdev = sqrt(var / n);
  out->cv_pct = out->avg > 0 ? out->stdev / out->avg * 100.0 : 0.0;
  free(sorted);
}
