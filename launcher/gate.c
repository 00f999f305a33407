/* Implementation of gate.h. */
#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "decimal.h"
#include "error.h"

/* NCCL_TESTS_MIN_BW's tolerance: nccl-tests passes an average of at least 0.9 times the value. */
#define CB_NCCLT_MIN_BW_SLACK 0.9

static int read_bar(const char *name, const char *v, double *out, char *why, size_t n) {
  if (cb_decimal_real(v, out) || *out < 0.0) {
    snprintf(why, n, "%s='%s' is not a bus bandwidth in GB/s (a decimal number >= 0)", name, v);
    return -1;
  }
  return 0;
}

int cb_gate_parse(cb_gate_t *g, const char *cb_min_busbw, const char *ncclt_min_bw, char *why, size_t n) {
  double cb = 0.0, nt = 0.0;
  g->set = 0;
  g->bar_gbs = 0.0;
  g->source[0] = 0;
  if (cb_min_busbw && read_bar("CB_MIN_BUSBW", cb_min_busbw, &cb, why, n)) return -1;
  if (ncclt_min_bw && read_bar("NCCL_TESTS_MIN_BW", ncclt_min_bw, &nt, why, n)) return -1;
  if (ncclt_min_bw) {
    g->set = 1;
    g->bar_gbs = nt * CB_NCCLT_MIN_BW_SLACK;
    snprintf(g->source, sizeof g->source, "NCCL_TESTS_MIN_BW=%g, x 0.9", nt);
  }
  if (cb_min_busbw && (!g->set || cb >= g->bar_gbs)) {
    g->set = 1;
    g->bar_gbs = cb;
    snprintf(g->source, sizeof g->source, "CB_MIN_BUSBW=%g", cb);
  }
  return 0;
}

int cb_gate_from_env(cb_gate_t *g, char *why, size_t n) {
  return cb_gate_parse(g, getenv("CB_MIN_BUSBW"), getenv("NCCL_TESTS_MIN_BW"), why, n);
}

int cb_gate_passes(const cb_gate_t *g, double avg_gbs) {
  if (!g->set) return 1;
  return isfinite(avg_gbs) && avg_gbs >= g->bar_gbs;
}

int cb_gate_exit_code(const cb_gate_t *g, long long wrong, int validate_failures, const double *avg, int n) {
  if (wrong > 0 || validate_failures > 0) return CB_EXIT_WRONG;
  for (int i = 0; i < n; i++)
    if (!cb_gate_passes(g, avg[i])) return CB_EXIT_BELOW_BAR;
  return CB_EXIT_OK;
}
