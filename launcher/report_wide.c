/* Implementation of report_wide.h. A group is 24 characters a side (time 9, busbw 8, #wrong 7),
 * so four algorithms with both sides fit a 220-column terminal. */
#include "report_wide.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

#define SIDE_W 24

static int same_point(const cb_row_t *a, const cb_row_t *b) {
  return a->bytes == b->bytes && strcmp(a->dtype, b->dtype) == 0 && strcmp(a->op, b->op) == 0;
}

void cb_wide_row(cb_wide_t *w, const cb_row_t *r, cb_strbuf_t *out) {
  if (w->n && !same_point(&w->rows[0], r)) cb_wide_flush(w, out);
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 32;
    cb_row_t *rows = realloc(w->rows, sizeof *rows * (size_t)cap);
    if (!rows) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
    w->rows = rows;
    w->cap = cap;
  }
  w->rows[w->n++] = *r;
}

/* The held rows' algorithms (in order of their first row) and modes; whether any is in-place. */
static int held_algos(const cb_wide_t *w, const char **algos, int *inplace) {
  int n = 0;
  *inplace = 0;
  for (int i = 0; i < w->n; i++) {
    *inplace |= w->rows[i].inplace;
    int k = 0;
    while (k < n && strcmp(algos[k], w->rows[i].algo) != 0) k++;
    if (k == n && n < CB_WIDE_MAX_ALGOS) algos[n++] = w->rows[i].algo;
  }
  return n;
}

static void header(cb_wide_t *w, const char **algos, int n, int inplace, cb_strbuf_t *out) {
  int group = SIDE_W * (inplace ? 2 : 1);
  cb_sb_printf(out, "#\n# %12s %12s %-9s %-5s %-5s", "", "", "", "", "");
  for (int k = 0; k < n; k++) cb_sb_printf(out, " | %-*.*s", group, group, algos[k]);
  cb_sb_printf(out, "\n# %12s %12s %-9s %-5s %-5s", "", "", "", "", "");
  for (int k = 0; k < n; k++) {
    cb_sb_printf(out, " | %-*s", SIDE_W, "out-of-place");
    if (inplace) cb_sb_printf(out, "%-*s", SIDE_W, "in-place");
  }
  cb_sb_printf(out, "\n# %12s %12s %-9s %-5s %-5s", "size", "count", "type", "redop", "mode");
  for (int k = 0; k < n; k++)
    for (int s = 0; s < (inplace ? 2 : 1); s++)
      cb_sb_printf(out, "%s%9s %8s %6s", s ? " " : " | ", "time", "busbw", "#wrong");
  cb_sb_printf(out, "\n# %12s %12s %-9s %-5s %-5s", "(B)", "(elements)", "", "", "");
  for (int k = 0; k < n; k++)
    for (int s = 0; s < (inplace ? 2 : 1); s++)
      cb_sb_printf(out, "%s%9s %8s %6s", s ? " " : " | ", "(us)", "(GB/s)", "");
  cb_sb_printf(out, "\n");
  w->shown = 1;
  w->nalgos = n;
  w->inplace = inplace;
  for (int k = 0; k < n; k++) {
    snprintf(w->algos[k], sizeof w->algos[k], "%s", algos[k]);
    w->last_note[k][0] = 0;
  }
}

static int header_differs(const cb_wide_t *w, const char **algos, int n, int inplace) {
  if (!w->shown || w->nalgos != n || w->inplace != inplace) return 1;
  for (int k = 0; k < n; k++)
    if (strcmp(w->algos[k], algos[k]) != 0) return 1;
  return 0;
}

/* The held row of (algo, mode, side); the last one wins (a multi-phase algorithm's round trip
 * follows its phases). NULL when there is none. */
static const cb_row_t *cell(const cb_wide_t *w, const char *algo, const char *mode, int side) {
  const cb_row_t *found = NULL;
  for (int i = 0; i < w->n; i++)
    if (w->rows[i].inplace == side && strcmp(w->rows[i].algo, algo) == 0 && strcmp(w->rows[i].mode, mode) == 0)
      found = &w->rows[i];
  return found;
}

static void side_text(const cb_row_t *r, int first, cb_strbuf_t *out) {
  const char *sep = first ? " | " : " ";
  if (!r || !r->timed) {
    cb_sb_printf(out, "%s%9s %8s %6s", sep, "-", "-", "-");
    return;
  }
  char wrong[24] = "-";
  if (r->wrong >= 0) snprintf(wrong, sizeof wrong, "%lld", r->wrong);
  cb_sb_printf(out, "%s%9.2f %8.2f %6s", sep, r->time_us_mean, r->busbw_gbs, wrong);
}

/* "#  ALGO: why" under the line, for a reason not printed just before for that algorithm. */
static void notes(cb_wide_t *w, const char *mode, cb_strbuf_t *out) {
  for (int k = 0; k < w->nalgos; k++)
    for (int s = 0; s < 2; s++) {
      const cb_row_t *r = cell(w, w->algos[k], mode, s);
      if (!r || !r->note[0] || strncmp(w->last_note[k], r->note, sizeof w->last_note[k] - 1) == 0) continue;
      snprintf(w->last_note[k], sizeof w->last_note[k], "%.159s", r->note);
      char line[600];
      snprintf(line, sizeof line, "%s", r->note);
      for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20) *c = ' ';
      cb_sb_printf(out, "#  %s: %s\n", w->algos[k], line);
    }
}

void cb_wide_flush(cb_wide_t *w, cb_strbuf_t *out) {
  if (!w->n) return;
  const char *algos[CB_WIDE_MAX_ALGOS], *modes[2];
  int inplace, nmodes = 0;
  int n = held_algos(w, algos, &inplace);
  if (header_differs(w, algos, n, inplace)) header(w, algos, n, inplace, out);
  for (int i = 0; i < w->n; i++) {
    int k = 0;
    while (k < nmodes && strcmp(modes[k], w->rows[i].mode) != 0) k++;
    if (k == nmodes && nmodes < 2) modes[nmodes++] = w->rows[i].mode;
  }
  const cb_row_t *first = &w->rows[0];
  for (int m = 0; m < nmodes; m++) {
    cb_sb_printf(out, "  %12llu %12llu %-9s %-5s %-5s", (unsigned long long)first->bytes,
                 (unsigned long long)first->count, first->dtype, first->op, modes[m]);
    for (int k = 0; k < w->nalgos; k++)
      for (int s = 0; s < (inplace ? 2 : 1); s++) side_text(cell(w, w->algos[k], modes[m], s), s == 0, out);
    cb_sb_printf(out, "\n");
    notes(w, modes[m], out);
  }
  w->n = 0;
}

void cb_wide_free(cb_wide_t *w) {
  free(w->rows);
  memset(w, 0, sizeof *w);
}
