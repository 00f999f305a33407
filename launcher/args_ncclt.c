/* nccl-tests' options on collbench's command line (args_ncclt.h), with nccl-tests' meaning
 * (its src/common.cu and README, 2.19): -G N, -m N, -N N, -z 0|1, -a 0..3, -I 0|1, -J FILE and
 * -R 0|1|2, short or by nccl-tests' long names; and one line for each nccl-tests option collbench
 * does not take, naming what does the job or saying it is not offered. Where nccl-tests ignores
 * or quietly resets a bad value (-G 0 means "no graph", -I 2 is "disabled" with a note), collbench
 * refuses it: a command line asks for one thing. -r (the root) and the options collbench shares
 * with nccl-tests (-b -e -f -i -n -w -c -d -o -T -g) are parsed in args.c. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "args_ncclt.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum ncclt_id { N_GRAPH, N_AGG, N_CYCLES, N_BLOCKING, N_AVERAGE, N_PER_ITER, N_JSON, N_REGISTER, N_HINT };

static const struct ncclt_opt {
  char shortname;
  const char *longname; /* nccl-tests' long name */
  enum ncclt_id id;
  const char *hint; /* N_HINT: what collbench offers instead */
} kOpts[] = {
    {'G', "cudagraph", N_GRAPH, NULL},
    {'m', "agg_iters", N_AGG, NULL},
    {'N', "run_cycles", N_CYCLES, NULL},
    {'z', "blocking", N_BLOCKING, NULL},
    {'a', "average", N_AVERAGE, NULL},
    {'I', "per_iter_timing", N_PER_ITER, NULL},
    {'J', "output_file", N_JSON, NULL},
    {'R', "local_register", N_REGISTER, NULL},
    {'t', "nthreads", N_HINT,
     "threads per process are not offered: collbench runs one MPI rank per GPU (mpirun -np N)"},
    {'p', "parallel_init", N_HINT, "not offered: every rank opens its GPU and its NCCL communicator itself"},
    {'K', "per_iter_skip", N_HINT,
     "not offered: -w N runs N untimed iterations before the timed ones (raise it to leave more out)"},
    {'y', "stream_null", N_HINT, "not offered: every algorithm runs on the rank's own CUDA stream"},
    {'C', "report_cputime", N_HINT, "not offered: collbench reports GPU time (CUDA events), never host time"},
    {'S', "report_timestamps", N_HINT, "not offered: the --json metadata records when the run started"},
    {'x', "cta_policy", N_HINT, "not a flag here: set NCCL_CTA_POLICY in the environment (the metadata records it)"},
    {'D', "device_implementation", N_HINT,
     "not offered: collbench's own device-side kernels are its custom algorithms (--algo help lists them)"},
    {'V', "device_cta_count", N_HINT, "not offered: --sms N caps the SMs of collbench's custom kernels"},
    {'M', "memory", N_HINT, "not offered as a flag: every row's mem_bytes column reports its device memory"},
    {'u', "unalign", N_HINT, "not offered: collbench's buffers are always aligned"},
};

int cb_ncclt_find(const char *arg, const char **inline_value, int *id) {
  *inline_value = NULL;
  if (arg[0] != '-' || !arg[1]) return 0;
  for (size_t i = 0; i < sizeof kOpts / sizeof kOpts[0]; i++) {
    const struct ncclt_opt *o = &kOpts[i];
    if (arg[1] == '-') {
      size_t len = strlen(o->longname);
      if (strncmp(arg + 2, o->longname, len) || (arg[2 + len] && arg[2 + len] != '=')) continue;
      if (arg[2 + len] == '=') *inline_value = arg + 3 + len;
    } else {
      if (arg[1] != o->shortname) continue;
      if (arg[2]) *inline_value = arg + 2;
    }
    *id = (int)i;
    return 1;
  }
  return 0;
}

/* "-G" or "--cudagraph" as the user typed it, for messages. */
static const char *typed(const char *arg, char *buf, size_t n) {
  const char *eq = strchr(arg, '=');
  size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  if (arg[1] != '-' && len > 2) len = 2; /* "-G10" */
  snprintf(buf, n, "%.*s", (int)len, arg);
  return buf;
}

