/* Command-line parsing for collbench (args.h): the option table, what each option sets, and
 * the checks of the finished command per family. Hand-written rather than getopt so it keeps
 * no global state (the tests parse many command lines in one process) and so every error names
 * the option, the bad value and what is accepted; the value parsers are in args_values.c. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "args_values.h"
#include "attn_block.h"
#include "attn_variant.h"
#include "cb_limits.h"

static void defaults(cb_args_t *a) {
  memset(a, 0, sizeof *a);
  a->iters = 20;
  a->warmup = 5;
  a->check_iters = 1;
  a->modes = CB_MODE_EAGER;
  a->places = CB_PLACE_OUT | CB_PLACE_IN;
  a->iter_timing = 0;
  a->timeout_s = 120.0;
  a->seed = 1;
  cb_moe_preset("deepseek-v3", &a->moe);
  a->moe.routing.kind = CB_ROUTE_UNIFORM;
  cb_attn_defaults(&a->attn);
}

enum opt_id {
  O_MINB,
  O_MAXB,
  O_FACTOR,
  O_STEP,
  O_ITERS,
  O_WARMUP,
  O_CHECK,
  O_DTYPE,
  O_OP,
  O_GRAPH,
  O_MODE,
  O_INPLACE,
  O_TIMEOUT,
  O_ALGO,
  O_CSV,
  O_JSON,
  O_SEED,
  O_NOBIND,
  O_TOKENS,
  O_HIDDEN,
  O_TOPK,
  O_EXPERTS,
  O_ROUTING,
  O_MODEL,
  O_UNEVEN,
  O_VALIDATE,
  O_OVERLAP,
  O_DROP,
  O_HELP,
  O_NGPUS,
  O_SIZES,
  O_TIMING,
  O_SEQ,
  O_BATCH,
  O_HEADS,
  O_KVHEADS,
  O_HEADDIM,
  O_CAUSAL,
  O_SAVE,
  O_SMS,
  O_BLOCK,
  O_PASS,
  O_LAYOUT,
  O_ULYSSES
};

static const struct opt {
  char shortname;
  const char *longname;
  int takes_value;
  enum opt_id id;
} opts[] = {
    {'b', "minbytes", 1, O_MINB},   {'e', "maxbytes", 1, O_MAXB},    {'f', "stepfactor", 1, O_FACTOR},
    {'i', "stepbytes", 1, O_STEP},  {'n', "iters", 1, O_ITERS},      {'w', "warmup", 1, O_WARMUP},
    {'c', "check", 1, O_CHECK},     {'d', "datatype", 1, O_DTYPE},   {'o', "op", 1, O_OP},
    {'G', "graph", 0, O_GRAPH},     {0, "mode", 1, O_MODE},          {0, "inplace", 1, O_INPLACE},
    {'T', "timeout", 1, O_TIMEOUT}, {0, "algo", 1, O_ALGO},          {0, "csv", 1, O_CSV},
    {0, "json", 1, O_JSON},         {0, "seed", 1, O_SEED},          {0, "no-bind", 0, O_NOBIND},
    {0, "tokens", 1, O_TOKENS},     {0, "hidden", 1, O_HIDDEN},      {0, "topk", 1, O_TOPK},
    {0, "experts", 1, O_EXPERTS},   {0, "routing", 1, O_ROUTING},    {0, "model", 1, O_MODEL},
    {0, "uneven", 0, O_UNEVEN},     {0, "validate", 0, O_VALIDATE},  {0, "overlap", 0, O_OVERLAP},
    {0, "drop", 1, O_DROP},         {'h', "help", 0, O_HELP},        {'g', "ngpus", 1, O_NGPUS},
    {0, "sizes", 1, O_SIZES},       {0, "timing", 1, O_TIMING},      {0, "seq", 1, O_SEQ},
    {0, "batch", 1, O_BATCH},       {0, "heads", 1, O_HEADS},        {0, "kv-heads", 1, O_KVHEADS},
    {0, "head-dim", 1, O_HEADDIM},  {0, "causal", 1, O_CAUSAL},      {0, "save", 1, O_SAVE},
    {0, "sms", 1, O_SMS},           {0, "block-kernel", 1, O_BLOCK}, {0, "pass", 1, O_PASS},
    {0, "layout", 1, O_LAYOUT},     {0, "ulysses", 1, O_ULYSSES},
};

static const struct opt *find_opt(const char *arg, const char **inline_value) {
  *inline_value = NULL;
  if (arg[0] != '-' || !arg[1]) return NULL;
  if (arg[1] == '-') {
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
      if (strlen(opts[i].longname) == len && strncmp(opts[i].longname, name, len) == 0) {
        if (eq) *inline_value = eq + 1;
        return &opts[i];
      }
    return NULL;
  }
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (opts[i].shortname && opts[i].shortname == arg[1]) {
      if (arg[2]) *inline_value = arg + 2;
      return &opts[i];
    }
  return NULL;
}

/* What the options said beyond the args struct: the size sweep's bounds, and which option
 * groups were given (for the family-level checks after the loop). */
