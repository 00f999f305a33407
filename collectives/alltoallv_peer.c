/* Custom alltoallv "peer": each rank pushes its variable-size block for every peer straight
 * into that peer's receive buffer over peer memory, between two barriers (kernels/alltoallv.cu),
 * the MoE dispatch path for arbitrary counts. Every rank computes the whole counts table from
 * the parameters (alltoallv_counts.h), so each knows where its blocks land without an exchange.
 * One node of up to CB_MAX_RANKS (8) GPUs with peer access; across nodes its row says
 * "not supported: spans N nodes". */
#include <stdio.h>
#include <stdlib.h>

#include "alltoallv.h"
#include "alltoallv_algo.h"
#include "error_gpu.h"
#include "peer.h"
#include "signal_pad.h"

typedef struct a2av_peer_state {
  cb_a2av_counts_t counts; /* first: the check reads it (alltoallv_algo.h) */
  cb_peer_mem_t pm;
  uint32_t *epoch;
  cb_a2av_launch_t launch;
} a2av_peer_state_t;

static void free_state(a2av_peer_state_t *st) {
  cb_a2av_counts_free(&st->counts);
  free(st);
}

static int setup(cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  int r = w->mpi.rank, nr = w->mpi.nranks;
  a2av_peer_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_a2av_inst_counts(in, &st->counts, why, n)) {
    free_state(st);
    return -1;
  }
  const cb_a2av_counts_t *k = &st->counts;
  cb_a2av_layout_t l = cb_a2av_layout(k);
  size_t pad_off = l.total_bytes, total = pad_off + CB_SIGNAL_PAD_BYTES;
  if (cb_peer_alloc_epochs(w, total, CB_SIGNAL_MAX_BLOCKS, &st->pm, &st->epoch, why, n)) {
    free_state(st);
    return -1;
  }
  cb_a2av_set_buffers(in, st->pm.ptrs[st->pm.me], &l);
  in->mem_bytes = total + CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  cb_a2av_launch_t *L = &st->launch;
  for (int q = 0; q < st->pm.n; q++) L->base[q] = st->pm.ptrs[q];
  L->send = in->send;
  L->recv_off = l.recv_off;
  L->pad_off = pad_off;
  L->epoch = st->epoch;
  L->max_bytes = 0;
  for (int q = 0; q < nr; q++) {
    L->send_off[q] = (size_t)cb_a2av_send_offset(k, r, q);
    L->bytes[q] = (size_t)cb_a2av_cell(k, r, q);
    L->dst_off[q] = (size_t)cb_a2av_recv_offset(k, r, q);
    if (L->bytes[q] > L->max_bytes) L->max_bytes = L->bytes[q];
  }
  L->rank = r;
  L->nranks = nr;
  L->timeout_ns = w->spin_timeout_ns;
  L->ctl = w->ctl_dev;
  /* the grid from the largest block of any rank, so every rank launches the same grid (the
   * barriers pair block b with block b) */
  size_t most = 0;
  for (int i = 0; i < nr; i++)
    for (int q = 0; q < nr; q++)
      if (cb_a2av_cell(k, i, q) > most) most = (size_t)cb_a2av_cell(k, i, q);
  cb_grid_limits_t g = cb_peer_grid_limits(w, 256);
  cb_a2av_grid(most, nr, &g, &L->blocks, &L->threads);
  in->priv = st;
  snprintf(in->note, sizeof in->note, "push, %d blocks", L->blocks);
  in->sms = cb_grid_sms(L->blocks, w->sm_count);
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  a2av_peer_state_t *st = in->priv;
  cb_a2av_launch(&st->launch, s);
}

static void teardown(cb_inst_t *in) {
  a2av_peer_state_t *st = in->priv;
  if (!st) return;
  cb_peer_free_epochs(&st->pm, &st->epoch);
  free_state(st);
  in->priv = NULL;
}

const cb_algo_t cb_algo_alltoallv_peer = {
    .name = "peer",
    .family = CB_ALLTOALLV,
    .summary = "pushes each variable-size block into its peer's receive buffer between two barriers",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_peer_supported_params,
    .setup = setup,
    .run = run,
    .check = cb_a2av_check,
    .teardown = teardown,
};
