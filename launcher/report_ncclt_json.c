/* Implementation of report_ncclt_json.h. Numbers as nccl-tests writes them: doubles with six
 * decimals ("%f"), booleans as the strings "true" / "false", the root as a six-wide string: the
 * row's root (its root column) for the rooted families, -1 for the others, as nccl-tests. */
#include "report_ncclt_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "iter_stats.h"
#include "newfile.h"

/* nccl-tests' JSON_FILE_VERSION (2.19) */
#define CB_NCCLT_JSON_VERSION 3

struct cb_ncclt_json_result {
  uint64_t bytes, count;
  char dtype[32], op[16], mode[8], algo[CB_NAME_MAX];
  int iters, root;
  int has[2];          /* [0] out-of-place, [1] in-place */
  cb_strbuf_t side[2]; /* "\"out_of_place\": {...}" and its per-iteration object */
};

static void now_text(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm); /* nccl-tests' TIME_STRING_FORMAT */
}

static const char *yes(int v) { return v ? "\"true\"" : "\"false\""; }

static void num(cb_strbuf_t *b, double v) {
  if (isnan(v)) cb_sb_printf(b, "\"nan\"");
  else if (!isfinite(v)) cb_sb_printf(b, "null");
  else cb_sb_printf(b, "%f", v);
}

static void config(cb_strbuf_t *h, const cb_ncclt_run_t *run) {
  const cb_args_t *a = run->a;
  uint64_t lo = a->npoints ? a->points[0] : 0, hi = lo;
  for (int i = 1; i < a->npoints; i++) {
    if (a->points[i] < lo) lo = a->points[i];
    if (a->points[i] > hi) hi = a->points[i];
  }
  uint64_t factor =
      a->npoints > 1 && a->points[0] && a->points[1] % a->points[0] == 0 ? a->points[1] / a->points[0] : 1;
  cb_sb_printf(h,
               "\"config\": {\"nthreads\": 1, \"ngpus\": 1, \"minimum_bytes\": %llu, \"maximum_bytes\": %llu, "
               "\"step_factor\": %llu, \"warmup_iters\": %d, \"iterations\": %d, \"aggregated_iterations\": %d, "
               "\"validation\": %d, \"graph\": %d, \"blocking_collectives\": %s, \"per_iter_timing\": %s, "
               "\"per_iter_skip\": 0, \"parallel_init\": \"false\", \"devices\": [",
               (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)factor, a->warmup, a->iters,
               a->agg_iters, a->check_iters, (a->modes & CB_MODE_GRAPH) ? a->graph_launches : 0, yes(a->blocking),
               yes(a->iter_timing));
  for (int i = 0; i < run->ndevices; i++) {
    const cb_ncclt_device_t *d = &run->devices[i];
    cb_sb_printf(h, "%s{\"rank\": %d, \"group\": 0, \"pid\": %d, \"hostname\": ", i ? ", " : "", d->rank, d->pid);
    cb_sb_json_str(h, d->host);
    cb_sb_printf(h, ", \"device\": %d, \"device_hex\": ", d->device);
    cb_sb_json_str(h, d->busid);
    cb_sb_printf(h, ", \"device_info\": ");
    cb_sb_json_str(h, d->gpu);
    cb_sb_printf(h, "}");
  }
  cb_sb_printf(h, "]},\n");
}

/* -I 1 writes every iteration's time, and every rank's beside it when there are several: at
 * least "0.000000," (9 bytes) each, per size. A sweep whose times alone pass the writer's cap
 * is refused before the run instead of failing the write after it (-n 1000000 -I 1): 0 when
 * it may fit, -1 with why. */
static int per_iter_fits(const cb_ncclt_run_t *run, char *why, size_t n) {
  const cb_args_t *a = run->a;
  if (!a->iter_timing) return 0;
  const double least =
      9.0 * a->iters * (run->ndevices > 1 ? run->ndevices + 1.0 : 1.0) * (a->npoints > 0 ? a->npoints : 1);
  if (least <= (double)CB_NEWFILE_MAX_BYTES) return 0;
  snprintf(why, n,
           "-J with -I 1: %d iterations x %d sizes x %d rank(s) of per-iteration times need over %.0f MB, past the "
           "file cap (%zu MiB): lower -n, or leave out -I 1",
           a->iters, a->npoints, run->ndevices, least / 1e6, CB_NEWFILE_MAX_BYTES >> 20);
  return -1;
}

