/* Shared pieces of the NCCL baselines: type/op mapping, fp8 support, plain device buffers in
 * the classic layout (buffers.h). */
#ifndef CB_NCCL_COMMON_H
#define CB_NCCL_COMMON_H

#include <nccl.h>

#include "collective.h"

ncclDataType_t cb_nccl_dtype(cb_dtype_t t);
ncclRedOp_t cb_nccl_op(cb_redop_t op);
/* fp8 rows need NCCL >= 2.24 built with fp8 and an sm_90+ GPU. */
int cb_nccl_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
int cb_nccl_setup_buffers(cb_inst_t *in, char *why, size_t n);
void cb_nccl_teardown(cb_inst_t *in);

#endif
