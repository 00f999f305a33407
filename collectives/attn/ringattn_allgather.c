/* ringattn `nccl_allgather`: all-gather every rank's K/V block with NCCL, then attend the local
 * queries to all P blocks, one block-kernel launch each (the context-parallel scheme of the
 * Llama 3 report). Nothing overlaps: communication first, compute second; the gathered K/V
 * costs P blocks of memory. The backward gathers K/V again, runs one backward pair per block
 * into that block's fp32 dK|dV sums ([P][dK|dV], P more fp32 blocks), and a reduce-scatter
 * (sum) hands every rank the complete sums of its own block. */
#include <stdio.h>

#include "attn_layout.h"
#include "error_gpu.h"
#include "ringattn_block_kernel.h"
#include "ringattn_bwd.h"
#include "ringattn_pass.h"
#include "ringattn_scheme.h"

typedef struct gath {
  cb_ra_t x;   /* first: the row's shared state (ringattn_scheme.h) */
  void *all;   /* [P][K/V block] in rank order */
  float *dall; /* backward: [P][dK|dV] fp32 in rank order (NULL for --pass fwd) */
} gath_t;

static void gath_fwd(cb_inst_t *in, cudaStream_t s);
static void gather_kv(cb_inst_t *in, cudaStream_t s);
static void attend_all(cb_inst_t *in, cudaStream_t s);

/* The backward's P pairs (after the gather), and its reduce-scatter of the sums. */
static void bwd_all(cb_inst_t *in, cudaStream_t s) {
  gath_t *g = in->priv;
  cb_ra_t *x = &g->x;
  cb_ra_bwd_begin(x, s);
  CB_CUDA(cudaMemsetAsync(g->dall, 0, x->bwd.dkv_bytes * (size_t)x->P, s));
  for (int j = 0; j < x->P; j++)
    cb_ra_bwd_attend(x, (const char *)g->all + (size_t)j * x->kv_bytes, cb_ra_src_pos(x, j),
                     g->dall + (size_t)j * x->bwd.dkv_elems, s);
}
static void reduce_sums(cb_inst_t *in, cudaStream_t s) {
  gath_t *g = in->priv;
  CB_NCCL(ncclReduceScatter(g->dall, g->x.bwd.dkv, g->x.bwd.dkv_elems, ncclFloat32, ncclSum, in->world->nccl, s));
}
static void gath_bwd(cb_inst_t *in, cudaStream_t s) {
  gather_kv(in, s);
  bwd_all(in, s);
  reduce_sums(in, s);
}
static void gath_bwd_comm(cb_inst_t *in, cudaStream_t s) {
  gather_kv(in, s);
  reduce_sums(in, s);
}

static int gath_setup(cb_inst_t *in, char *why, size_t n) {
  gath_t *g = in->priv;
  cb_ra_t *x = &g->x;
  if (cb_ra_alloc(x, &g->all, x->kv_bytes * (size_t)x->P, why, n) || cb_ra_setup_pass(x, in, NULL, 0, why, n) ||
      (CB_ATTN_PASS_HAS_BWD(x->pass) && cb_ra_alloc(x, (void **)&g->dall, x->bwd.dkv_bytes * (size_t)x->P, why, n)))
    return -1;
  in->mem_bytes = x->mem;
  snprintf(in->note, sizeof in->note, "%s; ncclAllGather then %d launches", cb_attn_layout_name(x->layout), x->P);
  return 0;
}

static void gath_teardown(cb_inst_t *in) {
  gath_t *g = in->priv;
  CB_CUDA(cudaFree(g->all));
  CB_CUDA(cudaFree(g->dall));
}

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

/* (parts alone: comm = the all-gather (and the backward's reduce-scatter); compute = the P launches) */
static void gath_fwd(cb_inst_t *in, cudaStream_t s) {
  gather_kv(in, s);
  attend_all(in, s);
}

const cb_ra_scheme_t cb_ra_scheme_nccl_allgather = {
    .state_size = sizeof(gath_t),
    .setup = gath_setup,
    .teardown = gath_teardown,
    .forward = gath_fwd,
    .backward = gath_bwd,
    .fwd_compute = attend_all,
    .fwd_comm = gather_kv,
    .bwd_compute = bwd_all,
    .bwd_comm = gath_bwd_comm,
};