int cb_ncclt_json_open(cb_ncclt_json_t *j, const char *path, const cb_ncclt_run_t *run, char *why, size_t n) {
  memset(j, 0, sizeof *j);
  if (cb_newfile_check_target(path, "-J file", why, n)) return -1;
  if (per_iter_fits(run, why, n)) return -1;
  snprintf(j->path, sizeof j->path, "%s", path);
  cb_sb_init(&j->head);
  char when[64];
  now_text(when, sizeof when);
  cb_sb_printf(&j->head, "\"version\": %d,\n\"start_time\": \"%s\",\n\"args\": [", CB_NCCLT_JSON_VERSION, when);
  for (int i = 0; i < run->argc; i++) {
    if (i) cb_sb_printf(&j->head, ", ");
    cb_sb_json_str(&j->head, run->argv[i]);
  }
  cb_sb_printf(&j->head, "],\n\"env\": [");
  int listed = 0;
  for (int i = 0; i < run->nenv; i++)
    if (strncmp(run->env[i], "NCCL_", 5) == 0 || strncmp(run->env[i], "CB_", 3) == 0) {
      if (listed++) cb_sb_printf(&j->head, ", ");
      cb_sb_json_str(&j->head, run->env[i]);
    }
  cb_sb_printf(&j->head, "],\n\"nccl_version\": %d,\n", run->nccl_version);
  config(&j->head, run);
  return 0;
}

/* nccl-tests' per-iteration summary (iter_stats.h) of the slowest rank's times, and the times. */
static void per_iter(cb_strbuf_t *b, const char *key, const double *per_rank, int iters, int nranks) {
  double *worst = calloc((size_t)iters, sizeof *worst);
  if (!worst) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  for (int i = 0; i < iters; i++) {
    worst[i] = per_rank[i];
    for (int r = 1; r < nranks; r++) worst[i] = fmax(worst[i], per_rank[(size_t)r * iters + i]);
  }
  cb_iter_stats_t st;
  cb_iter_stats(worst, iters, &st);
  cb_sb_printf(b, ", \"%s\": {\"skipped_iterations\": 0, \"min_us\": ", key);
  num(b, st.min);
  const char *keys[] = {"max_us", "avg_us", "p50_us", "p95_us", "p99_us", "stdev_us", "cv_pct"};
  const double vals[] = {st.max, st.avg, st.p50, st.p95, st.p99, st.stdev, st.cv_pct};
  for (int k = 0; k < 7; k++) {
    cb_sb_printf(b, ", \"%s\": ", keys[k]);
    num(b, vals[k]);
  }
  cb_sb_printf(b, ", \"times_us\": [");
  for (int i = 0; i < iters; i++) {
    if (i) cb_sb_printf(b, ", ");
    num(b, worst[i]);
  }
  cb_sb_printf(b, "]");
  if (nranks > 1) {
    cb_sb_printf(b, ", \"per_process_max_times_us\": [");
    for (int r = 0; r < nranks; r++) {
      cb_sb_printf(b, "%s[", r ? ", " : "");
      for (int i = 0; i < iters; i++) {
        if (i) cb_sb_printf(b, ", ");
        num(b, per_rank[(size_t)r * iters + i]);
      }
      cb_sb_printf(b, "]");
    }
    cb_sb_printf(b, "]");
  }
  cb_sb_printf(b, "}");
  free(worst);
}

/* The row's root: its root column when its family has one (-r), else -1 as nccl-tests writes. */
static int root_of(const cb_row_t *r) {
  return (r->groups & cb_columns[CB_COL_ROOT].group) ? (int)r->col[CB_COL_ROOT].i : -1;
}

static int same_key(const struct cb_ncclt_json_result *x, const cb_row_t *r) {
  return x->bytes == r->bytes && x->root == root_of(r) && strcmp(x->dtype, r->dtype) == 0 &&
         strcmp(x->op, r->op) == 0 && strcmp(x->mode, r->mode) == 0 && strcmp(x->algo, r->algo) == 0;
}

/* The result r's side goes into: an in-place row joins the latest result of its key still
 * without one (its out-of-place row came first); anything else starts a result. */
static struct cb_ncclt_json_result *result_for(cb_ncclt_json_t *j, const cb_row_t *r) {
  int side = r->inplace ? 1 : 0;
  for (int i = j->nres - 1; side && i >= 0; i--)
    if (same_key(&j->res[i], r)) {
      if (!j->res[i].has[1]) return &j->res[i];
      break;
    }
  if (j->nres == j->cap) {
    int cap = j->cap ? 2 * j->cap : 64;
    struct cb_ncclt_json_result *res = realloc(j->res, sizeof *res * (size_t)cap);
    if (!res) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
    j->res = res;
    j->cap = cap;
  }
  struct cb_ncclt_json_result *x = &j->res[j->nres++];
  memset(x, 0, sizeof *x);
  x->bytes = r->bytes;
  x->count = r->count;
  snprintf(x->dtype, sizeof x->dtype, "%s", r->dtype);
  snprintf(x->op, sizeof x->op, "%s", r->op);
  snprintf(x->mode, sizeof x->mode, "%s", r->mode);
  snprintf(x->algo, sizeof x->algo, "%s", r->algo);
  x->iters = r->iters;
  x->root = root_of(r);
  cb_sb_init(&x->side[0]);
  cb_sb_init(&x->side[1]);
  return x;
}

