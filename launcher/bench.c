/* Implementation of bench.h: the sweep (every group of point, dtype, op, placement, the family's
 * variants and mode) and one group from setup to teardown. The timing is bench_round.c, the
 * rows bench_row.c; what a family adds (its parameters, rows, checks and lines) comes through
 * its describer (family.h), so nothing here names a family. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_slot.h"
#include "error_gpu.h"
#include "nvtx.h"
#include "sweep_order.h"

const char *cb_bench_subject(const slot_t *s, const group_t *g, char *buf, size_t n) {
  snprintf(buf, n, "%s %s", s->algo->name, g->what);
  return buf;
}

const char *cb_bench_mode_name(int mode) { return mode == CB_MODE_GRAPH ? "graph" : "eager"; }

/* Polled MPI_Allreduce (mpi_world.h cb_mpi_wait): the watchdog's abort is taken here. */
void cb_bench_allreduce_polled(const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  MPI_Request req;
  CB_MPI(MPI_Iallreduce(in, out, count, t, op, comm, &req));
  cb_mpi_wait(&req);
}

void cb_bench_range_push(const slot_t *s, const group_t *g, const char *step) {
  const cb_params_t *p = &g->p;
  char size[32], variant[48] = "", mode[64], name[256];
  cb_nvtx_size(g->fi->nvtx_letter, p->point, size, sizeof size);
  if (g->fi->nvtx_variant) g->fi->nvtx_variant(p->config, p->variant, variant, sizeof variant);
  snprintf(mode, sizeof mode, "%s%s", cb_bench_mode_name(g->mode), variant);
  cb_nvtx_name(name, sizeof name, g->fi->name, s->algo->name, cb_dtype_name(p->dtype), size, mode, step);
  cb_nvtx_push(name);
}

