/* The bench engine's results (bench_slot.h): a slot's rows, one per phase and the round trip,
 * the columns every row shares filled here and the family's own by its describer (family.h
 * row()), the family's metrics combined over ranks as it declares, and its lines after a group
 * (family.h group_end()). Every function here is collective: the aggregations are MPI
 * reductions, and only rank 0 has a report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_slot.h"
#include "error_gpu.h"
#include "report_ncclt_json.h"
#include "stats.h"

void cb_bench_fill_row(const cb_bench_t *b, const group_t *g, const slot_t *s, const cb_row_ctx_t *c, cb_row_t *r) {
  memset(r, 0, sizeof *r);
  const cb_params_t *p = &g->p;
  r->family = g->fi->name;
  r->algo = s->algo->name;
  r->dtype = cb_dtype_name(p->dtype);
  r->op = cb_redop_name(p->op);
  r->bytes = p->bytes;
  r->count = p->count;
  r->inplace = p->inplace;
  r->ranks = b->w->mpi.nranks;
  r->nodes = b->w->mpi.nnodes;
  r->gpu = b->w->gpu_name;
  r->mode = cb_bench_mode_name(g->mode);
  r->iters = b->a->iters;
  r->wrong = -1;
  r->groups = g->fi->columns;
  r->table = g->fi->table;
  r->timed = c->timed;
  r->loaded = c->loaded;
  if (g->fi->row) g->fi->row(c, r);
}

/* The family's metrics of s over ranks (family.h cb_metric_t) into s->metric. */
static void combine_metrics(cb_bench_t *b, const group_t *g, slot_t *s) {
  const cb_family_info_t *fi = g->fi;
  int n = fi->nmetrics, any = 0;
  for (int i = 0; i < n; i++) any |= fi->metrics[i].combine != CB_METRIC_OWN;
  memcpy(s->metric, s->in.metric, sizeof s->metric);
  if (!any) return;
  double mx[CB_MAX_METRICS], sum[CB_MAX_METRICS];
  cb_bench_allreduce_polled(s->in.metric, mx, n, MPI_DOUBLE, MPI_MAX, b->w->mpi.comm);
  cb_bench_allreduce_polled(s->in.metric, sum, n, MPI_DOUBLE, MPI_SUM, b->w->mpi.comm);
  for (int i = 0; i < n; i++)
    if (fi->metrics[i].combine == CB_METRIC_MAX) s->metric[i] = mx[i];
    else if (fi->metrics[i].combine == CB_METRIC_MEAN) s->metric[i] = sum[i] / b->w->mpi.nranks;
}

/* -J: s's round-trip row (rt, rank 0) into nccl-tests' JSON, with -I 1 every rank's
 * per-iteration times gathered on rank 0 (nccl-tests' per_process_max_times_us). Collective. */
static void ncclt_json_row(cb_bench_t *b, const slot_t *s, const cb_row_t *rt) {
  int n = b->a->iters, nranks = b->w->mpi.nranks;
  double *all = NULL;
  if (b->a->iter_timing) {
    if (b->rep && !(all = malloc(sizeof(double) * (size_t)n * (size_t)nranks)))
      CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
    MPI_Request req;
    CB_MPI(MPI_Igather(s->t[s->algo->nphases], n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, b->w->mpi.comm, &req));
    cb_mpi_wait(&req);
  }
  if (b->ncclt && rt) cb_ncclt_json_row(b->ncclt, rt, all, n, all ? nranks : 0);
  free(all);
}