void cb_ncclt_json_row(cb_ncclt_json_t *j, const cb_row_t *r, const double *per_rank_us, int iters, int nranks) {
  struct cb_ncclt_json_result *x = result_for(j, r);
  int side = r->inplace ? 1 : 0;
  const char *key = side ? "in_place" : "out_of_place";
  cb_strbuf_t *b = &x->side[side];
  x->has[side] = 1;
  if (!r->timed) {
    cb_sb_printf(b, "\"%s\": null", key);
    return;
  }
  cb_sb_printf(b, "\"%s\": {\"time\": ", key);
  num(b, r->time_us_mean);
  cb_sb_printf(b, ", \"alg_bw\": ");
  num(b, r->algbw_gbs);
  cb_sb_printf(b, ", \"bus_bw\": ");
  num(b, r->busbw_gbs);
  cb_sb_printf(b, ", \"nwrong\": ");
  if (r->wrong >= 0) num(b, (double)r->wrong);
  else cb_sb_printf(b, "null");
  cb_sb_printf(b, "}");
  if (per_rank_us && iters > 0 && nranks > 0)
    per_iter(b, side ? "in_place_per_iter" : "out_of_place_per_iter", per_rank_us, iters, nranks);
  if (r->wrong > 0) j->wrong += r->wrong_ranks > 0 ? r->wrong_ranks : 1; /* as the table's footer */
  j->bw_sum += r->busbw_gbs;
  j->bw_n++;
}

void cb_ncclt_json_text(const cb_ncclt_json_t *j, const cb_avg_busbw_t *avg, const cb_gate_t *g, cb_strbuf_t *out) {
  cb_sb_printf(out, "{\n%s\"results\": [", j->head.s ? j->head.s : "");
  for (int i = 0; i < j->nres; i++) {
    const struct cb_ncclt_json_result *x = &j->res[i];
    cb_sb_printf(out, "%s\n{\"size\": %llu, \"count\": %llu, \"type\": ", i ? "," : "", (unsigned long long)x->bytes,
                 (unsigned long long)x->count);
    cb_sb_json_str(out, x->dtype);
    cb_sb_printf(out, ", \"redop\": ");
    cb_sb_json_str(out, x->op);
    cb_sb_printf(out, ", \"root\": \"%6d\", ", x->root);
    for (int s = 0; s < 2; s++)
      if (x->has[s]) cb_sb_printf(out, "%s, ", x->side[s].s);
      else cb_sb_printf(out, "\"%s\": null, ", s ? "in_place" : "out_of_place");
    cb_sb_printf(out, "\"actual_iterations\": %d, \"experiment_name\": \"", x->iters);
    cb_sb_printf(out, "%s %s\"}", x->algo, x->mode);
  }
  double bw = j->bw_n ? j->bw_sum / (double)j->bw_n : NAN;
  cb_sb_printf(out, "\n],\n\"out_of_bounds\": {\"count\": %lld, \"okay\": %s},\n", j->wrong, yes(j->wrong == 0));
  cb_sb_printf(out, "\"average_bus_bandwidth\": {\"bandwidth\": ");
  num(out, bw);
  cb_sb_printf(out, ", \"okay\": %s, \"per_algo\": ", !g->set ? "\"unchecked\"" : yes(cb_gate_passes(g, bw)));
  cb_avg_busbw_json(avg, g, out);
  char when[64];
  now_text(when, sizeof when);
  cb_sb_printf(out, "},\n\"errors\": [\"\"],\n\"end_time\": \"%s\"\n}\n", when);
}

static void free_json(cb_ncclt_json_t *j) {
  for (int i = 0; i < j->nres; i++) {
    cb_sb_free(&j->res[i].side[0]);
    cb_sb_free(&j->res[i].side[1]);
  }
  free(j->res);
  cb_sb_free(&j->head);
  memset(j, 0, sizeof *j);
}

int cb_ncclt_json_close(cb_ncclt_json_t *j, const cb_avg_busbw_t *avg, const cb_gate_t *g, char *why, size_t n) {
  cb_strbuf_t text;
  cb_sb_init(&text);
  cb_ncclt_json_text(j, avg, g, &text);
  FILE *f = cb_newfile_replace(j->path);
  int rc = 0;
  if (!f) {
    snprintf(why, n, "cannot create the -J file '%s': %s", j->path, strerror(errno));
    rc = -1;
  } else {
    fputs(text.s, f);
    int werr = fflush(f) ? (errno ? errno : EIO) : ferror(f) ? EIO : 0;
    if (fclose(f) && !werr) werr = errno ? errno : EIO;
    if (werr) {
      snprintf(why, n, "writing the -J file '%s' failed: %s", j->path, strerror(werr));
      rc = -1;
    }
  }
  cb_sb_free(&text);
  free_json(j);
  return rc;
}
