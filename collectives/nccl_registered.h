/* NCCL on registered buffers: the setup behind the `nccl_symm` and `nccl_reg` baselines.
 *
 * Both allocate the classic layout (buffers.h, offsets rounded to 4096 B) with ncclMemAlloc,
 * which gives cuMem memory that NCCL can map into its peers, then register it:
 *   CB_NCCL_REG_WINDOW  ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC) (NCCL >= 2.27):
 *                       NCCL may then run its symmetric-memory kernels for all-reduce,
 *                       all-gather and reduce-scatter; collective over the communicator;
 *   CB_NCCL_REG_LOCAL   ncclCommRegister (NCCL >= 2.19): NCCL may read and write the buffers
 *                       directly instead of copying through its own; local to the rank.
 * NCCL does not say which kernel it then runs (its NCCL_DEBUG=INFO output does; README,
 * "NCCL at its best"), so the row's note names the registration that succeeded and the NCCL
 * version. A failed allocation or registration is a "not run: why" row on every rank. */
#ifndef CB_NCCL_REGISTERED_H
#define CB_NCCL_REGISTERED_H

#include "collective.h"

typedef enum cb_nccl_reg_kind { CB_NCCL_REG_WINDOW, CB_NCCL_REG_LOCAL } cb_nccl_reg_kind_t;

/* The fp8 rule of the plain baselines, plus: this collbench was built against an nccl.h that has
 * the call, and the NCCL it runs with has it too. */
int cb_nccl_registered_supported(cb_nccl_reg_kind_t kind, const cb_world_t *w, const cb_params_t *p, char *why,
                                 size_t n);
int cb_nccl_registered_setup(cb_nccl_reg_kind_t kind, cb_inst_t *in, char *why, size_t n);
void cb_nccl_registered_teardown(cb_inst_t *in);

#endif
