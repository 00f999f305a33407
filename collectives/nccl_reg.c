/* `nccl_reg`: the NCCL baselines on buffers registered with ncclCommRegister (ncclMemAlloc
 * memory, NCCL >= 2.19), which lets NCCL read and write user buffers directly instead of
 * staging through its own. Every family with an NCCL baseline, sendrecv included: zero-copy
 * point-to-point over NVLink is what this registration is documented to enable. */
#include "nccl_common.h"
#include "nccl_registered.h"

static int reg_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_nccl_registered_supported(CB_NCCL_REG_LOCAL, w, p, why, n);
}

static int reg_setup(cb_inst_t *in, char *why, size_t n) {
  return cb_nccl_registered_setup(CB_NCCL_REG_LOCAL, in, why, n);
}

#define REG_ALGO(var, fam, sum, runfn)                                                           \
  const cb_algo_t var = {                                                                      \
      .name = "nccl_reg", .family = fam, .summary = sum, .dtypes = CB_ALL_DTYPES,              \
      .ops = CB_ALL_OPS, .nphases = 1, .graph_ok = 1, .supported = reg_supported,              \
      .setup = reg_setup, .run = runfn, .teardown = cb_nccl_registered_teardown,               \
  }

REG_ALGO(cb_algo_nccl_reg_allreduce, CB_ALLREDUCE, "ncclAllReduce on ncclCommRegister'ed buffers",
         cb_nccl_run_allreduce);
REG_ALGO(cb_algo_nccl_reg_allgather, CB_ALLGATHER, "ncclAllGather on ncclCommRegister'ed buffers",
         cb_nccl_run_allgather);
REG_ALGO(cb_algo_nccl_reg_reducescatter, CB_REDUCESCATTER, "ncclReduceScatter on ncclCommRegister'ed buffers",
         cb_nccl_run_reducescatter);
REG_ALGO(cb_algo_nccl_reg_alltoall, CB_ALLTOALL, "ncclAlltoAll on ncclCommRegister'ed buffers",
         cb_nccl_run_alltoall);
REG_ALGO(cb_algo_nccl_reg_sendrecv, CB_SENDRECV, "ring of ncclSend/ncclRecv on ncclCommRegister'ed buffers",
         cb_nccl_run_sendrecv);
