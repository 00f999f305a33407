/* MPI test program on CPU ranks (no CUDA): one binary, one case per run, started by
 * run_mpi_case.py under mpirun -np 2 / -np 4. The cases:
 *
 *   world      cb_mpi_world_init on one host: rank, nranks, local rank/size, node, nnodes,
 *              max_local_nranks, host name, and consistency across ranks (every node's local
 *              ranks are 0..k-1, node indexes follow the lowest world rank); the node
 *              communicator really holds the node's ranks; cb_mpi_gather_strings gathers each
 *              rank's string in rank order, truncating to the slot length.
 *   aggregate  cb_aggregate_times with known per-iteration times on every rank: mean over
 *              ranks of per-rank means, max over ranks of per-rank means, nearest-rank p50 and
 *              p99 of the per-iteration max over ranks; the same result on every rank; the
 *              input left untouched. Expected values are recomputed here from the formula.
 *   watchdog   a watchdog armed with 1 s on the last rank, which then sleeps, while the others
 *              wait in a barrier: the job must end with CB_EXIT_TIMEOUT (4), naming the rank
 *              and what hung (the driver checks the code, the message and the time taken).
 *   watchdog-quiet  arm/disarm cycles shorter than the timeout and idle time after disarming
 *              longer than it: the watchdog must stay silent; exits 0.
 *   early-exit rank 1 calls exit(3) before a barrier the others wait in: the whole job must
 *              end non-zero quickly instead of hanging.
 *   agree      cb_mpi_agree: all ranks ok gives 1 and leaves the reasons alone; ranks 1 and
 *              (with 4 ranks) 3 failing gives 0 on every rank, every rank holding rank 1's
 *              reason (the lowest failing rank); over the node communicator too.
 *   die        rank 1 calls CB_DIE(CB_EXIT_RUNTIME, ...): the job ends with 3 and the message
 *              carries the "[rank 1/N host H] file:line" prefix.
 *
 * Each case prints "PASS <case>" on rank 0 when its checks hold; failures are printed with the
 * rank and make every rank exit 1 (agreed with an MPI_Allreduce so the job ends cleanly). */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cb_testing.h"
#include "error.h"
#include "mpi_testing.h"
#include "mpi_world.h"
#include "stats.h"
#include "watchdog.h"

