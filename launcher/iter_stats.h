/* nccl-tests' per-iteration summary (-I 1; its computeIterStats in src/util.cu): from the
 * iteration times of one row, each the slowest rank's (nccl-tests: the max over process rows),
 *   min, max      the extremes
 *   avg           the mean
 *   p50           the middle of the sorted times (sorted[n / 2]: the upper middle for even n,
 *                 not a nearest-rank percentile)
 *   p95, p99      nearest rank: the smallest time with at least q% of the times <= it
 *   stdev         the population standard deviation (divided by n)
 *   cv_pct        stdev / avg x 100 (0 when avg is 0)
 * The drop-in's table prints min, max, p99 and cv_pct as nccl-tests' i_min, i_max, i_p99 and
 * i_cv% columns; its -J file writes all of them. Pure: no MPI, no CUDA. */
#ifndef CB_ITER_STATS_H
#define CB_ITER_STATS_H

typedef struct cb_iter_stats {
  double min, max, avg, p50, p95, p99, stdev, cv_pct;
} cb_iter_stats_t;

/* The summary of n > 0 times (microseconds; not changed); n <= 0 gives NaN everywhere. */
void cb_iter_stats(const double *times_us, int n, cb_iter_stats_t *out);

#endif
