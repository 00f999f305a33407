/* Implementation of nccl_common.h. */
#include "nccl_common.h"

#include <stdio.h>

#include "buffers.h"
#include "error_gpu.h"

ncclDataType_t cb_nccl_dtype(cb_dtype_t t) {
  switch (t) {
  case CB_FLOAT: return ncclFloat32;
  case CB_HALF: return ncclFloat16;
  case CB_BF16: return ncclBfloat16;
  case CB_INT8: return ncclInt8;
  case CB_UINT8: return ncclUint8;
  case CB_INT32: return ncclInt32;
  case CB_UINT32: return ncclUint32;
  case CB_INT64: return ncclInt64;
  case CB_UINT64: return ncclUint64;
  case CB_DOUBLE: return ncclFloat64;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
  case CB_FP8E4M3: return ncclFloat8e4m3;
  case CB_FP8E5M2: return ncclFloat8e5m2;
#endif
  default: CB_DIE(CB_EXIT_RUNTIME, "no NCCL type for %s", cb_dtype_name(t));
  }
}

ncclRedOp_t cb_nccl_op(cb_redop_t op) {
  switch (op) {
  case CB_SUM: return ncclSum;
  case CB_MAX: return ncclMax;
  case CB_MIN: return ncclMin;
  case CB_AVG: return ncclAvg;
  case CB_PROD: return ncclProd;
  default: return ncclSum; /* non-reducing families never pass an op to NCCL */
  }
}

void cb_nccl_version_text(int code, char *buf, size_t n) {
  if (code < 10000) snprintf(buf, n, "%d.%d.%d", code / 1000, (code / 100) % 10, code % 100);
  else snprintf(buf, n, "%d.%d.%d", code / 10000, (code / 100) % 100, code % 100);
}

int cb_nccl_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (cb_dtype_is_fp8(p->dtype) && !w->nccl_fp8) {
    char v[32];
    cb_nccl_version_text(w->nccl_version, v, sizeof v);
    snprintf(why, n, "skipped: NCCL %s or this GPU (sm_%d%d) has no %s (needs NCCL >= 2.24 and sm_90)", v, w->cc_major,
             w->cc_minor, cb_dtype_name(p->dtype));
    return 0;
  }
  /* NCCL 2.28.3 returns ncclInvalidArgument for avg of an fp8 type on a one-rank communicator
   * (sum, max, min and the 16/32-bit types pass; seen on one H200), which would end the run;
   * versions after 2.28 are tried. */
  if (p->op == CB_AVG && cb_dtype_is_fp8(p->dtype) && w->mpi.nranks == 1 && w->nccl_version < NCCL_VERSION(2, 29, 0)) {
    char v[32];
    cb_nccl_version_text(w->nccl_version, v, sizeof v);
    snprintf(why, n, "not supported: NCCL %s refuses avg of %s on one rank (invalid argument)", v,
             cb_dtype_name(p->dtype));
    return 0;
  }
  return 1;
}

int cb_nccl_setup_buffers(cb_inst_t *in, char *why, size_t n) {
  cb_buffer_plan_t plan;
  if (cb_plan_buffers(&in->p, in->world->mpi.nranks, in->world->mpi.rank, &plan, why, n)) return -1;
  void *base = NULL;
  if (CB_TRY_CUDA(cudaMalloc(&base, plan.total_bytes), why, n)) return -1;
  in->priv = base;
  in->mem_bytes = plan.total_bytes;
  cb_inst_set_buffers(in, base, &plan);
  return 0;
}

void cb_nccl_teardown(cb_inst_t *in) {
  if (in->priv) CB_CUDA(cudaFree(in->priv));
  in->priv = NULL;
}
