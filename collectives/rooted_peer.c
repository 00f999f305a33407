/* Implementation of rooted_peer.h. */
#include "rooted_peer.h"

#include <stdio.h>
#include <stdlib.h>

#include "error_gpu.h"
#include "peer_kernel.h"
#include "rooted.h"

typedef struct rooted_state {
  cb_peer_kernel_mem_t mem;
  cb_rooted_launch_t launch;
  void (*kernel)(const cb_rooted_launch_t *, cudaStream_t);
} rooted_state_t;

int cb_rooted_peer_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_peer_supported(w, why, n)) return 0;
  if (p->bytes > CB_ROOTED_PEER_MAX_BYTES) {
    snprintf(why, n, "not supported: the one-shot %s pulls through the root's link, offered up to %llu MiB per rank",
             cb_family_name(p->family), CB_ROOTED_PEER_MAX_BYTES >> 20);
    return 0;
  }
  return 1;
}

int cb_rooted_peer_setup(cb_inst_t *in, void (*launch)(const cb_rooted_launch_t *, cudaStream_t), char *why, size_t n) {
  const cb_world_t *w = in->world;
  rooted_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cb_peer_kernel_mem_t *k = &st->mem;
  if (cb_peer_kernel_setup(in, 0, k, why, n)) {
    free(st);
    return -1;
  }
  cb_rooted_launch_t *L = &st->launch;
  for (int q = 0; q < k->pm.n; q++) L->base[q] = k->pm.ptrs[q];
  L->in = in->send;
  L->out = in->recv;
  L->in_off = k->plan.send_off;
  L->pad_off = k->pad_off;
  L->epoch = k->epoch;
  L->count = in->p.count;
  L->rank = w->mpi.rank;
  L->nranks = w->mpi.nranks;
  L->root = cb_rooted_root(&in->p);
  L->dtype = in->p.dtype;
  L->op = in->p.op;
  L->timeout_ns = w->spin_timeout_ns;
  L->ctl = w->ctl_dev;
  cb_grid_limits_t g = cb_peer_grid_limits(w, 128);
  /* Every rank's block b waits for the others' block b, so all ranks' grids must be resident at
   * once. The kernels take ~100 registers a thread (ptxas, sm_90): one 512-thread block per SM.
   * Ranks sharing a GPU (CB_SHARE_GPUS=1) therefore split its SMs: each gets sms / (the node's
   * ranks) blocks at most, the same on every rank. */
  if (w->gpu_shared_in_node) {
    int share = g.sms / (w->mpi.local_nranks > 0 ? w->mpi.local_nranks : 1);
    if (share < 1) share = 1;
    if (g.max_blocks > share) g.max_blocks = share;
  }
  cb_rooted_peer_grid(in->p.count, in->p.dtype, &g, &L->blocks, &L->threads);
  st->kernel = launch;
  in->priv = st;
  snprintf(in->note, sizeof in->note, "%d blocks", L->blocks);
  in->sms = cb_grid_sms(L->blocks, w->sm_count);
  return 0;
}

void cb_rooted_peer_run(cb_inst_t *in, int phase, cudaStream_t s) {
  rooted_state_t *st = in->priv;
  if (st->launch.count == 0) return;
  st->kernel(&st->launch, s);
}

void cb_rooted_peer_teardown(cb_inst_t *in) {
  rooted_state_t *st = in->priv;
  if (!st) return;
  cb_peer_kernel_teardown(&st->mem);
  free(st);
  in->priv = NULL;
}