typedef struct seen {
  uint64_t minb, maxb, step;
  double factor;
  int size, factor_given, step_given, bounds, list; /* classic sizes: -b/-e, -f, -i, --sizes */
  int tokens, moe_opt, model, shape;  /* moe: --tokens, any moe option, --model, --hidden/--topk/--experts */
  int attn_opt, seq, heads, kv_heads; /* ringattn: any of its options, --seq, --heads, --kv-heads */
  int block;                          /* ringattn: --block-kernel given */
  int inplace;                        /* --inplace given (moe and ringattn have no in-place form) */
} seen_t;

/* Step 1: FAMILY (or -h/--help) as argv[1]. */
static int parse_family(cb_argp_t *p, int argc, char **argv, cb_args_t *a) {
  if (argc < 2) return cb_argp_fail(p, "missing FAMILY (accepted: %s); see --help", cb_family_accepted());
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) return CB_ARGS_HELP;
  if (cb_family_parse(argv[1], &a->family))
    return cb_argp_fail(p, "unknown family '%s' (accepted: %s)", argv[1], cb_family_accepted());
  return CB_ARGS_OK;
}

/* -b, -e, -f, -i, --sizes. */
static int size_option(cb_argp_t *p, cb_args_t *a, enum opt_id id, const char *arg, const char *val, seen_t *s) {
  uint64_t u;
  double d;
  switch (id) {
  case O_MINB:
  case O_MAXB:
    if (cb_parse_size(val, &u))
      return cb_argp_fail(p, "%s: '%s' is not a size (digits with an optional K, M, G or T suffix)", arg, val);
    if (u > CB_MAX_BUFFER_BYTES) return cb_argp_too_large(p, arg, val);
    if (id == O_MINB) s->minb = u;
    else s->maxb = u;
    s->size = s->bounds = 1;
    return CB_ARGS_OK;
  case O_FACTOR:
    if (cb_argp_real(val, &d) || d <= 1.0) return cb_argp_fail(p, "%s: '%s' is not a step factor > 1", arg, val);
    s->factor = d;
    s->factor_given = s->size = 1;
    return CB_ARGS_OK;
  case O_STEP:
    if (cb_parse_size(val, &u) || u == 0) return cb_argp_fail(p, "%s: '%s' is not a step size > 0", arg, val);
    s->step = u;
    s->step_given = s->size = 1;
    return CB_ARGS_OK;
  default: { /* O_SIZES */
    int rc = cb_argp_point_list(p, a, "--sizes", val, CB_POINTS_BYTES);
    if (rc) return rc;
    s->list = s->size = 1;
    return CB_ARGS_OK;
  }
  }
}

