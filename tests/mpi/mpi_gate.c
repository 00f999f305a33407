/* The bar's exit path through real MPI ranks (label mpi; issue 43): the run's end as
 * launcher/main.c does it, on CPU ranks. Every rank reads CB_MIN_BUSBW / NCCL_TESTS_MIN_BW
 * (gate.h) and agrees on a bad value (exit 2 on every rank, rank 0 naming it); every rank holds
 * per-iteration times of two algorithms at three sizes, combined over ranks by the engine's own
 * cb_aggregate_times_as (-a 1) into rows whose bus bandwidth rank 0 averages per algorithm
 * (avg_busbw.h) and prints as `# Avg bus bandwidth`; rank 0's verdict (cb_gate_exit_code) is
 * broadcast and every rank exits with it: 6 below the bar, 1 when a rank saw a wrong element
 * (`wrong` argument), whatever the bar says, 0 otherwise.
 *
 * The rows: algorithm "fast" takes 10 us per 1 MB iteration on every rank (100 GB/s of bus
 * bandwidth, factor 1), "slow" 40 us on rank 0 and 20 us elsewhere; the means are printed, and
 * the ctest cases set the bars around them.
 *
 * usage: mpirun -np N mpi_gate [wrong] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avg_busbw.h"
#include "error.h"
#include "gate.h"
#include "mpi_world.h"
#include "stats.h"

#define ITERS 8

int main(int argc, char **argv) {
  CB_MPI(MPI_Init(&argc, &argv));
  cb_mpi_world_t w;
  cb_mpi_world_init(&w, 0);
  int wrong_rank = argc > 1 && strcmp(argv[1], "wrong") == 0 ? w.nranks - 1 : -1;
  cb_gate_t gate;
  char why[256] = "";
  int ok = cb_gate_from_env(&gate, why, sizeof why) == 0;
  if (!cb_mpi_agree(w.comm, ok, why, sizeof why)) {
    if (w.rank == 0) fprintf(stderr, "mpi_gate: %s\n", why);
    cb_mpi_world_free(&w);
    MPI_Finalize();
    return CB_EXIT_USAGE;
  }
  cb_avg_busbw_t avg = {0};
  const char *algos[2] = {"fast", "slow"};
  long long wrong = 0, mine_wrong = 0;
  for (int size = 0; size < 3; size++)
    for (int k = 0; k < 2; k++) {
      double t[ITERS];
      double us = k == 0 ? 10.0 : w.rank == 0 ? 40.0 : 20.0;
      for (int i = 0; i < ITERS; i++) t[i] = us * (1 << size);
      cb_stats_t st;
      cb_aggregate_times_as(&w, t, ITERS, 1, &st);
      double bytes = 1e6 * (1 << size), busbw = bytes / st.mean_us / 1e3;
      if (w.rank == 0) cb_avg_busbw_add(&avg, algos[k], busbw);
      if (w.rank == wrong_rank && size == 1 && k == 0) mine_wrong++;
    }
  CB_MPI(MPI_Allreduce(&mine_wrong, &wrong, 1, MPI_LONG_LONG, MPI_SUM, w.comm));
  int code = 0;
  if (w.rank == 0) {
    double means[2] = {cb_avg_busbw_mean(&avg, 0), cb_avg_busbw_mean(&avg, 1)};
    code = cb_gate_exit_code(&gate, wrong, 0, means, avg.nalgos);
    cb_strbuf_t lines;
    cb_sb_init(&lines);
    cb_avg_busbw_lines(&avg, &gate, &lines);
    printf("%s# exit %d\n", lines.s, code);
    fflush(stdout);
    cb_sb_free(&lines);
  }
  CB_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, w.comm));
  cb_mpi_world_free(&w);
  MPI_Finalize();
  return code;
}