static void case_world(const cb_mpi_world_t *w) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_EQ_INT(w->rank, rank);
  CHECK_EQ_INT(w->nranks, size);
  /* one host: every rank on node 0, local rank = world rank */
  CHECK_EQ_INT(w->nnodes, 1);
  CHECK_EQ_INT(w->node, 0);
  CHECK_EQ_INT(w->local_rank, rank);
  CHECK_EQ_INT(w->local_nranks, size);
  CHECK_EQ_INT(w->max_local_nranks, size);
  char host[CB_HOST_MAX] = "";
  gethostname(host, sizeof host - 1);
  CHECK(strncmp(w->host, host, CB_HOST_MAX - 1) == 0, "host '%s' vs gethostname '%s'", w->host, host);
  CHECK(w->comm != MPI_COMM_WORLD, "w->comm must be a duplicate, not MPI_COMM_WORLD itself");
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(w->comm, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "w->comm is not congruent to MPI_COMM_WORLD (%d)", cmp);

  /* the node communicator holds the node's ranks, in world order */
  int node_size = 0, node_rank = -1;
  MPI_Comm_size(w->node_comm, &node_size);
  MPI_Comm_rank(w->node_comm, &node_rank);
  CHECK_EQ_INT(node_size, w->local_nranks);
  CHECK_EQ_INT(node_rank, w->local_rank);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, w->node_comm);
  CHECK_EQ_INT(sum, size * (size - 1) / 2);

  /* consistency, as it would have to hold across several nodes too */
  int mine[4] = {w->node, w->local_rank, w->local_nranks, w->nnodes};
  int *all = calloc((size_t)size * 4, sizeof(int));
  MPI_Allgather(mine, 4, MPI_INT, all, 4, MPI_INT, w->comm);
  for (int r = 0; r < size; r++) {
    const int *x = all + 4 * r;
    CHECK(x[3] == w->nnodes, "rank %d sees %d nodes, I see %d", r, x[3], w->nnodes);
    CHECK(x[0] >= 0 && x[0] < w->nnodes, "rank %d node %d", r, x[0]);
    CHECK(x[1] >= 0 && x[1] < x[2], "rank %d local rank %d of %d", r, x[1], x[2]);
    CHECK(x[2] <= w->max_local_nranks, "rank %d local size %d > max %d", r, x[2], w->max_local_nranks);
    int same_node = 0;
    for (int q = 0; q < size; q++) same_node += all[4 * q] == x[0];
    CHECK(same_node == x[2], "node %d: %d ranks, rank %d says %d", x[0], same_node, r, x[2]);
  }
  free(all);

  /* gather: every rank's string, in rank order */
  char msg[128];
  snprintf(msg, sizeof msg, "rank-%d-of-%d@%s", rank, size, w->host);
  const int len = 96;
  char *gathered = rank == 0 ? calloc((size_t)size, (size_t)len) : NULL;
  cb_mpi_gather_strings(w, msg, gathered, len);
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      char want[128];
      snprintf(want, sizeof want, "rank-%d-of-%d@%s", r, size, w->host);
      CHECK_EQ_STR(gathered + (size_t)r * len, want);
    }
  }
  free(gathered);
  /* a slot shorter than the string: truncated to len-1 characters and terminated */
  const int small = 8;
  char *short_all = rank == 0 ? malloc((size_t)size * small) : NULL;
  if (short_all) memset(short_all, 'x', (size_t)size * small);
  snprintf(msg, sizeof msg, "%d-abcdefghijklmnop", rank);
  cb_mpi_gather_strings(w, msg, short_all, small);
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      char want[32];
      snprintf(want, sizeof want, "%d-abcdefghijklmnop", r);
      want[small - 1] = 0;
      CHECK(memchr(short_all + (size_t)r * small, 0, (size_t)small) != NULL, "slot %d not terminated", r);
      CHECK_EQ_STR(short_all + (size_t)r * small, want);
    }
  }
  free(short_all);
}

/* Per-iteration time of rank r at iteration i for the aggregation case: a base that depends on
 * both, a shuffled order, and outliers on chosen ranks, so max-over-ranks and the percentiles
 * differ from anything a per-rank statistic would give. */
