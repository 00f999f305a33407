/* The synthetic MoE router (host): seeded, reproducible top-k routing for every rank, and the
 * host-side references the checks and tests compare against.
 *
 * Experts are split evenly: rank d hosts experts [d*E/n, (d+1)*E/n). Each token picks topk
 * distinct experts, drawn one after another from the routing law without replacement
 * (uniform; zipf:S over a seeded permutation of the experts, weight 1/(i+1)^S for the i-th;
 * hot:K:F, K seeded hot experts each drawing F/E of the probability, the rest sharing what is
 * left), then each selection is dropped (id -1) with probability --drop. Weights are a softmax
 * of seeded logits over the kept selections (they sum to 1). Everything depends only on
 * (config, seed, rank, token), so any rank can regenerate any other rank's routing. */
#ifndef CB_MOE_ROUTER_H
#define CB_MOE_ROUTER_H

#include <stddef.h>
#include <stdint.h>

#include "moe_config.h"

typedef struct cb_moe_routing {
  int ntokens, topk;
  int32_t *ids;   /* [ntokens][topk]: global expert id, or -1 (dropped) */
  float *weights; /* [ntokens][topk]: 0 where dropped */
} cb_moe_routing_t;

/* Tokens of rank r: `tokens` everywhere, or with uneven = 1 and n >= 2 ranks,
 * round(2·tokens·(n-1-r)/n): rank 0 gets the most, the last rank none, and the mean over ranks
 * is tokens·(n-1)/n (a single rank keeps `tokens`). */
int cb_moe_tokens_for_rank(const cb_moe_config_t *c, uint64_t tokens, int rank, int nranks);

/* Returns 0, or -1: out of memory, or the law has fewer than topk experts with non-zero
 * probability (cb_moe_config_check rejects such configurations first). */
int cb_moe_route(const cb_moe_config_t *c, uint64_t seed, int rank, int nranks, int ntokens, cb_moe_routing_t *out);
void cb_moe_routing_free(cb_moe_routing_t *r);

/* Probability of each expert under the routing law for the first selection (sums to 1). */
void cb_moe_expert_law(const cb_moe_config_t *c, uint64_t seed, double *p);

/* Dispatch layout of one rank (host reference): per destination, the tokens it sends in token
 * order, and each token's position in its destination's list (-1 if not sent there). */
typedef struct cb_moe_layout {
  int nranks, ntokens;
  int *send_count; /* [nranks] */
  int *send_idx;   /* [nranks][ntokens], first send_count[d] valid */
  int *send_pos;   /* [ntokens][nranks] */
} cb_moe_layout_t;

int cb_moe_layout_host(const cb_moe_routing_t *r, int experts, int nranks, cb_moe_layout_t *out);
void cb_moe_layout_free(cb_moe_layout_t *l);

/* Does token t of routing r send to destination d? */
int cb_moe_token_goes_to(const cb_moe_routing_t *r, int t, int experts, int nranks, int d);

/* Token data of rank r: element h of token t, a multiple of 1/64 in [-1, 1] (exact in
 * bfloat16); the same formula runs on the device (kernels/moe.cu). */
float cb_moe_token_value(uint64_t seed, int rank, int iter, int t, int h);

/* Combine reference for identity experts: out[h] = sum_k w_k * x[h], fp64. */
void cb_moe_combine_ref(const cb_moe_routing_t *r, int t, const float *x, int hidden, double *out);

/* Receive statistics over all ranks' routings: max/mean received tokens per rank and
 * max/mean (token, expert) selections per expert. */
void cb_moe_imbalance(const cb_moe_routing_t *all, int nranks, int experts, double *rank_imbalance,
                      double *expert_imbalance);

#endif
