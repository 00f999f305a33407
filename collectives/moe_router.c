/* Implementation of moe_router.h. */
#include "moe_router.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mix64.h"
#include "moe_token.h"

/* Uniform double in [0, 1) from a counter stream. */
static double uniform(uint64_t *state) {
  *state = cb_mix64(*state);
  return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

int cb_moe_tokens_for_rank(const cb_moe_config_t *c, uint64_t tokens, int rank, int nranks) {
  if (!c->uneven || nranks < 2) return (int)tokens;
  return (int)llround(2.0 * (double)tokens * (double)(nranks - 1 - rank) / (double)nranks);
}

void cb_moe_expert_law(const cb_moe_config_t *c, uint64_t seed, double *p) {
  int E = c->experts;
  /* a seeded permutation of the experts: who is "popular" is not tied to the expert index */
  int *perm = malloc(sizeof(int) * (size_t)E);
  for (int e = 0; e < E; e++) perm[e] = e;
  uint64_t s = cb_mix64(seed ^ 0x5eedc0de);
  for (int e = E - 1; e > 0; e--) {
    int j = (int)(uniform(&s) * (e + 1));
    int t = perm[e];
    perm[e] = perm[j];
    perm[j] = t;
  }
  double total = 0.0;
  for (int i = 0; i < E; i++) {
    double w = cb_routing_weight(&c->routing, i);
    p[perm[i]] = w;
    total += w;
  }
  for (int e = 0; e < E; e++) p[e] /= total;
  if (c->routing.kind == CB_ROUTE_HOT) {
    int K = c->routing.hot_k;
    double hot = c->routing.hot_f / (double)E, cold = (1.0 - K * hot) / (double)(E - K);
    for (int i = 0; i < E; i++) p[perm[i]] = i < K ? hot : cold;
  }
  free(perm);
}

int cb_moe_route(const cb_moe_config_t *c, uint64_t seed, int rank, int nranks, int ntokens, cb_moe_routing_t *out) {
  int E = c->experts, K = c->topk;
  memset(out, 0, sizeof *out);
  out->ntokens = ntokens;
  out->topk = K;
  out->ids = malloc(sizeof(int32_t) * (size_t)(ntokens > 0 ? ntokens : 1) * (size_t)K);
  out->weights = malloc(sizeof(float) * (size_t)(ntokens > 0 ? ntokens : 1) * (size_t)K);
  double *p = malloc(sizeof(double) * (size_t)E), *q = malloc(sizeof(double) * (size_t)E);
  if (!out->ids || !out->weights || !p || !q) {
    free(p);
    free(q);
    cb_moe_routing_free(out);
    return -1;
  }
  cb_moe_expert_law(c, seed, p);
  for (int t = 0; t < ntokens; t++) {
    uint64_t s = cb_mix64(seed ^ cb_mix64(((uint64_t)(uint32_t)rank << 32) | (uint32_t)t));
    memcpy(q, p, sizeof(double) * (size_t)E);
    double left = 1.0, logits[32], wsum = 0.0;
    for (int k = 0; k < K; k++) {
      /* draw from what is left (without replacement) */
      double u = uniform(&s) * left, acc = 0.0;
      int pick = -1;
      for (int e = 0; e < E; e++) {
        if (q[e] <= 0.0) continue;
        acc += q[e];
        pick = e;
        if (u < acc) break;
      }
      if (pick < 0) { /* nothing left with non-zero probability (cb_moe_config_check rejects that) */
        free(p);
        free(q);
        cb_moe_routing_free(out);
        return -1;
      }
      left -= q[pick];
      q[pick] = 0.0;
      if (left < 1e-12) left = 0.0;
      int dropped = c->drop > 0.0 && uniform(&s) < c->drop;
      out->ids[(size_t)t * K + k] = dropped ? -1 : pick;
      logits[k] = dropped ? -INFINITY : 2.0 * uniform(&s);
      if (!dropped) wsum += exp(logits[k]);
    }
    for (int k = 0; k < K; k++)
      out->weights[(size_t)t * K + k] = isinf(logits[k]) ? 0.0f : (float)(exp(logits[k]) / wsum);
  }
  free(p);
  free(q);
  return 0;
}

void cb_moe_routing_free(cb_moe_routing_t *r) {
  free(r->ids);
  free(r->weights);
  r->ids = NULL;
  r->weights = NULL;
}

int cb_moe_token_goes_to(const cb_moe_routing_t *r, int t, int experts, int nranks, int d) {
  int per = experts / nranks;
  for (int k = 0; k < r->topk; k++) {
    int id = r->ids[(size_t)t * r->topk + k];
    if (id >= 0 && id / per == d) return 1;
  }
  return 0;
}

int cb_moe_layout_host(const cb_moe_routing_t *r, int experts, int nranks, cb_moe_layout_t *l) {
  int T = r->ntokens;
  memset(l, 0, sizeof *l);
  l->nranks = nranks;
  l->ntokens = T;
  l->send_count = calloc((size_t)nranks, sizeof(int));
  l->send_idx = calloc((size_t)nranks * (size_t)(T > 0 ? T : 1), sizeof(int));
  l->send_pos = calloc((size_t)(T > 0 ? T : 1) * (size_t)nranks, sizeof(int));
  if (!l->send_count || !l->send_idx || !l->send_pos) {
    cb_moe_layout_free(l);
    return -1;
  }
  for (int t = 0; t < T; t++)
    for (int d = 0; d < nranks; d++) {
      if (cb_moe_token_goes_to(r, t, experts, nranks, d)) {
        l->send_pos[(size_t)t * nranks + d] = l->send_count[d];
        l->send_idx[(size_t)d * T + l->send_count[d]++] = t;
      } else {
        l->send_pos[(size_t)t * nranks + d] = -1;
      }
    }
  return 0;
}

void cb_moe_layout_free(cb_moe_layout_t *l) {
  free(l->send_count);
  free(l->send_idx);
  free(l->send_pos);
  memset(l, 0, sizeof *l);
}

float cb_moe_token_value(uint64_t seed, int rank, int iter, int t, int h) {
  return cb_moe_token_formula(seed, rank, iter, t, h);
}

void cb_moe_combine_ref(const cb_moe_routing_t *r, int t, const float *x, int hidden, double *out) {
  for (int h = 0; h < hidden; h++) out[h] = 0.0;
  for (int k = 0; k < r->topk; k++) {
    if (r->ids[(size_t)t * r->topk + k] < 0) continue;
    double w = r->weights[(size_t)t * r->topk + k];
    for (int h = 0; h < hidden; h++) out[h] += w * x[h];
  }
}

void cb_moe_imbalance(const cb_moe_routing_t *all, int nranks, int experts, double *rank_imb, double *expert_imb) {
  double *per_rank = calloc((size_t)nranks, sizeof(double)), *per_expert = calloc((size_t)experts, sizeof(double));
  if (!per_rank || !per_expert) {
    free(per_rank);
    free(per_expert);
    *rank_imb = *expert_imb = 0.0;
    return;
  }
  for (int s = 0; s < nranks; s++)
    for (int t = 0; t < all[s].ntokens; t++) {
      for (int d = 0; d < nranks; d++) per_rank[d] += cb_moe_token_goes_to(&all[s], t, experts, nranks, d);
      for (int k = 0; k < all[s].topk; k++) {
        int id = all[s].ids[(size_t)t * all[s].topk + k];
        if (id >= 0) per_expert[id] += 1.0;
      }
    }
  double mx = 0, sum = 0;
  for (int d = 0; d < nranks; d++) {
    sum += per_rank[d];
    if (per_rank[d] > mx) mx = per_rank[d];
  }
  *rank_imb = sum > 0 ? mx / (sum / nranks) : 0.0;
  mx = sum = 0;
  for (int e = 0; e < experts; e++) {
    sum += per_expert[e];
    if (per_expert[e] > mx) mx = per_expert[e];
  }
  *expert_imb = sum > 0 ? mx / (sum / experts) : 0.0;
  free(per_rank);
  free(per_expert);
}
