/* Custom all-reduce "twoshot_pull": each rank pulls its shard from every rank's input over
 * NVLink, reduces it and writes it into every rank's output, between a start and an end
 * barrier (kernels/allreduce_twoshot_pull.cu). The same bytes as twoshot with no scratch at
 * all, so the largest messages fit where twoshot's ≈ S of staging would not. */
#include "allreduce_peer.h"

static size_t no_scratch(size_t count, int dtype, int nranks) {
  (void)count, (void)dtype, (void)nranks;
  return 0;
}

/* twoshot's grid (one block per SM up to 64 MiB) from a cap of 512 rather than 256: more
 * blocks keep more NVLink reads in flight, 317 -> 342 GB/s at 4 GiB on 2 x H200
 * (docs/decisions/allreduce.md). */
static const cb_ar_kind_t kind = {
    .scratch = no_scratch,
    .grid = cb_ar_twoshot_grid,
    .launch = cb_ar_twoshot_pull_launch,
    .default_max_blocks = 512,
};

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_ar_setup(in, &kind, why, n); }

const cb_algo_t cb_algo_allreduce_twoshot_pull = {
    .name = "twoshot_pull",
    .family = CB_ALLREDUCE,
    .summary = "two-shot by NVLink pulls into every output, no scratch (largest sizes)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_peer_supported_params,
    .setup = setup,
    .run = cb_ar_run,
    .teardown = cb_ar_teardown,
};
