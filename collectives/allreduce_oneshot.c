/* Custom all-reduce "oneshot": push every input to every peer, one barrier, reduce locally
 * (kernels/allreduce_oneshot.cu). Latency-bound sizes; its scratch grows as 2·n·S, so it is
 * offered up to CB_ONESHOT_MAX_BYTES per rank. */
#include "allreduce_peer.h"

#define CB_ONESHOT_MAX_BYTES (32ull << 20)

static const cb_ar_kind_t kind = {
    .scratch = cb_ar_oneshot_scratch,
    .grid = cb_ar_oneshot_grid,
    .launch = cb_ar_oneshot_launch,
    .default_max_blocks = 128,
};

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_ar_supported_upto(w, p, CB_ONESHOT_MAX_BYTES, "oneshot", "stages 2*n copies", why, n);
}

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_ar_setup(in, &kind, why, n); }

const cb_algo_t cb_algo_allreduce_oneshot = {
    .name = "oneshot",
    .family = CB_ALLREDUCE,
    .summary = "push inputs to all peers over NVLink, one barrier, local reduce (latency-bound sizes)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = cb_ar_run,
    .teardown = cb_ar_teardown,
};
