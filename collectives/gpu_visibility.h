/* Which GPUs the ranks of a node can see, and what that allows (no CUDA: the caller passes what
 * cudaGetDeviceCount and cudaDeviceGetPCIBusId said, so the MPI tests run it on CPU ranks).
 *
 * Under Slurm's --gpus-per-task=1, or device cgroups, each rank sees only its own GPU: fewer
 * GPUs than its node has ranks, and a different one on every rank. NCCL still connects such
 * ranks, but CUDA IPC between them is impossible (a peer's memory lives on a device this process
 * cannot open), so the custom peer-memory algorithms cannot run; collbench says so by name in
 * the peer-access check and in every custom row's note, instead of failing a CUDA call. */
#ifndef CB_GPU_VISIBILITY_H
#define CB_GPU_VISIBILITY_H

#include <stddef.h>

#include "mpi_world.h"

/* The note every place that reports the per-task case uses (one text, so it cannot drift). */
#define CB_GPU_PER_TASK_NOTE                                                                     \
  "each rank sees only its own GPU (Slurm --gpus-per-task or device cgroups): CUDA IPC between " \
  "ranks is impossible; use --gpus-per-node"

typedef enum cb_gpu_visibility {
  CB_GPU_VIS_OK = 0,   /* every rank sees at least as many GPUs as its node has ranks */
  CB_GPU_VIS_PER_TASK, /* some see fewer, but every rank of the node has a different GPU */
  CB_GPU_VIS_TOO_FEW,  /* some see fewer and two ranks would land on one GPU */
} cb_gpu_visibility_t;

/* Collective over w->node_comm: ndev is the count of GPUs this rank sees, busid the PCI bus id
 * of the one it would use when it sees fewer than local_nranks (its first in bus order; "" when
 * ndev is 0). The same verdict on every rank of the node. */
cb_gpu_visibility_t cb_gpu_visibility(const cb_mpi_world_t *w, int ndev, const char *busid);

#endif
