/* Implementation of stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cb_percentile(double *v, int n, double q) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  /* 1-based rank; q * n first, so integer q and n give the exact product (q / 100 * n rounds:
   * q = 7, n = 100 would give rank 8) */
  int k = (int)ceil(q * (double)n / 100.0);
  if (k < 1) k = 1;
  if (k > n) k = n;
  return v[k - 1];
}

double cb_mean(const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += v[i];
  return n > 0 ? s / (double)n : NAN;
}

void cb_aggregate_times(const cb_mpi_world_t *w, const double *iter_us, int n, cb_stats_t *out) {
  cb_aggregate_times_as(w, iter_us, n, 1, out);
}

void cb_aggregate_times_as(const cb_mpi_world_t *w, const double *iter_us, int n, int combine, cb_stats_t *out) {
  double local = cb_mean(iter_us, n), sum = 0.0, max = 0.0, min = 0.0, first = local;
  double *worst = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!worst) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  /* non-blocking + polled (cb_mpi_wait): a missing rank ends in the watchdog's message */
  MPI_Request req[5];
  CB_MPI(MPI_Iallreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, w->comm, &req[0]));
  CB_MPI(MPI_Iallreduce(&local, &max, 1, MPI_DOUBLE, MPI_MAX, w->comm, &req[1]));
  CB_MPI(MPI_Iallreduce(iter_us, worst, n, MPI_DOUBLE, MPI_MAX, w->comm, &req[2]));
  CB_MPI(MPI_Iallreduce(&local, &min, 1, MPI_DOUBLE, MPI_MIN, w->comm, &req[3]));
  CB_MPI(MPI_Ibcast(&first, 1, MPI_DOUBLE, 0, w->comm, &req[4])); /* rank 0's own */
  for (int i = 0; i < 5; i++) cb_mpi_wait(&req[i]);
  out->mean_us = combine == 0 ? first : combine == 2 ? min : combine == 3 ? max : sum / (double)w->nranks;
  out->max_us = max;
  out->p50_us = cb_percentile(worst, n, 50.0);
  cb_iter_stats(worst, n, &out->iter);
  out->p99_us = cb_percentile(worst, n, 99.0);
  free(worst);
}
