/* Implementation of ncclt_args.h. Each nccl-tests flag lands in one of four ways:
 *   the same       collbench takes the letter with the same meaning (-n, -w, -c, -d, -o, -r, -T);
 *   mapped         another spelling of the same run (-R 1 -> --algo nccl_reg, -G N -> collbench's
 *                  -G N for N > 0 (a CUDA graph launched N times; -G 0 eager, as nccl-tests),
 *                  -I 1 -> --timing iter, -b/-e/-i/-f -> the same sweep in bytes);
 *   its default    accepted at nccl-tests' default value only (-t 1, -p 0, -y 0, -C 0, ...): a
 *                  script that spells the default out still runs;
 *   refused        one line naming what does the job (or that collbench does not offer it).
 * nccl-tests' own defaults are passed explicitly (32 MiB, 1 warm-up, 20 iterations), since
 * collbench's differ. Numbers are strict decimal where nccl-tests' strtol took any prefix. */
#include "ncclt_args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "decimal.h"
#include "family.h"

typedef struct {
  cb_ncclt_opts_t *o;
  char *err;
  size_t n;
} tr_t;

static int fail(tr_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(tr_t *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->err, t->n, fmt, ap);
  va_end(ap);
  return CB_NCCLT_ERROR;
}

/* Appends one argument to collbench's command line. */
static int out(tr_t *t, const char *s) {
  cb_ncclt_opts_t *o = t->o;
  size_t len = strlen(s) + 1;
  if (o->argc >= CB_NCCLT_MAX_OUT || o->used + len > sizeof o->text)
    return fail(t, "the command line is too long for the drop-in (%d arguments, %zu bytes at most)", CB_NCCLT_MAX_OUT,
                sizeof o->text);
  memcpy(o->text + o->used, s, len);
  o->argv[o->argc++] = o->text + o->used;
  o->argv[o->argc] = NULL;
  o->used += len;
  return CB_NCCLT_OK;
}

static int out2(tr_t *t, const char *a, const char *b) { return out(t, a) ? CB_NCCLT_ERROR : out(t, b); }

static int out_u64(tr_t *t, const char *opt, unsigned long long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%llu", v);
  return out2(t, opt, buf);
}

/* nccl-tests' options: its letters, long names (getopt_long, all taking a value but -h). */
static const struct {
  char c;
  const char *name;
} kOpts[] = {{'t', "nthreads"},
             {'g', "ngpus"},
             {'b', "minbytes"},
             {'e', "maxbytes"},
             {'i', "stepbytes"},
             {'f', "stepfactor"},
             {'n', "iters"},
             {'m', "agg_iters"},
             {'w', "warmup_iters"},
             {'N', "run_cycles"},
             {'p', "parallel_init"},
             {'c', "check"},
             {'o', "op"},
             {'d', "datatype"},
             {'r', "root"},
             {'z', "blocking"},
             {'y', "stream_null"},
             {'T', "timeout"},
             {'G', "cudagraph"},
             {'C', "report_cputime"},
             {'S', "report_timestamps"},
             {'J', "output_file"},
             {'a', "average"},
             {'R', "local_register"},
             {'x', "cta_policy"},
             {'D', "device_implementation"},
             {'V', "device_cta_count"},
             {'M', "memory"},
             {'u', "unalign"},
             {'I', "per_iter_timing"},
             {'K', "per_iter_skip"},
             {'h', "help"}};

/* collbench's own options the drop-in passes on as they are (long names only: no clash with a
 * nccl-tests letter). */
static const struct {
  const char *name;
  int takes_value;
} kPass[] = {{"algo", 1}, {"csv", 1}, {"json", 1}, {"seed", 1}, {"no-bind", 0}, {"sms", 1}};

/* A size as nccl-tests' parsesize reads it (a number with an optional K, M or G: 2^10, 2^20,
 * 2^30; fractions allowed, "1.5M"), as whole bytes. */
