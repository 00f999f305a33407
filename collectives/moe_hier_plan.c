/* Implementation of moe_hier_plan.h. */
#include "moe_hier_plan.h"

#include <stdio.h>
#include <string.h>

int cb_moe_hier_map_blocked(int nnodes, int K, cb_moe_hier_map_t *m) {
  memset(m, 0, sizeof *m);
  if (nnodes < 1 || K < 1 || nnodes * K > CB_MAX_RANKS) return -1;
  m->n = nnodes * K;
  m->nnodes = nnodes;
  m->K = K;
  for (int g = 0; g < m->n; g++) {
    m->node_of[g] = g / K;
    m->local_of[g] = g % K;
    m->rank_at[g] = g;
  }
  return 0;
}

int cb_moe_hier_map_finish(cb_moe_hier_map_t *m, char *why, size_t len) {
  if (m->n < 1 || m->n > CB_MAX_RANKS || m->nnodes < 1 || m->K < 1 || m->nnodes * m->K != m->n) {
    snprintf(why, len, "%d ranks do not form %d nodes of %d", m->n, m->nnodes, m->K);
    return -1;
  }
  for (int i = 0; i < m->n; i++) m->rank_at[i] = -1;
  for (int g = 0; g < m->n; g++) {
    int j = m->node_of[g], l = m->local_of[g];
    if (j < 0 || j >= m->nnodes || l < 0 || l >= m->K || m->rank_at[j * m->K + l] >= 0) {
      snprintf(why, len, "rank %d: node %d local rank %d is out of range or taken twice", g, j, l);
      return -1;
    }
    m->rank_at[j * m->K + l] = g;
  }
  return 0;
}

static int rank_of_expert(int id, int experts, int n) { return id < 0 ? -1 : id / (experts / n); }

int cb_moe_hier_token_goes_to_node(const cb_moe_routing_t *r, int t, int experts, const cb_moe_hier_map_t *m, int j) {
  for (int k = 0; k < r->topk; k++) {
    int d = rank_of_expert(r->ids[(size_t)t * r->topk + k], experts, m->n);
    if (d >= 0 && m->node_of[d] == j) return 1;
  }
  return 0;
}

void cb_moe_hier_plan(const cb_moe_routing_t *all, int experts, const cb_moe_hier_map_t *m, double payload,
                      double comb_row, int *node_counts, cb_moe_hier_bytes_t *b) {
  int n = m->n, N = m->nnodes, K = m->K;
  /* rows per rank: [0] net dispatch, [1] NVLink dispatch, [2] net combine, [3] NVLink combine,
   * then the flat path's [4] net and [5] NVLink rows (combine mirrors dispatch there) */
  double rows[CB_MAX_RANKS][6];
  memset(rows, 0, sizeof rows);
  for (int s = 0; s < n; s++) {
    for (int j = 0; j < N; j++) node_counts[s * N + j] = 0;
    for (int t = 0; t < all[s].ntokens; t++)
      for (int j = 0; j < N; j++) {
        int f = m->rank_at[j * K + m->local_of[s]]; /* who receives the token on node j */
        int reaches = 0;
        for (int l = 0; l < K; l++) {
          int d = m->rank_at[j * K + l];
          if (!cb_moe_token_goes_to(&all[s], t, experts, n, d)) continue;
          reaches = 1;
          if (j == m->node_of[s]) {
            /* own node: the source writes the row into d and reads d's combine row back */
            if (d != s) rows[s][1] += 1, rows[s][3] += 1, rows[s][5] += 1;
          } else {
            /* other node: the forwarder hands the row to d and reads d's partial */
            if (d != f) rows[f][1] += 1, rows[f][3] += 1;
            rows[s][4] += 1;
          }
        }
        if (reaches && j != m->node_of[s]) {
          node_counts[s * N + j] += 1;
          rows[s][0] += 1; /* one node row out */
          rows[f][2] += 1; /* one node partial back */
        }
      }
  }
  memset(b, 0, sizeof *b);
  for (int s = 0; s < n; s++) {
    b->net_disp += rows[s][0] * payload / n;
    b->nvlink_disp += rows[s][1] * payload / n;
    b->net_comb += rows[s][2] * comb_row / n;
    b->nvlink_comb += rows[s][3] * comb_row / n;
    b->flat_net_disp += rows[s][4] * payload / n;
    b->flat_nvlink_disp += rows[s][5] * payload / n;
    b->flat_net_comb += rows[s][4] * comb_row / n;
    b->flat_nvlink_comb += rows[s][5] * comb_row / n;
  }
}
