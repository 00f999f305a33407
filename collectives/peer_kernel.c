/* Implementation of peer_kernel.h. */
#include "peer_kernel.h"

#include <stdio.h>

#include "cb_limits.h"
#include "error_gpu.h"
#include "signal_pad.h"

int cb_peer_kernel_setup(cb_inst_t *in, size_t staging_bytes, cb_peer_kernel_mem_t *k, char *why, size_t n) {
  const cb_world_t *w = in->world;
  if (cb_plan_buffers(&in->p, w->mpi.nranks, w->mpi.rank, &k->plan, why, n)) return -1;
  k->staging_off = CB_ALIGN_UP(k->plan.total_bytes, 256);
  k->pad_off = k->staging_off + CB_ALIGN_UP(staging_bytes, 256);
  size_t total = k->pad_off + CB_SIGNAL_PAD_BYTES;
  if (cb_peer_alloc_epochs(w, total, CB_SIGNAL_MAX_BLOCKS, &k->pm, &k->epoch, why, n)) return -1;
  cb_inst_set_buffers(in, k->pm.ptrs[k->pm.me], &k->plan);
  in->mem_bytes = total + CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  return 0;
}

void cb_peer_kernel_teardown(cb_peer_kernel_mem_t *k) { cb_peer_free_epochs(&k->pm, &k->epoch); }
