/* What the alltoallv family's describer (family_alltoallv.c) and its algorithms (nccl_alltoallv.c,
 * alltoallv_peer.c) share: the configuration accessor, the counts of an instance's point and the
 * buffers and check both algorithms use (alltoallv_buffers.c). The counts are recomputed from the
 * parameters wherever they are needed, so every rank holds the whole table without an exchange. */
#ifndef CB_ALLTOALLV_FAMILY_H
#define CB_ALLTOALLV_FAMILY_H

#include "alltoallv_counts.h"
#include "family.h"
#include "params.h"
#include "row.h"

static inline const cb_a2av_config_t *cb_a2av_cfg(const cb_params_t *p) { return (const cb_a2av_config_t *)p->config; }

#endif
