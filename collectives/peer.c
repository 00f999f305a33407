/* Implementation of peer.h. */
#include "peer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signal_pad.h"

#include "collective.h"
#include "error_gpu.h"
#include "gpu_visibility.h"
#include "watchdog.h"

int cb_peer_alloc(const cb_world_t *w, size_t bytes, cb_peer_mem_t *pm, char *why, size_t n) {
  const cb_mpi_world_t *m = &w->mpi;
  memset(pm, 0, sizeof *pm);
  pm->n = m->local_nranks;
  pm->me = m->local_rank;
  pm->bytes = bytes;
  if (m->local_nranks > CB_MAX_RANKS) {
    snprintf(why, n, "%d ranks on one node; custom kernels support at most %d", m->local_nranks, CB_MAX_RANKS);
    return -1;
  }
  if (w->gpu_per_task) { /* the same on every rank of the node: all leave here together */
    snprintf(why, n, "peer access unavailable: %s", CB_GPU_PER_TASK_NOTE);
    return -1;
  }
  char e[200] = "";
  int ok = 1;
  void *mine = NULL;
  cudaIpcMemHandle_t h;
  memset(&h, 0, sizeof h);
  if (CB_TRY_CUDA(cudaMalloc(&mine, bytes), e, sizeof e) || CB_TRY_CUDA(cudaMemset(mine, 0, bytes), e, sizeof e) ||
      CB_TRY_CUDA(cudaIpcGetMemHandle(&h, mine), e, sizeof e)) {
    snprintf(why, n, "rank %d: %s", m->rank, e);
    ok = 0;
  }
  if (ok) CB_CUDA(cudaDeviceSynchronize());
  if (!cb_mpi_agree(w->mpi.node_comm, ok, why, n)) {
    if (mine) CB_CUDA(cudaFree(mine));
    return -1;
  }
  cudaIpcMemHandle_t all[CB_MAX_RANKS];
  int ranks[CB_MAX_RANKS]; /* world rank of each local rank, for messages */
  if (w->wd) cb_watchdog_phase(w->wd, CB_PHASE_IPC);
  MPI_Request req;
  CB_MPI(MPI_Iallgather(&h, (int)sizeof h, MPI_BYTE, all, (int)sizeof h, MPI_BYTE, m->node_comm, &req));
  cb_mpi_wait(&req);
  CB_MPI(MPI_Allgather(&m->rank, 1, MPI_INT, ranks, 1, MPI_INT, m->node_comm));
  pm->ptrs[pm->me] = mine;
  for (int q = 0; q < pm->n && ok; q++) {
    if (q == pm->me) continue;
    if (CB_TRY_CUDA(cudaIpcOpenMemHandle(&pm->ptrs[q], all[q], cudaIpcMemLazyEnablePeerAccess), e, sizeof e)) {
      snprintf(why, n, "peer access between ranks %d and %d unavailable (%s)", m->rank, ranks[q], e);
      pm->ptrs[q] = NULL;
      ok = 0;
    }
  }
  int agreed = cb_mpi_agree(w->mpi.node_comm, ok, why, n);
  if (w->wd) cb_watchdog_phase(w->wd, CB_PHASE_SETUP);
  if (!agreed) {
    cb_peer_free(pm);
    return -1;
  }
  return 0;
}

void cb_peer_free(cb_peer_mem_t *pm) {
  for (int q = 0; q < pm->n; q++) {
    if (!pm->ptrs[q]) continue;
    if (q == pm->me) CB_CUDA(cudaFree(pm->ptrs[q]));
    else CB_CUDA(cudaIpcCloseMemHandle(pm->ptrs[q]));
    pm->ptrs[q] = NULL;
  }
}

int cb_peer_alloc_epochs(const cb_world_t *w, size_t bytes, size_t words, cb_peer_mem_t *pm, uint32_t **epochs,
                         char *why, size_t n) {
  *epochs = NULL;
  if (cb_peer_alloc(w, bytes, pm, why, n)) return -1;
  char e[200];
  if (CB_TRY_CUDA(cudaMalloc((void **)epochs, words * sizeof(uint32_t)), e, sizeof e)) {
    snprintf(why, n, "epoch counters: %s", e);
    *epochs = NULL;
    cb_peer_free(pm);
    return -1;
  }
  CB_CUDA(cudaMemset(*epochs, 0, words * sizeof(uint32_t)));
  return 0;
}

void cb_peer_free_epochs(cb_peer_mem_t *pm, uint32_t **epochs) {
  if (*epochs) CB_CUDA(cudaFree(*epochs));
  *epochs = NULL;
  cb_peer_free(pm);
}

cb_grid_limits_t cb_peer_grid_limits(const cb_world_t *w, int default_max_blocks) {
  cb_grid_limits_t g;
  g.max_blocks = w->knobs.max_blocks ? w->knobs.max_blocks : default_max_blocks ? default_max_blocks : w->grid_sms;
  if (g.max_blocks > CB_SIGNAL_MAX_BLOCKS) g.max_blocks = CB_SIGNAL_MAX_BLOCKS;
  /* an SM cap (--sms, CB_SMS) is a cap on blocks: the scheduler spreads a grid's blocks over
   * every SM of the GPU, so only a grid of at most N blocks stays on N SMs */
  if (w->knobs.sm_count && g.max_blocks > w->grid_sms) g.max_blocks = w->grid_sms;
  g.sms = w->grid_sms;
  g.threads_per_sm = w->threads_per_sm;
  return g;
}

int cb_peer_supported(const cb_world_t *w, char *why, size_t n) {
  if (w->mpi.nnodes > 1) {
    snprintf(why, n, "not supported: spans %d nodes (peer memory works inside one node)", w->mpi.nnodes);
    return 0;
  }
  if (!w->peer_ok) {
    snprintf(why, n, "not supported: %s", w->peer_why);
    return 0;
  }
  if (w->mpi.nranks > CB_MAX_RANKS) {
    snprintf(why, n, "not supported: %d ranks (custom kernels connect up to %d GPUs of one node)", w->mpi.nranks,
             CB_MAX_RANKS);
    return 0;
  }
  return 1;
}

int cb_hier_supported(const cb_world_t *w, const char *one_node, char *why, size_t n) {
  const cb_mpi_world_t *m = &w->mpi;
  if (m->nnodes < 2) {
    snprintf(why, n, "not supported: one node (hier is the multi-node form; %s is its one-node case)", one_node);
    return 0;
  }
  if (m->min_local_nranks != m->max_local_nranks) {
    snprintf(why, n, "not supported: nodes hold %d to %d ranks (hier needs the same count on every node)",
             m->min_local_nranks, m->max_local_nranks);
    return 0;
  }
  if (m->local_nranks > CB_MAX_RANKS) {
    snprintf(why, n, "not supported: %d ranks per node (peer kernels connect up to %d)", m->local_nranks, CB_MAX_RANKS);
    return 0;
  }
  if (m->local_nranks > 1 && !w->peer_ok) {
    snprintf(why, n, "not supported: %s", w->peer_why);
    return 0;
  }
  return 1;
}

int cb_peer_supported_params(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_peer_supported(w, why, n);
}
