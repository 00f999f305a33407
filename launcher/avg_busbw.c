/* Implementation of avg_busbw.h. */
#include "avg_busbw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int slot_of(cb_avg_busbw_t *s, const char *algo) {
  for (int i = 0; i < s->nalgos; i++)
    if (strcmp(s->a[i].algo, algo) == 0) return i;
  if (s->nalgos >= CB_MAX_ALGOS) return -1; /* the engine runs at most CB_MAX_ALGOS algorithms */
  int i = s->nalgos++;
  snprintf(s->a[i].algo, sizeof s->a[i].algo, "%s", algo);
  s->a[i].sum_gbs = 0.0;
  s->a[i].rows = 0;
  return i;
}

void cb_avg_busbw_name(cb_avg_busbw_t *s, const char *algo) { (void)slot_of(s, algo); }

void cb_avg_busbw_add(cb_avg_busbw_t *s, const char *algo, double busbw_gbs) {
  int i = slot_of(s, algo);
  if (i < 0) return;
  s->a[i].sum_gbs += busbw_gbs;
  s->a[i].rows++;
}

double cb_avg_busbw_mean(const cb_avg_busbw_t *s, int i) {
  return s->a[i].rows ? s->a[i].sum_gbs / (double)s->a[i].rows : NAN;
}

void cb_avg_busbw_lines(const cb_avg_busbw_t *s, const cb_gate_t *g, cb_strbuf_t *out) {
  for (int i = 0; i < s->nalgos; i++) {
    double m = cb_avg_busbw_mean(s, i);
    if (!s->a[i].rows) {
      cb_sb_printf(out, "# %-20s : - %salgo %s (no timed row)\n", "Avg bus bandwidth", g->set ? "FAILED " : "",
                   s->a[i].algo);
      continue;
    }
    cb_sb_printf(out, "# %-20s : %g %salgo %s (%ld rows)\n", "Avg bus bandwidth", m,
                 !g->set                ? ""
                 : cb_gate_passes(g, m) ? "OK "
                                        : "FAILED ",
                 s->a[i].algo, s->a[i].rows);
  }
  if (g->set) cb_sb_printf(out, "# %-20s : %g GB/s (%s)\n", "Bus bandwidth bar", g->bar_gbs, g->source);
}

void cb_avg_busbw_json(const cb_avg_busbw_t *s, const cb_gate_t *g, cb_strbuf_t *out) {
  cb_sb_printf(out, "[");
  for (int i = 0; i < s->nalgos; i++) {
    double m = cb_avg_busbw_mean(s, i);
    cb_sb_printf(out, "%s{\"algo\": ", i ? ", " : "");
    cb_sb_json_str(out, s->a[i].algo);
    if (isfinite(m)) cb_sb_printf(out, ", \"gbs\": %.6g", m);
    else cb_sb_printf(out, ", \"gbs\": null");
    cb_sb_printf(out, ", \"rows\": %ld, \"passed\": %s}", s->a[i].rows,
                 !g->set                ? "null"
                 : cb_gate_passes(g, m) ? "true"
                                        : "false");
  }
  cb_sb_printf(out, "]");
}
