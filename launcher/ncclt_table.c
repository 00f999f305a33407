/* Implementation of ncclt_table.h. Field widths are nccl-tests 2.19.6's (src/util.cu:
 * writeDeviceReport, writeResultHeader, writeBenchmarkLine*, writeResultFooter); the anchors in
 * tests/cpu/check_ncclt_format.py hold it to the real output. */
#include "ncclt_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The nccl-tests version whose output this is, and the drop-in's mark beside it (one token, so
 * "# nccl-tests version V nccl-headers=H nccl-library=L" keeps its fields). */
#define CB_NCCLT_VERSION "2.19.6"

void cb_ncclt_float(double value, int width, char *buf, size_t n) {
  static const char *const kFmts[] = {"%*.2f", "%*.1f", "%*.0f"};
  for (int k = 0; k < 3; k++)
    if (snprintf(buf, n, kFmts[k], width, value) <= width) return;
  snprintf(buf, n, width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

/* "0000:00:06.0" -> "0000:00:06", as nccl-tests prints domain:bus:device. */
static void busid(const char *in, char *buf, size_t n) {
  snprintf(buf, n, "%s", in ? in : "");
  char *dot = strrchr(buf, '.');
  if (dot && strchr(buf, ':')) *dot = 0;
  for (char *c = buf; *c; c++)
    if (*c >= 'A' && *c <= 'F') *c = (char)(*c - 'A' + 'a');
}

void cb_ncclt_header(const cb_ncclt_header_t *h, cb_strbuf_t *out) {
  const cb_ncclt_opts_t *o = h->o;
  cb_sb_printf(out, "# nccl-tests version %s+collbench-%s nccl-headers=%d nccl-library=%d\n", CB_NCCLT_VERSION,
               h->collbench_version, h->nccl_headers, h->nccl_library);
  cb_sb_printf(out, "# Collective test starting: %s\n", o->bin->name);
  /* nGpus: GPUs per process, 1 in every collbench process (-g G started G processes) */
  cb_sb_printf(out,
               "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: "
               "%d validation: %d graph: %d unalign: %d\n",
               o->nthreads, 1, (unsigned long long)o->minbytes, (unsigned long long)o->maxbytes,
               o->stepfactor > 1 ? (unsigned long long)o->stepfactor : (unsigned long long)o->stepbytes,
               o->stepfactor > 1 ? "factor" : "bytes", o->warmup, o->iters, o->agg_iters, o->check, o->graph,
               o->unalign);
  if (o->blocking == 1) cb_sb_printf(out, "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n");
  if (o->blocking == 2) cb_sb_printf(out, "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n");
  if (o->blocking == 3)
    cb_sb_printf(out, "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n");
  if (o->per_iter) cb_sb_printf(out, "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows \n");
  cb_sb_printf(out, "#\n# Using devices\n");
  for (int r = 0; r < h->nranks; r++) {
    const cb_ncclt_rank_t *k = &h->ranks[r];
    char bus[40];
    busid(k->busid, bus, sizeof bus);
    cb_sb_printf(out, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", k->rank, 0, k->pid, k->host,
                 k->device, bus, k->gpu);
  }
}

/* The column header: its "#" line, the group titles, the names, the units; with -I 1
 * (per_iter) each group has nccl-tests' four per-iteration columns too. */
static void column_header(const char *algo, int per_iter, cb_strbuf_t *out) {
  cb_sb_printf(out, "#\n# collbench algorithm: %s\n", algo);
  if (per_iter) {
    cb_sb_printf(out,
                 "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                           "
                 "     in-place (+ per-iteration)\n",
                 "", "", "", "", "");
    cb_sb_printf(
        out,
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  "
        "%7s \n",
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99",
        "i_cv%", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%");
    cb_sb_printf(
        out,
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  "
        "%7s \n",
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", "(us)",
        "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)");
    return;
  }
  cb_sb_printf(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
               "", "", "", "");
  cb_sb_printf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size", "count", "type",
               "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  cb_sb_printf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)", "(elements)", "",
               "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

void cb_ncclt_table_init(cb_ncclt_table_t *t, const cb_ncclt_opts_t *o, const char *const *algos, int nalgos,
                         int expect_inplace, FILE *stream, cb_strbuf_t *out) {
  memset(t, 0, sizeof *t);
  t->o = o;
  t->expect_inplace = expect_inplace;
  t->stream = stream;
  t->nalgos = nalgos < CB_MAX_ALGOS ? nalgos : CB_MAX_ALGOS;
  for (int k = 0; k < t->nalgos; k++) {
    snprintf(t->t[k].algo, sizeof t->t[k].algo, "%s", algos[k]);
    cb_sb_init(&t->t[k].lines);
  }
  if (t->nalgos) column_header(t->t[0].algo, o->per_iter, out);
}

/* The column "root" of the row schema (row.h), when the build has one (the rooted families'),
 * found by name so this file needs no family's column. */
static int root_column(void) {
  for (int c = 0; c < CB_NCOLS; c++)
    if (strcmp(cb_columns[c].name, "root") == 0) return c;
  return -1;
}

/* nccl-tests' type names where collbench's differ. */
static const char *ncclt_dtype(const char *d) {
  if (strcmp(d, "fp8e4m3") == 0) return "f8e4m3";
  if (strcmp(d, "fp8e5m2") == 0) return "f8e5m2";
  return d;
}

static void half_of(const cb_ncclt_table_t *t, const cb_row_t *r, cb_ncclt_half_t *h) {
  const cb_ncclt_binary_t *b = t->o->bin;
  memset(h, 0, sizeof *h);
  h->bytes = r->bytes;
  h->count = r->count;
  snprintf(h->dtype, sizeof h->dtype, "%s", ncclt_dtype(r->dtype));
  const char *op = b->redop == CB_NCCLT_REDOP_OP      ? r->op
                   : b->redop == CB_NCCLT_REDOP_NONE  ? "none"
                   : b->redop == CB_NCCLT_REDOP_EMPTY ? ""
                   : strcmp(t->o->op, "all") == 0     ? "sum"
                                                      : t->o->op;
  snprintf(h->op, sizeof h->op, "%s", op);
  snprintf(h->mode, sizeof h->mode, "%s", r->mode ? r->mode : "");
  const int rc = root_column();
  h->root = !b->rooted ? -1 : rc >= 0 && (r->groups & cb_columns[rc].group) ? (int)r->col[rc].i : t->o->root;
  h->timed = r->timed;
  h->time_us = r->time_us_mean;
  h->algbw = r->algbw_gbs;
  h->busbw = r->busbw_gbs;
  h->i_min = r->iter_min_us;
  h->i_max = r->iter_max_us;
  h->i_p99 = r->iter_p99_us;
  h->i_cv = r->iter_cv_pct;
  h->wrong = r->wrong;
  h->wrong_ranks = r->wrong_ranks;
  snprintf(h->note, sizeof h->note, "%.159s", r->note);
  for (char *c = h->note; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' ';
}

static int same_line(const cb_ncclt_half_t *a, const cb_ncclt_half_t *b) {
  return a->bytes == b->bytes && a->root == b->root && !strcmp(a->dtype, b->dtype) && !strcmp(a->op, b->op) &&
         !strcmp(a->mode, b->mode);
}

/* One group of a line: time algbw busbw #wrong, and with per_iter (-I 1) i_min i_max i_p99 i_cv%
 * (nccl-tests' writeBenchmarkLineBody and writePerIterReport); N/A where nothing ran. */
static void group(const cb_ncclt_half_t *h, int per_iter, cb_strbuf_t *out) {
  if (!h || !h->timed) {
    cb_sb_printf(out, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
    if (per_iter) cb_sb_printf(out, "  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
    return;
  }
  char tm[16], alg[16], bus[16];
  cb_ncclt_float(h->time_us, 7, tm, sizeof tm);
  cb_ncclt_float(h->algbw, 6, alg, sizeof alg);
  cb_ncclt_float(h->busbw, 6, bus, sizeof bus);
  if (h->wrong >= 0) cb_sb_printf(out, "  %7s  %6s  %6s  %6g", tm, alg, bus, (double)h->wrong);
  else cb_sb_printf(out, "  %7s  %6s  %6s    N/A", tm, alg, bus);
  if (per_iter) {
    char lo[16], hi[16], p99[16], cv[16];
    cb_ncclt_float(h->i_min, 7, lo, sizeof lo);
    cb_ncclt_float(h->i_max, 7, hi, sizeof hi);
    cb_ncclt_float(h->i_p99, 7, p99, sizeof p99);
    cb_ncclt_float(h->i_cv, 7, cv, sizeof cv);
    cb_sb_printf(out, "  %7s  %7s  %7s  %7s", lo, hi, p99, cv);
  }
}

/* One line from an out-of-place and an in-place half (either may be NULL: not run). A half
 * collbench skipped makes the line a comment naming why. */
static void line(cb_ncclt_algo_table_t *a, int per_iter, const cb_ncclt_half_t *oop, const cb_ncclt_half_t *ip,
                 cb_strbuf_t *out) {
  const cb_ncclt_half_t *h = oop ? oop : ip;
  const cb_ncclt_half_t *halves[2] = {oop, ip};
  for (int k = 0; k < 2; k++)
    if (halves[k] && !halves[k]->timed) {
      cb_sb_printf(out, "# %11llu  %12llu  %8s  %6s  %6d  %s not run: %s\n", h->bytes, h->count, h->dtype, h->op,
                   h->root, k ? "in-place" : "out-of-place", halves[k]->note);
      return;
    }
  cb_sb_printf(out, "%12llu  %12llu  %8s  %6s  %6d", h->bytes, h->count, h->dtype, h->op, h->root);
  group(oop, per_iter, out);
  group(ip, per_iter, out);
  cb_sb_printf(out, "\n");
  for (int k = 0; k < 2; k++)
    if (halves[k]) {
      a->bw_sum += halves[k]->busbw;
      a->bw_count++;
      /* nccl-tests counts, per half, each rank that found a wrong value (its errors[], summed
       * over processes), not the values: the #wrong column has those */
      if (halves[k]->wrong > 0) a->wrong += halves[k]->wrong_ranks > 0 ? halves[k]->wrong_ranks : 1;
    }
}

/* Where algorithm k's lines go: the stream for the first, its held lines otherwise. */
static void emit(cb_ncclt_table_t *t, int k, const cb_ncclt_half_t *oop, const cb_ncclt_half_t *ip) {
  cb_ncclt_algo_table_t *a = &t->t[k];
  if (k == 0 && t->stream) {
    cb_strbuf_t s;
    cb_sb_init(&s);
    line(a, t->o->per_iter, oop, ip, &s);
    fputs(s.s, t->stream);
    fflush(t->stream);
    cb_sb_free(&s);
  } else {
    line(a, t->o->per_iter, oop, ip, &a->lines);
  }
}

void cb_ncclt_table_row(cb_ncclt_table_t *t, const cb_row_t *r) {
  int k = 0;
  while (k < t->nalgos && strcmp(t->t[k].algo, r->algo) != 0) k++;
  if (k == t->nalgos) return; /* not one of the run's algorithms (cannot happen: the engine's rows) */
  cb_ncclt_algo_table_t *a = &t->t[k];
  cb_ncclt_half_t h;
  half_of(t, r, &h);
  if (!r->inplace) {
    if (!t->expect_inplace) {
      emit(t, k, &h, NULL);
      return;
    }
    if (a->npending == CB_NCCLT_PENDING) { /* never with the drop-in's sweeps: flush the oldest */
      emit(t, k, &a->pending[0], NULL);
      memmove(a->pending, a->pending + 1, sizeof a->pending[0] * (size_t)--a->npending);
    }
    a->pending[a->npending++] = h;
    return;
  }
  for (int i = 0; i < a->npending; i++)
    if (same_line(&a->pending[i], &h)) {
      cb_ncclt_half_t oop = a->pending[i];
      memmove(a->pending + i, a->pending + i + 1, sizeof a->pending[0] * (size_t)(a->npending - i - 1));
      a->npending--;
      emit(t, k, &oop, &h);
      return;
    }
  emit(t, k, NULL, &h);
}

/* nccl-tests' two summary lines of one table; returns 1 when it fails (wrong or slow). */
static int footer(const cb_ncclt_algo_table_t *a, double min_bw, cb_strbuf_t *out) {
  /* nccl-tests divides by the count of halves timed; none timed is 0 here, not its nan */
  const double avg = a->bw_count ? a->bw_sum / (double)a->bw_count : 0.0;
  const int slow = min_bw >= 0 && avg < min_bw * 0.9;
  cb_sb_printf(out, "# %-20s : %lld %s\n", "Out of bounds values", a->wrong, a->wrong ? "FAILED" : "OK");
  cb_sb_printf(out, "# %-20s : %g %s\n", "Avg bus bandwidth", avg, min_bw < 0 ? "" : slow ? "FAILED" : "OK");
  return slow || a->wrong > 0;
}

int cb_ncclt_table_end(cb_ncclt_table_t *t, cb_strbuf_t *out) {
  int failed = 0;
  for (int k = 0; k < t->nalgos; k++) {
    cb_ncclt_algo_table_t *a = &t->t[k];
    cb_strbuf_t *dst = k == 0 && t->stream ? out : &a->lines;
    for (int i = 0; i < a->npending; i++) line(a, t->o->per_iter, &a->pending[i], NULL, dst);
    a->npending = 0;
    if (k) column_header(a->algo, t->o->per_iter, out);
    if (a->lines.len) cb_sb_printf(out, "%s", a->lines.s);
    failed |= footer(a, t->o->min_bw, out);
    cb_sb_free(&a->lines);
  }
  cb_sb_printf(out, "#\n# Collective test concluded: %s\n#\n\n", t->o->bin->name);
  return failed ? CB_NCCLT_EXIT_RESULTS : 0;
}
