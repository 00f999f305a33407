/* Custom all-reduce "oneshot_ll": one-shot on the LL protocol (16-byte lines {data, epoch,
 * data, epoch}, polled until both epochs match; no flag, no barrier;
 * kernels/allreduce_oneshot_ll.cu). The lowest latency for small messages;
 * doubles the bytes on the wire, so it is offered up to CB_ONESHOT_LL_MAX_BYTES per rank. */
#include "allreduce_peer.h"

#define CB_ONESHOT_LL_MAX_BYTES (4ull << 20)

static const cb_ar_kind_t kind = {
    .scratch = cb_ar_oneshot_ll_scratch,
    .grid = cb_ar_oneshot_ll_grid,
    .launch = cb_ar_oneshot_ll_launch,
    .default_max_blocks = 128,
};

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_ar_supported_upto(w, p, CB_ONESHOT_LL_MAX_BYTES, "oneshot_ll", "doubles the bytes on the wire", why, n);
}

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_ar_setup(in, &kind, why, n); }

const cb_algo_t cb_algo_allreduce_oneshot_ll = {
    .name = "oneshot_ll",
    .family = CB_ALLREDUCE,
    .summary = "LL protocol: 16-byte {data, epoch, data, epoch} lines pushed to all peers, no barrier, "
               "local reduce (up to 256 KiB)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = cb_ar_run,
    .teardown = cb_ar_teardown,
};
