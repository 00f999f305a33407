/* Implementation of mpi_world.h. */
#include "mpi_world.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

void cb_mpi_world_init(cb_mpi_world_t *w) {
  memset(w, 0, sizeof *w);
  CB_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &w->comm));
  CB_MPI(MPI_Comm_rank(w->comm, &w->rank));
  CB_MPI(MPI_Comm_size(w->comm, &w->nranks));
  CB_MPI(MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &w->node_comm));
  CB_MPI(MPI_Comm_rank(w->node_comm, &w->local_rank));
  CB_MPI(MPI_Comm_size(w->node_comm, &w->local_nranks));
  if (gethostname(w->host, sizeof w->host - 1)) strcpy(w->host, "?");
  w->host[sizeof w->host - 1] = 0;

  /* A node is named by the world rank of its local rank 0; node index = how many distinct
   * leaders have a smaller world rank. */
  int leader = w->rank;
  CB_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, w->node_comm));
  int *leaders = malloc(sizeof(int) * (size_t)w->nranks);
  if (!leaders) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  CB_MPI(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, w->comm));
  w->nnodes = 0;
  w->node = 0;
  for (int r = 0; r < w->nranks; r++) {
    if (leaders[r] != r) continue; /* rank r leads its node */
    w->nnodes++;
    if (r < leader) w->node++;
  }
  free(leaders);
  CB_MPI(MPI_Allreduce(&w->local_nranks, &w->max_local_nranks, 1, MPI_INT, MPI_MAX, w->comm));
}

void cb_mpi_world_free(cb_mpi_world_t *w) {
  if (w->node_comm != MPI_COMM_NULL && w->node_comm) CB_MPI(MPI_Comm_free(&w->node_comm));
  if (w->comm != MPI_COMM_NULL && w->comm) CB_MPI(MPI_Comm_free(&w->comm));
}

void cb_mpi_gather_strings(const cb_mpi_world_t *w, const char *mine, char *all, int len) {
  char *buf = calloc(1, (size_t)len);
  if (!buf) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  strncpy(buf, mine, (size_t)len - 1);
  CB_MPI(MPI_Gather(buf, len, MPI_CHAR, all, len, MPI_CHAR, 0, w->comm));
  free(buf);
}

int cb_mpi_agree(MPI_Comm comm, int ok, char *why, size_t n) {
  int rank = 0, mine, first = INT_MAX;
  CB_MPI(MPI_Comm_rank(comm, &rank));
  mine = ok ? INT_MAX : rank;
  CB_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return 1;
  CB_MPI(MPI_Bcast(why, (int)n, MPI_CHAR, first, comm));
  return 0;
}
