/* Custom reduce "peer": the root pulls every rank's input over peer memory and reduces it in
 * rank order in one pass between two barriers (kernels/reduce_peer.cu). Latency-bound sizes, one
 * node. */
#include "rooted_peer.h"

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_rooted_peer_setup(in, cb_reduce_peer_launch, why, n); }

const cb_algo_t cb_algo_reduce_peer = {
    .name = "peer",
    .family = CB_REDUCE,
    .summary = "the root pulls and reduces every rank's buffer over peer memory, one shot (small and medium sizes)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_rooted_peer_supported,
    .setup = setup,
    .run = cb_rooted_peer_run,
    .teardown = cb_rooted_peer_teardown,
};
