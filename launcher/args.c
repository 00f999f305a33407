/* Command-line parsing for collbench (args.h): the option table, what each generic option sets,
 * the options a family declares (family.h: parsed into its configuration, refused in any other
 * family by one generic message); the checks of the finished command are args_finish.c. No family is named
 * here: each describes its options, sweep and checks beside its config. Hand-written rather
 * than getopt so it keeps no global state (the tests parse many command lines in one process)
 * and so every error names the option, the bad value and what is accepted; the value parsers
 * are in args_values.c, --help in args_usage.c. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "args_ncclt.h"
#include "args_seen.h"
#include "args_values.h"
#include "cb_limits.h"
#include "sweep_order.h"

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
  a->graph_launches = 1;
  a->agg_iters = 1;
  a->cycles = 1;
  a->combine = CB_COMBINE_MEAN;
  a->nccl_register = -1;
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
  O_HELP,
  O_NGPUS,
  O_SIZES,
  O_TIMING,
  O_SMS,
  O_FORMAT,
  O_ORDER,
  O_ROOT
};

static const struct opt {
  char shortname;
  const char *longname;
  int takes_value;
  enum opt_id id;
} opts[] = {
    {'b', "minbytes", 1, O_MINB},   {'e', "maxbytes", 1, O_MAXB},  {'f', "stepfactor", 1, O_FACTOR},
    {'i', "stepbytes", 1, O_STEP},  {'n', "iters", 1, O_ITERS},    {'w', "warmup", 1, O_WARMUP},
    {'c', "check", 1, O_CHECK},     {'d', "datatype", 1, O_DTYPE}, {'o', "op", 1, O_OP},
    {0, "graph", 0, O_GRAPH},       {0, "mode", 1, O_MODE},        {0, "inplace", 1, O_INPLACE},
    {'T', "timeout", 1, O_TIMEOUT}, {0, "algo", 1, O_ALGO},        {0, "csv", 1, O_CSV},
    {0, "json", 1, O_JSON},         {0, "seed", 1, O_SEED},        {0, "no-bind", 0, O_NOBIND},
    {'h', "help", 0, O_HELP},       {'g', "ngpus", 1, O_NGPUS},    {0, "sizes", 1, O_SIZES},
    {0, "timing", 1, O_TIMING},     {0, "sms", 1, O_SMS},          {0, "format", 1, O_FORMAT},
    {'r', "root", 1, O_ROOT},       {0, "order", 1, O_ORDER},
};

/* The long name of "--name" or "--name=value" (len bytes), and the value after '='. */
static const char *long_name(const char *arg, size_t *len, const char **inline_value) {
  const char *name = arg + 2, *eq = strchr(name, '=');
  *len = eq ? (size_t)(eq - name) : strlen(name);
  *inline_value = eq ? eq + 1 : NULL;
  return name;
}

static const struct opt *find_opt(const char *arg, const char **inline_value) {
  *inline_value = NULL;
  if (arg[0] != '-' || !arg[1]) return NULL;
  if (arg[1] == '-') {
    size_t len;
    const char *name = long_name(arg, &len, inline_value);
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
      if (strlen(opts[i].longname) == len && strncmp(opts[i].longname, name, len) == 0) return &opts[i];
    *inline_value = NULL;
    return NULL;
  }
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (opts[i].shortname && opts[i].shortname == arg[1]) {
      if (arg[2]) *inline_value = arg + 2;
      return &opts[i];
    }
  return NULL;
}

/* A family's own option: its family and its index in the family's table (-1: the family's point
 * option). This run's family first, then the others in registry order (a name two families
 * declare is this run's, or the first's). */
typedef struct family_opt {
  cb_family_t family;
  int index;
  int takes_value;
} family_opt_t;

static int family_opt_in(cb_family_t f, const char *name, size_t len, family_opt_t *out) {
  const cb_family_info_t *fi = cb_family_info(f);
  out->family = f;
  out->takes_value = 1;
  if (fi->points && strlen(fi->points->option) == len && strncmp(fi->points->option, name, len) == 0) {
    out->index = -1;
    return 1;
  }
  for (int i = 0; i < fi->nopts; i++)
    if (strlen(fi->opts[i].name) == len && strncmp(fi->opts[i].name, name, len) == 0) {
      out->index = i;
      out->takes_value = fi->opts[i].takes_value;
      return 1;
    }
  return 0;
}