static double iter_time(int r, int i, int n) {
  int j = (i * 37 + 11) % n; /* a permutation of 0..n-1 for n coprime with 37 */
  double t = 10.0 + 0.25 * j + 0.5 * r;
  if (r == 1 && i % 50 == 7) t += 1000.0; /* rare spikes on rank 1: show up in p99 only */
  if (r == 0 && i == 3) t += 77.0;
  return t;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void check_aggregate(const cb_mpi_world_t *w, int n) {
  double *mine = malloc(sizeof(double) * (size_t)n), *copy = malloc(sizeof(double) * (size_t)n);
  double *worst = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) mine[i] = copy[i] = iter_time(w->rank, i, n);

  /* the expectation, from the definitions in stats.h */
  double sum_of_means = 0.0, max_of_means = 0.0;
  for (int r = 0; r < w->nranks; r++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += iter_time(r, i, n);
    double m = s / n;
    sum_of_means += m;
    if (m > max_of_means) max_of_means = m;
  }
  for (int i = 0; i < n; i++) {
    worst[i] = iter_time(0, i, n);
    for (int r = 1; r < w->nranks; r++)
      if (iter_time(r, i, n) > worst[i]) worst[i] = iter_time(r, i, n);
  }
  qsort(worst, (size_t)n, sizeof *worst, cmp_double);
  int k50 = (50 * n + 99) / 100, k99 = (99 * n + 99) / 100; /* nearest rank, 1-based */
  double want_p50 = worst[k50 - 1], want_p99 = worst[k99 - 1];

  cb_stats_t st;
  memset(&st, 0, sizeof st);
  cb_aggregate_times(w, mine, n, &st);
  CHECK_NEAR(st.mean_us, sum_of_means / w->nranks, 1e-12);
  CHECK_NEAR(st.max_us, max_of_means, 1e-12);
  CHECK(st.p50_us == want_p50, "n=%d p50 %.17g, expected %.17g", n, st.p50_us, want_p50);
  CHECK(st.p99_us == want_p99, "n=%d p99 %.17g, expected %.17g", n, st.p99_us, want_p99);
  CHECK(memcmp(mine, copy, sizeof(double) * (size_t)n) == 0, "n=%d: the input times were modified", n);
  if (w->nranks > 1 && n >= 100) {
    /* the spikes on rank 1 are in p99 of the per-iteration max, and never in p50 */
    CHECK(st.p99_us > 1000.0, "n=%d p99 %.3f misses rank 1's spikes", n, st.p99_us);
    CHECK(st.p50_us < 1000.0, "n=%d p50 %.3f includes a spike", n, st.p50_us);
    CHECK(st.max_us > st.mean_us, "max over ranks %.3f <= mean %.3f", st.max_us, st.mean_us);
  }
  /* every rank holds the same result */
  double v[4] = {st.mean_us, st.max_us, st.p50_us, st.p99_us}, lo[4], hi[4];
  MPI_Allreduce(v, lo, 4, MPI_DOUBLE, MPI_MIN, w->comm);
  MPI_Allreduce(v, hi, 4, MPI_DOUBLE, MPI_MAX, w->comm);
  for (int q = 0; q < 4; q++) CHECK(lo[q] == hi[q], "n=%d stat %d differs across ranks: %g..%g", n, q, lo[q], hi[q]);
  free(mine);
  free(copy);
  free(worst);
}

static void case_aggregate(const cb_mpi_world_t *w) {
  int ns[] = {1, 2, 3, 10, 100, 101, 1000};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) check_aggregate(w, ns[i]);

  /* a hand-computed case: 2 iterations, rank r takes (1 + r, 10 - r) us */
  double t[2] = {1.0 + w->rank, 10.0 - w->rank};
  cb_stats_t st;
  cb_aggregate_times(w, t, 2, &st);
  CHECK_NEAR(st.mean_us, 5.5, 1e-12); /* every rank's mean is 5.5 */
  CHECK_NEAR(st.max_us, 5.5, 1e-12);
  /* per-iteration max: (nranks, 10); nearest-rank p50 of 2 values is the smaller, p99 the larger */
  CHECK_NEAR(st.p50_us, (double)w->nranks < 10.0 ? (double)w->nranks : 10.0, 1e-12);
  CHECK_NEAR(st.p99_us, 10.0, 1e-12);
}

static void case_watchdog(const cb_mpi_world_t *w) {
  cb_watchdog_t wd;
  cb_watchdog_start(&wd, 1.0, MPI_COMM_NULL, NULL);
  MPI_Barrier(w->comm);
  if (w->rank == w->nranks - 1) {
    cb_watchdog_arm(&wd, "mpi_cases watchdog: rank %d sleeping in a fake collective", w->rank);
    sleep(60);
    fprintf(stderr, "rank %d: the watchdog did not fire within 60 s\n", w->rank);
    exit(1);
  }
  /* the other ranks block where a real collective would: the watchdog must end them too */
  MPI_Barrier(w->comm);
  fprintf(stderr, "rank %d: passed a barrier that the hung rank never reached\n", w->rank);
  exit(1);
}

