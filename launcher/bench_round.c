/* The bench engine's timing (bench_slot.h): the warm-up, the events and CUDA graphs of a slot,
 * and its rounds of iterations: timed, or the untimed lead-in round of the run's first group.
 *
 * A timed round: a host barrier, the GPUs lined up by a 4-byte NCCL all-reduce, then `chunk`
 * iterations between CUDA events (eager launches, or the rounds captured in a graph), waited
 * for. Each iteration's time is the slowest rank's, so whatever one rank still does after the
 * line-up lands in every rank's round. The warm-up iterations run the algorithm alone; the
 * first timed round of a run is also the first time of: the line-up all-reduce (unless an NCCL
 * all-reduce was warmed up, the run's first: NCCL connects its all-reduce channels and loads
 * that kernel on first use), the host barrier, the events' first records and the algorithms'
 * interleaving. A reference run showed it (h200x2/alltoall nccl float eager 8 B: mean 34.3 us,
 * p50 9.2 us: one round of four ~10 times slower). So the run's first group runs one whole
 * untimed round of every algorithm, exactly as a timed one, before its timed rounds; later
 * groups follow timed rounds already. And a graph is uploaded when it is made (cudaGraphUpload):
 * its first launch would otherwise upload it after the line-up, on each rank at its own pace. */
#include <stdlib.h>
#include <string.h>

#include "bench_slot.h"
#include "error_gpu.h"

int cb_bench_rounds(int iters) {
  for (int r = 4; r > 1; r--)
    if (iters % r == 0) return r;
  return 1;
}

/* A 4-byte NCCL all-reduce on st: the GPUs start what follows together (after a host barrier
 * they would still be microseconds apart). */
void cb_bench_line_up(const cb_bench_t *b, cudaStream_t st) {
  CB_NCCL(ncclAllReduce(b->sync_buf, b->sync_buf, 1, ncclFloat32, ncclSum, b->w->nccl, st));
}

static void record_event(cudaEvent_t e, cudaStream_t st, int external) {
  if (external) CB_CUDA(cudaEventRecordWithFlags(e, st, cudaEventRecordExternal));
  else CB_CUDA(cudaEventRecord(e, st));
}

/* One iteration; with `record` an event after every phase (ev[ph + 1]). With -m N (s->agg > 1,
 * single-phase algorithms only: bench.c) the iteration is N operations, in one NCCL group for
 * an NCCL baseline, and its one event follows the last. */
void cb_bench_run_iteration(slot_t *s, cudaStream_t st, cudaEvent_t *ev, int record, int record_external) {
  if (s->agg > 1) {
    if (s->nccl_group) CB_NCCL(ncclGroupStart());
    for (int k = 0; k < s->agg; k++) s->algo->run(&s->in, 0, st);
    if (s->nccl_group) CB_NCCL(ncclGroupEnd());
    if (record) record_event(ev[1], st, record_external);
    return;
  }
  int np = s->algo->nphases;
  for (int ph = 0; ph < np; ph++) {
    s->algo->run(&s->in, ph, st);
    if (record) record_event(ev[ph + 1], st, record_external);
  }
}

/* Per-iteration events unless --timing round, which a single-phase algorithm honours (phase
 * times need their events). */
static int iter_events(const cb_bench_t *b, const slot_t *s) { return b->a->iter_timing || s->algo->nphases > 1; }

static void make_events(slot_t *s, int chunk) {
  s->nev = chunk * s->algo->nphases + 1;
  s->ev = calloc((size_t)s->nev, sizeof(cudaEvent_t));
  if (!s->ev) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  for (int i = 0; i < s->nev; i++) CB_CUDA(cudaEventCreate(&s->ev[i]));
}

/* Round timing of a graph launched -G N > 1 times: the round's two events go around the N
 * launches, outside the graph (inside, each launch would record them again). */
static int events_outside(const cb_bench_t *b, const slot_t *s, int per_iter) {
  return s->graph && !per_iter && b->a->graph_launches > 1;
}

/* Captures `chunk` iterations, with an event record node after every phase, into one graph,
 * and uploads it (its first launch would otherwise upload it, inside a timed round). */
