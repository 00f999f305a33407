/* The moe family's describer (family.h), split in two files: moe_family.c declares it and reads
 * its command line; moe_report.c turns a sweep point into parameters and a measurement into its
 * row, table line and the group's verdict lines. The accessors are how the moe algorithms read
 * the generic parameters (params.h): the point is tokens per rank, the config a cb_moe_config_t. */
#ifndef CB_MOE_FAMILY_H
#define CB_MOE_FAMILY_H

#include "family.h"
#include "moe_config.h"
#include "params.h"
#include "row.h"

/* cb_inst_t.metric of the moe algorithms: this rank's max/mean received tokens (0 = not
 * applicable), the same on every rank */
enum cb_moe_metric { CB_MOE_IMBALANCE, CB_MOE_NMETRICS };

static inline const cb_moe_config_t *cb_moe_cfg(const cb_params_t *p) { return (const cb_moe_config_t *)p->config; }
static inline uint64_t cb_moe_tokens(const cb_params_t *p) { return p->point; }

/* moe_report.c */
int cb_moe_plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy);
void cb_moe_row(const cb_row_ctx_t *c, cb_row_t *r);
int cb_moe_group_end(const cb_group_view_t *g, cb_strbuf_t *out);
extern const cb_table_t cb_moe_table;

#endif