static int size_value(tr_t *t, const char *opt, const char *v, uint64_t *bytes) {
  char num[64];
  size_t len = strlen(v);
  double unit = 1, d;
  if (len && strchr("kKmMgG", v[len - 1])) {
    const char c = v[len - 1];
    unit = c == 'k' || c == 'K' ? 1024.0 : c == 'm' || c == 'M' ? 1048576.0 : 1073741824.0;
    len--;
  }
  if (len == 0 || len >= sizeof num)
    return fail(t, "%s: '%s' is not a size (a number with an optional K, M or G)", opt, v);
  memcpy(num, v, len);
  num[len] = 0;
  if (cb_decimal_real(num, &d) || d < 0)
    return fail(t, "%s: '%s' is not a size (a number with an optional K, M or G)", opt, v);
  d *= unit;
  if (d > (double)CB_MAX_BUFFER_BYTES)
    return fail(t, "%s: '%s' is larger than collbench plans (%llu bytes per rank)", opt, v, CB_MAX_BUFFER_BYTES);
  if (d != (double)(uint64_t)d) return fail(t, "%s: '%s' is not a whole number of bytes", opt, v);
  *bytes = (uint64_t)d;
  return CB_NCCLT_OK;
}

static int int_value(tr_t *t, const char *opt, const char *v, long lo, long hi, long *x) {
  if (cb_decimal_long(v, lo, hi, x)) return fail(t, "%s: '%s' is not a whole number %ld..%ld", opt, v, lo, hi);
  return CB_NCCLT_OK;
}

/* A flag accepted at nccl-tests' default only; otherwise why, with what does the job. */
static int default_only(tr_t *t, const char *opt, const char *v, long def, const char *why) {
  long x;
  if (int_value(t, opt, v, -1000000, 1000000, &x)) return CB_NCCLT_ERROR;
  if (x != def) return fail(t, "%s %s: %s (only %s %ld, nccl-tests' default, is taken)", opt, v, why, opt, def);
  return CB_NCCLT_OK;
}

/* nccl-tests' type names where collbench's differ. */
static const char *dtype_name(const char *v) {
  if (strcmp(v, "f8e4m3") == 0) return "fp8e4m3";
  if (strcmp(v, "f8e5m2") == 0) return "fp8e5m2";
  return v;
}

static const char *const kOps[] = {"sum", "prod", "max", "min", "avg", "mulsum", "all"};

