/* The ringattn family's describer (family.h), beside its configuration (attn_config.h), in two
 * files: attn_family.c declares it and reads its command line; attn_report.c turns a sweep point
 * into parameters and a measurement into its row and table line. The accessors are how the
 * ringattn algorithms read the generic parameters (params.h): the point is the total sequence
 * length, the variant the group's form (causal or not, its layout, its Ulysses degree:
 * attn_variant.h), the config a cb_attn_config_t. */
#ifndef CB_ATTN_FAMILY_H
#define CB_ATTN_FAMILY_H

#include "attn_config.h"
#include "attn_variant.h"
#include "family.h"
#include "params.h"
#include "row.h"

/* cb_inst_t.metric of the ringattn algorithms, set by setup, check and measure (the engine
 * reports the max over ranks, the mean error averaged, FLOPs, U and R the reporting rank's own) */
enum cb_attn_metric {
  CB_ATTN_ERR_MAX,    /* absolute error of the output against the fp32 reference */
  CB_ATTN_ERR_MEAN,   /* its mean */
  CB_ATTN_COMPUTE_US, /* one pass's attention kernels alone */
  CB_ATTN_COMM_US,    /* its K/V transfers alone */
  CB_ATTN_LOCAL_US,   /* the local kernel alone on one S/P block (ring_over_single) */
  CB_ATTN_FLOPS,      /* this rank's FLOPs in one pass (TFLOP/s per GPU) */
  CB_ATTN_ULYSSES,    /* U: the ranks of one all-to-all group the row ran (1: none) */
  CB_ATTN_RING,       /* R: the ranks its K/V exchange spans (the ring's, the all-gather's; 1: one GPU) */
  CB_ATTN_NMETRICS
};

static inline const cb_attn_config_t *cb_attn_cfg(const cb_params_t *p) { return (const cb_attn_config_t *)p->config; }
static inline uint64_t cb_attn_seq(const cb_params_t *p) { return p->point; }
static inline int cb_attn_causal(const cb_params_t *p) { return cb_attn_variant(p->variant).causal; }
static inline int cb_attn_layout(const cb_params_t *p) { return cb_attn_variant(p->variant).layout; }
/* the batch of the group's rows (its variant's place in the --batch list) */
static inline int cb_attn_batch(const cb_params_t *p) {
  const cb_attn_config_t *c = cb_attn_cfg(p);
  const int b = cb_attn_variant(p->variant).bslot;
  return b < c->nbatches ? c->batches[b] : c->batch;
}
/* The configuration the group's rows run: the run's with the group's batch (a row's state holds
 * one, ringattn_state.h; the plan and the row read it too). */
static inline cb_attn_config_t cb_attn_row_config(const cb_params_t *p) {
  cb_attn_config_t c = *cb_attn_cfg(p);
  c.batch = cb_attn_batch(p);
  return c;
}
/* the Ulysses degree of the group's Ulysses rows on nranks ranks (U = P when none was asked for) */
static inline int cb_attn_ulysses(const cb_params_t *p, int nranks) {
  return cb_attn_ulysses_degree(p->variant, nranks);
}

/* attn_report.c */
int cb_attn_plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy);
void cb_attn_row(const cb_row_ctx_t *c, cb_row_t *r);
extern const cb_table_t cb_attn_table;

#endif
