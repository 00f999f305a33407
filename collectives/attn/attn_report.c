/* The ringattn family's measurement side (attn_family.h): a sweep point (total sequence length)
 * in one variant (causal or not, layout, Ulysses degree) as a group, its row (the shape, then
 * TFLOP/s per GPU, the compute and communication times alone, their overlap, the ring against
 * one GPU, the error against the fp32 reference, the layout and the U x R the row ran) and its
 * table on stdout. */
#include <math.h>
#include <stdio.h>

#include "attn_family.h"

/* The size column: the K/V bytes one rank receives in the ring's pass (attn_config.h), once the
 * sequence shards over the ranks in the variant's layout (a Ulysses row's setup puts its own,
 * attn_a2a.h, into its instance: the row shows what the algorithm counted). */
int cb_attn_plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  const cb_attn_config_t c = cb_attn_row_config(p);
  uint64_t seq = cb_attn_seq(p);
  char form[64], batch[24] = "";
  cb_attn_variant_text(p->variant, form, sizeof form);
  if (c.nbatches > 1) snprintf(batch, sizeof batch, " B=%d", c.batch);
  p->count = seq;
  snprintf(what, nwhat, "ringattn %s S=%llu%s %s%s%s %s %s", cb_dtype_name(p->dtype), (unsigned long long)seq, batch,
           cb_attn_causal(p) ? "causal" : "non-causal", form[0] ? " " : "", form, mode, cb_attn_pass_name(c.pass));
  if (cb_attn_variant_check(p->variant, seq, nranks, why, nwhy)) return -1;
  p->bytes = cb_attn_pass_bytes(&c, seq, nranks, cb_dtype_size(p->dtype), c.pass);
  return 0;
}

/* A metric nobody measured (0 on every rank) is empty, not 0. */
static double measured(double v) { return v > 0 ? v : NAN; }

void cb_attn_row(const cb_row_ctx_t *x, cb_row_t *r) {
  const cb_attn_config_t *c = cb_attn_cfg(x->p);
  cb_row_int(r, CB_COL_SEQ, (long long)cb_attn_seq(x->p));
  cb_row_int(r, CB_COL_BATCH, cb_attn_batch(x->p));
  cb_row_int(r, CB_COL_HEADS, c->heads);
  cb_row_int(r, CB_COL_KV_HEADS, c->kv_heads);
  cb_row_int(r, CB_COL_HEAD_DIM, c->head_dim);
  cb_row_int(r, CB_COL_CAUSAL, cb_attn_causal(x->p));
  cb_row_text(r, CB_COL_PASS, cb_attn_pass_name(c->pass));
  cb_row_text(r, CB_COL_LAYOUT, cb_attn_layout_name(cb_attn_layout(x->p)));
  if (!x->timed) return;
  const double *m = x->metrics, t = x->time_us;
  /* the size column is what the algorithm counted (algbw = bytes / time), a Ulysses row's own
   * formula; `single` counts 0 and keeps its group's value (docs/results-format.md) */
  if (x->bytes && x->bytes->algbw_bytes > 0) r->bytes = (uint64_t)llround(x->bytes->algbw_bytes);
  cb_row_real(r, CB_COL_ULYSSES, measured(m[CB_ATTN_ULYSSES]));
  cb_row_real(r, CB_COL_RING, measured(m[CB_ATTN_RING]));
  cb_row_real(r, CB_COL_ERR_MAX, x->checked ? m[CB_ATTN_ERR_MAX] : NAN);
  cb_row_real(r, CB_COL_ERR_MEAN, x->checked ? m[CB_ATTN_ERR_MEAN] : NAN);
  cb_row_real(r, CB_COL_COMPUTE_US, measured(m[CB_ATTN_COMPUTE_US]));
  cb_row_real(r, CB_COL_COMM_US, measured(m[CB_ATTN_COMM_US]));
  cb_row_real(r, CB_COL_TFLOPS, m[CB_ATTN_FLOPS] / t / 1e6);
  cb_row_real(r, CB_COL_OVERLAP_EFF, m[CB_ATTN_COMPUTE_US] > 0 ? m[CB_ATTN_COMPUTE_US] / t : NAN);
  cb_row_real(r, CB_COL_RING_OVER_SINGLE, m[CB_ATTN_LOCAL_US] > 0 ? t / (x->nranks * m[CB_ATTN_LOCAL_US]) : NAN);
}

static void header(cb_strbuf_t *out) {
  cb_sb_printf(out,
               "#\n# %8s %-9s %-3s %-4s %-15s %-6s %11s %8s %10s %10s %7s %7s %9s %4s %7s  %s\n"
               "# %8s %-9s %-3s %-4s %-15s %-6s %11s %8s %10s %10s %7s %7s %9s %4s %7s\n",
               "seq", "type", "cau", "pass", "algo", "mode", "time", "TFLOP/s", "compute", "comm", "overlap",
               "r/single", "max err", "sms", "#wrong", "note", "", "", "", "", "", "", "(us)", "(/GPU)", "(us)", "(us)",
               "", "", "", "", "");
}

static void line(const cb_row_t *w, const char *sms, const char *wrong, cb_strbuf_t *out) {
  unsigned long long seq = (unsigned long long)w->col[CB_COL_SEQ].i;
  int causal = (int)w->col[CB_COL_CAUSAL].i;
  const char *pass = w->col[CB_COL_PASS].s ? w->col[CB_COL_PASS].s : "fwd";
  if (w->timed)
    cb_sb_printf(out, "  %8llu %-9s %-3d %-4s %-15s %-6s %11.1f %8.1f %10.1f %10.1f %7.3f %7.3f %9.2e %4s %7s  %s\n",
                 seq, w->dtype, causal, pass, w->algo, w->mode, w->time_us_mean, w->col[CB_COL_TFLOPS].d,
                 w->col[CB_COL_COMPUTE_US].d, w->col[CB_COL_COMM_US].d, w->col[CB_COL_OVERLAP_EFF].d,
                 w->col[CB_COL_RING_OVER_SINGLE].d, w->col[CB_COL_ERR_MAX].d, sms, wrong, w->note);
  else
    cb_sb_printf(out, "  %8llu %-9s %-3d %-4s %-15s %-6s %11s %8s %10s %10s %7s %7s %9s %4s %7s  %s\n", seq, w->dtype,
                 causal, pass, w->algo, w->mode, "-", "-", "-", "-", "-", "-", "-", sms, wrong, w->note);
}

const cb_table_t cb_attn_table = {header, line};