/* One option c with its value v (opt: as typed, for messages). */
static int option(tr_t *t, char c, const char *opt, const char *v) {
  cb_ncclt_opts_t *o = t->o;
  long x;
  switch (c) {
  case 't':
    return default_only(t, opt, v, 1, "collbench drives one GPU per process: start more with -g G or mpirun -np N");
  case 'g':
    if (int_value(t, opt, v, 1, 1024, &x)) return CB_NCCLT_ERROR;
    o->ngpus = (int)x;
    return CB_NCCLT_OK;
  case 'b': return size_value(t, opt, v, &o->minbytes);
  case 'e': return size_value(t, opt, v, &o->maxbytes);
  case 'i':
    if (size_value(t, opt, v, &o->stepbytes)) return CB_NCCLT_ERROR;
    if (!o->stepbytes) return fail(t, "%s: '%s': the step must be > 0", opt, v);
    return CB_NCCLT_OK;
  case 'f':
    if (int_value(t, opt, v, 0, 1 << 20, &x)) return CB_NCCLT_ERROR;
    o->stepfactor = x;
    return CB_NCCLT_OK;
  case 'n':
  case 'w':
  case 'c':
  case 'm':
  case 'N':
  case 'z':
  case 'a':
  case 'G':
  case 'I': {
    /* the counts and modes collbench keeps under the same letter (-m, -N, -z, -a: the i43flags
     * options) or maps below; ranges as collbench's parser takes them */
    static const struct {
      char c;
      long lo, hi;
    } kRange[] = {{'n', 1, 1000000}, {'w', 0, 1000000}, {'c', 0, 1000},    {'m', 1, 1000000}, {'N', 0, 1000000},
                  {'z', 0, 3},       {'a', 0, 3},       {'G', 0, 1000000}, {'I', 0, 1}};
    size_t k = 0;
    while (kRange[k].c != c) k++;
    if (int_value(t, opt, v, kRange[k].lo, kRange[k].hi, &x)) return CB_NCCLT_ERROR;
    int *field = c == 'n'   ? &o->iters
                 : c == 'w' ? &o->warmup
                 : c == 'c' ? &o->check
                 : c == 'm' ? &o->agg_iters
                 : c == 'N' ? &o->cycles
                 : c == 'z' ? &o->blocking
                 : c == 'G' ? &o->graph
                 : c == 'I' ? &o->per_iter
                            : NULL;
    if (field) *field = (int)x;
    else if (x != 1) return out_u64(t, "-a", (unsigned long long)x); /* -a 1 (mean over ranks) is collbench's own */
    return CB_NCCLT_OK;
  }
  case 'o':
    for (size_t k = 0; k < sizeof kOps / sizeof kOps[0]; k++)
      if (strcmp(v, kOps[k]) == 0) {
        if (strcmp(v, "mulsum") == 0)
          return fail(t, "%s mulsum: collbench has no pre-multiplied sum (ncclRedOpCreatePreMulSum); use sum", opt);
        snprintf(o->op, sizeof o->op, "%s", v);
        return CB_NCCLT_OK;
      }
    return fail(t, "%s: '%s' is not an nccl-tests op (accepted: sum, prod, max, min, avg, all)", opt, v);
  case 'd': o->all_types = strcmp(v, "all") == 0 || strchr(v, ',') != NULL; return out2(t, "-d", dtype_name(v));
  case 'r':
    if (int_value(t, opt, v, -1, 1 << 20, &x)) return CB_NCCLT_ERROR;
    o->root = (int)x;
    return CB_NCCLT_OK;
  case 'y': return default_only(t, opt, v, 0, "collbench runs on its own non-blocking streams, never the null stream");
  case 'T':
    /* nccl-tests' 0 is "no timeout"; collbench's watchdog always runs (120 s unless -T) */
    if (int_value(t, opt, v, 0, 86400, &x)) return CB_NCCLT_ERROR;
    return x ? out2(t, "-T", v) : CB_NCCLT_OK;
  case 'C': return default_only(t, opt, v, 0, "collbench reports GPU time only (CUDA events)");
  case 'S': return default_only(t, opt, v, 0, "collbench's JSON records the run's date; rows carry no timestamps");
  case 'J':
    if (!v[0]) return fail(t, "%s: empty file name", opt);
    return out2(t, "-J", v);
  case 'R': {
    static const char *const kForm[] = {"nccl", "nccl_reg", "nccl_symm"};
    if (int_value(t, opt, v, 0, 2, &x)) return CB_NCCLT_ERROR;
    if (o->algo_given) return fail(t, "%s %s and --algo (or CB_ALGO) both choose the algorithms: give one", opt, v);
    o->algo_given = 1;
    return out2(t, "--algo", kForm[x]);
  }
  case 'x':
    return fail(t, "%s %s: collbench does not set NCCL's CTA policy (set NCCL_CTA_POLICY in the environment)", opt, v);
  case 'D':
    return default_only(t, opt, v, 0,
                        "collbench does not run NCCL's device-API kernels; its own custom kernels are --algo");
  case 'V': return fail(t, "%s %s: only with -D (NCCL's device API), which collbench does not run", opt, v);
  case 'M': return default_only(t, opt, v, 0, "collbench's CSV and JSON have each row's GPU memory (mem_bytes)");
  case 'u':
    return default_only(t, opt, v, 0, "collbench does not misalign buffers; --sizes with odd sizes tests tails");
  case 'K': return default_only(t, opt, v, 0, "per-iteration skips are not offered (collbench's -w warms up instead)");
  case 'p': return default_only(t, opt, v, 0, "one process per GPU initializes its own communicator");
  default: return fail(t, "%s: internal error: option not handled", opt);
  }
}

/* Defaults: nccl-tests' (common.cu) and the family's NCCL algorithm. */
static void defaults(cb_ncclt_opts_t *o, const cb_ncclt_binary_t *bin) {
  memset(o, 0, sizeof *o);
  o->bin = bin;
  o->nthreads = o->ngpus = 1;
  o->minbytes = o->maxbytes = 32ull << 20;
  o->stepbytes = 1ull << 20;
  o->stepfactor = 1;
  o->warmup = 1;
  o->iters = 20;
  o->agg_iters = 1;
  o->check = 1;
  o->cycles = 1;
  o->min_bw = -1;
  snprintf(o->op, sizeof o->op, "sum");
}

/* alltoallv_perf's count modes (src/alltoallv.cu): a matrix file wins over the spread, as there;
 * the scale and the summary only at their defaults. */
