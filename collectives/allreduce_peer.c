/* Implementation of allreduce_peer.h. */
#include "allreduce_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "signal.h"

typedef struct ar_state {
  cb_peer_mem_t pm;
  uint32_t *epoch;
  cb_ar_launch_t launch;
  const cb_ar_kind_t *kind;
} ar_state_t;

int cb_ar_supported_upto(const cb_world_t *w, const cb_params_t *p, unsigned long long max_bytes, const char *name,
                         const char *what, char *why, size_t n) {
  if (!cb_peer_supported(w, why, n)) return 0;
  if (p->bytes > max_bytes) {
    snprintf(why, n, "not supported: %s %s, offered up to %llu MiB per rank", name, what, max_bytes >> 20);
    return 0;
  }
  return 1;
}

int cb_ar_setup(cb_inst_t *in, const cb_ar_kind_t *kind, char *why, size_t n) {
  const cb_world_t *w = in->world;
  cb_buffer_plan_t plan;
  cb_plan_buffers(&in->p, w->mpi.nranks, w->mpi.rank, &plan);
  size_t scratch = kind->scratch(in->p.count, in->p.dtype, w->mpi.nranks);
  size_t scratch_off = CB_ALIGN_UP(plan.total_bytes, 256);
  size_t pad_off = scratch_off + CB_ALIGN_UP(scratch, 256);
  size_t total = pad_off + CB_SIGNAL_PAD_BYTES;

  ar_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_peer_alloc(w, total, &st->pm, why, n)) {
    free(st);
    return -1;
  }
  char e[200];
  if (CB_TRY_CUDA(cudaMalloc((void **)&st->epoch, CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t)), e, sizeof e)) {
    /* Every rank must take the same path: the engine's agreement step turns this into a row
     * note on all ranks. */
    snprintf(why, n, "epoch counters: %s", e);
    cb_peer_free(&st->pm);
    free(st);
    return -1;
  }
  CB_CUDA(cudaMemset(st->epoch, 0, CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t)));

  cb_ar_launch_t *L = &st->launch;
  for (int q = 0; q < st->pm.n; q++) L->base[q] = st->pm.ptrs[q];
  cb_inst_set_buffers(in, st->pm.ptrs[st->pm.me], &plan);
  L->in = in->send;
  L->out = in->recv;
  L->in_off = plan.send_off;
  L->out_off = plan.recv_off;
  L->scratch_off = scratch_off;
  L->pad_off = pad_off;
  L->epoch = st->epoch;
  L->count = in->p.count;
  L->rank = w->mpi.rank;
  L->nranks = w->mpi.nranks;
  L->dtype = in->p.dtype;
  L->op = in->p.op;
  L->timeout_ns = w->spin_timeout_ns;
  cb_grid_limits_t g = cb_peer_grid_limits(w, kind->default_max_blocks);
  kind->grid(in->p.count, in->p.dtype, w->mpi.nranks, &g, &L->blocks, &L->threads);
  st->kind = kind;
  in->priv = st;
  in->mem_bytes = total + CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  snprintf(in->note, sizeof in->note, "%d blocks", L->blocks);
  return 0;
}

void cb_ar_run(cb_inst_t *in, int phase, cudaStream_t s) {
  ar_state_t *st = in->priv;
  if (st->launch.count == 0) return;
  st->kind->launch(&st->launch, s);
}

cb_ar_launch_t *cb_ar_launch_of(cb_inst_t *in) { return &((ar_state_t *)in->priv)->launch; }

void cb_ar_teardown(cb_inst_t *in) {
  ar_state_t *st = in->priv;
  if (!st) return;
  CB_CUDA(cudaFree(st->epoch));
  cb_peer_free(&st->pm);
  free(st);
  in->priv = NULL;
}
