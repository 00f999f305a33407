/* The ringattn family (family.h): its options and their checks, the sweep over the total
 * sequence length, and its variants (attn_variant.h: causal or not, the layout, the Ulysses
 * degree) run at every point. */
#include "attn_family.h"

#include <stdio.h>
#include <string.h>

#include "attn_block.h"
#include "attn_variant.h"
#include "decimal.h"

enum { O_BATCH, O_HEADS, O_KVHEADS, O_HEADDIM, O_CAUSAL, O_SAVE, O_BLOCK, O_PASS, O_LAYOUT, O_ULYSSES, O_COUNT };

static const cb_family_opt_t opts[O_COUNT] = {
    [O_BATCH] = {"batch", 1},        [O_HEADS] = {"heads", 1},   [O_KVHEADS] = {"kv-heads", 1},
    [O_HEADDIM] = {"head-dim", 1},   [O_CAUSAL] = {"causal", 1}, [O_SAVE] = {"save", 1},
    [O_BLOCK] = {"block-kernel", 1}, [O_PASS] = {"pass", 1},     [O_LAYOUT] = {"layout", 1},
    [O_ULYSSES] = {"ulysses", 1},
};

static const cb_points_spec_t seq = {.option = "seq",
                                     .sweeps = "the sequence length",
                                     .noun = "sequence length",
                                     .suffixes = 1,
                                     .min = 1,
                                     .max = CB_ATTN_MAX_SEQ,
                                     .range_form = "lengths with an optional K/M suffix",
                                     .first = 8192,
                                     .last = 65536};

static void defaults(void *config) { cb_attn_defaults(config); }

static int bad(char *err, size_t n, const char *opt, const char *val, const char *accepted) {
  snprintf(err, n, "%s: '%s' (accepted: %s)", opt, val, accepted);
  return -1;
}

static int option(void *config, int i, const char *arg, const char *val, char *err, size_t n) {
  cb_attn_config_t *c = config;
  long v;
  switch (i) {
  case O_BATCH: return cb_attn_parse_batches(val, c, err, n);
  case O_HEADS:
  case O_KVHEADS:
  case O_HEADDIM:
    if (cb_decimal_long(val, 1, 4096, &v)) {
      snprintf(err, n, "%s: '%s' is not an integer 1..4096", arg, val);
      return -1;
    }
    *(i == O_HEADS ? &c->heads : i == O_KVHEADS ? &c->kv_heads : &c->head_dim) = (int)v;
    return 0;
  case O_CAUSAL: return cb_attn_parse_causal(val, &c->causal_modes) ? bad(err, n, "--causal", val, "0, 1, both") : 0;
  case O_PASS: return cb_attn_parse_pass(val, &c->pass) ? bad(err, n, "--pass", val, "fwd, bwd, both") : 0;
  case O_BLOCK:
    return cb_attn_block_parse(val, &c->block_kernels) ? bad(err, n, "--block-kernel", val, "collbench, cudnn, both")
                                                       : 0;
  case O_LAYOUT:
    return cb_attn_parse_layouts(val, &c->layouts)
               ? bad(err, n, "--layout", val, "contiguous, zigzag, stripe, a comma list, all")
               : 0;
  case O_ULYSSES:
    if (cb_attn_parse_ulysses(val, c)) {
      snprintf(err, n, "--ulysses: '%s' (accepted: all, or ranks per group 1..%d, comma-separated)", val,
               CB_ATTN_MAX_ULYSSES);
      return -1;
    }
    return 0;
  default: /* O_SAVE */
    if (!val[0] || strlen(val) >= sizeof c->save_dir) {
      snprintf(err, n, "--save: bad directory name '%s'", val);
      return -1;
    }
    snprintf(c->save_dir, sizeof c->save_dir, "%s", val);
    return 0;
  }
}

/* the shape, the dtypes, and the rows of each scheme with the chosen block kernels (attn_block.h) */
static int finish(cb_family_finish_t *f) {
  cb_attn_config_t *c = f->config;
  /* --heads alone: as many K/V heads (plain multi-head attention) */
  if ((f->given & 1u << O_HEADS) && !(f->given & 1u << O_KVHEADS)) c->kv_heads = c->heads;
  for (int t = 0; t < f->ndtypes; t++)
    if (cb_attn_config_check(c, f->dtypes[t], f->err, f->errlen)) return -1;
  _Static_assert(CB_ALGO_NAME_MAX == CB_ATTN_NAME_MAX, "algorithm names: one length");
  char names[64][CB_ALGO_NAME_MAX];
  int nnames = 0, cap = f->max_algos < 64 ? f->max_algos : 64;
  if (cb_attn_block_algos((const char(*)[CB_ALGO_NAME_MAX])f->algos, *f->nalgos, c->block_kernels,
                          (f->given & 1u << O_BLOCK) != 0, names, cap, &nnames, f->err, f->errlen))
    return -1;
  memcpy(f->algos, names, sizeof names[0] * (size_t)nnames);
  *f->nalgos = nnames;
  c->cmdline = f->cmdline; /* --save records it */
  return 0;
}

