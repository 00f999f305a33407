/* Host reference of the MoE "hier" algorithm (moe_hier.c): which tokens cross the network to
 * which node, and the bytes each rank puts on the network and on NVLink, from every rank's
 * routing (a pure function of the seed, so every rank computes the same numbers). CUDA-free so
 * the CPU tests run it.
 *
 * The world: n ranks on N nodes of K ranks; node_of[g] and local_of[g] give world rank g's node
 * and local rank, rank_at[j * K + l] the world rank at local rank l of node j. A token of rank s
 * crosses the network once per other node j that hosts one of its experts, to the forwarder
 * rank_at[j * K + local_of[s]] (the same local rank: one rail), which hands it over NVLink to
 * the ranks of node j that need it. Bytes are counted as collbench counts MoE bytes
 * (docs/results-format.md): per (token, destination) row payload, metadata excluded, per rank as the
 * mean over ranks. */
#ifndef CB_MOE_HIER_PLAN_H
#define CB_MOE_HIER_PLAN_H

#include <stddef.h>

#include "cb_limits.h"
#include "moe_router.h"

typedef struct cb_moe_hier_map {
  int n, nnodes, K;
  int node_of[CB_MAX_RANKS], local_of[CB_MAX_RANKS], rank_at[CB_MAX_RANKS];
} cb_moe_hier_map_t;

/* Bytes per rank (mean over ranks) of one round trip, split by phase and link. NVLink bytes
 * are rows written to (dispatch) or read from (combine) another GPU of the node; a row a rank
 * writes into its own memory counts nowhere. `flat_*`: the same for a flat path that sends
 * every (token, destination rank) row straight to its rank (moe `nccl`: NCCL over the network
 * between nodes, over NVLink inside one). */
typedef struct cb_moe_hier_bytes {
  double net_disp, nvlink_disp, net_comb, nvlink_comb;
  double flat_net_disp, flat_nvlink_disp, flat_net_comb, flat_nvlink_comb;
} cb_moe_hier_bytes_t;

/* Builds the map of a world whose ranks are numbered node by node (g = node * K + local).
 * Returns -1 when n is not nnodes * K or exceeds CB_MAX_RANKS. */
int cb_moe_hier_map_blocked(int nnodes, int K, cb_moe_hier_map_t *m);
/* Checks a map gathered from the ranks (node_of, local_of filled, n, nnodes, K set) and fills
 * rank_at. Returns -1 with why when a (node, local rank) pair is missing or taken twice. */
int cb_moe_hier_map_finish(cb_moe_hier_map_t *m, char *why, size_t len);

/* Does token t of routing r go to some rank of node j? */
int cb_moe_hier_token_goes_to_node(const cb_moe_routing_t *r, int t, int experts, const cb_moe_hier_map_t *m, int j);

/* node_counts[s * nnodes + j]: tokens rank s sends over the network to node j (0 for its own
 * node), for every rank s; and the bytes (payload: dispatched row bytes, comb_row: combine row
 * bytes). */
void cb_moe_hier_plan(const cb_moe_routing_t *all, int experts, const cb_moe_hier_map_t *m, double payload,
                      double comb_row, int *node_counts, cb_moe_hier_bytes_t *bytes);

#endif
