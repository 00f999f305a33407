/* Result rows and where they go: the nccl-tests-style table on stdout (as rows finish), a CSV
 * file and a JSON file (docs/results-format.md documents both). Only rank 0 reports.
 *
 * Nothing finished is lost: each row is flushed to the CSV and appended to FILE.partial.jsonl
 * (one JSON object per line, the metadata first) the moment it completes. cb_report_close
 * writes the complete JSON document to a new file beside FILE, renames it over FILE (atomic on
 * POSIX) and removes the .partial.jsonl. A crash leaves the CSV and the .partial.jsonl with
 * every finished row. Every one of these files is created new in its folder and renamed over
 * its name (base/newfile.h): a symlink planted at a name is replaced, never written through; a
 * directory or device there is refused at open. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "report_wide.h"
#include "row.h"
#include "strbuf.h"

/* The CSV's header line (no newline): the columns every row has, the family columns of the
 * schema (row.h) where the CSV puts them. The JSON rows use the same names. */
void cb_csv_header(cb_strbuf_t *out);

typedef struct cb_report {
  FILE *table; /* stdout on rank 0, NULL elsewhere */
  FILE *csv;
  FILE *partial;
  char json_path[1024], partial_path[1100], csv_path[1024];
  /* errno of the first failed write (0: none): a full disk must not pass as a finished run */
  int csv_errno, partial_errno;
  cb_strbuf_t meta; /* metadata object text */
  cb_strbuf_t rows; /* row objects joined by ",\n" for the final JSON */
  int nrows;
  /* the table on stdout whose header was printed last (row.h; NULL: the classic one), once
   * table_started: a row of another table prints that table's header first */
  int table_started;
  const cb_table_t *table_shown;
  /* --format wide (set after cb_report_open): the classic rows go to the wide table, held by
   * size (report_wide.h); cb_report_close prints what it still holds */
  int wide;
  cb_wide_t wide_table;
  /* when set (after cb_report_open), every row also goes to sink: the nccl-tests drop-in's
   * table (ncclt_main.h), opened with table NULL */
  void (*sink)(void *ctx, const cb_row_t *row);
  void *sink_ctx;
} cb_report_t;

/* Opens the outputs (either path may be empty). meta_json is a JSON object's text. Returns 0,
 * or -1 with why (file cannot be created). table may be NULL. */
int cb_report_open(cb_report_t *r, FILE *table, const char *csv_path, const char *json_path, const char *meta_json,
                   char *why, size_t n);
void cb_report_row(cb_report_t *r, const cb_row_t *row);
/* Writes the final JSON atomically; extra_json (may be NULL) is merged as top-level fields
 * (e.g. "\"exit_code\": 0"). Returns 0 or -1 with why. */
int cb_report_close(cb_report_t *r, const char *extra_json, char *why, size_t n);

/* Row → text, exposed for the tests. */
void cb_row_csv(const cb_row_t *row, cb_strbuf_t *out);  /* no newline */
void cb_row_json(const cb_row_t *row, cb_strbuf_t *out); /* one object, one line */

#endif