/* --tokens, --hidden, --topk, --experts, --routing, --model, --uneven, --validate, --overlap, --drop. */
static int moe_option(cb_argp_t *p, cb_args_t *a, enum opt_id id, const char *arg, const char *val, seen_t *s) {
  long v;
  double d;
  char why[256];
  s->moe_opt = 1;
  switch (id) {
  case O_TOKENS: s->tokens = 1; return cb_argp_range(p, a, "--tokens", val, CB_POINTS_TOKENS);
  case O_HIDDEN:
  case O_TOPK:
  case O_EXPERTS:
    if (cb_argp_int(val, 1, 1 << 20, &v)) return cb_argp_fail(p, "%s: '%s' is not a positive integer", arg, val);
    if (id == O_HIDDEN) a->moe.hidden = (int)v;
    else if (id == O_TOPK) a->moe.topk = (int)v;
    else a->moe.experts = (int)v;
    s->shape = 1;
    return CB_ARGS_OK;
  case O_ROUTING:
    if (cb_routing_parse(val, &a->moe.routing, why, sizeof why)) return cb_argp_fail(p, "--routing: %s", why);
    return CB_ARGS_OK;
  case O_MODEL:
    if (cb_moe_preset(val, &a->moe))
      return cb_argp_fail(p, "--model: unknown model '%s' (accepted: %s)", val, cb_moe_presets_accepted());
    s->model = 1;
    return CB_ARGS_OK;
  case O_UNEVEN: a->moe.uneven = 1; return CB_ARGS_OK;
  case O_VALIDATE: a->moe.validate = 1; return CB_ARGS_OK;
  case O_OVERLAP: a->moe.overlap = 1; return CB_ARGS_OK;
  default: /* O_DROP */
    if (cb_argp_real(val, &d) || d < 0.0 || d >= 1.0)
      return cb_argp_fail(p, "--drop: '%s' is not a fraction in [0, 1)", val);
    a->moe.drop = d;
    return CB_ARGS_OK;
  }
}

/* --seq, --batch, --heads, --kv-heads, --head-dim, --causal, --save, --block-kernel, --pass. */
static int attn_option(cb_argp_t *p, cb_args_t *a, enum opt_id id, const char *arg, const char *val, seen_t *s) {
  long v;
  s->attn_opt = 1;
  switch (id) {
  case O_SEQ: s->seq = 1; return cb_argp_range(p, a, "--seq", val, CB_POINTS_SEQ);
  case O_BATCH:
  case O_HEADS:
  case O_KVHEADS:
  case O_HEADDIM:
    if (cb_argp_int(val, 1, 4096, &v)) return cb_argp_fail(p, "%s: '%s' is not an integer 1..4096", arg, val);
    if (id == O_BATCH) a->attn.batch = (int)v;
    else if (id == O_HEADS) a->attn.heads = (int)v, s->heads = 1;
    else if (id == O_KVHEADS) a->attn.kv_heads = (int)v, s->kv_heads = 1;
    else a->attn.head_dim = (int)v;
    return CB_ARGS_OK;
  case O_CAUSAL:
    if (cb_attn_parse_causal(val, &a->attn.causal_modes))
      return cb_argp_fail(p, "--causal: '%s' (accepted: 0, 1, both)", val);
    return CB_ARGS_OK;
  case O_PASS:
    if (cb_attn_parse_pass(val, &a->attn.pass)) return cb_argp_fail(p, "--pass: '%s' (accepted: fwd, bwd, both)", val);
    return CB_ARGS_OK;
  case O_LAYOUT:
    if (cb_attn_parse_layouts(val, &a->attn.layouts))
      return cb_argp_fail(p, "--layout: '%s' (accepted: contiguous, zigzag, a comma list, all)", val);
    return CB_ARGS_OK;
  case O_ULYSSES:
    if (cb_attn_parse_ulysses(val, &a->attn))
      return cb_argp_fail(p, "--ulysses: '%s' (accepted: all, or ranks per group 1..%d, comma-separated)", val,
                          CB_ATTN_MAX_ULYSSES);
    return CB_ARGS_OK;
  case O_BLOCK:
    if (cb_attn_block_parse(val, &a->attn.block_kernels))
      return cb_argp_fail(p, "--block-kernel: '%s' (accepted: collbench, cudnn, both)", val);
    s->block = 1;
    return CB_ARGS_OK;
  default: /* O_SAVE */
    if (!val[0] || strlen(val) >= sizeof a->attn.save_dir)
      return cb_argp_fail(p, "--save: bad directory name '%s'", val);
    snprintf(a->attn.save_dir, sizeof a->attn.save_dir, "%s", val);
    return CB_ARGS_OK;
  }
}

