/* Implementation of report.h: table, CSV and JSON output of result rows. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "newfile.h"
#include "one_rank.h"

static void num(cb_strbuf_t *b, int present, double v, const char *fmt) {
  if (present && isfinite(v)) cb_sb_printf(b, fmt, v);
}

void cb_row_csv(const cb_row_t *w, cb_strbuf_t *b) {
  cb_sb_csv_field(b, w->family);
  cb_sb_printf(b, ",");
  cb_sb_csv_field(b, w->algo);
  cb_sb_printf(b, ",%s,%s,%llu,%llu,%d,%d,%d,", w->dtype, w->op, (unsigned long long)w->bytes,
               (unsigned long long)w->count, w->inplace, w->ranks, w->nodes);
  cb_sb_csv_field(b, w->gpu);
  cb_sb_printf(b, ",");
  const double measured[] = {w->time_us_mean, w->time_us_max, w->time_us_p50,
                             w->time_us_p99,  w->algbw_gbs,   w->busbw_gbs};
  for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
    num(b, w->timed, measured[i], "%.3f");
    cb_sb_printf(b, ",");
  }
  if (w->wrong >= 0) cb_sb_printf(b, "%lld", w->wrong);
  cb_sb_printf(b, ",");
  cb_sb_csv_field(b, w->note);
  cb_sb_printf(b, ",%s,%d,%llu,", w->mode, w->iters, (unsigned long long)w->mem_bytes);
  if (w->is_moe) {
    cb_sb_csv_field(b, w->model);
    cb_sb_printf(b, ",%llu,%d,%d,%d,", (unsigned long long)w->tokens, w->hidden, w->topk, w->experts);
    cb_sb_csv_field(b, w->routing);
    cb_sb_printf(b, ",%s,", w->phase);
    num(b, w->timed, w->remote_gbs, "%.3f");
    cb_sb_printf(b, ",");
    num(b, 1, w->imbalance, "%.4f");
    cb_sb_printf(b, ",");
    num(b, w->timed, w->net_bytes, "%.0f");
    cb_sb_printf(b, ",");
    num(b, w->timed, w->nvlink_bytes, "%.0f");
  } else {
    cb_sb_printf(b, ",,,,,,,,,,");
  }
  if (w->is_attn) {
    cb_sb_printf(b, ",%llu,%d,%d,%d,%d,%d,", (unsigned long long)w->seq, w->batch, w->heads, w->kv_heads, w->head_dim,
                 w->causal);
    const double m[] = {w->tflops,           w->comm_us, w->compute_us, w->overlap_eff,
                        w->ring_over_single, w->err_max, w->err_mean};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
      if (i) cb_sb_printf(b, ",");
      num(b, w->timed, m[i], i >= 5 ? "%.6g" : "%.4f");
    }
  } else {
    cb_sb_printf(b, ",,,,,,,,,,,,,"); /* the 13 ringattn columns */
  }
  cb_sb_printf(b, ",");
  if (w->sms) cb_sb_printf(b, "%d", w->sms > 0 ? w->sms : 0);
  cb_sb_printf(b, ",");
  num(b, w->loaded && w->timed, w->slowdown_comm, "%.4f");
  cb_sb_printf(b, ",");
  num(b, w->loaded && w->timed, w->slowdown_compute, "%.4f");
  cb_sb_printf(b, ",%s", w->is_attn && w->pass ? w->pass : "");
}

static void jnum(cb_strbuf_t *b, const char *key, int present, double v) {
  if (present && isfinite(v)) cb_sb_printf(b, ",\"%s\":%.6g", key, v);
  else cb_sb_printf(b, ",\"%s\":null", key);
}

