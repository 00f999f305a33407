/* Custom broadcast "peer": every rank pulls the root's input over peer memory in one pass between
 * two barriers (kernels/broadcast_peer.cu). Latency-bound sizes, one node. */
#include "rooted_peer.h"

static int setup(cb_inst_t *in, char *why, size_t n) {
  return cb_rooted_peer_setup(in, cb_broadcast_peer_launch, why, n);
}

const cb_algo_t cb_algo_broadcast_peer = {
    .name = "peer",
    .family = CB_BROADCAST,
    .summary = "every rank pulls the root's buffer over peer memory, one shot (small and medium sizes)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_rooted_peer_supported,
    .setup = setup,
    .run = cb_rooted_peer_run,
    .teardown = cb_rooted_peer_teardown,
};