/* Everything else: what to run, timing, checking, output, placement. */
static int run_option(cb_argp_t *p, cb_args_t *a, const cb_family_info_t *fi, enum opt_id id, const char *arg,
                      const char *val) {
  long v;
  uint64_t u;
  double d;
  switch (id) {
  case O_ITERS:
    if (cb_argp_int(val, 1, 1000000, &v))
      return cb_argp_fail(p, "%s: '%s' is not an iteration count 1..1000000", arg, val);
    a->iters = (int)v;
    return CB_ARGS_OK;
  case O_WARMUP:
    if (cb_argp_int(val, 0, 1000000, &v)) return cb_argp_fail(p, "%s: '%s' is not a count 0..1000000", arg, val);
    a->warmup = (int)v;
    return CB_ARGS_OK;
  case O_CHECK:
    if (cb_argp_int(val, 0, 1000, &v)) return cb_argp_fail(p, "%s: '%s' is not a check count 0..1000", arg, val);
    a->check_iters = (int)v;
    return CB_ARGS_OK;
  case O_DTYPE: a->ndtypes = 0; return cb_argp_each_item(p, a, arg, val, cb_argp_add_dtype);
  case O_OP:
    if (!fi->reduces)
      return cb_argp_fail(p, "%s: %s does not reduce; -o applies to allreduce and reducescatter", arg, fi->name);
    a->nops = 0;
    return cb_argp_each_item(p, a, arg, val, cb_argp_add_op);
  case O_GRAPH: a->modes = CB_MODE_GRAPH; return CB_ARGS_OK;
  case O_MODE:
    if (strcmp(val, "eager") == 0) a->modes = CB_MODE_EAGER;
    else if (strcmp(val, "graph") == 0) a->modes = CB_MODE_GRAPH;
    else if (strcmp(val, "both") == 0) a->modes = CB_MODE_EAGER | CB_MODE_GRAPH;
    else return cb_argp_fail(p, "--mode: '%s' (accepted: eager, graph, both)", val);
    return CB_ARGS_OK;
  case O_INPLACE:
    if (strcmp(val, "0") == 0) a->places = CB_PLACE_OUT;
    else if (strcmp(val, "1") == 0) a->places = CB_PLACE_IN;
    else if (strcmp(val, "both") == 0) a->places = CB_PLACE_OUT | CB_PLACE_IN;
    else return cb_argp_fail(p, "--inplace: '%s' (accepted: 0, 1, both)", val);
    return CB_ARGS_OK;
  case O_TIMEOUT:
    /* below 0.1 s every batch of iterations would abort (the watchdog polls every few ms) */
    if (cb_argp_real(val, &d) || d < 0.1 || d > 86400.0)
      return cb_argp_fail(p, "%s: '%s' is not a timeout in seconds (0.1 <= T <= 86400)", arg, val);
    a->timeout_s = d;
    return CB_ARGS_OK;
  case O_ALGO: a->nalgos = 0; return cb_argp_each_item(p, a, arg, val, cb_argp_add_algo);
  case O_CSV:
  case O_JSON:
    if (!val[0] || strlen(val) >= CB_PATH_MAX) return cb_argp_fail(p, "%s: bad file name '%s'", arg, val);
    snprintf(id == O_CSV ? a->csv : a->json, CB_PATH_MAX, "%s", val);
    return CB_ARGS_OK;
  case O_SEED:
    if (cb_argp_u64(val, &u)) return cb_argp_fail(p, "--seed: '%s' is not a non-negative integer", val);
    a->seed = u;
    return CB_ARGS_OK;
  case O_NOBIND: a->no_bind = 1; return CB_ARGS_OK;
  case O_SMS:
    /* the device's own limit is checked once the GPU is open (launcher/main.c) */
    if (cb_argp_int(val, 1, CB_SMS_MAX, &v))
      return cb_argp_fail(p, "%s: '%s' is not an SM count 1..%d (the SMs the custom kernels may use)", arg, val,
                          CB_SMS_MAX);
    a->sms = (int)v;
    return CB_ARGS_OK;
  case O_TIMING:
    if (strcmp(val, "iter") == 0) a->iter_timing = 1;
    else if (strcmp(val, "round") == 0) a->iter_timing = 0;
    else return cb_argp_fail(p, "--timing: '%s' (accepted: iter, round)", val);
    return CB_ARGS_OK;
  case O_HELP: return CB_ARGS_HELP;
  case O_NGPUS:
    return cb_argp_fail(p, "%s: collbench runs one process per GPU; start one rank per GPU with mpirun -np N", arg);
  default: return cb_argp_fail(p, "%s: internal error: option not handled", arg);
  }
}