static int find_family_opt(cb_family_t own, const char *arg, const char **inline_value, family_opt_t *out) {
  *inline_value = NULL;
  if (strncmp(arg, "--", 2) != 0 || !arg[2]) return 0;
  size_t len;
  const char *name = long_name(arg, &len, inline_value);
  if (family_opt_in(own, name, len, out)) return 1;
  for (int f = 0; f < CB_NFAMILIES; f++)
    if (f != (int)own && family_opt_in((cb_family_t)f, name, len, out)) return 1;
  *inline_value = NULL;
  return 0;
}

/* "allreduce and reducescatter": the families -o applies to. */
static const char *reducing_families(char *buf, size_t n) {
  int count = 0, total = 0;
  for (int f = 0; f < CB_NFAMILIES; f++) total += cb_family_info((cb_family_t)f)->reduces;
  size_t off = 0;
  buf[0] = 0;
  for (int f = 0; f < CB_NFAMILIES && off < n; f++) {
    if (!cb_family_info((cb_family_t)f)->reduces) continue;
    count++;
    off += (size_t)snprintf(buf + off, n - off, "%s%s",
                            count == 1       ? ""
                            : count == total ? " and "
                                             : ", ",
                            cb_family_name((cb_family_t)f));
  }
  return buf;
}

/* Step 1: FAMILY (or -h/--help) as argv[1]; the family's configuration at its defaults. */
static int parse_family(cb_argp_t *p, int argc, char **argv, cb_args_t *a) {
  char names[256];
  if (argc < 2)
    return cb_argp_fail(p, "missing FAMILY (accepted: %s); see --help", cb_family_accepted(", ", names, sizeof names));
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) return CB_ARGS_HELP;
  if (cb_family_parse(argv[1], &a->family))
    return cb_argp_fail(p, "unknown family '%s' (accepted: %s)", argv[1],
                        cb_family_accepted(", ", names, sizeof names));
  const cb_family_info_t *fi = cb_family_info(a->family);
  if (fi->defaults) fi->defaults(cb_args_config(a));
  return CB_ARGS_OK;
}

/* -b, -e, -f, -i, --sizes. */
static int size_option(cb_argp_t *p, cb_args_t *a, enum opt_id id, const char *arg, const char *val,
                       cb_args_seen_t *s) {
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
    int rc = cb_argp_point_list(p, a, "--sizes", val, NULL);
    if (rc) return rc;
    s->list = s->size = 1;
    return CB_ARGS_OK;
  }
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
  case O_DTYPE:
    a->ndtypes = 0;
    a->dtypes_all = 0;
    return cb_argp_each_item(p, a, arg, val, cb_argp_add_dtype);
  case O_OP:
    if (!fi->reduces) {
      char list[256];
      return cb_argp_fail(p, "%s: %s takes no reduction op; -o applies to %s", arg, fi->name,
                          reducing_families(list, sizeof list));
    }
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
  case O_FORMAT:
    if (strcmp(val, "wide") == 0) a->format = CB_FORMAT_WIDE;
    else if (strcmp(val, "rows") == 0) a->format = CB_FORMAT_ROWS;
    else return cb_argp_fail(p, "--format: '%s' (accepted: wide, rows)", val);
    return CB_ARGS_OK;
  case O_ORDER:
    if (cb_sweep_order_parse(val, &a->order)) return cb_argp_fail(p, "--order: '%s' (accepted: sizes, types)", val);
    return CB_ARGS_OK;
  case O_HELP: return CB_ARGS_HELP;
  case O_NGPUS:
    return cb_argp_fail(p, "%s: collbench runs one process per GPU; start one rank per GPU with mpirun -np N", arg);
  default: return cb_argp_fail(p, "%s: internal error: option not handled", arg);
  }
}

/* A family's option: this run's family parses it into its configuration (the point option into
 * the sweep); another family's is only noted, and refused once the line is read. */
