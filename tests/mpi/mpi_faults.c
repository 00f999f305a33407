/* The watchdog and CB_FAULT on CPU ranks: the part of the bench engine that runs without a GPU
 * (watchdog steps and arrival exchange, polled MPI waits, fault injection, the abort path and the
 * streamed report), driven through the same step sequence as launcher/bench.c for a few rows:
 *
 *   per row:  setup (cb_mpi_agree) -> IPC exchange (barrier) -> warm-up (barrier)
 *             -> 2 timed rounds (cb_mpi_barrier + work)
 *             -> correctness check (polled all-reduce) -> result reduction (cb_aggregate_times)
 *             -> rank 0 reports the row (CSV + JSON with the .partial.jsonl stream)
 *
 * usage: mpi_faults OUTDIR TIMEOUT_S ROWS [blocking | hanghook]
 *   CB_FAULT (fault.h) picks the rank that stalls, stops or exits, and where. With `blocking`
 *   the healthy ranks wait for a round in a blocking MPI_Barrier instead of a polled one: a
 *   stand-in for a blocking library call (an NCCL enqueue), which the watchdog thread must end
 *   without the abort hook. With `hanghook` the abort hook never returns, as ncclCommAbort did
 *   on a communicator over NCCL's socket transport whose peer was stopped
 *   (seen in the GPU suite on one H200): the exit guard (error.c) must end the rank. The "nccl"
 *   and "kernel" fault points are the timed round here.
 *
 * The abort hook reports which thread it runs on ("abort hook: main thread"): NCCL may only be
 * aborted by the thread that uses it. Without a fault every row completes and it exits 0. */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fault.h"
#include "mpi_world.h"
#include "report.h"
#include "stats.h"
#include "watchdog.h"

static pthread_t main_thread;

static void hook(void *arg) {
  const int hang = *(const int *)arg;
  fprintf(stderr, "mpi_faults: abort hook: %s thread%s\n",
          pthread_equal(pthread_self(), main_thread) ? "main" : "watchdog", hang ? " (hangs)" : "");
  fflush(stderr);
  if (hang)
    for (;;) pause(); /* only the exit guard's SIGALRM ends it */
}

static void work_ms(int ms) { usleep((useconds_t)ms * 1000); }

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: mpi_faults OUTDIR TIMEOUT_S ROWS [blocking | hanghook]\n");
    return CB_EXIT_USAGE;
  }
  cb_fault_t fault;
  char err[512];
  if (cb_fault_from_env(&fault, err, sizeof err)) {
    fprintf(stderr, "collbench: %s\n", err);
    return CB_EXIT_USAGE;
  }
  const char *dir = argv[1];
  double timeout_s = atof(argv[2]);
  int nrows = atoi(argv[3]), blocking = argc > 4 && !strcmp(argv[4], "blocking");
  static int hang_hook;
  hang_hook = argc > 4 && !strcmp(argv[4], "hanghook");
  int provided = 0;
  CB_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  main_thread = pthread_self();
  cb_set_abort_hook(hook, &hang_hook);
  cb_mpi_world_t w;
  cb_mpi_world_init(&w, 0);
  cb_watchdog_t wd;
  cb_watchdog_start(&wd, timeout_s, w.comm, &fault);

  cb_report_t rep;
  if (w.rank == 0) {
    char csv[1024], json[1024];
    snprintf(csv, sizeof csv, "%s/results.csv", dir);
    snprintf(json, sizeof json, "%s/results.json", dir);
    if (cb_report_open(&rep, stdout, csv, json, "{\"test\":\"mpi_faults\"}", err, sizeof err)) {
      fprintf(stderr, "mpi_faults: %s\n", err);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  double t[4];
  for (int row = 0; row < nrows; row++) {
    char what[128];
    snprintf(what, sizeof what, "cpu fake %d B", 1024 << row);
    cb_watchdog_step(&wd, CB_PHASE_SETUP, what);
    char why[64] = "";
    cb_mpi_agree(w.comm, 1, why, sizeof why);
    cb_watchdog_phase(&wd, CB_PHASE_IPC);
    cb_mpi_barrier(w.comm);
    cb_watchdog_disarm(&wd);

    cb_watchdog_step(&wd, CB_PHASE_WARMUP, what);
    cb_mpi_barrier(w.comm); /* warm-up kernels of a collective wait for every rank too */
    work_ms(20);
    cb_watchdog_disarm(&wd);

    for (int round = 0; round < 2; round++) {
      char r[160];
      snprintf(r, sizeof r, "%s %d/2", what, round + 1);
      cb_watchdog_step(&wd, CB_PHASE_ROUND, r);
      if (cb_fault_due(wd.fault, w.rank, CB_PHASE_NCCL) || cb_fault_due(wd.fault, w.rank, CB_PHASE_KERNEL)) {
        cb_watchdog_disarm(&wd);
        cb_fault_act(wd.fault, wd.what);
      }
      if (blocking) CB_MPI(MPI_Barrier(w.comm));
      else cb_mpi_barrier(w.comm);
      work_ms(10);
      t[2 * round] = t[2 * round + 1] = 10.0 + w.rank;
      cb_watchdog_disarm(&wd);
    }

    cb_watchdog_step(&wd, CB_PHASE_CHECK, what);
    long long wrong = 0, total = 0;
    MPI_Request req;
    CB_MPI(MPI_Iallreduce(&wrong, &total, 1, MPI_LONG_LONG, MPI_SUM, w.comm, &req));
    cb_mpi_wait(&req);
    cb_watchdog_disarm(&wd);

    cb_watchdog_step(&wd, CB_PHASE_REDUCE, what);
    cb_stats_t st;
    cb_aggregate_times(&w, t, 4, &st);
    cb_watchdog_disarm(&wd);
    if (w.rank == 0) {
      cb_row_t r;
      memset(&r, 0, sizeof r);
      r.family = "allreduce";
      r.algo = "cpufake";
      r.dtype = "float";
      r.op = "sum";
      r.bytes = 1024ull << row;
      r.count = r.bytes / 4;
      r.ranks = w.nranks;
      r.nodes = 1;
      r.gpu = "none";
      r.timed = 1;
      r.time_us_mean = st.mean_us;
      r.time_us_max = st.max_us;
      r.time_us_p50 = st.p50_us;
      r.time_us_p99 = st.p99_us;
      r.wrong = total;
      r.mode = "eager";
      r.iters = 4;
      cb_report_row(&rep, &r);
    }
  }
  cb_watchdog_stop(&wd);
  if (w.rank == 0 && cb_report_close(&rep, "\"summary\": {}", err, sizeof err)) {
    fprintf(stderr, "mpi_faults: %s\n", err);
    return 3;
  }
  if (w.rank == 0) printf("PASS mpi_faults (%d ranks, %d rows)\n", w.nranks, nrows);
  cb_mpi_world_free(&w);
  MPI_Finalize();
  return 0;
}
