/* nccl-tests 2.19's command line (src/common.cu's getopt_long table, and its NCCL_TESTS_*
 * variables) translated into collbench's: the drop-in binaries (ncclt_names.h) read what a
 * cluster script passes to all_reduce_perf and run collbench with the same meaning, or refuse
 * a flag collbench does not offer with one line naming what does the job. Pure (no MPI, no
 * CUDA): the CPU tests translate every flag. docs/nccl-tests.md lists each flag's fate. */
#ifndef CB_NCCLT_ARGS_H
#define CB_NCCLT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "ncclt_names.h"

#define CB_NCCLT_MAX_IN 128 /* arguments of one nccl-tests command line */
#define CB_NCCLT_MAX_OUT 64 /* arguments of the collbench command line it becomes */
#define CB_NCCLT_TEXT 8192  /* bytes of the translated arguments' text */

enum cb_ncclt_result { CB_NCCLT_OK = 0, CB_NCCLT_HELP = 1, CB_NCCLT_ERROR = 2 };

/* The environment as the translation reads it (getenv in the program, a table in the tests). */
typedef const char *(*cb_ncclt_getenv_fn)(const char *name);

typedef struct cb_ncclt_opts {
  const cb_ncclt_binary_t *bin;
  /* nccl-tests' values as its header line prints them (its defaults where not given) */
  int nthreads, ngpus;
  uint64_t minbytes, maxbytes, stepbytes;
  long stepfactor; /* > 1: sizes grow by this factor; else by stepbytes */
  int warmup, iters, agg_iters, check, graph, unalign, blocking, per_iter, cycles;
  int root;       /* -r (0 by default; the root column shows it for rooted binaries) */
  int all_types;  /* -d all (or a list): with -o all or -r -1, nccl-tests' line order (--order types) */
  char op[16];    /* the -o value ("sum" when not given) */
  double min_bw;  /* NCCL_TESTS_MIN_BW in GB/s (-1: not set) */
  int algo_given; /* --algo, CB_ALGO or -R chose the algorithms (default: the family's nccl) */
  /* the -g option's arguments in the input (they become "-g 1" when the drop-in starts the
   * ranks itself): their indexes, ngpus_args of them */
  int ngpus_at[2 * CB_NCCLT_MAX_IN];
  int ngpus_args;
  /* collbench's command line: argv[0] "collbench", the family, the options; NULL-terminated */
  int argc;
  char *argv[CB_NCCLT_MAX_OUT + 1];
  char text[CB_NCCLT_TEXT];
  size_t used;
} cb_ncclt_opts_t;

/* Translates argv (argv[0] names the binary: its basename must be a known _perf name) with
 * the environment env. CB_NCCLT_OK with o filled; CB_NCCLT_HELP for -h; CB_NCCLT_ERROR with one
 * line in err (an unknown binary, a family not in this build, a bad value, a flag collbench
 * does not offer). Values collbench's own parser checks again (-d, -o, --algo, sizes) keep
 * their text. */
int cb_ncclt_translate(int argc, char **argv, cb_ncclt_getenv_fn env, cb_ncclt_opts_t *o, char *err, size_t n);

/* The drop-in's --help: nccl-tests' flags and what becomes of each. */
void cb_ncclt_usage(const char *program, char *buf, size_t n);

#endif
