/* The verdict of an MPI test case (tests/mpi): every rank's failed checks (cb_testing.h)
 * summed over MPI_COMM_WORLD; rank 0 prints "PASS <name> (N ranks)" or "FAIL ..."; every rank
 * returns the same exit code, so the job ends cleanly either way. */
#ifndef CB_MPI_TESTING_H
#define CB_MPI_TESTING_H

#include <mpi.h>
#include <stdio.h>

#include "cb_testing.h"
#include "error.h"

static inline int cb_mpi_test_finish(int rank, int nranks, const char *name) {
  int mine = cb_test_failures, total = 0;
  CB_MPI(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (mine) fprintf(stderr, "rank %d: %d of %d checks failed\n", rank, mine, cb_test_checks);
  if (rank == 0) {
    if (total) printf("FAIL %s: %d failed checks over %d ranks\n", name, total, nranks);
    else printf("PASS %s (%d ranks)\n", name, nranks);
    fflush(stdout);
  }
  return total ? 1 : 0;
}

#endif
