/* The bench engine's private pieces (launcher/bench.c) that its moe --overlap part
 * (launcher/bench_overlap.c) shares: one algorithm's slot in a sweep point, the point itself,
 * and the helpers both use. Not for anything outside the bench engine. */
#ifndef CB_BENCH_SLOT_H
#define CB_BENCH_SLOT_H

#include <mpi.h>

#include "bench.h"
#include "overlap.h"

typedef struct slot {
  const cb_algo_t *algo;
  cb_inst_t in;
  int active;     /* supported and set up on every rank */
  char note[512]; /* why not, when inactive */
  cudaEvent_t *ev;
  int nev;
  cudaGraphExec_t graph;
  double *t[CB_MAX_PHASES + 1]; /* per-iteration times (us) per phase; [nphases] = round trip */
  long long wrong;
  int digest_mismatch;
  double remote_gbs[CB_MAX_PHASES + 1]; /* per phase, as reported (moe: the copy_ce ratio line) */
  /* moe --overlap (overlap.h): 1 measured, -1 not (ov_why says why), 0 not asked */
  int ov_state;
  cb_overlap_t ov;
  char ov_why[256];
} slot_t;

typedef struct group {
  cb_params_t p;
  int mode; /* CB_MODE_EAGER or CB_MODE_GRAPH */
  char what[256];
  char routing[64]; /* moe: the routing law's text for the rows */
} group_t;

/* MPI_Allreduce that polls (a lost peer ends in the watchdog, not a hang). */
void cb_bench_allreduce_polled(const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
/* One iteration of s on st; with `record` an event after every phase (ev[ph + 1]). */
void cb_bench_run_iteration(slot_t *s, cudaStream_t st, cudaEvent_t *ev, int record, int record_external);
/* Lines the GPUs up on st (a 4-byte NCCL all-reduce; collective). */
void cb_bench_line_up(const cb_bench_t *b, cudaStream_t st);
/* The columns every row of s shares. */
void cb_bench_fill_row(cb_bench_t *b, const group_t *g, const slot_t *s, cb_row_t *r);

/* moe --overlap (bench_overlap.c): after s's checks, its round trips beside a compute kernel
 * (collective; sets s->ov_state); and its roundtrip_loaded row (collective). */
void cb_bench_measure_overlap(cb_bench_t *b, const group_t *g, slot_t *s, int chunk);
void cb_bench_report_loaded(cb_bench_t *b, const group_t *g, slot_t *s, unsigned long long mem_max);

#endif
