/* Implementation of bench.h. */
#include "bench.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_variant.h"
#include "bench_slot.h"
#include "error_gpu.h"
#include "nvtx.h"
#include "stats.h"

/* "<algo> <group>": the subject of a watchdog step. */
static const char *subject(const slot_t *s, const group_t *g, char *buf, size_t n) {
  snprintf(buf, n, "%s %s", s->algo->name, g->what);
  return buf;
}

/* Polled MPI_Allreduce (mpi_world.h cb_mpi_wait): the watchdog's abort is taken here. */
void cb_bench_allreduce_polled(const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  MPI_Request req;
  CB_MPI(MPI_Iallreduce(in, out, count, t, op, comm, &req));
  cb_mpi_wait(&req);
}

/* The NVTX range of one step of s at g's sweep point (nvtx.h), pushed on this thread. */
static void range_push(const slot_t *s, const group_t *g, const char *step) {
  const cb_params_t *p = &g->p;
  char size[32], mode[32], name[256];
  if (p->family == CB_RINGATTN) cb_nvtx_size('S', p->seq, size, sizeof size);
  else if (p->family == CB_MOE) cb_nvtx_size('T', p->tokens, size, sizeof size);
  else cb_nvtx_size('B', p->bytes, size, sizeof size);
  snprintf(mode, sizeof mode, "%s%s", g->mode == CB_MODE_GRAPH ? "graph" : "eager",
           p->family != CB_RINGATTN ? ""
           : p->causal              ? "-causal"
                                    : "-noncausal");
  cb_nvtx_name(name, sizeof name, cb_family_name(p->family), s->algo->name, cb_dtype_name(p->dtype), size, mode, step);
  cb_nvtx_push(name);
}

int cb_bench_rounds(int iters) {
  for (int r = 4; r > 1; r--)
    if (iters % r == 0) return r;
  return 1;
}

static void prepare(cb_bench_t *b, group_t *g, slot_t *s) {
  const cb_params_t *p = &g->p;
  const cb_algo_t *al = s->algo;
  char why[512] = "", subj[512];
  int ok = 1;
  cb_watchdog_step(b->wd, CB_PHASE_SETUP, subject(s, g, subj, sizeof subj));
  if (cb_family_info(p->family)->reduces && !(al->ops & CB_OPB(p->op))) {
    snprintf(why, sizeof why, "skipped: %s has no %s", al->name, cb_redop_name(p->op));
    ok = 0;
  } else if (!(al->dtypes & CB_DT(p->dtype))) {
    snprintf(why, sizeof why, "skipped: %s does not support %s", al->name, cb_dtype_name(p->dtype));
    ok = 0;
  } else if (g->mode == CB_MODE_GRAPH && !al->graph_ok) {
    snprintf(why, sizeof why, "skipped: %s cannot be captured in a CUDA graph (host synchronization)", al->name);
    ok = 0;
  } else if (al->supported && !al->supported(b->w, p, why, sizeof why)) {
    ok = 0;
  }
  if (!cb_mpi_agree(b->w->mpi.comm, ok, why, sizeof why)) {
    snprintf(s->note, sizeof s->note, "%s", why);
    cb_watchdog_disarm(b->wd);
    return;
  }
  memset(&s->in, 0, sizeof s->in);
  s->in.algo = al;
  s->in.world = b->w;
  s->in.p = *p;
  range_push(s, g, "setup");
  int rc = al->setup(&s->in, why, sizeof why);
  CB_CUDA(cudaDeviceSynchronize());
  cb_nvtx_pop();
  /* A setup that fails frees what it made itself; one that succeeded here while another rank
   * failed is torn down. */
  int agreed = cb_mpi_agree(b->w->mpi.comm, rc == 0, why, sizeof why);
  cb_watchdog_disarm(b->wd);
  if (!agreed) {
    if (rc == 0 && al->teardown) al->teardown(&s->in);
    snprintf(s->note, sizeof s->note, "not run: %s", why);
    return;
  }
  s->active = 1;
  int np = al->nphases;
  for (int ph = 0; ph <= np; ph++) {
    s->t[ph] = calloc((size_t)b->a->iters, sizeof(double));
    if (!s->t[ph]) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  }
}

/* A 4-byte NCCL all-reduce on st: the GPUs start what follows together (after a host barrier
 * they would still be microseconds apart). */
