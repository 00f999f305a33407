/* The collective families collbench measures, and how each one describes itself to the bench
 * engine and the command line (launcher/), which name no family: as each nccl-tests collective
 * fills its own table for a harness that never names it, every family here is one
 * `const cb_family_info_t` with designated initializers, in the file beside its configuration
 * (family_classic.c for the five nccl-tests collectives, moe_family.c, attn/attn_family.c), listed
 * once in the family registry (family.c). Adding a family: its id below, its describer file,
 * its algorithm files, one line in family.c and one per algorithm in registry.c (new columns:
 * their rows in row.c's schema; a classic collective: its entry in family_classic.c and, for
 * the generic check, its layout in kernels/check_layout.h with check.cu's expectation).
 *
 * "bytes" and "count" of the classic families follow nccl-tests exactly, so numbers can be
 * compared line by line:
 *   family         bytes (the size column)          count column      busbw = algbw x
 *   allreduce      per-rank buffer                  bytes/elem        2(n-1)/n
 *   allgather      per-rank receive buffer (total)  bytes/elem/n      (n-1)/n
 *   reducescatter  per-rank send buffer (total)     bytes/elem/n      (n-1)/n
 *   alltoall       per-rank send buffer (total)     bytes/elem/n      (n-1)/n
 *   sendrecv       per-rank send buffer             bytes/elem        1
 *   alltoallv      largest per-rank send/recv total paramcount        (n-1)/n  (alltoallv_counts.h)
 * algbw = bytes / time, GB = 1e9 bytes. MoE rows define their own bytes (docs/results-format.md):
 * logical bytes per rank moved by the phase, busbw = algbw. ringattn rows sweep the total
 * sequence length; their size column is the K/V bytes one rank receives over the ring,
 * busbw = algbw, and TFLOP/s is their headline (attn_config.h).
 *
 * What a describer declares, in the order a run uses it:
 *   the command line  its options and how each value lands in its configuration (a struct of
 *                     its own, config_size bytes, stored in the run's arguments); the sweep
 *                     point option when it does not sweep bytes (points); the default dtype;
 *                     finish(): the cross-checks once the whole line is read; its --help section
 *   the world         check_ranks() and check_outputs(): what needs the rank count or files
 *   each group        the variants (ringattn's forms) run at every point; plan(): the
 *                     point as bytes, elements and count, and the group's description text
 *   each row          its column groups (row.h) and row(): their values; its table on stdout;
 *                     the per-rank metrics its algorithms leave (cb_inst_t.metric) and how the
 *                     engine combines them over ranks; the NVTX size letter
 *   the engine        identical_outputs (every rank must hold the same bits), overlap() (time
 *                     the round trips beside a compute kernel too), group_end() (comment lines
 *                     after a group's rows and the verdicts that fail the run) */
#ifndef CB_FAMILY_H
#define CB_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "strbuf.h"

/* The largest per-rank buffer collbench plans (1 TiB): more than any GPU holds, so a size past
 * it is a usage error before any GPU work, and every buffer product (ranks x count x element
 * size, plus alignment) stays far from overflowing size_t. */
#define CB_MAX_BUFFER_BYTES (1ull << 40)

/* Bytes of a family's configuration struct (the run's arguments hold one, aligned for any type). */
#define CB_FAMILY_CONFIG_MAX 2048
/* Bytes of an algorithm name, with its terminator (the --algo list). */
#define CB_ALGO_NAME_MAX 32
/* Per-rank metrics one family's algorithms may report (cb_inst_t.metric). */
#define CB_MAX_METRICS 8
/* The most phases one algorithm times apart (moe: layout, dispatch, combine). */
#define CB_MAX_PHASES 4

typedef enum cb_family {
  CB_ALLREDUCE = 0,
  CB_ALLGATHER,
  CB_REDUCESCATTER,
  CB_ALLTOALL,
  CB_SENDRECV,
  CB_MOE,
  CB_RINGATTN,
  CB_ALLTOALLV,
  CB_NFAMILIES
} cb_family_t;

struct cb_params;
struct cb_bytes;
struct cb_row;
struct cb_table;

/* The sweep point option of a family that does not sweep bytes (the classic families take
 * -b/-e/-f/-i/--sizes instead): --tokens, --seq. It takes a comma list or A:B[:F]. */