static int counts(tr_t *t, cb_ncclt_getenv_fn env) {
  const cb_ncclt_opts_t *o = t->o;
  const char *opt = o->bin->counts_option, *v;
  char mode[CB_NCCLT_TEXT / 2];
  if (!opt) return CB_NCCLT_OK; /* the other binaries ignore them, as nccl-tests' */
  double scale;
  if ((v = env("NCCL_TESTS_ALLTOALLV_MATRIX_SCALE")) && (cb_decimal_real(v, &scale) || scale != 1.0))
    return fail(t, "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=%s: collbench reads the matrix as written; scale the file", v);
  if ((v = env("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY")) && strcmp(v, "0"))
    return fail(t, "NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=%s: not offered; the rows' counts column names the mode", v);
  if ((v = env("NCCL_TESTS_ALLTOALLV_MATRIX_FILE"))) {
    if (!v[0]) return fail(t, "NCCL_TESTS_ALLTOALLV_MATRIX_FILE is set but empty");
    if (o->minbytes != o->maxbytes)
      return fail(t, "NCCL_TESTS_ALLTOALLV_MATRIX_FILE: -b and -e must be the same (nccl-tests' matrix mode)");
    if (snprintf(mode, sizeof mode, "matrix:%s", v) >= (int)sizeof mode)
      return fail(t, "NCCL_TESTS_ALLTOALLV_MATRIX_FILE: the file name is too long");
    return out2(t, opt, mode);
  }
  if ((v = env("NCCL_TESTS_ALLTOALLV_SPREAD"))) {
    double spread;
    if (cb_decimal_real(v, &spread) || spread < 0.0 || spread > 1.0)
      return fail(t, "NCCL_TESTS_ALLTOALLV_SPREAD=%s: not a spread (a number in [0, 1])", v);
    if (snprintf(mode, sizeof mode, "spread:%s", v) >= (int)sizeof mode)
      return fail(t, "NCCL_TESTS_ALLTOALLV_SPREAD: too long");
    return out2(t, opt, mode);
  }
  return CB_NCCLT_OK;
}

/* The NCCL_TESTS_* variables: the gate, and the ones whose job collbench does elsewhere. */
static int environment(tr_t *t, cb_ncclt_getenv_fn env) {
  const char *v = env("NCCL_TESTS_MIN_BW");
  if (v && (cb_decimal_real(v, &t->o->min_bw) || t->o->min_bw < 0))
    return fail(t, "NCCL_TESTS_MIN_BW='%s' is not a bandwidth in GB/s (a number >= 0)", v);
  /* the drop-in's footer and exit code (7) judge by NCCL_TESTS_MIN_BW, nccl-tests' bar: collbench's
   * own would be read by -J's "passed" and ignored by the exit code */
  if ((v = env("CB_MIN_BUSBW")))
    return fail(t,
                "CB_MIN_BUSBW=%s: the drop-in judges by nccl-tests' bar: set NCCL_TESTS_MIN_BW=GB/s (exit 7 below "
                "0.9 x it) and unset CB_MIN_BUSBW",
                v);
  if ((v = env("NCCL_TESTS_DEVICE")))
    return fail(t,
                "NCCL_TESTS_DEVICE=%s: collbench takes one GPU per rank by local rank; choose GPUs with "
                "CUDA_VISIBLE_DEVICES",
                v);
  if ((v = env("NCCL_TESTS_SPLIT_MASK")) || (v = env("NCCL_TESTS_SPLIT")))
    return fail(t,
                "NCCL_TESTS_SPLIT/NCCL_TESTS_SPLIT_MASK=%s: collbench runs one communicator over all ranks; start "
                "one job per group instead",
                v);
  return counts(t, env);
}

/* Finds argv[i]'s option: its letter, and its value (inline or the next argument, *i moved). */
static int next_option(tr_t *t, int argc, char **argv, int *i, char *c, const char **v) {
  const char *arg = argv[*i], *inline_v = NULL;
  *c = 0;
  if (arg[0] == '-' && arg[1] == '-' && arg[2]) {
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    for (size_t k = 0; k < sizeof kOpts / sizeof kOpts[0]; k++)
      if (strlen(kOpts[k].name) == len && strncmp(kOpts[k].name, arg + 2, len) == 0) *c = kOpts[k].c;
    inline_v = eq ? eq + 1 : NULL;
  } else if (arg[0] == '-' && arg[1] && arg[1] != '-') {
    for (size_t k = 0; k < sizeof kOpts / sizeof kOpts[0]; k++)
      if (kOpts[k].c == arg[1]) *c = arg[1];
    inline_v = arg[2] ? arg + 2 : NULL;
  }
  if (!*c) {
    if (arg[0] != '-') return fail(t, "unexpected argument '%s' (nccl-tests takes options only); see -h", arg);
    return fail(t, "unknown option '%s'; see -h", arg);
  }
  if (*c == 'h') return inline_v ? fail(t, "option '%s' takes no value", arg) : CB_NCCLT_OK;
  if (!inline_v) {
    if (*i + 1 >= argc) return fail(t, "option '%s' needs a value", arg);
    inline_v = argv[++*i];
  }
  *v = inline_v;
  return CB_NCCLT_OK;
}

