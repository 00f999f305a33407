/* Presets, routing-law parsing and configuration checks for the moe family (moe_config.h). */
#include "moe_config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decimal.h"

static const struct {
  const char *name;
  int hidden, experts, topk;
} presets[] = {
    {"deepseek-v3", 7168, 256, 8},
    {"mixtral-8x7b", 4096, 8, 2},
    {"qwen3-30b-a3b", 2048, 128, 8},
};

int cb_moe_preset(const char *name, cb_moe_config_t *cfg) {
  for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
    if (strcasecmp(name, presets[i].name) == 0) {
      snprintf(cfg->model, sizeof cfg->model, "%s", presets[i].name);
      cfg->hidden = presets[i].hidden;
      cfg->experts = presets[i].experts;
      cfg->topk = presets[i].topk;
      return 0;
    }
  return -1;
}

const char *cb_moe_presets_accepted(void) { return "deepseek-v3, mixtral-8x7b, qwen3-30b-a3b"; }

/* S and F: decimal only, as every number of the command line ("zipf: 1", "hot:1:0x2" are
 * refused). */
static int parse_double(const char *s, double *out) { return cb_decimal_real(s, out); }

int cb_routing_parse(const char *s, cb_routing_t *out, char *why, size_t n) {
  cb_routing_t r = {0};
  if (strcasecmp(s, "uniform") == 0) {
    r.kind = CB_ROUTE_UNIFORM;
  } else if (strncasecmp(s, "zipf:", 5) == 0) {
    r.kind = CB_ROUTE_ZIPF;
    if (parse_double(s + 5, &r.zipf_s) || r.zipf_s <= 0.0) {
      snprintf(why, n, "routing '%s': zipf:S needs a number S > 0", s);
      return -1;
    }
  } else if (strncasecmp(s, "hot:", 4) == 0) {
    r.kind = CB_ROUTE_HOT;
    /* K and F are read in place: a fixed-size copy would cut a long F and hide what follows */
    const char *k_text = s + 4;
    char *end = NULL;
    errno = 0;
    long k = isdigit((unsigned char)k_text[0]) ? strtol(k_text, &end, 10) : 0;
    if (!end || *end != ':' || errno || k < 1 || k > (1 << 20) || parse_double(end + 1, &r.hot_f) || r.hot_f < 1.0) {
      snprintf(why, n, "routing '%s': hot:K:F needs an integer 1 <= K <= 1048576 and a number F >= 1", s);
      return -1;
    }
    r.hot_k = (int)k;
  } else {
    snprintf(why, n, "unknown routing '%s' (accepted: uniform, zipf:S, hot:K:F)", s);
    return -1;
  }
  *out = r;
  return 0;
}

void cb_routing_format(const cb_routing_t *r, char *buf, size_t n) {
  switch (r->kind) {
  case CB_ROUTE_ZIPF: snprintf(buf, n, "zipf:%.10g", r->zipf_s); break;
  case CB_ROUTE_HOT: snprintf(buf, n, "hot:%d:%.10g", r->hot_k, r->hot_f); break;
  default: snprintf(buf, n, "uniform"); break;
  }
}

double cb_routing_weight(const cb_routing_t *r, int i) {
  return r->kind == CB_ROUTE_ZIPF ? 1.0 / pow((double)(i + 1), r->zipf_s) : 1.0;
}

/* How many experts the law gives a non-zero probability, computed as cb_moe_expert_law does
 * (weights summed in popularity order, then divided by the total). */
static int experts_drawable(const cb_moe_config_t *c) {
  double total = 0.0;
  for (int i = 0; i < c->experts; i++) total += cb_routing_weight(&c->routing, i);
  int drawable = 0;
  for (int i = 0; i < c->experts; i++) drawable += cb_routing_weight(&c->routing, i) / total > 0.0;
  return drawable;
}

int cb_moe_config_check(const cb_moe_config_t *c, int nranks, cb_dtype_t dtype, char *why, size_t n) {
  if (dtype != CB_BF16 && dtype != CB_FP8E4M3) {
    snprintf(why, n, "moe dispatch dtype %s is not supported (accepted: bfloat16, fp8e4m3)", cb_dtype_name(dtype));
    return -1;
  }
  if (c->hidden < 8 || c->hidden % 8) {
    snprintf(why, n, "--hidden %d must be a positive multiple of 8", c->hidden);
    return -1;
  }
  if (dtype == CB_FP8E4M3 && c->hidden % 128) {
    snprintf(why, n, "--hidden %d must be a multiple of 128 for fp8 dispatch (one scale per 128 channels)", c->hidden);
    return -1;
  }
  if (c->experts < 1 || c->topk < 1) {
    snprintf(why, n, "--experts %d and --topk %d must be at least 1", c->experts, c->topk);
    return -1;
  }
  if (c->topk > c->experts) {
    snprintf(why, n, "--topk %d is larger than --experts %d", c->topk, c->experts);
    return -1;
  }
  if (c->topk > 32) {
    snprintf(why, n, "--topk %d is larger than the supported 32", c->topk);
    return -1;
  }
  if (nranks > 0 && c->experts % nranks) {
    snprintf(why, n, "--experts %d is not divisible by the %d ranks", c->experts, nranks);
    return -1;
  }
  if (c->routing.kind == CB_ROUTE_HOT &&
      (c->routing.hot_k >= c->experts || c->routing.hot_k * c->routing.hot_f > c->experts)) {
    snprintf(why, n, "routing hot:%d:%g does not fit %d experts (need K < experts and K*F <= experts)",
             c->routing.hot_k, c->routing.hot_f, c->experts);
    return -1;
  }
  if (c->routing.kind == CB_ROUTE_HOT && c->routing.hot_k * c->routing.hot_f >= c->experts &&
      c->topk > c->routing.hot_k) {
    /* K*F == experts gives the other experts no probability at all: only K can be drawn */
    snprintf(why, n,
             "routing hot:%d:%g leaves the other %d experts no probability, so --topk %d distinct experts "
             "cannot be drawn (need topk <= K or K*F < experts)",
             c->routing.hot_k, c->routing.hot_f, c->experts - c->routing.hot_k, c->topk);
    return -1;
  }
  if (c->routing.kind == CB_ROUTE_ZIPF) {
    int drawable = experts_drawable(c);
    if (drawable < c->topk) {
      snprintf(why, n,
               "routing zipf:%g is so steep that only %d of the %d experts have a non-zero probability, "
               "fewer than --topk %d (use a smaller S)",
               c->routing.zipf_s, drawable, c->experts, c->topk);
      return -1;
    }
  }
  if (c->drop < 0.0 || c->drop >= 1.0) {
    snprintf(why, n, "--drop %g must be in [0, 1)", c->drop);
    return -1;
  }
  return 0;
}
