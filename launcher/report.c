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

/* The CSV's columns before and after the family columns (row.h). */
static const char kHead[] = "family,algo,dtype,op,bytes,count,inplace,ranks,nodes,gpu,time_us_mean,time_us_max,"
                            "time_us_p50,time_us_p99,algbw_gbs,busbw_gbs,wrong,note,mode,iters,mem_bytes";
static const char kTail[] = "sms,slowdown_comm,slowdown_compute";

void cb_csv_header(cb_strbuf_t *out) {
  cb_sb_printf(out, "%s", kHead);
  for (int c = 0; c < CB_NCOLS; c++)
    if (!cb_columns[c].csv_last) cb_sb_printf(out, ",%s", cb_columns[c].name);
  cb_sb_printf(out, ",%s", kTail);
  for (int c = 0; c < CB_NCOLS; c++)
    if (cb_columns[c].csv_last) cb_sb_printf(out, ",%s", cb_columns[c].name);
}

/* A real cell has a value when finite and, for a measured column, on a timed row. */
static int real_present(const cb_row_t *w, int c) {
  return (!cb_columns[c].measured || w->timed) && isfinite(w->col[c].d);
}

/* Family column c of w as one CSV field (empty outside the row's groups), after a comma. */
static void csv_cell(const cb_row_t *w, int c, cb_strbuf_t *b) {
  const cb_column_t *k = &cb_columns[c];
  cb_sb_printf(b, ",");
  if (!(w->groups & k->group)) return;
  switch (k->kind) {
  case CB_COL_TEXT: cb_sb_csv_field(b, w->col[c].s); break;
  case CB_COL_INT: cb_sb_printf(b, "%lld", w->col[c].i); break;
  case CB_COL_REAL: num(b, real_present(w, c), w->col[c].d, k->csv_fmt); break;
  }
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
  cb_sb_printf(b, ",%s,%d,%llu", w->mode, w->iters, (unsigned long long)w->mem_bytes);
  for (int c = 0; c < CB_NCOLS; c++)
    if (!cb_columns[c].csv_last) csv_cell(w, c, b);
  cb_sb_printf(b, ",");
  if (w->sms) cb_sb_printf(b, "%d", w->sms > 0 ? w->sms : 0);
  cb_sb_printf(b, ",");
  num(b, w->loaded && w->timed, w->slowdown_comm, "%.4f");
  cb_sb_printf(b, ",");
  num(b, w->loaded && w->timed, w->slowdown_compute, "%.4f");
  for (int c = 0; c < CB_NCOLS; c++)
    if (cb_columns[c].csv_last) csv_cell(w, c, b);
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
  /* the family columns of the row's groups, in the schema's order */
  for (int c = 0; c < CB_NCOLS; c++) {
    const cb_column_t *k = &cb_columns[c];
    if (!(w->groups & k->group)) continue;
    switch (k->kind) {
    case CB_COL_TEXT:
      cb_sb_printf(b, ",\"%s\":", k->name);
      cb_sb_json_str(b, w->col[c].s ? w->col[c].s : "");
      break;
    case CB_COL_INT: cb_sb_printf(b, ",\"%s\":%lld", k->name, w->col[c].i); break;
    case CB_COL_REAL: jnum(b, k->name, real_present(w, c), w->col[c].d); break;
    }
  }
  if (w->sms) cb_sb_printf(b, ",\"sms\":%d", w->sms > 0 ? w->sms : 0);
  else cb_sb_printf(b, ",\"sms\":null");
  jnum(b, "slowdown_comm", w->loaded && w->timed, w->slowdown_comm);
  jnum(b, "slowdown_compute", w->loaded && w->timed, w->slowdown_compute);
  cb_sb_printf(b, "}");
}

/* The classic table (the nccl-tests layout), for rows of families without a table of their own. */
static void classic_header(cb_strbuf_t *out) {
  cb_sb_printf(out,
               "#\n# %12s %12s %-9s %-5s %-3s %-6s %-13s %10s %8s %8s %10s %10s %4s %7s  %s\n"
               "# %12s %12s %-9s %-5s %-3s %-6s %-13s %10s %8s %8s %10s %10s %4s %7s\n",
               "size", "count", "type", "redop", "ip", "mode", "algo", "time", "algbw", "busbw", "p50", "p99", "sms",
               "#wrong", "note", "(B)", "(elements)", "", "", "", "", "", "(us)", "(GB/s)", "(GB/s)", "(us)", "(us)",
               "", "");
}

static void classic_line(const cb_row_t *w, const char *sms, const char *wrong, cb_strbuf_t *out) {
  if (w->timed)
    cb_sb_printf(out, "  %12llu %12llu %-9s %-5s %-3d %-6s %-13s %10.2f %8.2f %8.2f %10.2f %10.2f %4s %7s  %s\n",
                 (unsigned long long)w->bytes, (unsigned long long)w->count, w->dtype, w->op, w->inplace, w->mode,
                 w->algo, w->time_us_mean, w->algbw_gbs, w->busbw_gbs, w->time_us_p50, w->time_us_p99, sms, wrong,
                 w->note);
  else
    cb_sb_printf(out, "  %12llu %12llu %-9s %-5s %-3d %-6s %-13s %10s %8s %8s %10s %10s %4s %7s  %s\n",
                 (unsigned long long)w->bytes, (unsigned long long)w->count, w->dtype, w->op, w->inplace, w->mode,
                 w->algo, "-", "-", "-", "-", "-", sms, wrong, w->note);
}

static const cb_table_t kClassic = {classic_header, classic_line};

static void table_row(cb_report_t *r, const cb_row_t *in) {
  if (!r->table) return;
  /* one line per row: control characters in a note become spaces (CSV and JSON keep them) */
  cb_row_t copy = *in;
  const cb_row_t *w = &copy;
  for (char *c = copy.note; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' ';
  const cb_table_t *t = w->table ? w->table : &kClassic;
  cb_strbuf_t out;
  cb_sb_init(&out);
  if (r->wide) {
    if (!w->table) cb_wide_row(&r->wide_table, w, &out);
    else cb_wide_flush(&r->wide_table, &out); /* a family table's row: the held lines first */
    r->table_started = 0;                     /* a classic row after the wide lines shows its header */
    if (!w->table) {
      fputs(out.s, r->table);
      cb_sb_free(&out);
      fflush(r->table);
      return;
    }
  }
  if (!r->table_started || r->table_shown != t) t->header(&out);
  r->table_started = 1;
  r->table_shown = t;
  char wrong[32] = "-", sms[16] = "-";
  if (w->wrong >= 0) snprintf(wrong, sizeof wrong, "%lld", w->wrong);
  if (w->sms) snprintf(sms, sizeof sms, "%d", w->sms > 0 ? w->sms : 0);
  t->line(w, sms, wrong, &out);
  fputs(out.s, r->table);
  cb_sb_free(&out);
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
    cb_strbuf_t header;
    cb_sb_init(&header);
    cb_csv_header(&header);
    fprintf(r->csv, "%s\n", header.s);
    cb_sb_free(&header);
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
  if (r->sink) r->sink(r->sink_ctx, row);
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
  if (r->table && r->wide) {
    cb_strbuf_t out;
    cb_sb_init(&out);
    cb_wide_flush(&r->wide_table, &out);
    fputs(out.s, r->table);
    fflush(r->table);
    cb_sb_free(&out);
  }
  cb_wide_free(&r->wide_table);
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