/* collbench's long option argv[*i] passed on (returns 1 when it is one, -1 on error). */
static int pass_option(tr_t *t, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (strncmp(arg, "--", 2) != 0) return 0;
  const char *eq = strchr(arg, '=');
  size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
  for (size_t k = 0; k < sizeof kPass / sizeof kPass[0]; k++) {
    if (strlen(kPass[k].name) != len || strncmp(kPass[k].name, arg + 2, len) != 0) continue;
    if (kPass[k].takes_value && !eq && *i + 1 >= argc) return fail(t, "option '%s' needs a value", arg), -1;
    if (strcmp(kPass[k].name, "algo") == 0) {
      if (t->o->algo_given) return fail(t, "--algo and -R both choose the algorithms: give one"), -1;
      t->o->algo_given = 1;
    }
    if (out(t, arg)) return -1;
    if (kPass[k].takes_value && !eq && out(t, argv[++*i])) return -1;
    return 1;
  }
  return 0;
}

/* The sweep, nccl-tests' way: -b .. -e, times -f when it is > 1, else plus -i. */
static int sweep(tr_t *t) {
  const cb_ncclt_opts_t *o = t->o;
  if (o->minbytes > o->maxbytes)
    return fail(t, "-b %llu is larger than -e %llu (nccl-tests: invalid sizes for 'minbytes' and 'maxbytes')",
                (unsigned long long)o->minbytes, (unsigned long long)o->maxbytes);
  if (o->stepfactor > 1 && o->minbytes == 0 && o->maxbytes > 0)
    return fail(t, "-b 0 with -f %ld never grows (0 x %ld = 0): give -b > 0", o->stepfactor, o->stepfactor);
  if (out_u64(t, "-b", o->minbytes) || out_u64(t, "-e", o->maxbytes)) return CB_NCCLT_ERROR;
  return o->stepfactor > 1 ? out_u64(t, "-f", (unsigned long long)o->stepfactor)
                           : out_u64(t, "-i", (unsigned long long)o->stepbytes);
}

/* The options that only exist once read to the end (the family's, the gate's). */
static int finish(tr_t *t, cb_ncclt_getenv_fn env) {
  cb_ncclt_opts_t *o = t->o;
  const cb_ncclt_binary_t *b = o->bin;
  if (sweep(t) || out_u64(t, "-n", (unsigned long long)o->iters) || out_u64(t, "-w", (unsigned long long)o->warmup) ||
      out_u64(t, "-c", (unsigned long long)o->check))
    return CB_NCCLT_ERROR;
  if (o->agg_iters != 1 && out_u64(t, "-m", (unsigned long long)o->agg_iters)) return CB_NCCLT_ERROR;
  if (o->cycles != 1 && out_u64(t, "-N", (unsigned long long)o->cycles)) return CB_NCCLT_ERROR;
  if (o->blocking && out_u64(t, "-z", (unsigned long long)o->blocking)) return CB_NCCLT_ERROR;
  /* collbench's -G N: --mode graph, the graph launched N times (nccl-tests' -G 0 is eager) */
  if (o->graph && out_u64(t, "-G", (unsigned long long)o->graph)) return CB_NCCLT_ERROR;
  if (o->per_iter && out2(t, "--timing", "iter")) return CB_NCCLT_ERROR;
  /* nccl-tests' lines: a whole sweep of sizes per type, op and root (-d all, -o all, -r -1);
   * with one of each both orders are the same, and collbench's command line stays short */
  const int many =
      o->all_types || (b->redop == CB_NCCLT_REDOP_OP && strcmp(o->op, "all") == 0) || (b->rooted && o->root == -1);
  if (many && out2(t, "--order", "types")) return CB_NCCLT_ERROR;
  if (b->redop == CB_NCCLT_REDOP_OP && out2(t, "-o", o->op)) return CB_NCCLT_ERROR;
  char root[16];
  snprintf(root, sizeof root, "%d", o->root);
  if (b->rooted && out2(t, "-r", root)) return CB_NCCLT_ERROR;
  if (!b->rooted && o->root != 0)
    return fail(t, "-r %d: %s has no root (nccl-tests ignores it; collbench refuses it)", o->root, b->name);
  if (b->rooted && o->root < 0 && o->root != -1)
    return fail(t, "-r %d: a root is a rank 0..N-1, or -1 for every root in turn", o->root);
  const char *algo = env("CB_ALGO");
  if (algo && !o->algo_given) {
    if (!algo[0]) return fail(t, "CB_ALGO is set but empty (give algorithm names, or unset it)");
    o->algo_given = 1;
    if (out2(t, "--algo", algo)) return CB_NCCLT_ERROR;
  }
  /* nccl-tests runs NCCL: the family's nccl baseline unless told otherwise */
  if (!o->algo_given && out2(t, "--algo", "nccl")) return CB_NCCLT_ERROR;
  return CB_NCCLT_OK;
}