static void capture(slot_t *s, cudaStream_t st, int chunk, int per_iter, int launches) {
  cudaGraph_t graph;
  int ends = per_iter || launches == 1; /* the round's events inside the graph */
  CB_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  if (ends) CB_CUDA(cudaEventRecordWithFlags(s->ev[0], st, cudaEventRecordExternal));
  for (int i = 0; i < chunk; i++) cb_bench_run_iteration(s, st, s->ev + i * s->algo->nphases, per_iter, 1);
  if (ends && !per_iter) CB_CUDA(cudaEventRecordWithFlags(s->ev[s->nev - 1], st, cudaEventRecordExternal));
  CB_CUDA(cudaStreamEndCapture(st, &graph));
  CB_CUDA(cudaGraphInstantiate(&s->graph, graph, 0));
  CB_CUDA(cudaGraphDestroy(graph));
  CB_CUDA(cudaGraphUpload(s->graph, st));
}

void cb_bench_warm_up(cb_bench_t *b, const group_t *g, slot_t *slots, int n, int chunk) {
  cudaStream_t st = b->w->stream;
  for (int k = 0; k < n; k++) {
    slot_t *s = &slots[k];
    if (!s->active) continue;
    char subj[512];
    cb_watchdog_step(b->wd, CB_PHASE_WARMUP, cb_bench_subject(s, g, subj, sizeof subj));
    for (int i = 0; i < b->a->warmup; i++)
      for (int ph = 0; ph < s->algo->nphases; ph++) s->algo->run(&s->in, ph, st);
    make_events(s, chunk);
    if (g->mode == CB_MODE_GRAPH) capture(s, st, chunk, iter_events(b, s), b->a->graph_launches);
    cb_wait_stream(st);
    cb_watchdog_disarm(b->wd);
  }
}

/* CB_FAULT (fault.h) inside a timed round: 1 when this rank must leave the round's launches
 * out, so its peers sit in their kernels. where = CB_PHASE_NCCL (before the round's first NCCL
 * call, NCCL algorithms only: acts, i.e. stalls, stops or exits, first) or CB_PHASE_KERNEL
 * (after the NCCL line-up, custom algorithms only: the peers' device barriers never complete). */
static int fault_skips_round(cb_bench_t *b, const slot_t *s, cb_phase_t where, const char *what) {
  int is_nccl = strncmp(s->algo->name, "nccl", 4) == 0;
  cb_fault_t *f = b->wd->fault;
  if (!f || f->action == CB_FAULT_NONE || is_nccl != (where == CB_PHASE_NCCL)) return 0;
  if (!cb_fault_due(f, b->w->mpi.rank, where)) return 0;
  if (where == CB_PHASE_NCCL) {
    /* this rank's host stops calling NCCL while its peers are inside their collective */
    cb_watchdog_disarm(b->wd);
    cb_fault_act(f, what);
    return 1;
  }
  CB_WARN("CB_FAULT: rank %d leaves out its custom kernels at %s: its peers' device barriers never complete "
          "(test fault injection)",
          b->w->mpi.rank, what);
  return 1;
}

/* The round's iterations between its events, after the line-up, waited for: the graph
 * (launched `launches` times, -G N, its events around them when events_outside()), or eager
 * launches, with -z 1 the stream waited for and the ranks lined up (a host barrier) after every
 * iteration, as nccl-tests' -z 1: the round's time then includes those waits. */
static void run_round(const cb_bench_t *b, slot_t *s, cudaStream_t st, int chunk, int per_iter, int launches) {
  if (s->graph) {
    int outside = events_outside(b, s, per_iter);
    if (outside) CB_CUDA(cudaEventRecord(s->ev[0], st));
    for (int l = 0; l < launches; l++) CB_CUDA(cudaGraphLaunch(s->graph, st));
    if (outside) CB_CUDA(cudaEventRecord(s->ev[s->nev - 1], st));
  } else {
    /* As nccl-tests: the start event goes in right before the first timed launch. (An untimed
     * lead-in iteration made NCCL's 1-8 MiB eager times 5-13% faster than nccl-tests' on the
     * same machine; without it collbench reproduces nccl-tests within 0.5% from 2 MiB up.) */
    CB_CUDA(cudaEventRecord(s->ev[0], st));
    for (int i = 0; i < chunk; i++) {
      cb_bench_run_iteration(s, st, s->ev + i * s->algo->nphases, per_iter, 0);
      if (b->a->blocking) {
        cb_wait_stream(st);
        cb_mpi_barrier(b->w->mpi.comm);
      }
    }
    if (!per_iter) CB_CUDA(cudaEventRecord(s->ev[s->nev - 1], st));
  }
  cb_wait_stream(st);
}

