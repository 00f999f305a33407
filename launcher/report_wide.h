/* --format wide: the table on stdout a person can scan. One line per (size, dtype, op, mode)
 * with a group per algorithm side by side, each group its out-of-place and in-place time, bus
 * bandwidth and wrong-element count as nccl-tests prints its two sides (the sides the family
 * has). The rows of one size, dtype and op arrive over several groups of the bench engine (the
 * placement and the mode loop inside the size), so they are held until the next size, dtype or
 * op begins, or the run ends. A skipped row's cell is "-"; its reason follows the line once
 * ("#  ALGO: why"), again only when it changes. A family with a table of its own (moe,
 * ringattn) keeps it: its rows pass through (report.c). --format rows is the row-per-line table
 * (report.c). The CSV and JSON never change with the format. */
#ifndef CB_REPORT_WIDE_H
#define CB_REPORT_WIDE_H

#include <stdio.h>

#include "row.h"
#include "strbuf.h"

#define CB_WIDE_MAX_ALGOS 16

typedef struct cb_wide {
  cb_row_t *rows; /* the held rows of one (size, dtype, op) */
  int n, cap;
  /* the header shown last: its algorithms and whether it has the in-place side */
  int shown, nalgos, inplace;
  char algos[CB_WIDE_MAX_ALGOS][64];
  char last_note[CB_WIDE_MAX_ALGOS][160]; /* the reason printed last, per algorithm */
} cb_wide_t;

/* Takes one classic row (the lines of the rows held before it go to out first when it starts a
 * new size, dtype or op). */
void cb_wide_row(cb_wide_t *w, const cb_row_t *r, cb_strbuf_t *out);
/* The lines of the rows held (at the end of the run, or before another table's row). */
void cb_wide_flush(cb_wide_t *w, cb_strbuf_t *out);
void cb_wide_free(cb_wide_t *w);

#endif