typedef struct cb_points_spec {
  const char *option;     /* long name without the dashes: "tokens" */
  const char *sweeps;     /* what it sweeps, for the refusal of -b/-e/-f/-i/--sizes: "tokens per rank" */
  const char *noun;       /* one value, for messages: "token count" */
  int suffixes;           /* 1: values take K/M/G/T suffixes (sizes); 0: plain decimal integers */
  uint64_t min, max;      /* the values accepted */
  const char *range_form; /* a range's ends, for its error: "integers 0..16777216" */
  uint64_t first, last;   /* the default sweep: first, 2 x first, ... up to last */
} cb_points_spec_t;

/* One option of a family's own (--hidden, --causal): its long name without the dashes and
 * whether it takes a value. Its index in the family's table is what option() receives and the
 * bit finish() sees in `given`. */
typedef struct cb_family_opt {
  const char *name;
  int takes_value;
} cb_family_opt_t;

/* What finish() completes and checks once the whole command line is read: the family's
 * configuration, which of its options were given, and the run-wide choices it may read (or,
 * for the --algo list, rewrite). Errors go to err (one line) with a return of -1. */
typedef struct cb_family_finish {
  void *config;
  unsigned given;      /* bit i: option i of the family's table was on the command line */
  const char *cmdline; /* the run's command line (lives as long as the configuration) */
  int check_iters;     /* -c */
  const cb_dtype_t *dtypes;
  int ndtypes;
  const uint64_t *points;
  int npoints;
  char (*algos)[CB_ALGO_NAME_MAX]; /* the --algo names, nalgos of them (0: every algorithm) */
  int *nalgos, max_algos;
  char *err;
  size_t errlen;
} cb_family_finish_t;

/* How the engine combines a per-rank metric over the ranks before the row sees it. */
typedef enum cb_metric_combine {
  CB_METRIC_OWN,  /* the reporting rank's own value (the same on every rank, or rank 0's) */
  CB_METRIC_MAX,  /* the largest over ranks */
  CB_METRIC_MEAN, /* the sum over ranks divided by the rank count */
} cb_metric_combine_t;

typedef struct cb_metric {
  const char *name; /* what it is (for readers of the describer) */
  cb_metric_combine_t combine;
} cb_metric_t;

/* One row, as the engine hands it to the family's row() to fill the family's own columns. */
typedef struct cb_row_ctx {
  const struct cb_params *p;
  int nranks;
  int timed;                    /* the row holds a measurement */
  int loaded;                   /* the row of the round trip beside a compute kernel (overlap()) */
  int checked;                  /* correctness checks ran (-c > 0) */
  int phase, nphases;           /* the row's phase; phase == nphases: the round trip */
  const char *phase_name;       /* the algorithm's name of the phase (NULL for the round trip) */
  const struct cb_bytes *bytes; /* the algorithm's accounting of the phase (NULL: the algorithm did not run) */
  double time_us;               /* the row's mean time (timed rows) */
  const double *metrics;        /* the family's metrics combined over ranks (timed rows; NULL otherwise) */
} cb_row_ctx_t;

/* One algorithm of a group, as group_end() sees it after the group's rows. */
typedef struct cb_slot_view {
  const char *algo;
  int nphases;
  int active;       /* set up and timed on every rank */
  const char *note; /* why not, when inactive */
  long long wrong;  /* wrong elements over ranks, a digest mismatch counted */
  int digest_mismatch;
  double mean_us, p99_us; /* the round trip over ranks (active) */
  double remote_gbs[CB_MAX_PHASES +
                    1]; /* GB/s that crossed to another GPU, per phase as reported ([nphases]: round trip) */
} cb_slot_view_t;

typedef struct cb_group_view {
  const struct cb_params *p;
  const char *what; /* the group's description (plan()) */
  int check_iters;
  int nslots;
  const cb_slot_view_t *slots;
} cb_group_view_t;

