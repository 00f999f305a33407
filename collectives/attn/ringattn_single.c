/* ringattn `single`: the P = 1 reference, the block kernel alone over the whole sequence (every
 * query against every key, one launch) with the same inputs the ring forms shard. Every rank
 * runs it on its own GPU at the same time (no communication), so its row is the single-GPU
 * time; its TFLOP/s counts the whole problem on one GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_block.h"
#include "error_gpu.h"
#include "ringattn_common.h"

typedef struct single {
  cb_ra_t x; /* first (ringattn_common.h) */
} single_t;

static void single_fwd(cb_inst_t *in, cudaStream_t s);

static int setup_block(cb_inst_t *in, int block, char *why, size_t n) {
  single_t *g = calloc(1, sizeof *g);
  if (!g) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_ra_init(&g->x, in, 1, block, why, n)) {
    free(g);
    return -1;
  }
  in->priv = g;
  g->x.forward = single_fwd, g->x.backward = cb_ra_bwd_single;
  if (cb_ra_setup_pass(&g->x, in, 1, NULL, 0, why, n)) {
    cb_ra_teardown(in);
    return -1;
  }
  in->mem_bytes = g->x.mem;
  in->p.bytes = 0; /* nothing crosses a link */
  snprintf(in->note, sizeof in->note, "one GPU, whole sequence");
  cb_ra_block_note(&g->x, in->note, sizeof in->note);
  return 0;
}

static int single_setup(cb_inst_t *in, char *why, size_t n) { return setup_block(in, CB_ATTN_BLOCK_COLLBENCH, why, n); }
static int single_setup_cudnn(cb_inst_t *in, char *why, size_t n) {
  return setup_block(in, CB_ATTN_BLOCK_CUDNN, why, n);
}
static int single_supported_cudnn(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_ra_cudnn_supported(w, p, 1, why, n);
}

static void single_fwd(cb_inst_t *in, cudaStream_t s) {
  single_t *g = in->priv;
  cb_ra_attend(&g->x, g->x.kv, cb_ra_pos(g->x.runs), 1, 1, s);
}

const cb_algo_t cb_algo_ringattn_single = {
    .name = "single",
    .family = CB_RINGATTN,
    .summary = "P = 1 reference: the block kernel alone on the whole sequence, one GPU",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_HALF),
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_ra_supported,
    .setup = single_setup,
    .run = cb_ra_run,
    .check = cb_ra_check,
    .teardown = cb_ra_teardown,
};

const cb_algo_t cb_algo_ringattn_single_cudnn = {
    .name = "single" CB_ATTN_CUDNN_SUFFIX,
    .family = CB_RINGATTN,
    .summary = "P = 1 reference with cuDNN's fused attention as the block kernel (the vendor at its best)",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_HALF),
    .nphases = 1,
    .graph_ok = 1,
    .supported = single_supported_cudnn,
    .setup = single_setup_cudnn,
    .run = cb_ra_run,
    .check = cb_ra_check,
    .teardown = cb_ra_teardown,
};