int cb_ncclt_option(cb_argp_t *p, cb_args_t *a, cb_args_seen_t *s, int index, const char *arg, const char *val) {
  const struct ncclt_opt *o = &kOpts[index];
  char name[64];
  long v;
  typed(arg, name, sizeof name);
  switch (o->id) {
  case N_GRAPH:
    if (cb_argp_int(val, 1, CB_MAX_GRAPH_LAUNCHES, &v))
      return cb_argp_fail(p,
                          "%s: '%s' is not a graph launch count 1..%d (a CUDA graph of each round, launched N times)",
                          name, val, CB_MAX_GRAPH_LAUNCHES);
    a->graph_launches = (int)v;
    a->modes = CB_MODE_GRAPH;
    s->graph_launches = 1;
    return CB_ARGS_OK;
  case N_AGG:
    if (cb_argp_int(val, 1, CB_MAX_AGG_ITERS, &v))
      return cb_argp_fail(p, "%s: '%s' is not an aggregation count 1..%d (operations per timed iteration)", name, val,
                          CB_MAX_AGG_ITERS);
    a->agg_iters = (int)v;
    return CB_ARGS_OK;
  case N_CYCLES:
    if (cb_argp_int(val, 1, CB_MAX_CYCLES, &v))
      return cb_argp_fail(p, "%s: '%s' is not a cycle count 1..%d (nccl-tests' 0 = endless is not offered)", name, val,
                          CB_MAX_CYCLES);
    a->cycles = (int)v;
    return CB_ARGS_OK;
  case N_BLOCKING:
    if (strcmp(val, "0") == 0) a->blocking = 0;
    else if (strcmp(val, "1") == 0) a->blocking = 1;
    else
      return cb_argp_fail(p,
                          "%s: '%s' (accepted: 0, 1; nccl-tests' 2 and 3 are not offered: -z 1 waits and "
                          "synchronizes the ranks after every iteration)",
                          name, val);
    return CB_ARGS_OK;
  case N_AVERAGE:
    if (cb_argp_int(val, 0, 3, &v))
      return cb_argp_fail(
          p, "%s: '%s' (accepted: 0 rank 0's time, 1 the mean over ranks, 2 the minimum, 3 the maximum)", name, val);
    a->combine = (int)v;
    return CB_ARGS_OK;
  case N_PER_ITER:
    if (strcmp(val, "0") == 0) a->iter_timing = 0;
    else if (strcmp(val, "1") == 0) a->iter_timing = 1;
    else return cb_argp_fail(p, "%s: '%s' (accepted: 0 = --timing round, 1 = --timing iter)", name, val);
    return CB_ARGS_OK;
  case N_JSON:
    if (!val[0] || strlen(val) >= CB_PATH_MAX) return cb_argp_fail(p, "%s: bad file name '%s'", name, val);
    snprintf(a->ncclt_json, sizeof a->ncclt_json, "%s", val);
    return CB_ARGS_OK;
  case N_REGISTER:
    if (cb_argp_int(val, 0, 2, &v))
      return cb_argp_fail(p, "%s: '%s' (accepted: 0 nccl, 1 nccl_reg (local registration), 2 nccl_symm (symmetric))",
                          name, val);
    a->nccl_register = (int)v;
    return CB_ARGS_OK;
  default: return cb_argp_fail(p, "%s (nccl-tests' --%s): %s", name, o->longname, o->hint);
  }
}

/* path with its folder resolved ("./a.json", "/proc/self/cwd/a.json" -> "/cwd/a.json"); the
 * text as given when the folder cannot be resolved (nothing is written there then). */
static void resolved(const char *path, char *buf, size_t n) {
  const char *slash = strrchr(path, '/');
  char folder[PATH_MAX];
  snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
  char *real = realpath(folder, NULL);
  if (real) snprintf(buf, n, "%s/%s", real, slash ? slash + 1 : path);
  else snprintf(buf, n, "%s", path);
  free(real);
}

/* Whether -J's file is one of --csv's, --json's or its FILE.partial.jsonl, however spelt: the
 * same resolved name, or one file already (a symlink or a hard link to it). */
static int same_file(const char *ncclt_json, const char *other, const char *suffix) {
  if (!other[0]) return 0;
  char o[CB_PATH_MAX + 32], x[2 * PATH_MAX], y[2 * PATH_MAX];
  snprintf(o, sizeof o, "%s%s", other, suffix);
  struct stat sx, sy;
  if (stat(ncclt_json, &sx) == 0 && stat(o, &sy) == 0 && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino) return 1;
  resolved(ncclt_json, x, sizeof x);
  resolved(o, y, sizeof y);
  return strcmp(x, y) == 0;
}

int cb_args_ncclt_finish(cb_argp_t *p, const cb_args_t *a, const cb_args_seen_t *s) {
  if (s->graph_launches && !(a->modes & CB_MODE_GRAPH))
    return cb_argp_fail(p, "-G %d launches CUDA graphs: leave out --mode eager (or give --mode both)",
                        a->graph_launches);
  if (a->blocking && (a->modes & CB_MODE_GRAPH))
    return cb_argp_fail(p, "-z 1 waits on the host after every iteration, which a CUDA graph cannot: use --mode eager");
  const cb_family_info_t *fi = cb_family_info(a->family);
  if (a->agg_iters > 1 && fi->points)
    return cb_argp_fail(p,
                        "-m aggregates the operations of a size sweep; %s sweeps %s (one operation is one step of it)",
                        fi->name, fi->points->sweeps);
  if (a->nccl_register >= 0 && a->nalgos)
    return cb_argp_fail(p, "-R picks the NCCL baseline among all of the family's algorithms; with --algo, name it "
                           "there (nccl, nccl_reg, nccl_symm)");
  if (a->ncclt_json[0] && (same_file(a->ncclt_json, a->csv, "") || same_file(a->ncclt_json, a->json, "") ||
                           same_file(a->ncclt_json, a->json, ".partial.jsonl")))
    return cb_argp_fail(p, "-J '%s' names the same file as --csv, --json or --json's FILE.partial.jsonl",
                        a->ncclt_json);
  return CB_ARGS_OK;
}

const char *cb_ncclt_register_name(int r) { return r == 1 ? "nccl_reg" : r == 2 ? "nccl_symm" : "nccl"; }
