/* Host-callable launchers of the MoE "hier" kernels (kernels/moe_hier.cu, host side
 * collectives/moe_hier.c): the multi-node dispatch/combine that sends a token across the
 * network once per destination node and forwards it over NVLink inside the node.
 *
 * Ranks: me = (node, local); K ranks per node, N nodes, n = N*K; rank_at[j*K + l] is the world
 * rank at local rank l of node j, node_of[g] the node of world rank g.
 *
 * Count table (allgathered over all ranks): counts[s][cw], cw = n + N: rank s's rows per
 * destination rank (send_count), then its node rows per node (tokens that go to at least one rank
 * of that node; 0 for its own node).
 *
 * Node row (what crosses the network, nrow_bytes, 16-byte aligned): the dispatched row
 * (row_bytes, the same format as kernels/moe.h's rows) followed by its hier metadata,
 * int32 words: src rank, src token, topk global expert ids, topk weights (float), then for each
 * local rank q of the destination node the token's position in the source's list for that
 * rank (send_pos), or -1. The forwarder writes the row to rank q at
 * recv_prefix_q(src) + send_pos: exactly where the flat NCCL path puts it (rows packed by source
 * in token order), so the shared check (cb_moe_check) applies unchanged.
 *
 * Peer memory per rank (peer-mapped inside the node; regions by local rank):
 *   [ recv rows: n*cap x row_bytes ][ recv meta: n*cap x meta_bytes ][ combine rows: n*cap x
 *   comb_row_bytes ][ signal pad ]
 * Local: node lists node_idx[N][cap], node_pos[ntokens][N]; network staging net_send /
 * net_recv [N][cap] x nrow_bytes, combine partials comb_send / comb_recv [N][cap] x
 * comb_row_bytes (region j: rows for / from node j). */
#ifndef CB_MOE_HIER_H
#define CB_MOE_HIER_H

#include "moe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_moe_hier_dev {
  cb_moe_dev_t m; /* the per-rank layout and rows; custom = 0 (rows packed by source) */
  int node, nnodes, local, K, cw;
  int node_of[CB_MAX_RANKS], rank_at[CB_MAX_RANKS];
  const int32_t *counts; /* [n][cw], allgathered */
  int32_t *my_counts;    /* [cw], this rank's row of the table */
  int32_t *node_idx;     /* [N][cap] tokens per destination node, in token order */
  int32_t *node_pos;     /* [ntokens][N] position in node_idx, or -1 */
  char *net_send, *net_recv, *comb_send, *comb_recv;
  size_t nrow_bytes;
  /* node peers' regions, by local rank (mine included) */
  char *recv_rows[CB_MAX_RANKS], *recv_meta[CB_MAX_RANKS], *comb[CB_MAX_RANKS];
  void *pads[CB_MAX_RANKS];
  uint32_t *barrier_epoch; /* [2]: after dispatch, after the combine rows */
} cb_moe_hier_dev_t;

/* Node lists and this rank's count row (after cb_moe_layout on the same stream). */
void cb_moe_hier_layout(const cb_moe_hier_dev_t *h, cudaStream_t s);
/* recv_count from the allgathered table. */
void cb_moe_hier_recv_counts(const cb_moe_hier_dev_t *h, cudaStream_t s);
/* Node rows into net_send; rows for this node's ranks straight into their receive regions. */
void cb_moe_hier_pack(const cb_moe_hier_dev_t *h, cudaStream_t s);
/* Rows that came over the network (net_recv) to the node's ranks that need them. */
void cb_moe_hier_forward(const cb_moe_hier_dev_t *h, cudaStream_t s);
/* Every rank of the node reached this point (slot 0 or 1); a no-op with K = 1. */
void cb_moe_hier_node_barrier(const cb_moe_hier_dev_t *h, int slot, cudaStream_t s);
/* Per node row received: the sum of its combine rows over this node's ranks into comb_send. */
void cb_moe_hier_node_reduce(const cb_moe_hier_dev_t *h, cudaStream_t s);
/* out[t] = combine rows of this node's ranks + node partials that came back (comb_recv). */
void cb_moe_hier_final_reduce(const cb_moe_hier_dev_t *h, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