int cb_ncclt_translate(int argc, char **argv, cb_ncclt_getenv_fn env, cb_ncclt_opts_t *o, char *err, size_t n) {
  tr_t T = {o, err, n}, *t = &T;
  err[0] = 0;
  const char *name = cb_ncclt_perf_name(argc > 0 ? argv[0] : NULL);
  const cb_ncclt_binary_t *bin = name ? cb_ncclt_binary(name) : NULL;
  char list[512];
  defaults(o, bin);
  if (!bin)
    return fail(t, "'%s' is not an nccl-tests binary collbench stands in for (accepted: %s)", name ? name : "?",
                cb_ncclt_binary_list(list, sizeof list));
  cb_family_t family;
  if (cb_family_parse(bin->family, &family))
    return fail(t, "%s: collbench's %s family is not in this build (accepted: %s)", bin->name, bin->family,
                cb_family_accepted(", ", list, sizeof list));
  if (argc > CB_NCCLT_MAX_IN) return fail(t, "%d arguments: the drop-in takes at most %d", argc - 1, CB_NCCLT_MAX_IN);
  if (out(t, "collbench") || out(t, bin->family)) return CB_NCCLT_ERROR;
  for (int i = 1; i < argc; i++) {
    int passed = pass_option(t, argc, argv, &i);
    if (passed < 0) return CB_NCCLT_ERROR;
    if (passed) continue;
    char c;
    const char *v = NULL;
    const int at = i;
    if (next_option(t, argc, argv, &i, &c, &v)) return CB_NCCLT_ERROR;
    if (c == 'h') return CB_NCCLT_HELP;
    if (c == 'g')
      for (int k = at; k <= i; k++) o->ngpus_at[o->ngpus_args++] = k;
    if (option(t, c, argv[at], v)) return CB_NCCLT_ERROR;
  }
  if (environment(t, env)) return CB_NCCLT_ERROR;
  return finish(t, env);
}

void cb_ncclt_usage(const char *program, char *buf, size_t n) {
  snprintf(buf, n,
           "USAGE: %s [nccl-tests 2.19 options] [--algo LIST] [--csv FILE] [--json FILE]\n"
           "collbench standing in for nccl-tests (docs/nccl-tests.md: every flag and variable):\n"
           "  the same:   -b -e -i -f (sizes, K/M/G) -n -w -c -d -o -r -T (collbench's watchdog)\n"
           "  mapped:     -g G (G ranks started with mpirun outside mpirun; 1 under mpirun), -G N (graph),\n"
           "              -I 1 (--timing iter), -R 0|1|2 (--algo nccl|nccl_reg|nccl_symm), -m -N -z -a -J\n"
           "  default only (other values refused with a hint): -t 1 -p 0 -y 0 -C 0 -S 0 -M 0 -u 0 -K 0 -D 0\n"
           "  refused:    -x, -V, -o mulsum\n"
           "  collbench:  --algo LIST (or CB_ALGO=LIST; default nccl), --csv FILE, --json FILE, --seed N,\n"
           "              --no-bind, --sms N\n"
           "  NCCL_TESTS_MIN_BW=GB/s: exit 7 when the average bus bandwidth is below 0.9 x it, as nccl-tests\n",
           program);
}
