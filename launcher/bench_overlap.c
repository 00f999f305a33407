/* The round trips beside a compute kernel inside the bench engine (bench_slot.h), for a family
 * that asks for them (family.h overlap(): moe --overlap): the calls launcher/overlap.c makes on
 * an algorithm's slot, when and on how many SMs it runs, and the row it adds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_slot.h"
#include "error_gpu.h"
#include "stats.h"

/* The calls overlap.c makes on a slot (overlap.h cb_overlap_ops_t). */
typedef struct overlap_ctx {
  cb_bench_t *b;
  slot_t *s;
  int chunk;
  int check; /* the check iteration to run next (seeds after the regular checks') */
} overlap_ctx_t;

/* `chunk` round trips: the captured graph, or eager launches */
static void overlap_launch(void *ctx, cudaStream_t st) {
  overlap_ctx_t *c = ctx;
  if (c->s->graph) CB_CUDA(cudaGraphLaunch(c->s->graph, st));
  else
    for (int i = 0; i < c->chunk; i++) cb_bench_run_iteration(c->s, st, NULL, 0, 0);
}

/* as before a timed round: a host barrier, then the GPUs lined up */
static void overlap_lineup(void *ctx, cudaStream_t st) {
  overlap_ctx_t *c = ctx;
  cb_mpi_barrier(c->b->w->mpi.comm);
  cb_bench_line_up(c->b, st);
}

static long long overlap_check(void *ctx, cudaStream_t st) {
  overlap_ctx_t *c = ctx;
  const cb_bench_t *b = c->b;
  int iter = b->a->check_iters + c->check++;
  long long wrong = c->s->algo->check ? c->s->algo->check(&c->s->in, st, b->a->seed, iter)
                                      : cb_check_generic(&c->s->in, st, b->a->seed, iter);
  cb_wait_stream(st);
  return wrong;
}

/* The round trip beside a compute kernel on the SMs the algorithm leaves free: the GPU's SMs
 * minus its own, all of them beside the copy engine, and beside algorithms that do not report
 * theirs (NCCL) what the --sms cap leaves. NCCL does not obey the cap: where it launches more
 * blocks than the SMs left, the rest wait for the compute kernel (the row's note says so). */
void cb_bench_measure_overlap(cb_bench_t *b, const group_t *g, slot_t *s, int chunk) {
  const cb_world_t *w = b->w;
  cb_watchdog_arm(b->wd, "%s %s: round trips beside a compute kernel (--overlap)", s->algo->name, g->what);
  cb_stats_t alone;
  cb_aggregate_times(&w->mpi, s->t[s->algo->nphases], b->a->iters, &alone);
  int comm_sms = s->in.sms > 0 ? s->in.sms : s->in.sms < 0 ? 0 : w->grid_sms;
  /* every rank runs the round trips or none does: agree on the SMs left first */
  int left = w->sm_count - comm_sms, left_min = 0;
  cb_bench_allreduce_polled(&left, &left_min, 1, MPI_INT, MPI_MIN, w->mpi.comm);
  s->ov_state = -1;
  if (w->gpu_shared)
    snprintf(s->ov_why, sizeof s->ov_why,
             "ranks share a GPU (virtual nodes or CB_SHARE_GPUS=1): each one's compute kernel would take "
             "the SMs the other's communication needs");
  else if (left_min < 1)
    snprintf(s->ov_why, sizeof s->ov_why,
             "no SM left for the compute kernel beside %s on %d SMs (cap the SMs with --sms)", s->algo->name, comm_sms);
  else {
    overlap_ctx_t ctx = {b, s, chunk, 0};
    cb_overlap_ops_t ops = {&ctx, overlap_lineup, overlap_launch, b->a->check_iters > 0 ? overlap_check : NULL};
    if (cb_overlap_measure(w->sm_count, comm_sms, alone.mean_us, chunk, w->stream, &ops, &s->ov, s->ov_why,
                           sizeof s->ov_why))
      CB_DIE(CB_EXIT_RUNTIME, "--overlap: %s", s->ov_why); /* not reached: the SMs left were agreed above */
    s->ov_state = 1;
  }
  cb_watchdog_disarm(b->wd);
}

/* The row of the round trip beside a compute kernel (collective: every rank calls it). Times are
 * the slowest rank's, beside and alone (overlap.h), and the slowdowns their ratios; the family
 * fills its columns as for the round trip's row (family.h row(), loaded). */
void cb_bench_report_loaded(cb_bench_t *b, const group_t *g, slot_t *s, unsigned long long mem_max) {
  const int np = s->algo->nphases;
  double mine[4] = {s->ov.comm_loaded_us, s->ov.compute_alone_us, s->ov.compute_loaded_us, s->ov.comm_alone_us};
  double mx[4] = {0, 0, 0, 0};
  cb_bench_allreduce_polled(mine, mx, 4, MPI_DOUBLE, MPI_MAX, b->w->mpi.comm);
  long long wrong = 0, mine_wrong = s->ov_state > 0 && s->ov.wrong > 0 ? s->ov.wrong : 0;
  cb_bench_allreduce_polled(&mine_wrong, &wrong, 1, MPI_LONG_LONG, MPI_SUM, b->w->mpi.comm);
  b->wrong_total += wrong;
  b->rows++;
  if (!b->rep) return;
  cb_bytes_t by = {0};
  if (s->algo->bytes) s->algo->bytes(&s->in, np, &by);
  else cb_bytes_default(&s->in, np, &by);
  /* a skipped row too names the round trip it stands beside (its bytes) */
  cb_row_ctx_t c = {.p = &g->p,
                    .nranks = b->w->mpi.nranks,
                    .timed = s->ov_state > 0,
                    .loaded = 1,
                    .checked = b->a->check_iters > 0,
                    .phase = np,
                    .nphases = np,
                    .bytes = &by,
                    .time_us = mx[0],
                    .metrics = s->metric};
  cb_row_t r;
  cb_bench_fill_row(b, g, s, &c, &r);
  r.sms = s->in.sms;
  r.mem_bytes = mem_max;
  if (s->ov_state < 0) {
    snprintf(r.note, sizeof r.note, "skipped: %s", s->ov_why);
    b->rows_skipped++;
    cb_report_row(b->rep, &r);
    return;
  }
  r.time_us_mean = r.time_us_max = mx[0];
  r.time_us_p50 = r.time_us_p99 = NAN; /* one timing of a round's iterations per run: no per-iteration spread */
  r.algbw_gbs = by.algbw_bytes / mx[0] / 1e3;
  r.busbw_gbs = r.algbw_gbs * by.busbw_factor;
  r.iters = CB_OVERLAP_RUNS * r.iters / cb_bench_rounds(r.iters); /* runs of one round's iterations */
  r.wrong = b->a->check_iters > 0 ? wrong : -1;
  r.slowdown_comm = mx[0] / mx[3];
  r.slowdown_compute = mx[2] / mx[1];
  snprintf(r.note, sizeof r.note,
           "beside a compute kernel on %d SMs: round trip %.1f us alone (timed the same way); the kernel %.1f us "
           "alone, %.1f beside%s%s",
           s->ov.busy_sms, mx[3], mx[1], mx[2], b->a->check_iters > 0 ? "; checked beside it once" : "",
           s->in.sms == 0 ? "; NCCL is not held to the SMs left: blocks beyond them wait for the kernel" : "");
  cb_report_row(b->rep, &r);
}