typedef struct cb_family_info {
  const char *name;
  /* the command line */
  int reduces;                    /* takes -o */
  int has_inplace;                /* an in-place form exists */
  const char *no_inplace_why;     /* non-NULL: --inplace 1/both is refused with this reason; NULL: quietly
                                     out-of-place unless --inplace 1 alone */
  cb_dtype_t default_dtype;       /* without -d */
  const cb_points_spec_t *points; /* NULL: the family sweeps bytes (-b/-e/-f/-i/--sizes) */
  const cb_family_opt_t *opts;    /* its own options (nopts), besides points */
  int nopts;
  size_t config_size; /* bytes of its configuration (0: none) */
  void (*defaults)(void *config);
  /* option i of opts with its value (NULL when it takes none); arg is the argument as typed.
   * Returns 0, or -1 with one line in err. */
  int (*option)(void *config, int i, const char *arg, const char *val, char *err, size_t n);
  int (*finish)(cb_family_finish_t *f); /* NULL: nothing to check */
  const char *help;                     /* its section of --help (NULL: none) */
  /* the world: every rank with the rank count (check_ranks), rank 0 before anything is
   * written (check_outputs: files the family will create). 0, or -1 with why. */
  int (*check_ranks)(const void *config, int nranks, const cb_dtype_t *dtypes, int ndtypes, char *why, size_t n);
  int (*check_outputs)(const void *config, char *why, size_t n);
  /* each group: variants 0..nvariants-1 (0: one form) where variant_on() (NULL: all) on the
   * run's rank count, the NVTX mode suffix of each into buf ("-causal"; NULL: none) */
  int nvariants;
  int (*variant_on)(const void *config, int variant, int nranks);
  void (*nvtx_variant)(const void *config, int variant, char *buf, size_t n);
  char nvtx_letter; /* the NVTX size field: 'B' bytes, 'T' tokens, 'S' sequence (nvtx.h) */
  /* p->point (and p->variant) as p's bytes, elements and count, and the group's description
   * (mode: "eager" or "graph"). 0, or -1 with why (every row of the group is then skipped);
   * the size columns are set either way. */
  int (*plan)(struct cb_params *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy);
  /* each row */
  unsigned columns;             /* the column groups its rows fill (row.h CB_COLS_*) */
  const struct cb_table *table; /* its table on stdout (row.h; NULL: the classic table) */
  const cb_metric_t *metrics;   /* nmetrics per-rank figures in cb_inst_t.metric */
  int nmetrics;
  void (*row)(const cb_row_ctx_t *c, struct cb_row *r); /* NULL: no columns of its own */
  /* the engine */
  int identical_outputs;              /* every rank's output must have the same bits (digest) */
  int (*overlap)(const void *config); /* 1: also time the round trips beside a compute kernel */
  /* after a group's rows, on every rank: comment lines into out (rank 0 prints them); returns
   * the verdicts that failed (they fail the run) */
  int (*group_end)(const cb_group_view_t *g, cb_strbuf_t *out);
  /* the classic families' nccl-tests arithmetic (family.c) */
  int count_per_rank;              /* count column = elements / nranks, and elements must divide by nranks */
  double busbw_num, busbw_den_adj; /* busbw factor = busbw_num * (n - 1 + busbw_den_adj) / n */
  /* their buffers (buffers.h) and the generic check's expectations (kernels/check.h cb_layout_t):
   * the send and the receive buffer hold count, or nranks x count elements (send_all, recv_all);
   * in place, the smaller one sits at rank x count inside the larger */
  int layout;
  int send_all, recv_all;
} cb_family_info_t;

/* The registry (family.c): the describer of f, NULL past the table. */
const cb_family_info_t *cb_family_info(cb_family_t f);
const char *cb_family_name(cb_family_t f);
int cb_family_parse(const char *s, cb_family_t *out);
/* The family names joined by sep ("allreduce, allgather, ..., ringattn" with ", ") into buf;
 * returns buf. */
const char *cb_family_accepted(const char *sep, char *buf, size_t n);

/* busbw / algbw for the family at nranks (nccl-tests' definitions, table above). */
double cb_busbw_factor(cb_family_t f, int nranks);

/* Elements per rank buffer and the count column for a size in bytes. Returns 0, or -1 with a
 * reason when the size is not a whole number of elements or (for count_per_rank families) not
 * divisible by nranks. */
int cb_family_count(cb_family_t f, size_t bytes, size_t elem_size, int nranks, size_t *elements, size_t *count,
                    char *why, size_t n);

#endif
