/* MoE "peer_ll": the low-latency (decode) form of `peer`, timed as one round trip. Same peer
 * buffers and combine as peer (moe_peer.c, kernels/moe_combine.cu), but two kernels instead
 * of four and no count round trip before the rows: the dispatch kernel lays out, pushes and
 * builds the per-expert lists in one pass, each block listing the rows that the same block of
 * every source sent, after that block's flag (kernels/moe_dispatch_ll.cu). One phase ("roundtrip"), so with
 * the default round timing the bench puts no event between the kernels: per-phase events cost
 * about 4 us each in a graph on H200 (docs/decisions/timing.md) and would be most of a decode round trip.
 * The `peer` rows of the same run give the per-phase breakdown. */
#include "moe_common.h"

static const char *const phase_names[1] = {"roundtrip"};

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  (void)phase;
  cb_moe_state_t *st = in->priv;
  cb_moe_dispatch_ll(&st->dev, s);
  cb_moe_combine_fused(&st->dev, s);
}

/* the one phase is the round trip: dispatch + combine bytes */
static void bytes(const cb_inst_t *in, int phase, cb_bytes_t *out) {
  (void)phase;
  cb_moe_bytes(in, 3, out);
}

const cb_algo_t cb_algo_moe_peer_ll = {
    .name = "peer_ll",
    .family = CB_MOE,
    .summary =
        "peer, low latency: layout and expert lists fused into the dispatch (per-block flags), one-kernel combine",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_FP8E4M3),
    .nphases = 1,
    .phase_names = phase_names,
    .graph_ok = 1,
    .supported = cb_moe_peer_supported,
    .setup = cb_moe_peer_setup,
    .run = run,
    .check = cb_moe_check,
    .bytes = bytes,
    .teardown = cb_moe_teardown,
};