void cb_bench_line_up(const cb_bench_t *b, cudaStream_t st) {
  CB_NCCL(ncclAllReduce(b->sync_buf, b->sync_buf, 1, ncclFloat32, ncclSum, b->w->nccl, st));
}

/* One iteration; with `record` an event after every phase (ev[ph + 1]). */
void cb_bench_run_iteration(slot_t *s, cudaStream_t st, cudaEvent_t *ev, int record, int record_external) {
  int np = s->algo->nphases;
  for (int ph = 0; ph < np; ph++) {
    s->algo->run(&s->in, ph, st);
    if (!record) continue;
    if (record_external) CB_CUDA(cudaEventRecordWithFlags(ev[ph + 1], st, cudaEventRecordExternal));
    else CB_CUDA(cudaEventRecord(ev[ph + 1], st));
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

/* Captures `chunk` iterations, with an event record node after every phase, into one graph. */
static void capture(slot_t *s, cudaStream_t st, int chunk, int per_iter) {
  cudaGraph_t graph;
  CB_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  CB_CUDA(cudaEventRecordWithFlags(s->ev[0], st, cudaEventRecordExternal));
  for (int i = 0; i < chunk; i++) cb_bench_run_iteration(s, st, s->ev + i * s->algo->nphases, per_iter, 1);
  if (!per_iter) CB_CUDA(cudaEventRecordWithFlags(s->ev[s->nev - 1], st, cudaEventRecordExternal));
  CB_CUDA(cudaStreamEndCapture(st, &graph));
  CB_CUDA(cudaGraphInstantiate(&s->graph, graph, 0));
  CB_CUDA(cudaGraphDestroy(graph));
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

static void timed_round(cb_bench_t *b, group_t *g, slot_t *s, int round, int nrounds, int chunk) {
  cudaStream_t st = b->w->stream;
  int np = s->algo->nphases;
  char what[600], subj[512];
  snprintf(what, sizeof what, "%s %d/%d", subject(s, g, subj, sizeof subj), round + 1, nrounds);
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
  if (s->graph) {
    CB_CUDA(cudaGraphLaunch(s->graph, st));
  } else {
    /* As nccl-tests: the start event goes in right before the first timed launch. (An untimed
     * lead-in iteration made NCCL's 1-8 MiB eager times 5-13% faster than nccl-tests' on the
     * same machine; without it collbench reproduces nccl-tests within 0.5% from 2 MiB up.) */
    CB_CUDA(cudaEventRecord(s->ev[0], st));
    for (int i = 0; i < chunk; i++) cb_bench_run_iteration(s, st, s->ev + i * np, per_iter, 0);
    if (!per_iter) CB_CUDA(cudaEventRecord(s->ev[s->nev - 1], st));
  }
  cb_wait_stream(st);
  cb_watchdog_disarm(b->wd);
  if (!per_iter) {
    /* one phase, round total spread evenly over its iterations */
    float ms = 0.0f;
    CB_CUDA(cudaEventElapsedTime(&ms, s->ev[0], s->ev[s->nev - 1]));
    for (int i = 0; i < chunk; i++) s->t[0][round * chunk + i] = s->t[1][round * chunk + i] = 1000.0 * ms / chunk;
    return;
  }
  for (int i = 0; i < chunk; i++) {
    int it = round * chunk + i;
    for (int ph = 0; ph < np; ph++) {
      float ms = 0.0f;
      CB_CUDA(cudaEventElapsedTime(&ms, s->ev[i * np + ph], s->ev[i * np + ph + 1]));
      s->t[ph][it] = 1000.0 * ms;
    }
    float ms = 0.0f;
    CB_CUDA(cudaEventElapsedTime(&ms, s->ev[i * np], s->ev[(i + 1) * np]));
    s->t[np][it] = 1000.0 * ms;
  }
}

void cb_bench_fill_row(cb_bench_t *b, const group_t *g, const slot_t *s, cb_row_t *r) {
  memset(r, 0, sizeof *r);
  const cb_params_t *p = &g->p;
  r->family = cb_family_name(p->family);
  r->algo = s->algo->name;
  r->dtype = cb_dtype_name(p->dtype);
  r->op = cb_redop_name(p->op);
  r->bytes = p->bytes;
  r->count = p->count;
  r->inplace = p->inplace;
  r->ranks = b->w->mpi.nranks;
  r->nodes = b->w->mpi.nnodes;
  r->gpu = b->w->gpu_name;
  r->mode = g->mode == CB_MODE_GRAPH ? "graph" : "eager";
  r->iters = b->a->iters;
  r->wrong = -1;
  if (p->family == CB_MOE) {
    r->is_moe = 1;
    r->model = p->moe->model;
    r->routing = g->routing;
    r->tokens = p->tokens;
    r->hidden = p->moe->hidden;
    r->topk = p->moe->topk;
    r->experts = p->moe->experts;
    r->phase = "roundtrip";
  }
  if (p->family == CB_RINGATTN) {
    r->is_attn = 1;
    r->seq = p->seq;
    r->batch = p->attn->batch;
    r->heads = p->attn->heads;
    r->kv_heads = p->attn->kv_heads;
    r->head_dim = p->attn->head_dim;
    r->causal = p->causal;
    r->pass = cb_attn_pass_name(p->attn->pass);
  }
}

/* ringattn: what check and measure left in the instance, the max over ranks (the mean error
 * averaged), as the row reports it. Collective: every rank calls it. */
typedef struct attn_metrics {
  double err_max, err_mean, compute_us, comm_us, tflops, overlap_eff, ring_over_single;
} attn_metrics_t;

static attn_metrics_t attn_metrics(cb_bench_t *b, const slot_t *s, double time_us) {
  const cb_inst_t *in = &s->in;
  double mx[4] = {in->err_max, in->compute_us, in->comm_us, in->local_us}, mx_all[4];
  double mean = in->err_mean, mean_all = 0.0;
  cb_bench_allreduce_polled(mx, mx_all, 4, MPI_DOUBLE, MPI_MAX, b->w->mpi.comm);
  cb_bench_allreduce_polled(&mean, &mean_all, 1, MPI_DOUBLE, MPI_SUM, b->w->mpi.comm);
  attn_metrics_t m;
  m.err_max = b->a->check_iters > 0 ? mx_all[0] : NAN;
  m.err_mean = b->a->check_iters > 0 ? mean_all / b->w->mpi.nranks : NAN;
  m.compute_us = mx_all[1] > 0 ? mx_all[1] : NAN;
  m.comm_us = mx_all[2] > 0 ? mx_all[2] : NAN;
  m.tflops = in->flops / time_us / 1e6;
  m.overlap_eff = mx_all[1] > 0 ? mx_all[1] / time_us : NAN;
  m.ring_over_single = mx_all[3] > 0 ? time_us / (b->w->mpi.nranks * mx_all[3]) : NAN;
  return m;
}

static void report_slot(cb_bench_t *b, const group_t *g, slot_t *s) {
  cb_row_t r;
  if (!s->active) {
    if (b->rep) {
      cb_bench_fill_row(b, g, s, &r);
      snprintf(r.note, sizeof r.note, "%s", s->note);
      cb_report_row(b->rep, &r);
    }
    b->rows++;
    b->rows_skipped++;
    return;
  }
  int np = s->algo->nphases;
  unsigned long long mem = s->in.mem_bytes, mem_max = 0;
  cb_bench_allreduce_polled(&mem, &mem_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, b->w->mpi.comm);
  /* Phases first, then the round trip (only the round trip when there is one phase). */
  for (int ph = np > 1 ? 0 : 1; ph <= np; ph++) {
    cb_stats_t st;
    cb_aggregate_times(&b->w->mpi, s->t[ph], b->a->iters, &st);
    cb_bytes_t by = {0};
    if (s->algo->bytes) s->algo->bytes(&s->in, ph, &by);
    else cb_bytes_default(&s->in, ph, &by);
    attn_metrics_t am = {0};
    if (g->p.family == CB_RINGATTN) am = attn_metrics(b, s, st.mean_us);
    if (!b->rep) continue;
    cb_bench_fill_row(b, g, s, &r);
    r.timed = 1;
    r.time_us_mean = st.mean_us;
    r.time_us_max = st.max_us;
    r.time_us_p50 = st.p50_us;
    r.time_us_p99 = st.p99_us;
    r.algbw_gbs = by.algbw_bytes / st.mean_us / 1e3;
    r.busbw_gbs = r.algbw_gbs * by.busbw_factor;
    r.remote_gbs = by.remote_bytes / st.mean_us / 1e3;
    s->remote_gbs[ph] = r.remote_gbs;
    r.imbalance = s->in.imbalance;
    r.mem_bytes = mem_max;
    r.sms = s->in.sms; /* grids are agreed across ranks (world.grid_sms): rank 0's stands for all */
    if (g->p.family == CB_RINGATTN) {
      r.err_max = am.err_max;
      r.err_mean = am.err_mean;
      r.compute_us = am.compute_us;
      r.comm_us = am.comm_us;
      r.tflops = am.tflops;
      r.overlap_eff = am.overlap_eff;
      r.ring_over_single = am.ring_over_single;
    }
    if (g->p.family == CB_MOE) {
      r.phase = ph == np ? "roundtrip" : s->algo->phase_names[ph];
      r.net_bytes = by.link_bytes ? by.net_bytes : NAN;
      r.nvlink_bytes = by.link_bytes ? by.nvlink_bytes : NAN;
      r.bytes = (uint64_t)by.algbw_bytes;
    }
    r.wrong = b->a->check_iters > 0 ? s->wrong : -1;
    snprintf(r.note, sizeof r.note, "%s%s%s", s->in.note, s->in.note[0] && s->digest_mismatch ? "; " : "",
             s->digest_mismatch ? "outputs differ across ranks" : "");
    cb_report_row(b->rep, &r);
  }
  b->rows++;
  if (s->ov_state) cb_bench_report_loaded(b, g, s, mem_max);
}

/* moe: each custom algorithm's remote GB/s per phase against copy_ce's (the copy engine's peer
 * copy of the same bytes, measured in the same run), one comment line per algorithm. */
static void moe_copy_ratio(cb_bench_t *b, const group_t *g, const slot_t *slots, int n) {
  if (g->p.family != CB_MOE || b->w->mpi.rank != 0) return;
  const slot_t *ref = NULL;
  for (int k = 0; k < n; k++)
    if (slots[k].active && strcmp(slots[k].algo->name, "copy_ce") == 0) ref = &slots[k];
  if (!ref) return;
  for (int k = 0; k < n; k++) {
    const slot_t *s = &slots[k];
    if (!s->active || s == ref || s->algo->nphases != 3) continue;
    /* copy_ce's phases: 0 dispatch, 1 combine; the MoE algorithms': 1 dispatch, 2 combine. No
     * byte crossing (0 tokens, every selection local): no ratio to print. */
    if (!(ref->remote_gbs[0] > 0.0) || !(ref->remote_gbs[1] > 0.0)) continue;
    printf("# copy_ce reference %s %s: dispatch %.1f of %.1f GB/s (%.0f %%), combine %.1f of %.1f GB/s (%.0f %%)\n",
           s->algo->name, g->what, s->remote_gbs[1], ref->remote_gbs[0], 100.0 * s->remote_gbs[1] / ref->remote_gbs[0],
           s->remote_gbs[2], ref->remote_gbs[1], 100.0 * s->remote_gbs[2] / ref->remote_gbs[1]);
  }
  fflush(stdout);
}

static void validate_verdicts(cb_bench_t *b, const group_t *g, slot_t *slots, int n) {
  if (g->p.family != CB_MOE || !g->p.moe->validate) return;
  for (int k = 0; k < n; k++) {
    slot_t *s = &slots[k];
    if (!s->active) {
      if (b->w->mpi.rank == 0) printf("# VALIDATE %-12s %s: SKIPPED (%s)\n", s->algo->name, g->what, s->note);
      continue;
    }
    int np = s->algo->nphases;
    cb_stats_t st;
    cb_aggregate_times(&b->w->mpi, s->t[np], b->a->iters, &st);
    int pass = s->wrong == 0 && !s->digest_mismatch && b->a->check_iters > 0;
    if (!pass) b->validate_failures++;
    if (b->w->mpi.rank == 0)
      printf("# VALIDATE %-12s %s: %s (%lld wrong over %d check iterations); dispatch+combine per MoE layer: "
             "%.1f us mean, %.1f us p99\n",
             s->algo->name, g->what, pass ? "PASS" : "FAIL", s->wrong, b->a->check_iters, st.mean_us, st.p99_us);
  }
  fflush(stdout);
}

static void run_group(cb_bench_t *b, group_t *g) {
  const cb_args_t *a = b->a;
  cudaStream_t st = b->w->stream;
  slot_t slots[CB_MAX_ALGOS];
  memset(slots, 0, sizeof slots);
  for (int k = 0; k < b->nalgos; k++) {
    slots[k].algo = b->algos[k];
    prepare(b, g, &slots[k]);
  }
  int nrounds = cb_bench_rounds(a->iters), chunk = a->iters / nrounds;

  for (int k = 0; k < b->nalgos; k++) {
    slot_t *s = &slots[k];
    if (!s->active) continue;
    char subj[512];
    cb_watchdog_step(b->wd, CB_PHASE_WARMUP, subject(s, g, subj, sizeof subj));
    for (int i = 0; i < a->warmup; i++)
      for (int ph = 0; ph < s->algo->nphases; ph++) s->algo->run(&s->in, ph, st);
    cb_wait_stream(st);
    cb_watchdog_disarm(b->wd);
    make_events(s, chunk);
    if (g->mode == CB_MODE_GRAPH) capture(s, st, chunk, iter_events(b, s));
  }
  for (int round = 0; round < nrounds; round++)
    for (int k = 0; k < b->nalgos; k++)
      if (slots[k].active) {
        range_push(&slots[k], g, "round");
        timed_round(b, g, &slots[k], round, nrounds, chunk);
        cb_nvtx_pop();
      }

  for (int k = 0; k < b->nalgos; k++) {
    slot_t *s = &slots[k];
    if (!s->active) continue;
    long long wrong = 0;
    char subj[512];
    cb_watchdog_step(b->wd, CB_PHASE_CHECK, subject(s, g, subj, sizeof subj));
    range_push(s, g, "check");
    for (int c = 0; c < a->check_iters; c++)
      wrong += s->algo->check ? s->algo->check(&s->in, st, a->seed, c) : cb_check_generic(&s->in, st, a->seed, c);
    cb_wait_stream(st);
    cb_nvtx_pop();
    cb_bench_allreduce_polled(&wrong, &s->wrong, 1, MPI_LONG_LONG, MPI_SUM, b->w->mpi.comm);
    if (a->check_iters > 0 && g->p.family == CB_ALLREDUCE) {
      /* all-reduce promises the same bits on every rank */
      unsigned long long d = s->in.digest, dmin = 0, dmax = 0;
      cb_bench_allreduce_polled(&d, &dmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, b->w->mpi.comm);
      cb_bench_allreduce_polled(&d, &dmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, b->w->mpi.comm);
      s->digest_mismatch = dmin != dmax;
      if (s->digest_mismatch) s->wrong++;
    }
    cb_watchdog_disarm(b->wd);
    b->wrong_total += s->wrong;
    if (s->algo->measure) {
      cb_watchdog_arm(b->wd, "%s %s: measuring parts alone", s->algo->name, g->what);
      cb_mpi_barrier(b->w->mpi.comm);
      s->algo->measure(&s->in, st);
      cb_wait_stream(st);
      cb_watchdog_disarm(b->wd);
    }
    if (g->p.family == CB_MOE && g->p.moe->overlap) cb_bench_measure_overlap(b, g, s, chunk);
  }

  cb_watchdog_step(b->wd, CB_PHASE_REDUCE, g->what);
  for (int k = 0; k < b->nalgos; k++) report_slot(b, g, &slots[k]);
  validate_verdicts(b, g, slots, b->nalgos);
  moe_copy_ratio(b, g, slots, b->nalgos);
  cb_watchdog_disarm(b->wd);

  /* Teardown only once every rank is done: peers may still read this rank's memory. */
  cb_watchdog_step(b->wd, CB_PHASE_TEARDOWN, g->what);
  CB_CUDA(cudaDeviceSynchronize());
  cb_mpi_barrier(b->w->mpi.comm);
  for (int k = 0; k < b->nalgos; k++) {
    slot_t *s = &slots[k];
    if (!s->active) continue;
    if (s->graph) CB_CUDA(cudaGraphExecDestroy(s->graph));
    for (int i = 0; i < s->nev; i++) CB_CUDA(cudaEventDestroy(s->ev[i]));
    free(s->ev);
    for (int ph = 0; ph <= s->algo->nphases; ph++) free(s->t[ph]);
    if (s->algo->teardown) s->algo->teardown(&s->in);
  }
  CB_CUDA(cudaDeviceSynchronize());
  cb_mpi_barrier(b->w->mpi.comm);
  cb_watchdog_disarm(b->wd);
}

static void skip_all(cb_bench_t *b, group_t *g, const char *why) {
  for (int k = 0; k < b->nalgos; k++) {
    slot_t s;
    memset(&s, 0, sizeof s);
    s.algo = b->algos[k];
    snprintf(s.note, sizeof s.note, "skipped: %s", why);
    report_slot(b, g, &s);
  }
}

void cb_bench_run(cb_bench_t *b) {
  const cb_args_t *a = b->a;
  CB_CUDA(cudaMalloc(&b->sync_buf, 256));
  CB_CUDA(cudaMemset(b->sync_buf, 0, 256));
  int n = b->w->mpi.nranks;
  for (int pt = 0; pt < a->npoints; pt++)
    for (int d = 0; d < a->ndtypes; d++)
      for (int o = 0; o < a->nops; o++)
        for (int place = 0; place < 2; place++) {
          if (!(a->places & (place ? CB_PLACE_IN : CB_PLACE_OUT))) continue;
          for (int cz = 0; cz < CB_ATTN_NVARIANTS; cz++)
            for (int mode = CB_MODE_EAGER; mode <= CB_MODE_GRAPH; mode <<= 1) {
              if (!(a->modes & mode)) continue;
              /* cz: ringattn's variant (attn_variant.h: causal, layout, Ulysses degree); other families run once */
              if (a->family == CB_RINGATTN ? !cb_attn_variant_on(&a->attn, cz, n) : cz) continue;
              group_t g;
              memset(&g, 0, sizeof g);
              g.mode = mode;
              g.p.family = a->family;
              g.p.dtype = a->dtypes[d];
              g.p.op = a->ops[o];
              g.p.inplace = place;
              g.p.graph = mode == CB_MODE_GRAPH;
              g.p.seed = a->seed;
              g.p.moe = &a->moe;
              char why[256] = "";
              int ok = 1;
              if (a->family == CB_RINGATTN) {
                char form[64];
                g.p.seq = a->points[pt];
                g.p.causal = cb_attn_variant(cz).causal;
                g.p.variant = cz;
                g.p.attn = &a->attn;
                g.p.count = g.p.seq;
                cb_attn_variant_text(cz, form, sizeof form);
                snprintf(g.what, sizeof g.what, "ringattn %s S=%llu %s %s %s %s", cb_dtype_name(g.p.dtype),
                         (unsigned long long)g.p.seq, g.p.causal ? "causal" : "non-causal", form,
                         mode == CB_MODE_GRAPH ? "graph" : "eager", cb_attn_pass_name(a->attn.pass));
                ok = cb_attn_variant_check(cz, g.p.seq, n, why, sizeof why) == 0;
                if (ok) g.p.bytes = cb_attn_pass_bytes(&a->attn, g.p.seq, n, cb_dtype_size(g.p.dtype), a->attn.pass);
              } else if (a->family == CB_MOE) {
                g.p.tokens = a->points[pt];
                g.p.count = a->points[pt];
                cb_routing_format(&a->moe.routing, g.routing, sizeof g.routing);
                snprintf(g.what, sizeof g.what, "moe %s %s %llu tokens/rank %s %s", a->moe.model,
                         cb_dtype_name(g.p.dtype), (unsigned long long)g.p.tokens, g.routing,
                         mode == CB_MODE_GRAPH ? "graph" : "eager");
                ok = cb_moe_config_check(&a->moe, n, g.p.dtype, why, sizeof why) == 0;
              } else {
                g.p.bytes = a->points[pt];
                snprintf(g.what, sizeof g.what, "%s %s %s %llu B %s %s", cb_family_name(a->family),
                         cb_dtype_name(g.p.dtype), cb_redop_name(g.p.op), (unsigned long long)g.p.bytes,
                         place ? "in-place" : "out-of-place", mode == CB_MODE_GRAPH ? "graph" : "eager");
                ok = cb_family_count(a->family, g.p.bytes, cb_dtype_size(g.p.dtype), n, &g.p.elements, &g.p.count, why,
                                     sizeof why) == 0;
              }
              if (!ok) skip_all(b, &g, why);
              else run_group(b, &g);
            }
        }
  CB_CUDA(cudaFree(b->sync_buf));
}