static int family_option(cb_argp_t *p, cb_args_t *a, const family_opt_t *o, const char *arg, const char *val,
                         cb_args_seen_t *s) {
  if (o->family != a->family) {
    s->foreign |= 1u << o->family;
    return CB_ARGS_OK;
  }
  const cb_family_info_t *fi = cb_family_info(a->family);
  if (o->index < 0) {
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", fi->points->option);
    s->points = 1;
    return cb_argp_range(p, a, opt, val, fi->points);
  }
  s->given |= 1u << o->index;
  return fi->option(cb_args_config(a), o->index, arg, val, p->err, p->errlen) ? CB_ARGS_ERROR : CB_ARGS_OK;
}

/* -r/--root: nccl-tests' short option for the option "root" that the rooted families declare
 * (family.h opts); a family without one refuses it, naming those that have it. */
static int root_option(cb_argp_t *p, cb_args_t *a, const char *arg, const char *val, cb_args_seen_t *s) {
  family_opt_t fo;
  if (family_opt_in(a->family, "root", 4, &fo)) return family_option(p, a, &fo, arg, val, s);
  char list[256] = "";
  size_t off = 0;
  for (int f = 0; f < CB_NFAMILIES && off < sizeof list; f++)
    if (family_opt_in((cb_family_t)f, "root", 4, &fo))
      off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", off ? ", " : "", cb_family_name((cb_family_t)f));
  return cb_argp_fail(p, "%s: %s has no root; -r applies to %s", arg, cb_family_name(a->family), list);
}

/* Step 2: the options after FAMILY, each with its value ("-b 8", "-b8", "--minbytes=8"). */
static int parse_options(cb_argp_t *p, int argc, char **argv, cb_args_t *a, cb_args_seen_t *s) {
  const cb_family_info_t *fi = cb_family_info(a->family);
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i], *val = NULL;
    const struct opt *o = find_opt(arg, &val);
    family_opt_t fo;
    int is_family = !o && find_family_opt(a->family, arg, &val, &fo), ncclt = 0;
    if (!o && !is_family && cb_ncclt_find(arg, &val, &ncclt)) {
      if (!val) {
        if (i + 1 >= argc) return cb_argp_fail(p, "option '%s' needs a value", arg);
        val = argv[++i];
      }
      int rc = cb_ncclt_option(p, a, s, ncclt, arg, val);
      if (rc) return rc;
      continue;
    }
    if (!o && !is_family) {
      if (arg[0] == '-') return cb_argp_fail(p, "unknown option '%s'; see --help", arg);
      return cb_argp_fail(p, "unexpected argument '%s' (the family comes first, once); see --help", arg);
    }
    int takes_value = o ? o->takes_value : fo.takes_value;
    if (takes_value && !val) {
      if (i + 1 >= argc) return cb_argp_fail(p, "option '%s' needs a value", arg);
      val = argv[++i];
    } else if (!takes_value && val) {
      return cb_argp_fail(p, "option '%s' takes no value", arg);
    }
    int rc;
    if (is_family) rc = family_option(p, a, &fo, arg, val, s);
    else if (o->id == O_ROOT) rc = root_option(p, a, arg, val, s);
    else if (o->id == O_MINB || o->id == O_MAXB || o->id == O_FACTOR || o->id == O_STEP || o->id == O_SIZES)
      rc = size_option(p, a, o->id, arg, val, s);
    else {
      if (o->id == O_INPLACE) s->inplace = 1;
      rc = run_option(p, a, fi, o->id, arg, val);
    }
    if (rc) return rc;
  }
  return CB_ARGS_OK;
}

int cb_args_parse(int argc, char **argv, cb_args_t *a, char *err, size_t errlen) {
  cb_argp_t P = {err, errlen}, *p = &P;
  cb_args_seen_t s = {.minb = 8, .maxb = 256ull << 20};
  defaults(a);
  err[0] = 0;
  cb_argp_join_cmdline(a->cmdline, sizeof a->cmdline, argc, argv);
  int rc = parse_family(p, argc, argv, a);
  if (rc == CB_ARGS_OK) rc = parse_options(p, argc, argv, a, &s);
  if (rc == CB_ARGS_OK) rc = cb_argp_check_outputs(p, a);
  if (rc != CB_ARGS_OK) return rc;
  rc = cb_args_finish(p, a, &s);
  return rc ? rc : cb_args_ncclt_finish(p, a, &s);
}