/* Step 2: the options after FAMILY, each with its value ("-b 8", "-b8", "--minbytes=8"). */
static int parse_options(cb_argp_t *p, int argc, char **argv, cb_args_t *a, seen_t *s) {
  const cb_family_info_t *fi = cb_family_info(a->family);
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i], *val = NULL;
    const struct opt *o = find_opt(arg, &val);
    if (!o) {
      if (arg[0] == '-') return cb_argp_fail(p, "unknown option '%s'; see --help", arg);
      return cb_argp_fail(p, "unexpected argument '%s' (the family comes first, once); see --help", arg);
    }
    if (o->takes_value && !val) {
      if (i + 1 >= argc) return cb_argp_fail(p, "option '%s' needs a value", arg);
      val = argv[++i];
    } else if (!o->takes_value && val) {
      return cb_argp_fail(p, "option '%s' takes no value", arg);
    }
    int rc;
    switch (o->id) {
    case O_MINB:
    case O_MAXB:
    case O_FACTOR:
    case O_STEP:
    case O_SIZES: rc = size_option(p, a, o->id, arg, val, s); break;
    case O_TOKENS:
    case O_HIDDEN:
    case O_TOPK:
    case O_EXPERTS:
    case O_ROUTING:
    case O_MODEL:
    case O_UNEVEN:
    case O_VALIDATE:
    case O_OVERLAP:
    case O_DROP: rc = moe_option(p, a, o->id, arg, val, s); break;
    case O_SEQ:
    case O_BATCH:
    case O_HEADS:
    case O_KVHEADS:
    case O_HEADDIM:
    case O_CAUSAL:
    case O_SAVE:
    case O_PASS:
    case O_LAYOUT:
    case O_ULYSSES:
    case O_BLOCK: rc = attn_option(p, a, o->id, arg, val, s); break;
    default:
      if (o->id == O_INPLACE) s->inplace = 1;
      rc = run_option(p, a, fi, o->id, arg, val);
      break;
    }
    if (rc) return rc;
  }
  return CB_ARGS_OK;
}

