/* Implementation of allreduce_peer.h. */
#include "allreduce_peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_gpu.h"
#include "peer_kernel.h"

typedef struct ar_state {
  cb_peer_kernel_mem_t mem;
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
  ar_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cb_peer_kernel_mem_t *k = &st->mem;
  if (cb_peer_kernel_setup(in, kind->scratch(in->p.count, in->p.dtype, w->mpi.nranks), k, why, n)) {
    free(st);
    return -1;
  }
  cb_ar_launch_t *L = &st->launch;
  for (int q = 0; q < k->pm.n; q++) L->base[q] = k->pm.ptrs[q];
  L->in = in->send;
  L->out = in->recv;
  L->in_off = k->plan.send_off;
  L->out_off = k->plan.recv_off;
  L->scratch_off = k->staging_off;
  L->pad_off = k->pad_off;
  L->epoch = k->epoch;
  L->count = in->p.count;
  L->rank = w->mpi.rank;
  L->nranks = w->mpi.nranks;
  L->dtype = in->p.dtype;
  L->op = in->p.op;
  L->timeout_ns = w->spin_timeout_ns;
  L->ctl = w->ctl_dev;
  cb_grid_limits_t g = cb_peer_grid_limits(w, kind->default_max_blocks);
  kind->grid(in->p.count, in->p.dtype, w->mpi.nranks, &g, &L->blocks, &L->threads);
  st->kind = kind;
  in->priv = st;
  snprintf(in->note, sizeof in->note, "%d blocks", L->blocks);
  in->sms = cb_grid_sms(L->blocks, w->sm_count);
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
  cb_peer_kernel_teardown(&st->mem);
  free(st);
  in->priv = NULL;
}