static void case_watchdog_quiet(const cb_mpi_world_t *w) {
  cb_watchdog_t wd;
  cb_watchdog_start(&wd, 1.0, MPI_COMM_NULL, NULL);
  for (int i = 0; i < 5; i++) {
    cb_watchdog_arm(&wd, "quiet round %d", i);
    usleep(100 * 1000);
    MPI_Barrier(w->comm);
    cb_watchdog_disarm(&wd);
  }
  usleep(1500 * 1000); /* idle and disarmed, longer than the timeout */
  cb_watchdog_arm(&wd, "re-armed");
  usleep(300 * 1000); /* each arm gets a fresh deadline */
  cb_watchdog_disarm(&wd);
  cb_watchdog_stop(&wd);
  CHECK(wd.running == 0, "watchdog still running after stop");
  cb_watchdog_stop(&wd); /* a second stop is harmless */
}

static void case_early_exit(const cb_mpi_world_t *w) {
  MPI_Barrier(w->comm);
  if (w->rank == 1) {
    fprintf(stderr, "rank 1: exiting early with code 3\n");
    exit(3);
  }
  MPI_Barrier(w->comm); /* never completes: rank 1 is gone */
  fprintf(stderr, "rank %d: passed a barrier without rank 1\n", w->rank);
}

static void case_die(const cb_mpi_world_t *w) {
  MPI_Barrier(w->comm);
  if (w->rank == 1) CB_DIE(CB_EXIT_RUNTIME, "mpi_cases: rank %d fails on purpose", w->rank);
  MPI_Barrier(w->comm);
  fprintf(stderr, "rank %d: passed a barrier without rank 1\n", w->rank);
}

static void case_agree(const cb_mpi_world_t *w) {
  char why[64];
  snprintf(why, sizeof why, "untouched %d", w->rank);
  CHECK(cb_mpi_agree(w->comm, 1, why, sizeof why) == 1, "all ok must agree");
  char want[64];
  snprintf(want, sizeof want, "untouched %d", w->rank);
  CHECK(strcmp(why, want) == 0, "reason changed without a failure: '%s'", why);
  int fails = w->rank % 2 == 1;
  snprintf(why, sizeof why, fails ? "rank %d failed" : "rank %d fine", w->rank);
  CHECK(cb_mpi_agree(w->comm, !fails, why, sizeof why) == 0, "a failing rank must make everyone fail");
  CHECK(strcmp(why, "rank 1 failed") == 0, "reason '%s', expected the lowest failing rank's", why);
  snprintf(why, sizeof why, w->local_rank == 0 ? "local 0 failed" : "ok");
  CHECK(cb_mpi_agree(w->node_comm, w->local_rank != 0, why, sizeof why) == 0, "node agree");
  CHECK(strcmp(why, "local 0 failed") == 0, "node reason '%s'", why);
}

int main(int argc, char **argv) {
  int provided = 0;
  CB_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  const char *name = argc > 1 ? argv[1] : "";
  cb_mpi_world_t w;
  cb_mpi_world_init(&w, 0);
  if (strcmp(name, "world") == 0) case_world(&w);
  else if (strcmp(name, "aggregate") == 0) case_aggregate(&w);
  else if (strcmp(name, "watchdog") == 0) case_watchdog(&w);
  else if (strcmp(name, "watchdog-quiet") == 0) case_watchdog_quiet(&w);
  else if (strcmp(name, "early-exit") == 0) case_early_exit(&w);
  else if (strcmp(name, "die") == 0) case_die(&w);
  else if (strcmp(name, "agree") == 0) case_agree(&w);
  else {
    if (w.rank == 0) fprintf(stderr, "mpi_cases: unknown case '%s'\n", name);
    MPI_Finalize();
    return 2;
  }
  int rc = cb_mpi_test_finish(w.rank, w.nranks, name);
  cb_mpi_world_free(&w);
  MPI_Finalize();
  return rc;
}