/* Step 3 (ringattn): sequence lengths instead of sizes, bf16/half, and the shape check. */
static int finish_ringattn(cb_argp_t *p, cb_args_t *a, const seen_t *s) {
  if (s->moe_opt)
    return cb_argp_fail(p, "--tokens/--hidden/--topk/--experts/--routing/--model/--uneven/--validate/--overlap/"
                           "--drop apply only to the moe family");
  if (s->size) return cb_argp_fail(p, "ringattn sweeps the sequence length: use --seq instead of -b/-e/-f/-i/--sizes");
  /* --heads alone: as many K/V heads (plain multi-head attention) */
  if (s->heads && !s->kv_heads) a->attn.kv_heads = a->attn.heads;
  if (!a->ndtypes) a->dtypes[a->ndtypes++] = CB_BF16;
  if (!s->seq) {
    char why[256];
    int n = cb_sweep(8192, 65536, 2.0, 0, a->points, CB_MAX_SWEEP_POINTS, why, sizeof why);
    if (n < 0) return cb_argp_fail(p, "--seq: %s", why);
    a->npoints = n;
  }
  for (int i = 0; i < a->npoints; i++)
    if (a->points[i] == 0 || a->points[i] > CB_ATTN_MAX_SEQ)
      return cb_argp_fail(p, "--seq: %llu is not a sequence length 1..%llu", (unsigned long long)a->points[i],
                          CB_ATTN_MAX_SEQ);
  a->nops = 1;
  a->ops[0] = CB_OP_NONE;
  if (s->inplace && (a->places & CB_PLACE_IN))
    return cb_argp_fail(
        p, "--inplace: ringattn has no in-place form (its output is a separate tensor); leave it out or give 0");
  a->places = CB_PLACE_OUT;
  char why[256];
  for (int t = 0; t < a->ndtypes; t++)
    if (cb_attn_config_check(&a->attn, a->dtypes[t], why, sizeof why)) return cb_argp_fail(p, "%s", why);
  /* the rows of each scheme with the chosen block kernels (attn_block.h) */
  _Static_assert(CB_NAME_MAX == CB_ATTN_NAME_MAX, "algorithm names: one length");
  char names[CB_MAX_ALGOS][CB_NAME_MAX];
  int nnames = 0;
  if (cb_attn_block_algos((const char(*)[CB_NAME_MAX])a->algos, a->nalgos, a->attn.block_kernels, s->block, names,
                          CB_MAX_ALGOS, &nnames, why, sizeof why))
    return cb_argp_fail(p, "%s", why);
  memcpy(a->algos, names, sizeof names);
  a->nalgos = nnames;
  return CB_ARGS_OK;
}

/* The refusal of ringattn's own options in another family (moe and the classic ones). */
static const char ATTN_ONLY[] =
    "--seq/--batch/--heads/--kv-heads/--head-dim/--causal/--save/--block-kernel/--pass/--layout/--ulysses apply only "
    "to the ringattn family";

/* Step 3 (moe): tokens instead of sizes, the dispatch dtypes, and the configuration check. */
static int finish_moe(cb_argp_t *p, cb_args_t *a, const seen_t *s) {
  if (s->attn_opt) return cb_argp_fail(p, "%s", ATTN_ONLY);
  if (s->size) return cb_argp_fail(p, "moe sweeps tokens per rank: use --tokens instead of -b/-e/-f/-i");
  if (!a->ndtypes) a->dtypes[a->ndtypes++] = CB_BF16;
  for (int t = 0; t < a->ndtypes; t++)
    if (a->dtypes[t] != CB_BF16 && a->dtypes[t] != CB_FP8E4M3)
      return cb_argp_fail(p, "-d: moe dispatch supports bfloat16 and fp8e4m3, not '%s'", cb_dtype_name(a->dtypes[t]));
  if (!s->tokens) {
    int n = cb_sweep(128, 4096, 2.0, 0, a->points, CB_MAX_SWEEP_POINTS, p->err, p->errlen);
    if (n < 0) return CB_ARGS_ERROR;
    a->npoints = n;
  }
  int any_tokens = 0;
  for (int i = 0; i < a->npoints; i++) any_tokens |= a->points[i] > 0;
  if (!any_tokens)
    return cb_argp_fail(p,
                        "--tokens: every value is 0: no rank would have a token to dispatch (a 0 may appear in a list "
                        "with other counts)");
  a->nops = 1;
  a->ops[0] = CB_OP_NONE;
  if (s->inplace && (a->places & CB_PLACE_IN))
    return cb_argp_fail(
        p,
        "--inplace: moe has no in-place form (tokens and received rows are separate buffers); leave it out or give 0");
  a->places = CB_PLACE_OUT;
  if (a->moe.validate && a->check_iters == 0)
    return cb_argp_fail(p, "--validate needs the correctness check: give -c 1 or more, not -c 0");
  char why[256];
  for (int t = 0; t < a->ndtypes; t++)
    if (cb_moe_config_check(&a->moe, 0, a->dtypes[t], why, sizeof why)) return cb_argp_fail(p, "%s", why);
  return CB_ARGS_OK;
}

