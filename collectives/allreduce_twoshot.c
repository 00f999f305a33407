/* Custom all-reduce "twoshot": reduce-scatter by NVLink pushes, local reduce of the owned
 * shard, all-gather by pushes; two barriers (kernels/allreduce_twoshot.cu). Moves the
 * bus-bandwidth optimum 2(n-1)/n·S per rank; scratch ≈ S. */
#include "allreduce_peer.h"

static const cb_ar_kind_t kind = {
    .scratch = cb_ar_twoshot_scratch,
    .grid = cb_ar_twoshot_grid,
    .launch = cb_ar_twoshot_launch,
    .default_max_blocks = 256,
};

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_ar_setup(in, &kind, why, n); }

const cb_algo_t cb_algo_allreduce_twoshot = {
    .name = "twoshot",
    .family = CB_ALLREDUCE,
    .summary = "reduce-scatter and all-gather by NVLink pushes, two barriers (bandwidth-bound sizes)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_peer_supported_params,
    .setup = setup,
    .run = cb_ar_run,
    .teardown = cb_ar_teardown,
};
