/* The moe family's measurement side (moe_family.h): a sweep point of tokens per rank as a group,
 * its rows (one per phase, then the round trip, each with the bytes that phase moves), its table
 * on stdout, and the lines after each group: --validate's verdicts and every custom algorithm's
 * remote GB/s against copy_ce, the copy engine's peer copy of the same bytes in the same run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "moe_family.h"

int cb_moe_plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  const cb_moe_config_t *c = cb_moe_cfg(p);
  p->count = cb_moe_tokens(p);
  snprintf(what, nwhat, "moe %s %s %llu tokens/rank %s %s", c->model, cb_dtype_name(p->dtype),
           (unsigned long long)cb_moe_tokens(p), c->routing_text, mode);
  return cb_moe_config_check(c, nranks, p->dtype, why, nwhy) == 0 ? 0 : -1;
}

/* The size column is the phase's own bytes (the round trip's on a row of an algorithm that did
 * not run: it names the round trip it stands for); the traffic columns only on timed rows. */
void cb_moe_row(const cb_row_ctx_t *x, cb_row_t *r) {
  const cb_moe_config_t *c = cb_moe_cfg(x->p);
  cb_row_text(r, CB_COL_MODEL, c->model);
  cb_row_int(r, CB_COL_TOKENS, (long long)cb_moe_tokens(x->p));
  cb_row_int(r, CB_COL_HIDDEN, c->hidden);
  cb_row_int(r, CB_COL_TOPK, c->topk);
  cb_row_int(r, CB_COL_EXPERTS, c->experts);
  cb_row_text(r, CB_COL_ROUTING, c->routing_text);
  cb_row_text(r, CB_COL_PHASE, x->loaded ? "roundtrip_loaded" : x->phase_name ? x->phase_name : "roundtrip");
  if (x->bytes) r->bytes = (uint64_t)x->bytes->algbw_bytes;
  if (!x->timed) return;
  const cb_bytes_t *by = x->bytes;
  cb_row_real(r, CB_COL_REMOTE_GBS, by->remote_bytes / x->time_us / 1e3);
  cb_row_real(r, CB_COL_IMBALANCE, x->metrics[CB_MOE_IMBALANCE]);
  cb_row_real(r, CB_COL_NET_BYTES, by->link_bytes ? by->net_bytes : NAN);
  cb_row_real(r, CB_COL_NVLINK_BYTES, by->link_bytes ? by->nvlink_bytes : NAN);
}

static void header(cb_strbuf_t *out) {
  cb_sb_printf(out,
               "#\n# %8s %-9s %-16s %-13s %-6s %11s %11s %11s %9s %9s %7s %4s %9s  %s\n"
               "# %8s %-9s %-16s %-13s %-6s %11s %11s %11s %9s %9s %7s %4s %9s\n",
               "tokens", "type", "phase", "algo", "mode", "time", "p50", "p99", "algbw", "remote", "imbal", "sms",
               "#wrong", "note", "(/rank)", "", "", "", "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "", "", "");
}

static void line(const cb_row_t *w, const char *sms, const char *wrong, cb_strbuf_t *out) {
  unsigned long long tokens = (unsigned long long)w->col[CB_COL_TOKENS].i;
  const char *phase = w->col[CB_COL_PHASE].s;
  if (!w->timed) {
    cb_sb_printf(out, "  %8llu %-9s %-16s %-13s %-6s %11s %11s %11s %9s %9s %7s %4s %9s  %s\n", tokens, w->dtype, phase,
                 w->algo, w->mode, "-", "-", "-", "-", "-", "-", sms, wrong, w->note);
    return;
  }
  /* percentiles may be absent (--overlap's roundtrip_loaded rows): "-" */
  char p50[32], p99[32];
  cb_sb_printf(out, "  %8llu %-9s %-16s %-13s %-6s %11.2f %11s %11s %9.2f %9.2f %7.3f %4s %9s  %s\n", tokens, w->dtype,
               phase, w->algo, w->mode, w->time_us_mean, cb_row_real_text(w->time_us_p50, "%.2f", p50, sizeof p50),
               cb_row_real_text(w->time_us_p99, "%.2f", p99, sizeof p99), w->algbw_gbs, w->col[CB_COL_REMOTE_GBS].d,
               w->col[CB_COL_IMBALANCE].d, sms, wrong, w->note);
}

const cb_table_t cb_moe_table = {header, line};

/* --validate: one PASS/FAIL line per algorithm (every check exact, the outputs alike on every
 * rank) with its round trip; returns the failures */
static int validate(const cb_group_view_t *g, cb_strbuf_t *out) {
  int failures = 0;
  for (int k = 0; k < g->nslots; k++) {
    const cb_slot_view_t *s = &g->slots[k];
    if (!s->active) {
      cb_sb_printf(out, "# VALIDATE %-12s %s: SKIPPED (%s)\n", s->algo, g->what, s->note);
      continue;
    }
    int pass = s->wrong == 0 && !s->digest_mismatch && g->check_iters > 0;
    failures += !pass;
    cb_sb_printf(out,
                 "# VALIDATE %-12s %s: %s (%lld wrong over %d check iterations); dispatch+combine per MoE layer: "
                 "%.1f us mean, %.1f us p99\n",
                 s->algo, g->what, pass ? "PASS" : "FAIL", s->wrong, g->check_iters, s->mean_us, s->p99_us);
  }
  return failures;
}

/* each custom algorithm's remote GB/s per phase against copy_ce's, one line per algorithm */
static void copy_ratio(const cb_group_view_t *g, cb_strbuf_t *out) {
  const cb_slot_view_t *ref = NULL;
  for (int k = 0; k < g->nslots; k++)
    if (g->slots[k].active && strcmp(g->slots[k].algo, "copy_ce") == 0) ref = &g->slots[k];
  if (!ref) return;
  for (int k = 0; k < g->nslots; k++) {
    const cb_slot_view_t *s = &g->slots[k];
    if (!s->active || s == ref || s->nphases != 3) continue;
    /* copy_ce's phases: 0 dispatch, 1 combine; the MoE algorithms': 1 dispatch, 2 combine. No
     * byte crossing (0 tokens, every selection local): no ratio to print. */
    if (!(ref->remote_gbs[0] > 0.0) || !(ref->remote_gbs[1] > 0.0)) continue;
    cb_sb_printf(
        out, "# copy_ce reference %s %s: dispatch %.1f of %.1f GB/s (%.0f %%), combine %.1f of %.1f GB/s (%.0f %%)\n",
        s->algo, g->what, s->remote_gbs[1], ref->remote_gbs[0], 100.0 * s->remote_gbs[1] / ref->remote_gbs[0],
        s->remote_gbs[2], ref->remote_gbs[1], 100.0 * s->remote_gbs[2] / ref->remote_gbs[1]);
  }
}

int cb_moe_group_end(const cb_group_view_t *g, cb_strbuf_t *out) {
  int failures = cb_moe_cfg(g->p)->validate ? validate(g, out) : 0;
  copy_ratio(g, out);
  return failures;
}
