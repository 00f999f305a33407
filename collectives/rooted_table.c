/* The rooted families' table on stdout (row.h cb_table_t): the classic nccl-tests-style layout
 * with the root after the op, as nccl-tests prints it (size, count, type, redop, root), so rows
 * of `-r -1` (every root in turn) can be told apart on the terminal as in the CSV's root column. */
#include "rooted.h"
#include "row.h"

static void header(cb_strbuf_t *out) {
  cb_sb_printf(out,
               "#\n# %12s %12s %-9s %-5s %4s %-3s %-6s %-13s %10s %8s %8s %10s %10s %4s %7s  %s\n"
               "# %12s %12s %-9s %-5s %4s %-3s %-6s %-13s %10s %8s %8s %10s %10s %4s %7s\n",
               "size", "count", "type", "redop", "root", "ip", "mode", "algo", "time", "algbw", "busbw", "p50", "p99",
               "sms", "#wrong", "note", "(B)", "(elements)", "", "", "", "", "", "", "(us)", "(GB/s)", "(GB/s)", "(us)",
               "(us)", "", "");
}

static void line(const cb_row_t *w, const char *sms, const char *wrong, cb_strbuf_t *out) {
  unsigned long long bytes = (unsigned long long)w->bytes, count = (unsigned long long)w->count;
  int root = (int)w->col[CB_COL_ROOT].i;
  if (!w->timed) {
    cb_sb_printf(out, "  %12llu %12llu %-9s %-5s %4d %-3d %-6s %-13s %10s %8s %8s %10s %10s %4s %7s  %s\n", bytes,
                 count, w->dtype, w->op, root, w->inplace, w->mode, w->algo, "-", "-", "-", "-", "-", sms, wrong,
                 w->note);
    return;
  }
  char p50[32], p99[32];
  cb_sb_printf(out, "  %12llu %12llu %-9s %-5s %4d %-3d %-6s %-13s %10.2f %8.2f %8.2f %10s %10s %4s %7s  %s\n", bytes,
               count, w->dtype, w->op, root, w->inplace, w->mode, w->algo, w->time_us_mean, w->algbw_gbs, w->busbw_gbs,
               cb_row_real_text(w->time_us_p50, "%.2f", p50, sizeof p50),
               cb_row_real_text(w->time_us_p99, "%.2f", p99, sizeof p99), sms, wrong, w->note);
}

const cb_table_t cb_rooted_table = {header, line};
