/* The moe family (family.h): its options and their checks, the sweep over tokens per rank, and
 * what it asks of the engine (--overlap's round trips beside a compute kernel, --validate's
 * verdict lines after each group, moe_report.c). */
#include "moe_family.h"

#include <stdio.h>
#include <string.h>

#include "decimal.h"

enum { O_HIDDEN, O_TOPK, O_EXPERTS, O_ROUTING, O_MODEL, O_UNEVEN, O_VALIDATE, O_OVERLAP, O_DROP, O_COUNT };

static const cb_family_opt_t opts[O_COUNT] = {
    [O_HIDDEN] = {"hidden", 1},     [O_TOPK] = {"topk", 1},       [O_EXPERTS] = {"experts", 1},
    [O_ROUTING] = {"routing", 1},   [O_MODEL] = {"model", 1},     [O_UNEVEN] = {"uneven", 0},
    [O_VALIDATE] = {"validate", 0}, [O_OVERLAP] = {"overlap", 0}, [O_DROP] = {"drop", 1},
};

static const cb_points_spec_t tokens = {.option = "tokens",
                                        .sweeps = "tokens per rank",
                                        .noun = "token count",
                                        .suffixes = 0,
                                        .min = 0,
                                        .max = 1u << 24,
                                        .range_form = "integers 0..16777216",
                                        .first = 128,
                                        .last = 4096};

static void defaults(void *config) {
  cb_moe_config_t *c = config;
  memset(c, 0, sizeof *c);
  cb_moe_preset("deepseek-v3", c);
  c->routing.kind = CB_ROUTE_UNIFORM;
}

static int option(void *config, int i, const char *arg, const char *val, char *err, size_t n) {
  cb_moe_config_t *c = config;
  long v;
  double d;
  char why[256];
  switch (i) {
  case O_HIDDEN:
  case O_TOPK:
  case O_EXPERTS:
    if (cb_decimal_long(val, 1, 1 << 20, &v)) {
      snprintf(err, n, "%s: '%s' is not a positive integer", arg, val);
      return -1;
    }
    *(i == O_HIDDEN ? &c->hidden : i == O_TOPK ? &c->topk : &c->experts) = (int)v;
    return 0;
  case O_ROUTING:
    if (cb_routing_parse(val, &c->routing, why, sizeof why)) {
      snprintf(err, n, "--routing: %s", why);
      return -1;
    }
    return 0;
  case O_MODEL:
    if (cb_moe_preset(val, c)) {
      snprintf(err, n, "--model: unknown model '%s' (accepted: %s)", val, cb_moe_presets_accepted());
      return -1;
    }
    return 0;
  case O_UNEVEN: c->uneven = 1; return 0;
  case O_VALIDATE: c->validate = 1; return 0;
  case O_OVERLAP: c->overlap = 1; return 0;
  default: /* O_DROP */
    if (cb_decimal_real(val, &d) || d < 0.0 || d >= 1.0) {
      snprintf(err, n, "--drop: '%s' is not a fraction in [0, 1)", val);
      return -1;
    }
    c->drop = d;
    return 0;
  }
}

static int fail(cb_family_finish_t *f, const char *text) {
  snprintf(f->err, f->errlen, "%s", text);
  return -1;
}

/* the dispatch dtypes, a token to move, --validate's check, the shape */
static int finish(cb_family_finish_t *f) {
  cb_moe_config_t *c = f->config;
  /* an explicit --hidden/--topk/--experts makes the shape no preset's, --model given or not */
  if (f->given & (1u << O_HIDDEN | 1u << O_TOPK | 1u << O_EXPERTS)) snprintf(c->model, sizeof c->model, "custom");
  for (int t = 0; t < f->ndtypes; t++)
    if (f->dtypes[t] != CB_BF16 && f->dtypes[t] != CB_FP8E4M3) {
      snprintf(f->err, f->errlen, "-d: moe dispatch supports bfloat16 and fp8e4m3, not '%s'",
               cb_dtype_name(f->dtypes[t]));
      return -1;
    }
  int any_tokens = 0;
  for (int i = 0; i < f->npoints; i++) any_tokens |= f->points[i] > 0;
  if (!any_tokens)
    return fail(f, "--tokens: every value is 0: no rank would have a token to dispatch (a 0 may appear in a list "
                   "with other counts)");
  if (c->validate && f->check_iters == 0)
    return fail(f, "--validate needs the correctness check: give -c 1 or more, not -c 0");
  for (int t = 0; t < f->ndtypes; t++)
    if (cb_moe_config_check(c, 0, f->dtypes[t], f->err, f->errlen)) return -1;
  cb_routing_format(&c->routing, c->routing_text, sizeof c->routing_text);
  return 0;
}

/* the expert split needs the rank count */
static int check_ranks(const void *config, int nranks, const cb_dtype_t *dtypes, int ndtypes, char *why, size_t n) {
  for (int t = 0; t < ndtypes; t++)
    if (cb_moe_config_check(config, nranks, dtypes[t], why, n)) return -1;
  return 0;
}

static int overlap(const void *config) { return ((const cb_moe_config_t *)config)->overlap; }

static const cb_metric_t metrics[CB_MOE_NMETRICS] = {[CB_MOE_IMBALANCE] = {"imbalance", CB_METRIC_OWN}};

static const char help[] =
    "moe (family moe only):\n"
    "      --model NAME        deepseek-v3 (default), mixtral-8x7b, qwen3-30b-a3b\n"
    "      --tokens LIST|A:B[:F]  tokens per rank (default 128:4096, factor 2)\n"
    "      --hidden N --topk N --experts N   override the model's shape\n"
    "      --routing R         uniform (default) | zipf:S | hot:K:F\n"
    "      --drop P            fraction of expert selections dropped (-1), default 0\n"
    "      --uneven            different token counts per rank (one rank gets none)\n"
    "      --validate          print one PASS/FAIL verdict per configuration\n"
    "      --overlap           also time each algorithm's round trip beside a compute-bound kernel\n"
    "                          on the SMs it leaves free (an extra roundtrip_loaded row)\n";

_Static_assert(sizeof(cb_moe_config_t) <= CB_FAMILY_CONFIG_MAX, "the moe configuration fits the arguments' room");

/* busbw = algbw: the rows count the logical bytes each rank moves (family.h) */
const cb_family_info_t cb_family_moe = {.name = "moe",
                                        .no_inplace_why = "tokens and received rows are separate buffers",
                                        .default_dtype = CB_BF16,
                                        .points = &tokens,
                                        .opts = opts,
                                        .nopts = O_COUNT,
                                        .config_size = sizeof(cb_moe_config_t),
                                        .defaults = defaults,
                                        .option = option,
                                        .finish = finish,
                                        .help = help,
                                        .check_ranks = check_ranks,
                                        .nvtx_letter = 'T',
                                        .plan = cb_moe_plan,
                                        .columns = CB_COLS_MOE,
                                        .table = &cb_moe_table,
                                        .metrics = metrics,
                                        .nmetrics = CB_MOE_NMETRICS,
                                        .row = cb_moe_row,
                                        .overlap = overlap,
                                        .group_end = cb_moe_group_end,
                                        .busbw_num = 1.0,
                                        .busbw_den_adj = 1.0,
                                        .dtypes = (1u << CB_BF16) | (1u << CB_FP8E4M3)};
