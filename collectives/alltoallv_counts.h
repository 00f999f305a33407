/* How many bytes each rank sends each other rank in an alltoallv (the family's --counts mode),
 * and the nccl-tests arithmetic of its size and count columns.
 *
 *   uniform      nccl-tests' generated pattern at NCCL_TESTS_ALLTOALLV_SPREAD=0: every peer the
 *                same share of the point
 *   spread[:S]   its distance-weighted pattern (S = NCCL_TESTS_ALLTOALLV_SPREAD, default 1):
 *                rank i sends rank j (1-S)·T/n + S·d·T/(n(n-1)/2), d = (j - i) mod n, so farther
 *                ranks (in rank order) get more; every rank sends and receives the same total
 *   matrix:FILE  nccl-tests' matrix-file mode (alltoallv_matrix.h): the counts of the file, the
 *                same at every sweep point (one point, at least the largest per-rank total)
 *   moe          MoE dispatch counts from collbench's router (moe_router.h) under --model and
 *                --routing: cell [i][j] is proportional to the tokens of rank i that have at
 *                least one expert on rank j (CB_A2AV_MOE_TOKENS tokens per rank routed), scaled
 *                so the mean rank sends the point's bytes
 *   trace:FILE   the same from a routing trace (alltoallv_trace.h): the tokens of rank i that
 *                went to rank j under --model's expert split, scaled as moe's
 *
 * As nccl-tests, at a point of P bytes with elements of e bytes on n ranks: the count column is
 * paramcount = (P/e/n) rounded down to a multiple of 16/e (0 for matrix, moe and trace, whose counts
 * do not come from it); the generated patterns split T = paramcount·n·e bytes; every cell is
 * rounded down to a multiple of 16 bytes; the size column is the largest per-rank send or
 * receive total, and busbw = size/time · (n-1)/n (family.h). */
#ifndef CB_ALLTOALLV_COUNTS_H
#define CB_ALLTOALLV_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "alltoallv_matrix.h"
#include "alltoallv_trace.h"
#include "moe_config.h"

/* Tokens per rank the moe mode routes to find its proportions. */
#define CB_A2AV_MOE_TOKENS 1024

typedef enum cb_a2av_mode {
  CB_A2AV_UNIFORM,
  CB_A2AV_SPREAD,
  CB_A2AV_MATRIX,
  CB_A2AV_MOE,
  CB_A2AV_TRACE
} cb_a2av_mode_t;

typedef struct cb_a2av_config {
  cb_a2av_mode_t mode;
  double spread;           /* uniform: 0; spread[:S]: S in [0, 1] */
  char path[400];          /* matrix:FILE, trace:FILE */
  cb_a2av_matrix_t matrix; /* matrix: read once the command line is read (lives as long as the run) */
  cb_a2av_trace_t trace;   /* trace: read once the command line is read (lives as long as the run) */
  cb_moe_config_t moe;     /* moe: the model's shape and routing law (--model, --routing); trace: its experts */
  char text[448];          /* the mode as the rows' counts column names it: "spread:0.5", "matrix:FILE" */
} cb_a2av_config_t;

/* Default: spread (nccl-tests' default), deepseek-v3 with uniform routing for moe. */
void cb_a2av_config_defaults(cb_a2av_config_t *c);
/* "uniform", "spread", "spread:S", "matrix:FILE", "moe", "trace:FILE". Returns 0, or -1 with
 * one line (the files are not read here: cb_a2av_config_finish). */
int cb_a2av_mode_parse(const char *s, cb_a2av_config_t *c, char *why, size_t n);
/* Reads the matrix or trace file and sets c->text. Returns 0, or -1 with one line. */
int cb_a2av_config_finish(cb_a2av_config_t *c, char *why, size_t n);
/* What needs the rank count: the matrix's side, the expert split (moe, trace), the trace's
 * ranks. 0, or -1 with why. */
int cb_a2av_config_check_ranks(const cb_a2av_config_t *c, int nranks, char *why, size_t n);

/* A digest of what the counts come from (the mode, S, the matrix's values, the trace's tokens):
 * every rank reads the files itself, so ranks that read different bytes (a file changed between
 * their reads, or the ranks see different files) compare digests before they plan a transfer. */
uint64_t cb_a2av_config_digest(const cb_a2av_config_t *c);

/* The counts at one sweep point. */
typedef struct cb_a2av_counts {
  int n;
  uint64_t *bytes;             /* [n][n]: bytes[i*n + j] from rank i to rank j, multiples of 16 */
  uint64_t param_count;        /* the count column */
  uint64_t max_send, max_recv; /* bytes, the largest per-rank totals */
} cb_a2av_counts_t;

/* Builds the counts for point bytes of elem_size-byte elements on n ranks (seed: moe routing).
 * Returns 0, or -1 with why (out of memory; a total past CB_MAX_BUFFER_BYTES). */
int cb_a2av_counts_make(const cb_a2av_config_t *c, uint64_t point, size_t elem_size, int n, uint64_t seed,
                        cb_a2av_counts_t *out, char *why, size_t nwhy);
void cb_a2av_counts_free(cb_a2av_counts_t *k);
/* Frees what cb_a2av_config_finish read (the matrix, the trace). */
void cb_a2av_config_release(cb_a2av_config_t *c);

static inline uint64_t cb_a2av_cell(const cb_a2av_counts_t *k, int i, int j) { return k->bytes[(size_t)i * k->n + j]; }
/* Bytes before peer j's block in rank i's send buffer (blocks in destination order). */
uint64_t cb_a2av_send_offset(const cb_a2av_counts_t *k, int i, int j);
/* Bytes before source i's block in rank j's receive buffer (blocks in source order). */
uint64_t cb_a2av_recv_offset(const cb_a2av_counts_t *k, int i, int j);
uint64_t cb_a2av_send_total(const cb_a2av_counts_t *k, int i);
uint64_t cb_a2av_recv_total(const cb_a2av_counts_t *k, int j);
/* The size column: max(max_send, max_recv). */
static inline uint64_t cb_a2av_size_bytes(const cb_a2av_counts_t *k) {
  return k->max_send > k->max_recv ? k->max_send : k->max_recv;
}

/* nccl-tests' distance-weighted cell (AlltoAllvGetPeerBytesDistanceWeighted): the generated
 * patterns' one formula, exposed for the tests. */
uint64_t cb_a2av_spread_cell(int i, int j, int n, uint64_t total_bytes, double spread);

#endif
