/* The bench engine's private pieces, shared by its files: bench.c (the sweep and one group),
 * bench_round.c (warm-up, the timed rounds and their events), bench_row.c (a slot's rows and the
 * lines after a group) and bench_overlap.c (the round trips beside a compute kernel): one
 * algorithm's slot in a sweep point, the point itself, and the helpers they share. Not for
 * anything outside the bench engine. No family is named here: what a family adds comes through
 * its describer (family.h). */
#ifndef CB_BENCH_SLOT_H
#define CB_BENCH_SLOT_H

#include <mpi.h>

#include "bench.h"
#include "overlap.h"

typedef struct slot {
  const cb_algo_t *algo;
  cb_inst_t in;
  int active;     /* supported and set up on every rank */
  int agg;        /* -m: operations per iteration (1: one) */
  int nccl_group; /* -m > 1 on an NCCL baseline: the operations of an iteration in one NCCL group */
  char note[512]; /* why not, when inactive */
  cudaEvent_t *ev;
  int nev;
  cudaGraphExec_t graph;
  double *t[CB_MAX_PHASES + 1]; /* per-iteration times (us) per phase; [nphases] = round trip */
  long long wrong;
  int wrong_ranks; /* ranks whose own check found a wrong element (nccl-tests' out-of-bounds count) */
  int digest_mismatch;
  double metric[CB_MAX_METRICS];        /* the family's metrics combined over ranks (bench_row.c) */
  double remote_gbs[CB_MAX_PHASES + 1]; /* per phase, as reported */
  double rt_mean_us, rt_p99_us;         /* the round trip over ranks, as reported */
  /* the round trips beside a compute kernel (overlap.h): 1 measured, -1 not (ov_why says why),
   * 0 not asked */
  int ov_state;
  cb_overlap_t ov;
  char ov_why[256];
} slot_t;

typedef struct group {
  const cb_family_info_t *fi; /* the run's family */
  cb_params_t p;
  int mode; /* CB_MODE_EAGER or CB_MODE_GRAPH */
  char what[256];
} group_t;

/* MPI_Allreduce that polls (a lost peer ends in the watchdog, not a hang). */
void cb_bench_allreduce_polled(const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
/* "<algo> <group>": the subject of a watchdog step, in buf. */
const char *cb_bench_subject(const slot_t *s, const group_t *g, char *buf, size_t n);
/* "eager" or "graph". */
const char *cb_bench_mode_name(int mode);
/* The NVTX range of one step of s at g's sweep point (nvtx.h), pushed on this thread. */
void cb_bench_range_push(const slot_t *s, const group_t *g, const char *step);

/* bench_round.c: one iteration of s on st, with `record` an event after every phase (ev[ph + 1]);
 * the GPUs lined up on st (a 4-byte NCCL all-reduce; collective); the warm-up of every active
 * slot (its events made, its graph captured and uploaded); and a round, timed or (the run's
 * first group) an untimed lead-in. */
void cb_bench_run_iteration(slot_t *s, cudaStream_t st, cudaEvent_t *ev, int record, int record_external);
void cb_bench_line_up(const cb_bench_t *b, cudaStream_t st);
void cb_bench_warm_up(cb_bench_t *b, const group_t *g, slot_t *slots, int n, int chunk);
void cb_bench_timed_round(cb_bench_t *b, const group_t *g, slot_t *s, int round, int nrounds, int chunk);
void cb_bench_lead_in_round(cb_bench_t *b, const group_t *g, slot_t *s, int chunk);

/* bench_row.c: the rows of s (collective: every rank calls it), the columns every row shares
 * then the family's own (c), and the family's lines after a group (collective). */
void cb_bench_report_slot(cb_bench_t *b, const group_t *g, slot_t *s);
void cb_bench_fill_row(const cb_bench_t *b, const group_t *g, const slot_t *s, const cb_row_ctx_t *c, cb_row_t *r);
void cb_bench_group_end(cb_bench_t *b, const group_t *g, const slot_t *slots, int n);

/* bench_overlap.c: after s's checks, its round trips beside a compute kernel (collective; sets
 * s->ov_state); and its roundtrip_loaded row (collective). */
void cb_bench_measure_overlap(cb_bench_t *b, const group_t *g, slot_t *s, int chunk);
void cb_bench_report_loaded(cb_bench_t *b, const group_t *g, slot_t *s, unsigned long long mem_max);

#endif
