/* Implementation of alltoallv_matrix.h: two passes over the text, the first checks every value
 * and the shape (so nothing is allocated for a bad file), the second stores the values. */
#include "alltoallv_matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "readfile.h"

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static int is_sep(char c) { return is_blank(c) || c == '\n' || c == 0; }

/* One value at *p (past any blank): decimal digits up to a separator, at most
 * CB_MAX_BUFFER_BYTES. 0 with *v and *p past it, or -1 with why. why says what was expected,
 * never what the file holds: a hostile file's bytes (a terminal escape) must not reach the
 * user's terminal through a message; the caller gives the row, column and byte offset. */
static int read_value(const char **p, uint64_t *v, char *why, size_t n) {
  const char *s = *p, *e = s;
  while (!is_sep(*e)) e++;
  if (*s == '-') {
    snprintf(why, n, "a negative value: byte counts are 0 or more");
    return -1;
  }
  uint64_t x = 0;
  for (const char *q = s; q < e; q++) {
    if (*q < '0' || *q > '9') {
      snprintf(why, n, "byte %zu of the value is not a decimal digit: expected a whole number of bytes (0-9 only)",
               (size_t)(q - s) + 1);
      return -1;
    }
    if (x > CB_MAX_BUFFER_BYTES) continue; /* keep scanning the digits; refused below */
    x = x * 10 + (uint64_t)(*q - '0');
  }
  if (x > CB_MAX_BUFFER_BYTES) {
    snprintf(why, n, "a value of more than the %llu B (1 TiB) per-rank buffer collbench can allocate",
             CB_MAX_BUFFER_BYTES);
    return -1;
  }
  *v = x;
  *p = e;
  return 0;
}

/* Walks the text; with out->bytes set, stores the values. Returns 0 with the side in *dim. */
static int walk(const char *text, const char *name, uint64_t *store, int *dim, char *err, size_t n) {
  int rows = 0, cols = 0, width = -1;
  size_t k = 0;
  char why[160];
  for (const char *p = text;;) {
    while (is_blank(*p)) p++;
    if (*p == '\n' || *p == 0) {
      if (cols > 0) { /* a row ends (blank lines are skipped) */
        if (width < 0) width = cols;
        else if (cols != width) {
          snprintf(err, n,
                   "--counts matrix file '%s': row %d has %d values, row 1 has %d (the matrix is ranks x ranks)", name,
                   rows + 1, cols, width);
          return -1;
        }
        rows++;
        cols = 0;
      }
      if (*p == 0) break;
      p++;
      continue;
    }
    uint64_t v;
    const size_t at = (size_t)(p - text); /* the value's first byte, 0-based */
    if (read_value(&p, &v, why, sizeof why)) {
      snprintf(err, n, "--counts matrix file '%s': row %d, column %d (the value at byte offset %zu): %s", name,
               rows + 1, cols + 1, at, why);
      return -1;
    }
    if (++cols > CB_A2AV_MATRIX_MAX_DIM || rows >= CB_A2AV_MATRIX_MAX_DIM) {
      snprintf(err, n, "--counts matrix file '%s': more than %d rows or columns", name, CB_A2AV_MATRIX_MAX_DIM);
      return -1;
    }
    if (store) store[k] = v;
    k++;
  }
  if (rows == 0) {
    snprintf(err, n, "--counts matrix file '%s' holds no values", name);
    return -1;
  }
  if (rows != width) {
    snprintf(err, n, "--counts matrix file '%s' is %d x %d: the matrix must be square (ranks x ranks)", name, rows,
             width);
    return -1;
  }
  *dim = rows;
  return 0;
}

/* no rank sends or receives more than CB_MAX_BUFFER_BYTES in all */
static int check_totals(const cb_a2av_matrix_t *m, const char *name, char *err, size_t n) {
  for (int i = 0; i < m->dim; i++) {
    uint64_t row = 0, col = 0;
    for (int j = 0; j < m->dim; j++) {
      row += m->bytes[(size_t)i * m->dim + j]; /* each <= 2^40, dim <= 2^12: no overflow */
      col += m->bytes[(size_t)j * m->dim + i];
    }
    if (row > CB_MAX_BUFFER_BYTES || col > CB_MAX_BUFFER_BYTES) {
      snprintf(err, n,
               "--counts matrix file '%s': rank %d %s %llu B in all, more than the %llu B (1 TiB) buffer collbench can "
               "allocate",
               name, i, row > CB_MAX_BUFFER_BYTES ? "sends" : "receives",
               (unsigned long long)(row > CB_MAX_BUFFER_BYTES ? row : col), CB_MAX_BUFFER_BYTES);
      return -1;
    }
  }
  return 0;
}

int cb_a2av_matrix_parse(const char *text, const char *name, cb_a2av_matrix_t *out, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  int dim = 0;
  if (walk(text, name, NULL, &dim, err, n)) return -1;
  cb_a2av_matrix_t m = {.dim = dim, .bytes = malloc(sizeof(uint64_t) * (size_t)dim * (size_t)dim)};
  if (!m.bytes) {
    snprintf(err, n, "--counts matrix file '%s': out of host memory", name);
    return -1;
  }
  walk(text, name, m.bytes, &dim, err, n); /* the same text: it passes again */
  if (check_totals(&m, name, err, n)) {
    cb_a2av_matrix_free(&m);
    return -1;
  }
  *out = m;
  return 0;
}

int cb_a2av_matrix_read(const char *path, cb_a2av_matrix_t *out, char *err, size_t n) {
  char *text = NULL;
  size_t len = 0;
  memset(out, 0, sizeof *out);
  if (cb_readfile(path, "--counts matrix file", CB_A2AV_MATRIX_MAX_FILE, &text, &len, err, n)) return -1;
  int rc = cb_a2av_matrix_parse(text, path, out, err, n);
  free(text);
  return rc;
}

void cb_a2av_matrix_free(cb_a2av_matrix_t *m) {
  free(m->bytes);
  m->bytes = NULL;
  m->dim = 0;
}