void cb_bench_report_slot(cb_bench_t *b, const group_t *g, slot_t *s) {
  cb_row_t r, rt;
  cb_row_ctx_t c = {.p = &g->p, .nranks = b->w->mpi.nranks, .checked = b->a->check_iters > 0};
  int np = s->algo->nphases;
  if (!s->active) {
    if (b->rep) {
      c.phase = c.nphases = np;
      cb_bench_fill_row(b, g, s, &c, &r);
      snprintf(r.note, sizeof r.note, "%s", s->note);
      cb_report_row(b->rep, &r);
      if (b->ncclt) cb_ncclt_json_row(b->ncclt, &r, NULL, 0, 0);
    }
    b->rows++;
    b->rows_skipped++;
    return;
  }
  unsigned long long mem = s->in.mem_bytes, mem_max = 0;
  cb_bench_allreduce_polled(&mem, &mem_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, b->w->mpi.comm);
  combine_metrics(b, g, s);
  /* Phases first, then the round trip (only the round trip when there is one phase). */
  for (int ph = np > 1 ? 0 : 1; ph <= np; ph++) {
    cb_stats_t st;
    cb_aggregate_times_as(&b->w->mpi, s->t[ph], b->a->iters, b->a->combine, &st);
    cb_bytes_t by = {0};
    if (s->algo->bytes) s->algo->bytes(&s->in, ph, &by);
    else cb_bytes_default(&s->in, ph, &by);
    s->remote_gbs[ph] = by.remote_bytes / st.mean_us / 1e3;
    if (ph == np) s->rt_mean_us = st.mean_us, s->rt_p99_us = st.p99_us;
    if (!b->rep) continue;
    c.timed = 1;
    c.phase = ph;
    c.nphases = np;
    c.phase_name = ph == np ? NULL : s->algo->phase_names[ph];
    c.bytes = &by;
    c.time_us = st.mean_us;
    c.metrics = s->metric;
    cb_bench_fill_row(b, g, s, &c, &r);
    r.time_us_mean = st.mean_us;
    r.time_us_max = st.max_us;
    r.time_us_p50 = st.p50_us;
    r.time_us_p99 = st.p99_us;
    r.iter_min_us = st.iter.min;
    r.iter_max_us = st.iter.max;
    r.iter_p99_us = st.iter.p99;
    r.iter_cv_pct = st.iter.cv_pct;
    r.algbw_gbs = by.algbw_bytes / st.mean_us / 1e3;
    r.busbw_gbs = r.algbw_gbs * by.busbw_factor;
    r.mem_bytes = mem_max;
    r.sms = s->in.sms; /* grids are agreed across ranks (world.grid_sms): rank 0's stands for all */
    r.wrong = b->a->check_iters > 0 ? s->wrong : -1;
    r.wrong_ranks = s->wrong_ranks;
    snprintf(r.note, sizeof r.note, "%s%s%s", s->in.note, s->in.note[0] && s->digest_mismatch ? "; " : "",
             s->digest_mismatch ? "outputs differ across ranks" : "");
    cb_report_row(b->rep, &r);
    if (ph == np) {
      cb_avg_busbw_add(&b->avg, r.algo, r.busbw_gbs); /* the whole operation's row */
      rt = r;
    }
  }
  if (b->a->ncclt_json[0]) ncclt_json_row(b, s, b->rep ? &rt : NULL);
  b->rows++;
  if (s->ov_state) cb_bench_report_loaded(b, g, s, mem_max);
}

void cb_bench_group_end(cb_bench_t *b, const group_t *g, const slot_t *slots, int n) {
  if (!g->fi->group_end) return;
  cb_slot_view_t views[CB_MAX_ALGOS];
  for (int k = 0; k < n; k++) {
    const slot_t *s = &slots[k];
    cb_slot_view_t *v = &views[k];
    memset(v, 0, sizeof *v);
    v->algo = s->algo->name;
    v->nphases = s->algo->nphases;
    v->active = s->active;
    v->note = s->note;
    v->wrong = s->wrong;
    v->digest_mismatch = s->digest_mismatch;
    v->mean_us = s->rt_mean_us;
    v->p99_us = s->rt_p99_us;
    memcpy(v->remote_gbs, s->remote_gbs, sizeof v->remote_gbs);
  }
  cb_group_view_t view = {&g->p, g->what, b->a->check_iters, n, views};
  cb_strbuf_t out;
  cb_sb_init(&out);
  b->validate_failures += g->fi->group_end(&view, &out);
  if (b->w->mpi.rank == 0 && out.len) {
    fputs(out.s, stdout);
    fflush(stdout);
  }
  cb_sb_free(&out);
}
