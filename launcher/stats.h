/* Timing statistics: per-iteration times of one rank → the numbers a row reports.
 *
 *   time_us_mean  mean over ranks of each rank's mean iteration time (nccl-tests' default,
 *                 so busbw is comparable with its numbers); with -a (nccl-tests' --average)
 *                 rank 0's (0), the minimum (2) or the maximum (3) over ranks instead
 *   time_us_max   max over ranks of each rank's mean iteration time
 *   time_us_p50/p99  percentiles over iterations of the iteration time, where an iteration's
 *                 time is the max over ranks (a collective is as slow as its slowest rank);
 *                 nearest-rank method: the smallest value with at least q% of values <= it
 *   iter          nccl-tests' -I 1 summary (iter_stats.h) of those same per-iteration times. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include "iter_stats.h"
#include "mpi_world.h"

typedef struct cb_stats {
  double mean_us, max_us, p50_us, p99_us;
  cb_iter_stats_t iter;
} cb_stats_t;

/* Nearest-rank percentile of n values (need not be sorted; values is sorted in place). */
double cb_percentile(double *values, int n, double q);

/* Local mean of n values. */
double cb_mean(const double *values, int n);

/* Collective over w->comm: every rank passes its n per-iteration times (same n everywhere).
 * Result valid on every rank. */
void cb_aggregate_times(const cb_mpi_world_t *w, const double *iter_us, int n, cb_stats_t *out);
/* The same with mean_us combined over ranks as -a says (args.h enum cb_combine; 1 = the above). */
void cb_aggregate_times_as(const cb_mpi_world_t *w, const double *iter_us, int n, int combine, cb_stats_t *out);

#endif
