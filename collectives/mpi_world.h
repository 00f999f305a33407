/* Rank and node discovery over MPI (no CUDA): which node each rank is on, its rank within the
 * node, and the node count. Node = the ranks MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups
 * together, or, when every rank sets CB_NODE_ID, the ranks with the same CB_NODE_ID string
 * (a virtual cluster on one host: launcher/collbench-vnode sets it beside NCCL_HOSTID).
 * Names are compared whole (gathered from every rank), so two names never merge. Kept
 * CUDA-free so the MPI tests run it on CPU-only machines. */
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
  int min_local_nranks; /* smallest number of ranks on any node */
  int virtual_nodes;    /* 1: nodes named by CB_NODE_ID (virtual cluster), 0: shared-memory split */
  char host[CB_HOST_MAX];
  char node_name[CB_HOST_MAX]; /* CB_NODE_ID, or the host name */
} cb_mpi_world_t;

/* Call after MPI_Init. Every MPI call is checked (aborts the job on failure). CB_NODE_ID set on
 * some ranks but not all, empty or too long (CB_HOST_MAX - 1 bytes at most), different from
 * NCCL_HOSTID (NCCL would see other nodes), or one name used on two real hosts: every rank
 * leaves with CB_EXIT_USAGE, rank 0 saying why. share_gpus (knob CB_SHARE_GPUS: ranks of a node
 * may share a GPU) needs CB_NODE_ID on every rank, and also accepts NCCL_HOSTID = CB_NODE_ID "."
 * suffix (a rank sharing a GPU as its own NCCL host), else the same exit. */
void cb_mpi_world_init(cb_mpi_world_t *w, int share_gpus);
void cb_mpi_world_free(cb_mpi_world_t *w);

/* Completes a non-blocking MPI request the way every collbench wait does: polling, so an abort
 * request from the watchdog (error.h) is taken by this thread instead of leaving it blocked
 * inside MPI. Used for the MPI collectives between rows (agreements, reductions, barriers). */
void cb_mpi_wait(MPI_Request *req);
void cb_mpi_barrier(MPI_Comm comm);

/* Collective over comm: returns 1 when every rank passed ok; otherwise 0 on every rank, with
 * why (n bytes, the same n everywhere) replaced by the reason of the lowest failing rank, so all
 * ranks report and act alike (a setup that failed on one rank must not hang the others). */
int cb_mpi_agree(MPI_Comm comm, int ok, char *why, size_t n);

/* Gathers one fixed-size string per rank to rank 0 (all[rank * len]); all may be NULL on
 * other ranks. */
void cb_mpi_gather_strings(const cb_mpi_world_t *w, const char *mine, char *all, int len);

#endif
