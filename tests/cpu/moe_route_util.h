/* Helpers of the MoE routing CPU tests (test_moe_router.c, test_moe_layout.c,
 * test_moe_hier_plan.c): a checked custom configuration, a checked routing, and the (token,
 * slot) accessors of a routing. */
#ifndef CB_TEST_MOE_ROUTE_UTIL_H
#define CB_TEST_MOE_ROUTE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cb_testing.h"
#include "moe_config.h"
#include "moe_router.h"

static inline cb_moe_config_t make_cfg(int experts, int topk, const char *routing, double drop) {
  cb_moe_config_t c;
  memset(&c, 0, sizeof c);
  snprintf(c.model, sizeof c.model, "custom");
  c.hidden = 128;
  c.experts = experts;
  c.topk = topk;
  c.drop = drop;
  char why[256] = "";
  CHECK(cb_routing_parse(routing, &c.routing, why, sizeof why) == 0, "routing '%s': %s", routing, why);
  CHECK(cb_moe_config_check(&c, 0, CB_BF16, why, sizeof why) == 0, "E %d k %d %s drop %g rejected: %s", experts, topk,
        routing, drop, why);
  return c;
}

static inline int route(const cb_moe_config_t *c, uint64_t seed, int rank, int nranks, int T, cb_moe_routing_t *r) {
  int rc = cb_moe_route(c, seed, rank, nranks, T, r);
  CHECK(rc == 0, "cb_moe_route(E %d k %d T %d) failed", c->experts, c->topk, T);
  return rc;
}

static inline int32_t id_at(const cb_moe_routing_t *r, int t, int k) { return r->ids[(size_t)t * r->topk + k]; }
static inline float w_at(const cb_moe_routing_t *r, int t, int k) { return r->weights[(size_t)t * r->topk + k]; }

#endif