/* Step 3 (classic families): the size sweep, default dtype and op, in-place where it exists. */
static int finish_classic(cb_argp_t *p, cb_args_t *a, const seen_t *s) {
  const cb_family_info_t *fi = cb_family_info(a->family);
  if (s->moe_opt)
    return cb_argp_fail(p, "--tokens/--hidden/--topk/--experts/--routing/--model/--uneven/--validate/--overlap/"
                           "--drop apply only to the moe family");
  if (s->attn_opt) return cb_argp_fail(p, "%s", ATTN_ONLY);
  if (s->factor_given && s->step_given)
    return cb_argp_fail(p, "give either -f (step factor) or -i (step size), not both");
  if (s->list && (s->factor_given || s->step_given || s->bounds))
    return cb_argp_fail(p, "--sizes replaces -b/-e/-f/-i; give one or the other");
  if (!s->list) {
    double factor = s->step_given ? 0.0 : s->factor_given ? s->factor : 2.0;
    char why[256];
    int n = cb_sweep(s->minb, s->maxb, factor, s->step_given ? s->step : 0, a->points, CB_MAX_SWEEP_POINTS, why,
                     sizeof why);
    if (n < 0) return cb_argp_fail(p, "size sweep: %s", why);
    a->npoints = n;
  }
  if (!a->ndtypes) a->dtypes[a->ndtypes++] = CB_FLOAT;
  if (!fi->reduces) {
    a->nops = 1;
    a->ops[0] = CB_OP_NONE;
  } else if (!a->nops) {
    a->nops = 1;
    a->ops[0] = CB_SUM;
  }
  if (!fi->has_inplace) {
    if (a->places == CB_PLACE_IN) return cb_argp_fail(p, "--inplace 1: %s has no in-place form", fi->name);
    a->places = CB_PLACE_OUT;
  }
  return CB_ARGS_OK;
}

int cb_args_parse(int argc, char **argv, cb_args_t *a, char *err, size_t errlen) {
  cb_argp_t P = {err, errlen}, *p = &P;
  seen_t s = {.minb = 8, .maxb = 256ull << 20};
  defaults(a);
  err[0] = 0;
  cb_argp_join_cmdline(a->cmdline, sizeof a->cmdline, argc, argv);
  int rc = parse_family(p, argc, argv, a);
  if (rc == CB_ARGS_OK) rc = parse_options(p, argc, argv, a, &s);
  if (rc == CB_ARGS_OK) rc = cb_argp_check_outputs(p, a);
  if (rc != CB_ARGS_OK) return rc;
  /* an explicit --hidden/--topk/--experts makes the shape no preset's, --model given or not */
  if (s.shape) snprintf(a->moe.model, sizeof a->moe.model, "custom");
  if (a->family == CB_RINGATTN) return finish_ringattn(p, a, &s);
  return a->family == CB_MOE ? finish_moe(p, a, &s) : finish_classic(p, a, &s);
}