static void prepare(cb_bench_t *b, group_t *g, slot_t *s) {
  const cb_params_t *p = &g->p;
  const cb_algo_t *al = s->algo;
  char why[512] = "", subj[512];
  int ok = 1;
  cb_watchdog_step(b->wd, CB_PHASE_SETUP, cb_bench_subject(s, g, subj, sizeof subj));
  if (g->fi->reduces && !(al->ops & CB_OPB(p->op))) {
    snprintf(why, sizeof why, "skipped: %s has no %s", al->name, cb_redop_name(p->op));
    ok = 0;
  } else if (!(al->dtypes & CB_DT(p->dtype))) {
    char takes[256];
    snprintf(why, sizeof why, "not supported: %s (%s takes %s)", cb_dtype_name(p->dtype), al->name,
             cb_dtype_list(al->dtypes, takes, sizeof takes));
    ok = 0;
  } else if (g->mode == CB_MODE_GRAPH && !al->graph_ok) {
    snprintf(why, sizeof why, "skipped: %s cannot be captured in a CUDA graph (host synchronization)", al->name);
    ok = 0;
  } else if (b->a->agg_iters > 1 && al->nphases > 1) {
    snprintf(why, sizeof why, "skipped: -m %d aggregates single-phase algorithms; %s has %d phases", b->a->agg_iters,
             al->name, al->nphases);
    ok = 0;
  } else if (b->a->agg_iters > 1 && g->fi->overlap && g->fi->overlap(p->config)) {
    snprintf(why, sizeof why, "skipped: -m %d does not combine with the round trips beside a compute kernel",
             b->a->agg_iters);
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
  cb_bench_range_push(s, g, "setup");
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
  /* -m: an NCCL baseline's operations go into one NCCL group, as nccl-tests does; a custom
   * algorithm's are launched back to back (its kernels and any NCCL calls between them must stay
   * in order, which a group would not keep) */
  s->agg = b->a->agg_iters;
  s->nccl_group = s->agg > 1 && strncmp(al->name, "nccl", 4) == 0 && al->graph_ok;
  int np = al->nphases;
  for (int ph = 0; ph <= np; ph++) {
    s->t[ph] = calloc((size_t)b->a->iters, sizeof(double));
    if (!s->t[ph]) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  }
}

/* After s's timed rounds: its correctness checks (a family whose outputs are bit-identical on
 * every rank also compares digests), its parts measured alone, and the round trips beside a
 * compute kernel where the family asks for them. */
static void check(cb_bench_t *b, const group_t *g, slot_t *s, int chunk) {
  const cb_args_t *a = b->a;
  cudaStream_t st = b->w->stream;
  long long wrong = 0;
  char subj[512];
  cb_watchdog_step(b->wd, CB_PHASE_CHECK, cb_bench_subject(s, g, subj, sizeof subj));
  cb_bench_range_push(s, g, "check");
  for (int c = 0; c < a->check_iters; c++)
    wrong += s->algo->check ? s->algo->check(&s->in, st, a->seed, c) : cb_check_generic(&s->in, st, a->seed, c);
  cb_wait_stream(st);
  cb_nvtx_pop();
  if (cb_fault_wrong_now(b->wd->fault, b->w->mpi.rank)) wrong++; /* CB_FAULT=wrong:RANK:check (fault.h) */
  cb_bench_allreduce_polled(&wrong, &s->wrong, 1, MPI_LONG_LONG, MPI_SUM, b->w->mpi.comm);
  int mine = wrong > 0;
  cb_bench_allreduce_polled(&mine, &s->wrong_ranks, 1, MPI_INT, MPI_SUM, b->w->mpi.comm);
  if (a->check_iters > 0 && g->fi->identical_outputs) {
    unsigned long long d = s->in.digest, dmin = 0, dmax = 0;
    cb_bench_allreduce_polled(&d, &dmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, b->w->mpi.comm);
    cb_bench_allreduce_polled(&d, &dmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, b->w->mpi.comm);
    s->digest_mismatch = dmin != dmax;
    if (s->digest_mismatch) s->wrong++;
    if (s->digest_mismatch && !s->wrong_ranks) s->wrong_ranks = 1;
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
  if (g->fi->overlap && g->fi->overlap(g->p.config)) cb_bench_measure_overlap(b, g, s, chunk);
}

static void run_group(cb_bench_t *b, group_t *g) {
  slot_t slots[CB_MAX_ALGOS];
  memset(slots, 0, sizeof slots);
  int active = 0;
  for (int k = 0; k < b->nalgos; k++) {
    slots[k].algo = b->algos[k];
    prepare(b, g, &slots[k]);
    active += slots[k].active;
  }
  int nrounds = cb_bench_rounds(b->a->iters), chunk = b->a->iters / nrounds;
  cb_bench_warm_up(b, g, slots, b->nalgos, chunk);
  /* the run's first group: one untimed round of every algorithm first (bench_round.c) */
  for (int k = 0; !b->warmed && k < b->nalgos; k++)
    if (slots[k].active) cb_bench_lead_in_round(b, g, &slots[k], chunk);
  b->warmed |= active > 0;
  for (int round = 0; round < nrounds; round++)
    for (int k = 0; k < b->nalgos; k++)
      if (slots[k].active) {
        cb_bench_range_push(&slots[k], g, "round");
        cb_bench_timed_round(b, g, &slots[k], round, nrounds, chunk);
        cb_nvtx_pop();
      }
  for (int k = 0; k < b->nalgos; k++)
    if (slots[k].active) check(b, g, &slots[k], chunk);

  cb_watchdog_step(b->wd, CB_PHASE_REDUCE, g->what);
  for (int k = 0; k < b->nalgos; k++) cb_bench_report_slot(b, g, &slots[k]);
  cb_bench_group_end(b, g, slots, b->nalgos);
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
    cb_bench_report_slot(b, g, &s);
  }
}

/* One group: the point, dtype, op, placement, variant and mode as parameters (the family's
 * plan()), run, or every row skipped with the plan's reason. */
static void group(cb_bench_t *b, int pt, int d, int o, int place, int variant, int mode) {
  const cb_args_t *a = b->a;
  group_t g;
  memset(&g, 0, sizeof g);
  g.fi = cb_family_info(a->family);
  g.mode = mode;
  g.p.family = a->family;
  g.p.dtype = a->dtypes[d];
  g.p.op = a->ops[o];
  g.p.inplace = place;
  g.p.graph = mode == CB_MODE_GRAPH;
  g.p.seed = a->seed;
  g.p.point = a->points[pt];
  g.p.variant = variant;
  g.p.config = cb_args_config_const(a);
  char why[256] = "";
  if (g.fi->plan(&g.p, b->w->mpi.nranks, cb_bench_mode_name(mode), g.what, sizeof g.what, why, sizeof why))
    skip_all(b, &g, why);
  else run_group(b, &g);
}

void cb_bench_run(cb_bench_t *b) {
  const cb_args_t *a = b->a;
  const cb_family_info_t *fi = cb_family_info(a->family);
  const void *config = cb_args_config_const(a);
  int nvariants = fi->nvariants > 0 ? fi->nvariants : 1;
  CB_CUDA(cudaMalloc(&b->sync_buf, 256));
  CB_CUDA(cudaMemset(b->sync_buf, 0, 256));
  for (int k = 0; k < b->nalgos; k++) cb_avg_busbw_name(&b->avg, b->algos[k]->name); /* each gets its line */
  /* -N: the whole sweep again; --order: which loop is outermost (sweep_order.h) */
  const int count[CB_NDIMS] = {[CB_DIM_CYCLE] = a->cycles, [CB_DIM_POINT] = a->npoints, [CB_DIM_DTYPE] = a->ndtypes,
                               [CB_DIM_OP] = a->nops,      [CB_DIM_PLACE] = 2,          [CB_DIM_VARIANT] = nvariants};
  const long long steps = cb_sweep_steps(count);
  for (long long i = 0; i < steps; i++) {
    cb_sweep_step_t st;
    cb_sweep_step(a->order, count, i, &st);
    const int place = st.at[CB_DIM_PLACE], v = st.at[CB_DIM_VARIANT];
    if (!(a->places & (place ? CB_PLACE_IN : CB_PLACE_OUT))) continue;
    if (fi->variant_on && !fi->variant_on(config, v, b->w->mpi.nranks)) continue;
    for (int mode = CB_MODE_EAGER; mode <= CB_MODE_GRAPH; mode <<= 1)
      if (a->modes & mode) group(b, st.at[CB_DIM_POINT], st.at[CB_DIM_DTYPE], st.at[CB_DIM_OP], place, v, mode);
  }
  CB_CUDA(cudaFree(b->sync_buf));
}
