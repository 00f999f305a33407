/* MPI test program for the Slurm tests (CPU ranks, no CUDA), started by srun --mpi=pmix, by an
 * sbatch script, or by mpirun (the gpu-visibility cases need no Slurm). One case per run:
 *
 *   world MASKS  collbench's rank start as srun sets it up: cb_mpi_world_init's rank, size, local
 *                rank, node count and node index agree with Slurm's SLURM_PROCID, SLURM_NTASKS,
 *                SLURM_LOCALID, SLURM_NNODES and SLURM_NODEID, and the node communicator holds
 *                the node's ranks (the map of nodes and ranks); with MASKS (the list
 *                collbench-topo --cpu-masks gave srun) each task runs on exactly the CPUs of mask
 *                number SLURM_LOCALID (sched_getaffinity), i.e. srun applied the placement.
 *   gpu-visibility  cb_gpu_visibility on made-up GPU views of the node's ranks: enough GPUs on
 *                every rank (OK), one distinct GPU per rank as Slurm --gpus-per-task gives
 *                (PER_TASK), one GPU seen by all ranks (TOO_FEW), distinct GPUs but one rank with
 *                none (TOO_FEW); and the note's text.
 *
 * Prints "PASS <case> (N ranks)" on rank 0 when every check holds; exit 1 otherwise. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "gpu_visibility.h"
#include "mpi_testing.h"
#include "mpi_world.h"

static int env_int(const char *name) {
  const char *v = getenv(name);
  CHECK(v != NULL, "%s is not set (not started by srun?)", name);
  return v ? atoi(v) : -1;
}

/* The index-th hexadecimal mask of a comma-separated list, as a CPU set. */
static int mask_of(const char *list, int index, cpu_set_t *set) {
  CPU_ZERO(set);
  const char *p = list;
  for (int i = 0; i < index && p; i++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
  if (!p) return -1;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
  const char *end = p + strcspn(p, ",");
  for (int bit = 0; end > p; end--, bit += 4) {
    char c = end[-1];
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (v < 0) return -1;
    for (int k = 0; k < 4; k++)
      if (v & (1 << k)) CPU_SET(bit + k, set);
  }
  return 0;
}

static void case_world(const cb_mpi_world_t *w, const char *masks) {
  CHECK_EQ_INT(w->rank, env_int("SLURM_PROCID"));
  CHECK_EQ_INT(w->nranks, env_int("SLURM_NTASKS"));
  CHECK_EQ_INT(w->local_rank, env_int("SLURM_LOCALID"));
  CHECK_EQ_INT(w->nnodes, env_int("SLURM_NNODES"));
  CHECK_EQ_INT(w->node, env_int("SLURM_NODEID"));
  int node_size = 0, sum = 0;
  MPI_Comm_size(w->node_comm, &node_size);
  CHECK_EQ_INT(node_size, w->local_nranks);
  MPI_Allreduce(&w->local_rank, &sum, 1, MPI_INT, MPI_SUM, w->node_comm);
  CHECK_EQ_INT(sum, node_size * (node_size - 1) / 2);
  if (!masks) return;
  cpu_set_t want, got;
  CHECK(mask_of(masks, w->local_rank, &want) == 0, "no mask %d in '%s'", w->local_rank, masks);
  CHECK(sched_getaffinity(0, sizeof got, &got) == 0, "sched_getaffinity failed");
  for (int c = 0; c < CPU_SETSIZE; c++)
    CHECK(CPU_ISSET(c, &want) == CPU_ISSET(c, &got), "rank %d (local %d): CPU %d %s the mask but %s the binding",
          w->rank, w->local_rank, c, CPU_ISSET(c, &want) ? "in" : "not in", CPU_ISSET(c, &got) ? "in" : "not in");
}

static void case_gpu_visibility(const cb_mpi_world_t *w) {
  const int me = w->local_rank, n = w->local_nranks;
  char bus[32];
  snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + me);
  CHECK_EQ_INT(cb_gpu_visibility(w, n, "0000:10:00.0"), CB_GPU_VIS_OK);
  CHECK_EQ_INT(cb_gpu_visibility(w, n + 1, "0000:10:00.0"), CB_GPU_VIS_OK);
  CHECK_EQ_INT(cb_gpu_visibility(w, 1, bus), n > 1 ? CB_GPU_VIS_PER_TASK : CB_GPU_VIS_OK);
  CHECK_EQ_INT(cb_gpu_visibility(w, 1, "0000:10:00.0"), n > 1 ? CB_GPU_VIS_TOO_FEW : CB_GPU_VIS_OK);
  /* the last rank sees nothing: no GPU to give it */
  int none = me == n - 1 && n > 1;
  CHECK_EQ_INT(cb_gpu_visibility(w, none ? 0 : 1, none ? "" : bus), n > 1 ? CB_GPU_VIS_TOO_FEW : CB_GPU_VIS_OK);
  CHECK_CONTAINS(CB_GPU_PER_TASK_NOTE, "each rank sees only its own GPU (Slurm --gpus-per-task or device cgroups): "
                                       "CUDA IPC between ranks is impossible; use --gpus-per-node");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  cb_mpi_world_t w;
  cb_mpi_world_init(&w, 0);
  const char *name = argc > 1 ? argv[1] : "";
  if (strcmp(name, "world") == 0) case_world(&w, argc > 2 ? argv[2] : NULL);
  else if (strcmp(name, "gpu-visibility") == 0) case_gpu_visibility(&w);
  else CHECK(0, "unknown case '%s' (world [MASKS], gpu-visibility)", name);
  int rc = cb_mpi_test_finish(w.rank, w.nranks, name);
  cb_mpi_world_free(&w);
  MPI_Finalize();
  return rc;
}
