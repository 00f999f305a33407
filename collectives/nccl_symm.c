/* `nccl_symm`: the NCCL baselines on window-registered symmetric buffers (ncclMemAlloc +
 * ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, NCCL >= 2.27), where NCCL 2.27+ can
 * switch all-reduce, all-gather and reduce-scatter to its symmetric-memory kernels (lower
 * latency; on 2 x H200 also lower bandwidth above ~16 MiB, README "NCCL at its best").
 * All-to-all is included because NCCL reads registered buffers directly there too. Not for
 * sendrecv: NCCL 2.28 has no symmetric send/recv kernels, so the row would repeat nccl_reg. */
#include "nccl_common.h"
#include "nccl_registered.h"

static int symm_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_nccl_registered_supported(CB_NCCL_REG_WINDOW, w, p, why, n);
}

static int symm_setup(cb_inst_t *in, char *why, size_t n) {
  return cb_nccl_registered_setup(CB_NCCL_REG_WINDOW, in, why, n);
}

#define SYMM_ALGO(var, fam, sum, runfn)                                                          \
  const cb_algo_t var = {                                                                      \
      .name = "nccl_symm", .family = fam, .summary = sum, .dtypes = CB_ALL_DTYPES,             \
      .ops = CB_ALL_OPS, .nphases = 1, .graph_ok = 1, .supported = symm_supported,             \
      .setup = symm_setup, .run = runfn, .teardown = cb_nccl_registered_teardown,              \
  }

SYMM_ALGO(cb_algo_nccl_symm_allreduce, CB_ALLREDUCE, "ncclAllReduce on symmetric window buffers",
          cb_nccl_run_allreduce);
SYMM_ALGO(cb_algo_nccl_symm_allgather, CB_ALLGATHER, "ncclAllGather on symmetric window buffers",
          cb_nccl_run_allgather);
SYMM_ALGO(cb_algo_nccl_symm_reducescatter, CB_REDUCESCATTER, "ncclReduceScatter on symmetric window buffers",
          cb_nccl_run_reducescatter);
SYMM_ALGO(cb_algo_nccl_symm_alltoall, CB_ALLTOALL, "ncclAlltoAll on symmetric window buffers",
          cb_nccl_run_alltoall);
