/* MoE "nccl": the Megatron-style baseline (kernels/moe.cu with custom = 0). Layout: per-
 * destination counts on the device, counts exchanged with grouped ncclSend/ncclRecv, copied to
 * the host and synchronized (sizes must be host-visible to post the transfers); dispatch: a
 * permute kernel packs rows by destination, grouped ncclSend/ncclRecv, per-expert lists;
 * combine: weighting kernel, grouped ncclSend/ncclRecv back, unpermute-and-sum kernel. The host
 * synchronization makes it impossible to capture in a CUDA graph. */
#include <stdio.h>

#include "error_gpu.h"
#include "moe_common.h"

static int setup(cb_inst_t *in, char *why, size_t n) {
  cb_moe_state_t *st = cb_moe_state_new(in, 0);
  size_t rows = (size_t)st->n * st->cap;
  if (cb_moe_alloc_common(in, st, why, n) || !(st->send_rows = cb_moe_alloc(st, rows * st->row_bytes, why, n)) ||
      !(st->send_meta = cb_moe_alloc(st, rows * st->meta_bytes, why, n)) ||
      !(st->recv_rows = cb_moe_alloc(st, rows * st->row_bytes, why, n)) ||
      !(st->recv_meta = cb_moe_alloc(st, rows * st->meta_bytes, why, n)) ||
      !(st->comb_send = cb_moe_alloc(st, rows * st->comb_row_bytes, why, n)) ||
      !(st->comb_recv = cb_moe_alloc(st, rows * st->comb_row_bytes, why, n))) {
    cb_moe_teardown(in);
    return -1;
  }
  cb_moe_dev_init(in, st);
  st->dev.recv_rows = st->recv_rows;
  st->dev.recv_meta = st->recv_meta;
  st->dev.comb_src = st->comb_recv;
  in->mem_bytes = st->dev_bytes;
  return 0;
}

/* One grouped exchange: to each peer q, `send_rows[q]` rows of `bytes` from sbuf + send_pre[q]
 * rows; from each peer, recv_rows[q] rows into rbuf + recv_pre[q] rows. */
static void exchange(const cb_inst_t *in, const char *sbuf, const int *scount, const int *spre, char *rbuf,
                     const int *rcount, const int *rpre, size_t bytes, cudaStream_t s) {
  const cb_world_t *w = in->world;
  CB_NCCL(ncclGroupStart());
  for (int q = 0; q < w->mpi.nranks; q++) {
    CB_NCCL(ncclSend(sbuf + (size_t)spre[q] * bytes, (size_t)scount[q] * bytes, ncclUint8, q, w->nccl, s));
    CB_NCCL(ncclRecv(rbuf + (size_t)rpre[q] * bytes, (size_t)rcount[q] * bytes, ncclUint8, q, w->nccl, s));
  }
  CB_NCCL(ncclGroupEnd());
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  cb_moe_state_t *st = in->priv;
  cb_moe_dev_t *d = &st->dev;
  int n = st->n, *sc = st->h_counts, *rc = st->h_counts + CB_MAX_RANKS;
  int spre[CB_MAX_RANKS + 1], rpre[CB_MAX_RANKS + 1];
  spre[0] = rpre[0] = 0;
  if (phase > 0)
    for (int q = 0; q < n; q++) {
      spre[q + 1] = spre[q] + sc[q];
      rpre[q + 1] = rpre[q] + rc[q];
    }
  switch (phase) {
  case 0: {
    cb_moe_layout(d, s);
    int ones[CB_MAX_RANKS], idx[CB_MAX_RANKS];
    for (int q = 0; q < CB_MAX_RANKS; q++) {
      ones[q] = 1;
      idx[q] = q;
    }
    exchange(in, (const char *)st->send_count, ones, idx, (char *)st->recv_count, ones, idx, 4, s);
    CB_CUDA(cudaMemcpyAsync(sc, st->send_count, (size_t)n * 4, cudaMemcpyDeviceToHost, s));
    CB_CUDA(cudaMemcpyAsync(rc, st->recv_count, (size_t)n * 4, cudaMemcpyDeviceToHost, s));
    cb_wait_stream(s); /* the host needs the sizes: what graphs cannot hold */
    break;
  }
  case 1:
    for (int q = 0; q < n; q++) {
      d->dst_rows[q] = st->send_rows + (size_t)spre[q] * st->row_bytes;
      d->dst_meta[q] = st->send_meta + (size_t)spre[q] * st->meta_bytes;
    }
    cb_moe_dispatch_push(d, s);
    exchange(in, st->send_rows, sc, spre, st->recv_rows, rc, rpre, st->row_bytes, s);
    exchange(in, st->send_meta, sc, spre, st->recv_meta, rc, rpre, st->meta_bytes, s);
    cb_moe_expert_layout(d, s);
    break;
  default:
    for (int q = 0; q < n; q++) d->comb_dst[q] = st->comb_send + (size_t)rpre[q] * st->comb_row_bytes;
    cb_moe_combine_push(d, s);
    exchange(in, st->comb_send, rc, rpre, st->comb_recv, sc, spre, st->comb_row_bytes, s);
    cb_moe_combine_reduce(d, s);
  }
}

const cb_algo_t cb_algo_moe_nccl = {
    .name = "nccl",
    .family = CB_MOE,
    .summary = "count exchange + host sync, permute, grouped ncclSend/ncclRecv, unpermute (Megatron-style)",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_FP8E4M3),
    .nphases = 3,
    .phase_names = cb_moe_phase_names,
    .graph_ok = 0,
    .supported = cb_moe_supported,
    .setup = setup,
    .run = run,
    .check = cb_moe_check,
    .bytes = cb_moe_bytes,
    .teardown = cb_moe_teardown,
};
