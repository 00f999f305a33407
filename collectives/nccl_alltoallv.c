/* The NCCL baseline of alltoallv, as nccl-tests 2.19 runs it (src/alltoallv.cu): one group of
 * ncclSend/ncclRecv, for every peer in rank order a send of my block for it (when not empty) and
 * a receive of its block for me (when not empty), blocks packed back to back in destination
 * order (send) and source order (receive). */
#include <stdio.h>
#include <stdlib.h>

#include "alltoallv_algo.h"
#include "error_gpu.h"
#include "nccl_common.h"

typedef struct nccl_a2av_state {
  cb_a2av_counts_t counts; /* first: the check reads it (alltoallv_algo.h) */
  void *base;
} nccl_a2av_state_t;

static int setup(cb_inst_t *in, char *why, size_t n) {
  nccl_a2av_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_a2av_inst_counts(in, &st->counts, why, n)) {
    free(st);
    return -1;
  }
  cb_a2av_layout_t l = cb_a2av_layout(&st->counts);
  if (CB_TRY_CUDA(cudaMalloc(&st->base, l.total_bytes), why, n)) {
    cb_a2av_counts_free(&st->counts);
    free(st);
    return -1;
  }
  in->priv = st;
  in->mem_bytes = l.total_bytes;
  cb_a2av_set_buffers(in, st->base, &l);
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  const nccl_a2av_state_t *st = in->priv;
  const cb_a2av_counts_t *k = &st->counts;
  int n = in->world->mpi.nranks, r = in->world->mpi.rank;
  size_t es = cb_dtype_size(in->p.dtype);
  ncclDataType_t dt = cb_nccl_dtype(in->p.dtype);
  const char *sp = in->send;
  char *rp = in->recv;
  CB_NCCL(ncclGroupStart());
  for (int q = 0; q < n; q++) {
    size_t sc = (size_t)cb_a2av_cell(k, r, q) / es, rc = (size_t)cb_a2av_cell(k, q, r) / es;
    if (sc) CB_NCCL(ncclSend(sp, sc, dt, q, in->world->nccl, s));
    if (rc) CB_NCCL(ncclRecv(rp, rc, dt, q, in->world->nccl, s));
    sp += sc * es;
    rp += rc * es;
  }
  CB_NCCL(ncclGroupEnd());
}

static void teardown(cb_inst_t *in) {
  nccl_a2av_state_t *st = in->priv;
  if (!st) return;
  if (st->base) CB_CUDA(cudaFree(st->base));
  cb_a2av_counts_free(&st->counts);
  free(st);
  in->priv = NULL;
}

const cb_algo_t cb_algo_nccl_alltoallv = {
    .name = "nccl",
    .family = CB_ALLTOALLV,
    .summary = "grouped ncclSend/ncclRecv of each peer's block (nccl-tests' alltoallv)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_nccl_supported,
    .setup = setup,
    .run = run,
    .check = cb_a2av_check,
    .teardown = teardown,
};
