/* One result row, what every writer (the table on stdout, the CSV, the JSON) reads: the
 * columns every family has, then the family columns, cells of the schema below that a family's
 * describer fills (family.h row()). The writers (launcher/report.c) walk the schema and never
 * name a family's column; docs/results-format.md documents every column.
 *
 * The schema holds the family columns in the JSON's order. A row has the column groups its
 * family declares (family.h columns); the others are empty fields in the CSV and absent keys in
 * the JSON. Inside a group: a text or integer cell is always written; a real one when finite
 * (and, for a measured column, only on a timed row), empty or null otherwise. The CSV puts a
 * column marked csv_last after the common tail (sms, slowdown_comm, slowdown_compute): it was
 * added after them, and a column never moves in the CSV. */
#ifndef CB_ROW_H
#define CB_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* The column groups (family.h columns). */
#define CB_COLS_MOE 1u  /* moe: the model, its routing, the phase and its traffic */
#define CB_COLS_ATTN 2u /* ringattn: the attention shape and its compute figures */
#define CB_COLS_A2AV 4u /* alltoallv: the counts mode */
#define CB_COLS_ROOT 8u /* broadcast, reduce, gather, scatter: the root rank (-r) */

typedef enum cb_col {
  CB_COL_MODEL,
  CB_COL_TOKENS,
  CB_COL_HIDDEN,
  CB_COL_TOPK,
  CB_COL_EXPERTS,
  CB_COL_ROUTING,
  CB_COL_PHASE,
  CB_COL_REMOTE_GBS,
  CB_COL_IMBALANCE,
  CB_COL_NET_BYTES,
  CB_COL_NVLINK_BYTES,
  CB_COL_SEQ,
  CB_COL_BATCH,
  CB_COL_HEADS,
  CB_COL_KV_HEADS,
  CB_COL_HEAD_DIM,
  CB_COL_CAUSAL,
  CB_COL_PASS,
  CB_COL_TFLOPS,
  CB_COL_COMM_US,
  CB_COL_COMPUTE_US,
  CB_COL_OVERLAP_EFF,
  CB_COL_RING_OVER_SINGLE,
  CB_COL_ERR_MAX,
  CB_COL_ERR_MEAN,
  CB_COL_LAYOUT,
  CB_COL_ULYSSES,
  CB_COL_RING,
  CB_COL_COUNTS,
  CB_COL_ROOT,
  CB_NCOLS
} cb_col_t;

typedef enum cb_col_kind { CB_COL_TEXT, CB_COL_INT, CB_COL_REAL } cb_col_kind_t;

typedef struct cb_column {
  const char *name;
  cb_col_kind_t kind;
  const char *csv_fmt; /* CB_COL_REAL: the CSV's printf format (the JSON writes %.6g) */
  unsigned group;      /* the column group it belongs to */
  int measured;        /* CB_COL_REAL: a value only on a timed row */
  int csv_last;        /* the CSV writes it last (see above) */
} cb_column_t;

extern const cb_column_t cb_columns[CB_NCOLS];

typedef struct cb_cell {
  long long i;   /* CB_COL_INT */
  double d;      /* CB_COL_REAL */
  const char *s; /* CB_COL_TEXT (NULL: empty) */
} cb_cell_t;

struct cb_table;

typedef struct cb_row {
  const char *family, *algo, *dtype, *op;
  uint64_t bytes, count;
  int inplace;
  int ranks, nodes;
  const char *gpu;
  int timed; /* 0: skipped / not supported (note says why); time and bandwidth fields empty */
  double time_us_mean, time_us_max, time_us_p50, time_us_p99, algbw_gbs, busbw_gbs;
  /* nccl-tests' -I 1 summary of the slowest rank's iteration times (launcher/iter_stats.h): the
   * drop-in's i_min, i_max, i_p99 and i_cv% columns; the CSV and JSON leave them out (time_us_p99
   * is the same p99) */
  double iter_min_us, iter_max_us, iter_p99_us, iter_cv_pct;
  long long wrong; /* -1: not checked (-c 0) */
  int wrong_ranks; /* the ranks whose own check found a wrong element (nccl-tests counts those) */
  char note[512];
  const char *mode; /* eager | graph */
  int iters;
  uint64_t mem_bytes;
  int sms; /* SMs the custom kernels occupied: > 0 that many, < 0 none (copy engine: written 0),
              0 not reported (NCCL, skipped rows: empty) */
  /* the row of a round trip beside a compute kernel (loaded = 1; else these columns stay
   * empty): the round trip's and the compute kernel's times beside each other over alone */
  int loaded;
  double slowdown_comm, slowdown_compute;
  /* the family's columns */
  unsigned groups;              /* the column groups the row has (CB_COLS_*) */
  cb_cell_t col[CB_NCOLS];      /* by cb_col_t */
  const struct cb_table *table; /* its table on stdout (NULL: the classic table) */
} cb_row_t;

static inline void cb_row_text(cb_row_t *r, cb_col_t c, const char *s) { r->col[c].s = s; }
static inline void cb_row_int(cb_row_t *r, cb_col_t c, long long v) { r->col[c].i = v; }
static inline void cb_row_real(cb_row_t *r, cb_col_t c, double v) { r->col[c].d = v; }

/* A family's table on stdout: its header (a "#" line, then the two lines naming the columns and
 * their units), printed before its first row and whenever the table changes, and one line per
 * row (no control characters in r's note; sms and wrong already as text, "-" when absent). */
typedef struct cb_table {
  void (*header)(cb_strbuf_t *out);
  void (*line)(const cb_row_t *r, const char *sms, const char *wrong, cb_strbuf_t *out);
} cb_table_t;

/* "-" or a real number with fmt, for table lines: "-" when v is not finite. */
const char *cb_row_real_text(double v, const char *fmt, char *buf, size_t n);

#endif