void cb_row_json(const cb_row_t *w, cb_strbuf_t *b) {
  cb_sb_printf(b, "{\"family\":");
  cb_sb_json_str(b, w->family);
  cb_sb_printf(b, ",\"algo\":");
  cb_sb_json_str(b, w->algo);
  cb_sb_printf(b,
               ",\"dtype\":\"%s\",\"op\":\"%s\",\"bytes\":%llu,\"count\":%llu,\"inplace\":%d,"
               "\"ranks\":%d,\"nodes\":%d,\"gpu\":",
               w->dtype, w->op, (unsigned long long)w->bytes, (unsigned long long)w->count, w->inplace, w->ranks,
               w->nodes);
  cb_sb_json_str(b, w->gpu);
  const char *keys[] = {"time_us_mean", "time_us_max", "time_us_p50", "time_us_p99", "algbw_gbs", "busbw_gbs"};
  const double measured[] = {w->time_us_mean, w->time_us_max, w->time_us_p50,
                             w->time_us_p99,  w->algbw_gbs,   w->busbw_gbs};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) jnum(b, keys[i], w->timed, measured[i]);
  if (w->wrong >= 0) cb_sb_printf(b, ",\"wrong\":%lld", w->wrong);
  else cb_sb_printf(b, ",\"wrong\":null");
  cb_sb_printf(b, ",\"note\":");
  cb_sb_json_str(b, w->note);
  cb_sb_printf(b, ",\"mode\":\"%s\",\"iters\":%d,\"mem_bytes\":%llu", w->mode, w->iters,
               (unsigned long long)w->mem_bytes);
  if (w->is_moe) {
    cb_sb_printf(b, ",\"model\":");
    cb_sb_json_str(b, w->model);
    cb_sb_printf(b, ",\"tokens\":%llu,\"hidden\":%d,\"topk\":%d,\"experts\":%d,\"routing\":",
                 (unsigned long long)w->tokens, w->hidden, w->topk, w->experts);
    cb_sb_json_str(b, w->routing);
    cb_sb_printf(b, ",\"phase\":\"%s\"", w->phase);
    jnum(b, "remote_gbs", w->timed, w->remote_gbs);
    jnum(b, "imbalance", 1, w->imbalance);
    jnum(b, "net_bytes", w->timed, w->net_bytes);
    jnum(b, "nvlink_bytes", w->timed, w->nvlink_bytes);
  }
  if (w->is_attn) {
    cb_sb_printf(b, ",\"seq\":%llu,\"batch\":%d,\"heads\":%d,\"kv_heads\":%d,\"head_dim\":%d,\"causal\":%d",
                 (unsigned long long)w->seq, w->batch, w->heads, w->kv_heads, w->head_dim, w->causal);
    cb_sb_printf(b, ",\"pass\":\"%s\"", w->pass ? w->pass : "fwd");
    const char *k[] = {"tflops", "comm_us", "compute_us", "overlap_eff", "ring_over_single", "err_max", "err_mean"};
    const double m[] = {w->tflops,           w->comm_us, w->compute_us, w->overlap_eff,
                        w->ring_over_single, w->err_max, w->err_mean};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) jnum(b, k[i], w->timed, m[i]);
  }
  if (w->sms) cb_sb_printf(b, ",\"sms\":%d", w->sms > 0 ? w->sms : 0);
  else cb_sb_printf(b, ",\"sms\":null");
  jnum(b, "slowdown_comm", w->loaded && w->timed, w->slowdown_comm);
  jnum(b, "slowdown_compute", w->loaded && w->timed, w->slowdown_compute);
  cb_sb_printf(b, "}");
}

