/* Implementation of gpu_visibility.h: every rank's GPU count and bus id are gathered over the
 * node, so the verdict comes from the same data on every rank (no rank can decide alone and
 * leave the others waiting). */
#include "gpu_visibility.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

enum { BUS = 32 }; /* the bus id slot, as cb_world_t.busid */

cb_gpu_visibility_t cb_gpu_visibility(const cb_mpi_world_t *w, int ndev, const char *busid) {
  const int n = w->local_nranks;
  int *counts = calloc((size_t)n, sizeof *counts);
  char mine[BUS], *buses = calloc((size_t)n, BUS);
  if (!counts || !buses) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  memset(mine, 0, sizeof mine);
  strncpy(mine, busid ? busid : "", BUS - 1);
  CB_MPI(MPI_Allgather(&ndev, 1, MPI_INT, counts, 1, MPI_INT, w->node_comm));
  CB_MPI(MPI_Allgather(mine, BUS, MPI_CHAR, buses, BUS, MPI_CHAR, w->node_comm));
  cb_gpu_visibility_t v = CB_GPU_VIS_OK;
  for (int r = 0; r < n; r++)
    if (counts[r] < n) v = CB_GPU_VIS_PER_TASK;
  for (int a = 0; a < n && v == CB_GPU_VIS_PER_TASK; a++) {
    if (counts[a] < 1 || !buses[(size_t)a * BUS]) v = CB_GPU_VIS_TOO_FEW;
    for (int b = a + 1; b < n && v == CB_GPU_VIS_PER_TASK; b++)
      if (strcmp(buses + (size_t)a * BUS, buses + (size_t)b * BUS) == 0) v = CB_GPU_VIS_TOO_FEW;
  }
  free(counts);
  free(buses);
  return v;
}
