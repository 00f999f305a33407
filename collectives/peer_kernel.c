/* Implementation of peer_kernel.h. */
#include "peer_kernel.h"

#include <stdio.h>

#include "cb_limits.h"
#include "error_gpu.h"
#include "signal.h"

int cb_peer_kernel_setup(cb_inst_t *in, size_t staging_bytes, cb_peer_kernel_mem_t *k, char *why, size_t n) {
  const cb_world_t *w = in->world;
  cb_plan_buffers(&in->p, w->mpi.nranks, w->mpi.rank, &k->plan);
  k->staging_off = CB_ALIGN_UP(k->plan.total_bytes, 256);
  k->pad_off = k->staging_off + CB_ALIGN_UP(staging_bytes, 256);
  size_t total = k->pad_off + CB_SIGNAL_PAD_BYTES, epoch_bytes = CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  if (cb_peer_alloc(w, total, &k->pm, why, n)) return -1;
  char e[200];
  if (CB_TRY_CUDA(cudaMalloc((void **)&k->epoch, epoch_bytes), e, sizeof e)) {
    snprintf(why, n, "epoch counters: %s", e);
    cb_peer_free(&k->pm);
    return -1;
  }
  CB_CUDA(cudaMemset(k->epoch, 0, epoch_bytes));
  cb_inst_set_buffers(in, k->pm.ptrs[k->pm.me], &k->plan);
  in->mem_bytes = total + epoch_bytes;
  return 0;
}

void cb_peer_kernel_teardown(cb_peer_kernel_mem_t *k) {
  CB_CUDA(cudaFree(k->epoch));
  k->epoch = NULL;
  cb_peer_free(&k->pm);
}