static void table_header(cb_report_t *r, int kind) {
  if (!r->table) return;
  if (kind == 3)
    fprintf(r->table,
            "#\n# %8s %-9s %-3s %-4s %-15s %-6s %11s %8s %10s %10s %7s %7s %9s %4s %7s  %s\n"
            "# %8s %-9s %-3s %-4s %-15s %-6s %11s %8s %10s %10s %7s %7s %9s %4s %7s\n",
            "seq", "type", "cau", "pass", "algo", "mode", "time", "TFLOP/s", "compute", "comm", "overlap", "r/single",
            "max err", "sms", "#wrong", "note", "", "", "", "", "", "", "(us)", "(/GPU)", "(us)", "(us)", "", "", "",
            "", "");
  else if (kind == 2)
    fprintf(r->table,
            "#\n# %8s %-9s %-16s %-13s %-6s %11s %11s %11s %9s %9s %7s %4s %9s  %s\n"
            "# %8s %-9s %-16s %-13s %-6s %11s %11s %11s %9s %9s %7s %4s %9s\n",
            "tokens", "type", "phase", "algo", "mode", "time", "p50", "p99", "algbw", "remote", "imbal", "sms",
            "#wrong", "note", "(/rank)", "", "", "", "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "", "", "");
  else
    fprintf(r->table,
            "#\n# %12s %12s %-9s %-5s %-3s %-6s %-13s %10s %8s %8s %10s %10s %4s %7s  %s\n"
            "# %12s %12s %-9s %-5s %-3s %-6s %-13s %10s %8s %8s %10s %10s %4s %7s\n",
            "size", "count", "type", "redop", "ip", "mode", "algo", "time", "algbw", "busbw", "p50", "p99", "sms",
            "#wrong", "note", "(B)", "(elements)", "", "", "", "", "", "(us)", "(GB/s)", "(GB/s)", "(us)", "(us)", "",
            "");
  r->table_kind = kind;
}

static void table_row(cb_report_t *r, const cb_row_t *in) {
  if (!r->table) return;
  /* one line per row: control characters in a note become spaces (CSV and JSON keep them) */
  cb_row_t copy = *in;
  const cb_row_t *w = &copy;
  for (char *c = copy.note; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' ';
  int kind = w->is_attn ? 3 : w->is_moe ? 2 : 1;
  if (r->table_kind != kind) table_header(r, kind);
  char wrong[32] = "-", sms[16] = "-";
  if (w->wrong >= 0) snprintf(wrong, sizeof wrong, "%lld", w->wrong);
  if (w->sms) snprintf(sms, sizeof sms, "%d", w->sms > 0 ? w->sms : 0);
  if (w->is_attn) {
    const char *pass = w->pass ? w->pass : "fwd";
    if (w->timed)
      fprintf(r->table, "  %8llu %-9s %-3d %-4s %-15s %-6s %11.1f %8.1f %10.1f %10.1f %7.3f %7.3f %9.2e %4s %7s  %s\n",
              (unsigned long long)w->seq, w->dtype, w->causal, pass, w->algo, w->mode, w->time_us_mean, w->tflops,
              w->compute_us, w->comm_us, w->overlap_eff, w->ring_over_single, w->err_max, sms, wrong, w->note);
    else
      fprintf(r->table, "  %8llu %-9s %-3d %-4s %-15s %-6s %11s %8s %10s %10s %7s %7s %9s %4s %7s  %s\n",
              (unsigned long long)w->seq, w->dtype, w->causal, pass, w->algo, w->mode, "-", "-", "-", "-", "-", "-",
              "-", sms, wrong, w->note);
  } else if (w->is_moe) {
    if (w->timed) {
      /* percentiles may be absent (--overlap's roundtrip_loaded rows): "-" */
      char p50[32] = "-", p99[32] = "-";
      if (isfinite(w->time_us_p50)) snprintf(p50, sizeof p50, "%.2f", w->time_us_p50);
      if (isfinite(w->time_us_p99)) snprintf(p99, sizeof p99, "%.2f", w->time_us_p99);
      fprintf(r->table, "  %8llu %-9s %-16s %-13s %-6s %11.2f %11s %11s %9.2f %9.2f %7.3f %4s %9s  %s\n",
              (unsigned long long)w->tokens, w->dtype, w->phase, w->algo, w->mode, w->time_us_mean, p50, p99,
              w->algbw_gbs, w->remote_gbs, w->imbalance, sms, wrong, w->note);
    } else
      fprintf(r->table, "  %8llu %-9s %-16s %-13s %-6s %11s %11s %11s %9s %9s %7s %4s %9s  %s\n",
              (unsigned long long)w->tokens, w->dtype, w->phase, w->algo, w->mode, "-", "-", "-", "-", "-", "-", sms,
              wrong, w->note);
  } else {
    if (w->timed)
      fprintf(r->table, "  %12llu %12llu %-9s %-5s %-3d %-6s %-13s %10.2f %8.2f %8.2f %10.2f %10.2f %4s %7s  %s\n",
              (unsigned long long)w->bytes, (unsigned long long)w->count, w->dtype, w->op, w->inplace, w->mode, w->algo,
              w->time_us_mean, w->algbw_gbs, w->busbw_gbs, w->time_us_p50, w->time_us_p99, sms, wrong, w->note);
    else
      fprintf(r->table, "  %12llu %12llu %-9s %-5s %-3d %-6s %-13s %10s %8s %8s %10s %10s %4s %7s  %s\n",
              (unsigned long long)w->bytes, (unsigned long long)w->count, w->dtype, w->op, w->inplace, w->mode, w->algo,
              "-", "-", "-", "-", "-", sms, wrong, w->note);
  }
  fflush(r->table);
}

/* A new file for one output, made beside path and renamed over it at once (newfile.h: a file
 * or symlink planted at path or at any temporary name is never written through). NULL with why. */
static FILE *create_output(const char *what, const char *path, char *why, size_t n) {
  if (cb_newfile_check_target(path, what, why, n)) return NULL;
  FILE *f = cb_newfile_replace(path);
  if (!f) snprintf(why, n, "cannot create %s '%s': %s", what, path, strerror(errno));
  return f;
}

int cb_report_open(cb_report_t *r, FILE *table, const char *csv_path, const char *json_path, const char *meta_json,
                   char *why, size_t n) {
  memset(r, 0, sizeof *r);
  /* the JSON is written beside json_path and renamed onto it at the end: a directory there
   * would fail only then, after the whole run (checked before the CSV is created) */
  if (json_path && json_path[0] && cb_newfile_check_target(json_path, "JSON file", why, n)) return -1;
  r->table = table;
  cb_sb_init(&r->meta);
  cb_sb_init(&r->rows);
  cb_sb_printf(&r->meta, "%s", meta_json ? meta_json : "{}");
  if (csv_path && csv_path[0]) {
    snprintf(r->csv_path, sizeof r->csv_path, "%s", csv_path);
    if (!(r->csv = create_output("CSV file", csv_path, why, n))) return -1;
    fprintf(r->csv, "%s\n", CB_CSV_HEADER);
    fflush(r->csv);
  }
  if (json_path && json_path[0]) {
    snprintf(r->json_path, sizeof r->json_path, "%s", json_path);
    snprintf(r->partial_path, sizeof r->partial_path, "%s.partial.jsonl", json_path);
    if (!(r->partial = create_output("the rows' file", r->partial_path, why, n))) return -1;
    fprintf(r->partial, "{\"meta\":%s}\n", r->meta.s);
    fflush(r->partial);
    /* a previous run's complete JSON must not stand beside this run's CSV if this one stops
     * early (the partial file is then the JSON side's record) */
    if (unlink(json_path) && errno != ENOENT)
      fprintf(stderr, "collbench: warning: cannot remove the old '%s': %s\n", json_path, strerror(errno));
  }
  return 0;
}

/* Records the first write error of a stream and says so once, when it happens (the rows stay
 * in memory for the final JSON; the exit code reports it at the end). */
static void note_write(FILE *f, int *saved, const char *what) {
  if (*saved || !ferror(f)) return;
  *saved = errno ? errno : EIO;
  fprintf(stderr, "collbench: writing %s failed: %s\n", what, strerror(*saved));
}

void cb_report_row(cb_report_t *r, const cb_row_t *in) {
  const cb_row_t marked = cb_one_rank_row(in, r->nrows ? NULL : r->table), *row = &marked; /* one_rank.h */
  table_row(r, row);
  cb_strbuf_t b;
  cb_sb_init(&b);
  if (r->csv) {
    cb_row_csv(row, &b);
    fprintf(r->csv, "%s\n", b.s);
    fflush(r->csv);
    note_write(r->csv, &r->csv_errno, r->csv_path);
  }
  cb_sb_clear(&b);
  cb_row_json(row, &b);
  if (r->partial) {
    fprintf(r->partial, "%s\n", b.s);
    fflush(r->partial);
    note_write(r->partial, &r->partial_errno, r->partial_path);
  }
  cb_sb_printf(&r->rows, "%s%s", r->nrows ? ",\n  " : "  ", b.s);
  r->nrows++;
  cb_sb_free(&b);
}

int cb_report_close(cb_report_t *r, const char *extra_json, char *why, size_t n) {
  int rc = 0;
  if (r->csv) {
    /* fclose can return 0 after failed writes: the stream's error flag tells */
    if (!r->csv_errno && fflush(r->csv)) r->csv_errno = errno ? errno : EIO;
    if (!r->csv_errno && ferror(r->csv)) r->csv_errno = EIO;
    if (fclose(r->csv) && !r->csv_errno) r->csv_errno = errno ? errno : EIO;
    if (r->csv_errno) {
      snprintf(why, n, "writing the CSV file '%s' failed: %s (rows are incomplete)", r->csv_path,
               strerror(r->csv_errno));
      rc = -1;
    }
  }
  r->csv = NULL;
  if (r->json_path[0]) {
    char tmp[1200];
    int fd = cb_newfile_temp(r->json_path, tmp, sizeof tmp); /* renamed over the name once complete */
    FILE *f = fd < 0 ? NULL : cb_newfile_stream(fd);         /* capped at CB_NEWFILE_MAX_BYTES */
    if (!f) {
      snprintf(why, n, "cannot create a file beside '%s': %s", r->json_path, strerror(errno));
      if (fd >= 0) {
        close(fd);
        unlink(tmp);
      }
      rc = -1;
    } else {
      fprintf(f, "{\n\"schema\": \"collbench-results/1\",\n\"meta\": %s,\n", r->meta.s);
      if (extra_json && extra_json[0]) fprintf(f, "%s,\n", extra_json);
      fprintf(f, "\"rows\": [\n%s\n],\n\"complete\": true\n}\n", r->rows.s);
      int werr = fflush(f) ? (errno ? errno : EIO) : ferror(f) ? EIO : 0;
      if (fclose(f) && !werr) werr = errno ? errno : EIO;
      if (!werr && rename(tmp, r->json_path)) werr = errno;
      if (werr) {
        /* keep the partial file: it is the only complete record of the rows now */
        unlink(tmp);
        size_t used = rc ? strlen(why) : 0;
        snprintf(why + used, n - used, "%swriting '%s' failed: %s (%s '%s')", rc ? "; " : "", r->json_path,
                 strerror(werr),
                 r->partial_errno ? "and the rows written before the disk filled are in" : "the rows are in",
                 r->partial_path);
        rc = -1;
      } else if (r->partial) {
        fclose(r->partial);
        r->partial = NULL;
        unlink(r->partial_path);
      }
    }
  }
  if (r->partial) fclose(r->partial);
  r->partial = NULL;
  cb_sb_free(&r->meta);
  cb_sb_free(&r->rows);
  return rc;
}
