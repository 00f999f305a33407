/* nccl-tests' output, printed by collbench's drop-in (ncclt_main.c) from collbench's result
 * rows: the header (version, "Collective test starting", the "# nThread" line, "# Using
 * devices"), one line per size with the out-of-place and in-place groups side by side
 * (size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong; with -I 1
 * each group adds nccl-tests' i_min i_max i_p99 i_cv%, iter_stats.h), and the
 * footer ("# Out of bounds values", "# Avg bus bandwidth" with NCCL_TESTS_MIN_BW's verdict,
 * "# Collective test concluded"), in nccl-tests 2.19's field widths (src/util.cu), so its
 * readers (plots/nccl_tests.py, scripts that grep the footer) read it unchanged.
 *
 * Several algorithms (--algo LIST): one table each, in the --algo order, each under a
 * "# collbench algorithm: NAME" line and with its own footer; the first streams as its rows
 * finish, the others are held and printed after it (the engine interleaves the algorithms at
 * every size). A row collbench skipped (a size that does not divide, "not supported") is a
 * "#" comment line with the reason: nccl-tests never skips, and a number there would be made up.
 * Pure (no MPI, no CUDA): tests/cpu/test_ncclt_table.c prints it from fixed rows. */
#ifndef CB_NCCLT_TABLE_H
#define CB_NCCLT_TABLE_H

#include <stdio.h>

#include "args.h"
#include "ncclt_args.h"
#include "row.h"
#include "strbuf.h"

/* nccl-tests' exit code when a value is wrong or the bandwidth is below NCCL_TESTS_MIN_BW x 0.9
 * (its testNumResults). */
#define CB_NCCLT_EXIT_RESULTS 7
/* Out-of-place rows waiting for their in-place half, per algorithm. */
#define CB_NCCLT_PENDING 64

/* One "#  Rank" line. */
typedef struct cb_ncclt_rank {
  int rank, pid, device;
  const char *host, *busid, *gpu; /* busid as CUDA spells it ("0000:00:06.0") */
} cb_ncclt_rank_t;

typedef struct cb_ncclt_header {
  const cb_ncclt_opts_t *o;
  const char *collbench_version;
  int nccl_headers, nccl_library; /* NCCL_VERSION_CODE built against, ncclGetVersion at run time */
  int nranks;
  const cb_ncclt_rank_t *ranks;
} cb_ncclt_header_t;

/* The lines before the table: version, binary, parameters, devices. */
void cb_ncclt_header(const cb_ncclt_header_t *h, cb_strbuf_t *out);

/* One measured half of a line (out-of-place or in-place). */
typedef struct cb_ncclt_half {
  unsigned long long bytes, count;
  char dtype[16], op[16], mode[8];
  int root;
  int timed;
  double time_us, algbw, busbw;
  double i_min, i_max, i_p99, i_cv; /* -I 1's columns (row.h iter_*) */
  long long wrong;                  /* -1: not checked */
  int wrong_ranks;                  /* ranks that found a wrong value: nccl-tests' out-of-bounds count */
  char note[160];
} cb_ncclt_half_t;

typedef struct cb_ncclt_algo_table {
  char algo[CB_NAME_MAX];
  cb_strbuf_t lines; /* its table lines, held (all but the first algorithm's) */
  double bw_sum;
  long bw_count;
  long long wrong; /* nccl-tests' "Out of bounds values": a rank's half with a wrong value counts 1 */
  int npending;
  cb_ncclt_half_t pending[CB_NCCLT_PENDING];
} cb_ncclt_algo_table_t;

typedef struct cb_ncclt_table {
  const cb_ncclt_opts_t *o;
  int expect_inplace; /* in-place rows follow the out-of-place ones (the family has them) */
  FILE *stream;       /* the first algorithm's lines go here as they come (NULL: held too) */
  int nalgos;
  cb_ncclt_algo_table_t t[CB_MAX_ALGOS];
} cb_ncclt_table_t;

/* Starts the tables of nalgos algorithms (names in the engine's order); the first one's
 * heading ("# collbench algorithm" and the column header) into out. */
void cb_ncclt_table_init(cb_ncclt_table_t *t, const cb_ncclt_opts_t *o, const char *const *algos, int nalgos,
                         int expect_inplace, FILE *stream, cb_strbuf_t *out);
/* One result row (the report's sink, rank 0). */
void cb_ncclt_table_row(cb_ncclt_table_t *t, const cb_row_t *r);
/* Every half still waiting, the held tables and every footer into out; returns 0, or
 * CB_NCCLT_EXIT_RESULTS when a value was wrong or an average is below the gate. Frees t. */
int cb_ncclt_table_end(cb_ncclt_table_t *t, cb_strbuf_t *out);

/* nccl-tests' number field: value in width characters (%.2f, then fewer decimals, then %e). */
void cb_ncclt_float(double value, int width, char *buf, size_t n);

#endif
