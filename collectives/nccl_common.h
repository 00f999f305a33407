/* Shared pieces of the NCCL baselines: type/op mapping, fp8 support, plain device buffers in
 * the classic layout (buffers.h), the collective calls themselves. */
#ifndef CB_NCCL_COMMON_H
#define CB_NCCL_COMMON_H

#include <nccl.h>

#include "collective.h"

/* "2.28.3" from an NCCL version code (both encodings: 2.8 and older 1000-based, newer
 * 10000-based). */
void cb_nccl_version_text(int code, char *buf, size_t n);
ncclDataType_t cb_nccl_dtype(cb_dtype_t t);
ncclRedOp_t cb_nccl_op(cb_redop_t op);
/* fp8 rows need NCCL >= 2.24 built with fp8 and an sm_90+ GPU. */
int cb_nccl_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
int cb_nccl_setup_buffers(cb_inst_t *in, char *why, size_t n);
void cb_nccl_teardown(cb_inst_t *in);

/* One call of each baseline (nccl_classic.c), on whatever buffers setup made: plain cudaMalloc
 * for `nccl`, registered ones for `nccl_symm` and `nccl_reg` (nccl_registered.c). */
void cb_nccl_run_allreduce(cb_inst_t *in, int phase, cudaStream_t s);
void cb_nccl_run_allgather(cb_inst_t *in, int phase, cudaStream_t s);
void cb_nccl_run_reducescatter(cb_inst_t *in, int phase, cudaStream_t s);
void cb_nccl_run_alltoall(cb_inst_t *in, int phase, cudaStream_t s);
void cb_nccl_run_alltoall_p2p(cb_inst_t *in, int phase, cudaStream_t s);
void cb_nccl_run_sendrecv(cb_inst_t *in, int phase, cudaStream_t s);

/* Deregisters and frees the allocations nccl_symm and nccl_reg keep across sweep points
 * (nccl_registered.c says why they keep them). Collective; call before ncclCommDestroy(comm). */
typedef struct cb_nccl_reg_state cb_nccl_reg_state_t;
/* The state the registered forms keep for one world (its allocations); NULL-safe release. */
cb_nccl_reg_state_t *cb_nccl_registered_state_new(void);
void cb_nccl_registered_release(ncclComm_t comm, cb_nccl_reg_state_t *st);

#endif
