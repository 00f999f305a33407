/* The collbench command line: `collbench FAMILY [options]`, nccl-tests-compatible where that
 * makes sense (-b -e -f -i -n -w -c -d -o -T, and nccl-tests' -G -m -N -z -a -I -J -R with their
 * meaning: args_ncclt.c). Everything a run needs travels in one
 * cb_args_t; parsing is pure (no MPI, no CUDA) so the CPU tests cover every bad input. */
#ifndef CB_ARGS_H
#define CB_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dtype.h"
#include "family.h"
#include "sizes.h"

#define CB_MAX_ALGOS 16
#define CB_NAME_MAX CB_ALGO_NAME_MAX
#define CB_PATH_MAX 1024

enum cb_mode_bits { CB_MODE_EAGER = 1, CB_MODE_GRAPH = 2 };
enum cb_place_bits { CB_PLACE_OUT = 1, CB_PLACE_IN = 2 };
/* --format: the table on stdout (AUTO: wide on a terminal, rows otherwise). */
enum cb_format { CB_FORMAT_AUTO = 0, CB_FORMAT_WIDE, CB_FORMAT_ROWS };
/* -a: how the ranks' mean iteration times make a row's time (nccl-tests' numbers). */
enum cb_combine { CB_COMBINE_RANK0 = 0, CB_COMBINE_MEAN = 1, CB_COMBINE_MIN = 2, CB_COMBINE_MAX = 3 };

typedef struct cb_args {
  cb_family_t family;
  /* Sweep points, in the family's unit (family.h points: bytes unless the family says otherwise). */
  int npoints;
  uint64_t points[CB_MAX_SWEEP_POINTS];
  int iters;       /* -n: timed iterations per row */
  int warmup;      /* -w: untimed iterations before timing */
  int check_iters; /* -c: correctness iterations on fresh data (0 = no check) */
  int ndtypes;
  cb_dtype_t dtypes[CB_NDTYPES];
  int dtypes_all; /* -d all: dtypes are every type the family takes (checked against --algo) */
  int nops;       /* 1 with CB_OP_NONE for families that do not reduce */
  cb_redop_t ops[CB_NREDOPS];
  int modes;        /* CB_MODE_* bits */
  int places;       /* CB_PLACE_* bits; in-place only where the family has it */
  int iter_timing;  /* 0 (default): events around each round only, as nccl-tests (p50/p99 of
                       round means); 1: an event around every iteration (true per-iteration
                       p50/p99, but each event record adds ~1 us eager and ~4 us in a graph on
                       H200: measured, docs/decisions/timing.md) */
  double timeout_s; /* -T: watchdog limit for one batch of iterations */
  /* nccl-tests' flags (args_ncclt.c): */
  int graph_launches;           /* -G N: launches of each captured round's graph (1 unless -G) */
  int agg_iters;                /* -m N: operations per timed iteration, one NCCL group / launch sequence */
  int cycles;                   /* -N N: the whole sweep N times */
  int blocking;                 /* -z 1: wait for the stream and a barrier after every iteration */
  int combine;                  /* -a: enum cb_combine (default CB_COMBINE_MEAN) */
  int nccl_register;            /* -R 0|1|2: the NCCL baseline kept (nccl, nccl_reg, nccl_symm; -1: not given) */
  char ncclt_json[CB_PATH_MAX]; /* -J FILE: nccl-tests' JSON (empty = none) */
  int format;                   /* --format: enum cb_format */
  int order;                    /* --order: enum cb_sweep_order (sweep_order.h; default sizes) */
  int nalgos;                   /* 0 = every algorithm of the family */
  char algos[CB_MAX_ALGOS][CB_NAME_MAX];
  char csv[CB_PATH_MAX];  /* empty = no CSV */
  char json[CB_PATH_MAX]; /* empty = no JSON */
  uint64_t seed;
  int no_bind;        /* --no-bind: keep whatever CPU binding the process has */
  int sms;            /* --sms: SM cap of the custom kernels (0 = not given: CB_SMS or the device's) */
  char cmdline[8192]; /* argv joined, for the results metadata */
  /* The family's own configuration (family.h): its defaults, then its options; config_size bytes
   * of it are the family's struct. */
  union {
    max_align_t align;
    unsigned char bytes[CB_FAMILY_CONFIG_MAX];
  } config;
} cb_args_t;

enum cb_args_result { CB_ARGS_OK = 0, CB_ARGS_HELP = 1, CB_ARGS_ERROR = 2 };

/* Parses argv (argv[0] is the program). On CB_ARGS_ERROR, err holds one line naming the bad
 * value and what is accepted. */
int cb_args_parse(int argc, char **argv, cb_args_t *a, char *err, size_t errlen);

void cb_args_usage(FILE *f);

/* The family's configuration in a (NULL for a family without one). */
static inline void *cb_args_config(cb_args_t *a) {
  return cb_family_info(a->family)->config_size ? a->config.bytes : NULL;
}
static inline const void *cb_args_config_const(const cb_args_t *a) {
  return cb_family_info(a->family)->config_size ? a->config.bytes : NULL;
}

#endif
