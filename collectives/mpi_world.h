/* Rank and node discovery over MPI (no CUDA): which node each rank is on, its rank within the
 * node, and the node count. Node = the ranks MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups
 * together. Kept CUDA-free so the MPI tests run it on CPU-only machines. */
#ifndef CB_MPI_WORLD_H
#define CB_MPI_WORLD_H

#include <mpi.h>
#include <stddef.h>

#define CB_HOST_MAX 64

typedef struct cb_mpi_world {
  MPI_Comm comm;      /* duplicate of MPI_COMM_WORLD, owned */
  MPI_Comm node_comm; /* the ranks sharing this node, owned */
  int rank, nranks;
  int local_rank, local_nranks;
  int node, nnodes;     /* node index in order of each node's lowest world rank */
  int max_local_nranks; /* largest number of ranks on any node */
  char host[CB_HOST_MAX];
} cb_mpi_world_t;

/* Call after MPI_Init. Every MPI call is checked (aborts the job on failure). */
void cb_mpi_world_init(cb_mpi_world_t *w);
void cb_mpi_world_free(cb_mpi_world_t *w);

/* Collective over comm: returns 1 when every rank passed ok; otherwise 0 on every rank, with
 * why (n bytes, the same n everywhere) replaced by the reason of the lowest failing rank, so all
 * ranks report and act alike (a setup that failed on one rank must not hang the others). */
int cb_mpi_agree(MPI_Comm comm, int ok, char *why, size_t n);

/* Gathers one fixed-size string per rank to rank 0 (all[rank * len]); all may be NULL on
 * other ranks. */
void cb_mpi_gather_strings(const cb_mpi_world_t *w, const char *mine, char *all, int len);

#endif