void cb_bench_lead_in_round(cb_bench_t *b, const group_t *g, slot_t *s, int chunk) {
  char subj[512];
  /* armed, not a step: CB_FAULT's points count the warm-ups and timed rounds as before */
  cb_watchdog_arm(b->wd, "%s: warm-up (an untimed round, the run's first)", cb_bench_subject(s, g, subj, sizeof subj));
  cb_mpi_barrier(b->w->mpi.comm);
  cb_bench_line_up(b, b->w->stream);
  int per_iter = iter_events(b, s);
  run_round(b, s, b->w->stream, chunk, per_iter, per_iter ? 1 : b->a->graph_launches);
  cb_watchdog_disarm(b->wd);
}

void cb_bench_timed_round(cb_bench_t *b, const group_t *g, slot_t *s, int round, int nrounds, int chunk) {
  cudaStream_t st = b->w->stream;
  int np = s->algo->nphases;
  char what[600], subj[512];
  snprintf(what, sizeof what, "%s %d/%d", cb_bench_subject(s, g, subj, sizeof subj), round + 1, nrounds);
  cb_watchdog_step(b->wd, CB_PHASE_ROUND, what);
  cb_mpi_barrier(b->w->mpi.comm);
  /* (a faulted rank leaves its launches out; its peers' watchdogs or device timeouts end the job) */
  int skip = fault_skips_round(b, s, CB_PHASE_NCCL, b->wd->what);
  /* Line the GPUs up (a 4-byte NCCL all-reduce) so the round does not start with one rank's
   * kernel waiting for a peer whose host was late: the host barrier alone leaves microseconds
   * of skew. */
  if (!skip) cb_bench_line_up(b, st);
  if (skip || fault_skips_round(b, s, CB_PHASE_KERNEL, b->wd->what)) {
    cb_wait_stream(st);
    cb_watchdog_disarm(b->wd);
    return;
  }
  int per_iter = iter_events(b, s);
  /* -G N with per-iteration events: the graph's events hold one launch's times, so each launch
   * is waited for and its times added up; every time is then per launch and per operation (-m) */
  int launches = s->graph ? b->a->graph_launches : 1, runs = per_iter ? launches : 1;
  double per_op = 1.0 / ((double)launches * s->agg);
  for (int r = 0; r < runs; r++) {
    run_round(b, s, st, chunk, per_iter, per_iter ? 1 : launches);
    if (!per_iter) {
      /* one phase, round total spread evenly over its iterations */
      float ms = 0.0f;
      CB_CUDA(cudaEventElapsedTime(&ms, s->ev[0], s->ev[s->nev - 1]));
      for (int i = 0; i < chunk; i++)
        s->t[0][round * chunk + i] = s->t[1][round * chunk + i] = 1000.0 * ms / chunk * per_op;
      continue;
    }
    for (int i = 0; i < chunk; i++) {
      int it = round * chunk + i;
      for (int ph = 0; ph <= np; ph++) {
        float ms = 0.0f;
        if (ph < np) CB_CUDA(cudaEventElapsedTime(&ms, s->ev[i * np + ph], s->ev[i * np + ph + 1]));
        else CB_CUDA(cudaEventElapsedTime(&ms, s->ev[i * np], s->ev[(i + 1) * np]));
        s->t[ph][it] = (r ? s->t[ph][it] : 0.0) + 1000.0 * ms * per_op;
      }
    }
  }
  cb_watchdog_disarm(b->wd);
}
