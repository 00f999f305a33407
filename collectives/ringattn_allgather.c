/* ringattn `nccl_allgather`: all-gather every rank's K/V block with NCCL, then attend the local
 * queries to all P blocks, one block-kernel launch each (the context-parallel scheme of the
 * Llama 3 report). Nothing overlaps: communication first, compute second; the gathered K/V
 * costs P blocks of memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_block.h"
#include "error_gpu.h"
#include "ringattn_common.h"

typedef struct gath {
  cb_ra_t x; /* first (ringattn_common.h) */
  void *all; /* [P][K/V block] in rank order */
} gath_t;

static int setup_block(cb_inst_t *in, int block, char *why, size_t n) {
  gath_t *g = calloc(1, sizeof *g);
  if (!g) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_ra_init(&g->x, in, 0, block, why, n) || cb_ra_alloc(&g->x, &g->all, g->x.kv_bytes * (size_t)g->x.P, why, n)) {
    cb_ra_free(&g->x);
    free(g);
    return -1;
  }
  in->priv = g;
  in->mem_bytes = g->x.mem;
  in->flops = cb_attn_flops(in->p.attn, in->p.seq, in->p.causal) / in->world->mpi.nranks;
  snprintf(in->note, sizeof in->note, "%s; ncclAllGather then %d launches",
           in->p.causal ? "zigzag" : "contiguous shards", g->x.P);
  cb_ra_block_note(&g->x, in->note, sizeof in->note);
  return 0;
}

static int gath_setup(cb_inst_t *in, char *why, size_t n) { return setup_block(in, CB_ATTN_BLOCK_COLLBENCH, why, n); }
static int gath_setup_cudnn(cb_inst_t *in, char *why, size_t n) { return setup_block(in, CB_ATTN_BLOCK_CUDNN, why, n); }

static void gather_kv(cb_inst_t *in, cudaStream_t s) {
  gath_t *g = in->priv;
  CB_NCCL(ncclAllGather(g->x.kv, g->all, g->x.kv_bytes, ncclChar, in->world->nccl, s));
}

static void attend_all(cb_inst_t *in, cudaStream_t s) {
  gath_t *g = in->priv;
  cb_ra_t *x = &g->x;
  for (int j = 0; j < x->P; j++)
    cb_ra_attend(x, (const char *)g->all + (size_t)j * x->kv_bytes, cb_ra_src_pos(x, j), j == 0, j == x->P - 1, s);
}

/* comm alone = the all-gather; compute alone = the P launches */
static void gath_measure(cb_inst_t *in, cudaStream_t s) { cb_ra_measure_parts(in, s, attend_all, gather_kv); }

static void gath_run(cb_inst_t *in, int phase, cudaStream_t s) {
  gather_kv(in, s);
  attend_all(in, s);
}

const cb_algo_t cb_algo_ringattn_nccl_allgather = {
    .name = "nccl_allgather",
    .family = CB_RINGATTN,
    .summary = "ncclAllGather of K/V, then one local pass over all blocks (no overlap)",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_HALF),
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_ra_supported,
    .setup = gath_setup,
    .run = gath_run,
    .check = cb_ra_check,
    .teardown = cb_ra_teardown,
    .measure = gath_measure,
};

const cb_algo_t cb_algo_ringattn_nccl_allgather_cudnn = {
    .name = "nccl_allgather" CB_ATTN_CUDNN_SUFFIX,
    .family = CB_RINGATTN,
    .summary = "nccl_allgather with cuDNN's fused attention as the block kernel",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_HALF),
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_ra_supported_cudnn,
    .setup = gath_setup_cudnn,
    .run = gath_run,
    .check = cb_ra_check,
    .teardown = cb_ra_teardown,
    .measure = gath_measure,
};