/* --save's folder: only rank 0 writes it */
static int check_outputs(const void *config, char *why, size_t n) {
  const cb_attn_config_t *c = config;
  return c->save_dir[0] ? cb_attn_check_save_dir(c->save_dir, why, n) : 0;
}

/* --ulysses: every degree asked for divides the rank count (exit 2 before any row) */
static int check_ranks(const void *config, int nranks, const cb_dtype_t *dtypes, int ndtypes, char *why, size_t n) {
  (void)dtypes, (void)ndtypes;
  return cb_attn_ulysses_check(config, nranks, why, n);
}

static int variant_on(const void *config, int v, int nranks) { return cb_attn_variant_on(config, v, nranks); }

static void nvtx_variant(const void *config, int v, char *buf, size_t n) { cb_attn_nvtx_variant(config, v, buf, n); }

static const cb_metric_t metrics[CB_ATTN_NMETRICS] = {
    [CB_ATTN_ERR_MAX] = {"err_max", CB_METRIC_MAX},       [CB_ATTN_ERR_MEAN] = {"err_mean", CB_METRIC_MEAN},
    [CB_ATTN_COMPUTE_US] = {"compute_us", CB_METRIC_MAX}, [CB_ATTN_COMM_US] = {"comm_us", CB_METRIC_MAX},
    [CB_ATTN_LOCAL_US] = {"local_us", CB_METRIC_MAX},     [CB_ATTN_FLOPS] = {"flops", CB_METRIC_OWN},
    [CB_ATTN_ULYSSES] = {"ulysses", CB_METRIC_OWN},       [CB_ATTN_RING] = {"ring", CB_METRIC_OWN},
};
_Static_assert(CB_ATTN_NMETRICS <= CB_MAX_METRICS, "the ringattn metrics fit cb_inst_t.metric");

static const char help[] =
    "ringattn (family ringattn only; -d bfloat16 (default) or half):\n"
    "      --seq LIST|A:B[:F]  total sequence lengths (K = 1024; default 8K:64K, factor 2)\n"
    "      --batch N|LIST --heads N --kv-heads N --head-dim 64|128   shape (default 1, 32, 32, 128); a\n"
    "                          --batch list with --seq sweeps batch x sequence (up to 16 batch sizes)\n"
    "      --causal 0|1|both   non-causal, causal (zigzag sharding) or both (default both)\n"
    "      --save DIR          write q, k, v, out and lse of each row's first check as .npy files\n"
    "      --block-kernel K    collbench | cudnn | both (default both): each scheme's rows with collbench's\n"
    "                          block kernel (ring) and/or cuDNN's fused attention (ring_cudnn)\n"
    "      --pass fwd|bwd|both the forward, the backward (dQ, dK, dV) or both, the training step (default fwd)\n"
    "      --layout L          contiguous | zigzag | stripe | a comma list | all: how the sequence is sharded\n"
    "                          (default: zigzag when causal, contiguous otherwise)\n"
    "      --ulysses U|LIST|all  ulysses, nccl_ulysses: all-to-all in groups of U ranks, the ring across the\n"
    "                          P/U groups (default U = P; all: every U dividing P)\n";

_Static_assert(sizeof(cb_attn_config_t) <= CB_FAMILY_CONFIG_MAX, "the ringattn configuration fits the arguments' room");

/* busbw = algbw: TFLOP/s is the headline (family.h) */
const cb_family_info_t cb_family_ringattn = {.name = "ringattn",
                                             .no_inplace_why = "its output is a separate tensor",
                                             .default_dtype = CB_BF16,
                                             .points = &seq,
                                             .opts = opts,
                                             .nopts = O_COUNT,
                                             .config_size = sizeof(cb_attn_config_t),
                                             .defaults = defaults,
                                             .option = option,
                                             .finish = finish,
                                             .help = help,
                                             .check_ranks = check_ranks,
                                             .check_outputs = check_outputs,
                                             .nvariants = CB_ATTN_NVARIANTS,
                                             .variant_on = variant_on,
                                             .nvtx_variant = nvtx_variant,
                                             .nvtx_letter = 'S',
                                             .plan = cb_attn_plan,
                                             .columns = CB_COLS_ATTN,
                                             .table = &cb_attn_table,
                                             .metrics = metrics,
                                             .nmetrics = CB_ATTN_NMETRICS,
                                             .row = cb_attn_row,
                                             .busbw_num = 1.0,
                                             .busbw_den_adj = 1.0,
                                             .dtypes = (1u << CB_BF16) | (1u << CB_HALF)};