void cb_args_usage(FILE *f) {
  fprintf(
      f,
      "usage: collbench FAMILY [options]      (one MPI rank per GPU: mpirun -np N collbench ...)\n"
      "\n"
      "FAMILY: allreduce | allgather | reducescatter | alltoall | sendrecv | moe | ringattn\n"
      "\n"
      "sizes (classic families; K/M/G/T = 2^10/2^20/2^30/2^40, as nccl-tests):\n"
      "  -b, --minbytes SIZE     first size (default 8)\n"
      "  -e, --maxbytes SIZE     last size (default 256M)\n"
      "  -f, --stepfactor F      multiply by F each step (default 2)\n"
      "  -i, --stepbytes SIZE    add SIZE each step (instead of -f)\n"
      "      --sizes LIST        explicit sizes instead of a sweep (e.g. 4,12,1032,1M)\n"
      "timing and checking:\n"
      "  -n, --iters N           timed iterations per row (default 20)\n"
      "  -w, --warmup N          warm-up iterations (default 5)\n"
      "  -c, --check N           correctness iterations on fresh random data (default 1; 0 = off)\n"
      "  -G, --graph             capture the timed loop in a CUDA graph (same as --mode graph)\n"
      "      --mode M            eager | graph | both (default eager)\n"
      "      --timing T          round: events around each round of iterations, as nccl-tests (default)\n"
      "                          iter: an event around every iteration (true p50/p99; adds ~1-4 us each)\n"
      "  -T, --timeout SEC       watchdog: abort the job if any step (setup, a round, a check, a reduction) takes "
      "longer (default 120)\n"
      "      --seed N            seed for the random inputs (default 1)\n"
      "what to run:\n"
      "  -d, --datatype LIST     float, half, bfloat16, fp8e4m3, fp8e5m2 (default float; moe: bfloat16)\n"
      "  -o, --op LIST           sum, max, min, avg (reducing families; default sum)\n"
      "      --inplace 0|1|both  out-of-place, in-place or both (default both where the family has it)\n"
      "      --algo LIST         algorithms to compare (default: all of the family; '--algo help' lists them)\n"
      "output:\n"
      "      --csv FILE          stream result rows to FILE (CSV; schema in docs/results-format.md)\n"
      "      --json FILE         results and run metadata as JSON (rows stream to FILE.partial.jsonl)\n"
      "placement:\n"
      "      --no-bind           keep the CPU binding the process started with\n"
      "      --sms N             the custom communication kernels use at most N SMs (1..the GPU's; also CB_SMS;\n"
      "                          not ringattn's attention kernel); the sms column reports what each custom row used\n"
      "moe (family moe only):\n"
      "      --model NAME        deepseek-v3 (default), mixtral-8x7b, qwen3-30b-a3b\n"
      "      --tokens LIST|A:B[:F]  tokens per rank (default 128:4096, factor 2)\n"
      "      --hidden N --topk N --experts N   override the model's shape\n"
      "      --routing R         uniform (default) | zipf:S | hot:K:F\n"
      "      --drop P            fraction of expert selections dropped (-1), default 0\n"
      "      --uneven            different token counts per rank (one rank gets none)\n"
      "      --validate          print one PASS/FAIL verdict per configuration\n"
      "      --overlap           also time each algorithm's round trip beside a compute-bound kernel\n"
      "                          on the SMs it leaves free (an extra roundtrip_loaded row)\n"
      "ringattn (family ringattn only; -d bfloat16 (default) or half):\n"
      "      --seq LIST|A:B[:F]  total sequence lengths (K = 1024; default 8K:64K, factor 2)\n"
      "      --batch N --heads N --kv-heads N --head-dim 64|128   shape (default 1, 32, 32, 128)\n"
      "      --causal 0|1|both   non-causal, causal (zigzag sharding) or both (default both)\n"
      "      --save DIR          write q, k, v, out and lse of each row's first check as .npy files\n"
      "      --block-kernel K    collbench | cudnn | both (default both): each scheme's rows with collbench's\n"
      "                          block kernel (ring) and/or cuDNN's fused attention (ring_cudnn)\n"
      "      --pass fwd|bwd|both the forward, the backward (dQ, dK, dV) or both, the training step (default fwd)\n"
      "      --layout L          contiguous | zigzag | a comma list | all: how the sequence is sharded (default:\n"
      "                          zigzag when causal, contiguous otherwise)\n"
      "      --ulysses U|LIST|all  ulysses, nccl_ulysses: all-to-all in groups of U ranks, the ring across the\n"
      "                          P/U groups (default U = P; all: every U dividing P)\n"
      "\n"
      "exit codes: 0 all correct, 1 wrong results, 2 usage, 3 runtime error, 4 timeout, 5 no suitable GPU\n");
}
