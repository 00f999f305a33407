/* Data types and reduction operators: the one place that says which numbers they are and what
 * they are (element size, machine epsilon, fp8-ness; sum/max/min/avg). Host C, the algorithms
 * and the device code all use these names, never the numbers. The traits below are CB_HD
 * (callable in kernels); the command-line and result-file names live in dtype.c. Device-side
 * conversion of the values themselves is kernels/dtype.cuh. */
#ifndef CB_DTYPE_H
#define CB_DTYPE_H

#include <stddef.h>

#include "hostdev.h"

typedef enum cb_dtype {
  CB_FLOAT = 0, /* fp32 */
  CB_HALF,      /* fp16 */
  CB_BF16,      /* bfloat16 */
  CB_FP8E4M3,   /* OCP fp8 e4m3 (finite-only, max 448) */
  CB_FP8E5M2,   /* OCP fp8 e5m2 (IEEE-like, max 57344) */
  CB_NDTYPES
} cb_dtype_t;

typedef enum cb_redop {
  CB_SUM = 0,
  CB_MAX,
  CB_MIN,
  CB_AVG,
  CB_NREDOPS,
  CB_OP_NONE = CB_NREDOPS /* families that do not reduce (alltoall, allgather, ...) */
} cb_redop_t;

/* Bytes per element (0 for a value outside cb_dtype_t). */
CB_HD size_t cb_dtype_size(int t) {
  switch (t) {
  case CB_FLOAT: return 4;
  case CB_HALF:
  case CB_BF16: return 2;
  case CB_FP8E4M3:
  case CB_FP8E5M2: return 1;
  default: return 0;
  }
}

/* Machine epsilon, 2^(1 - significand bits): float 2^-23, half 2^-10, bfloat16 2^-7,
 * fp8e4m3 2^-3, fp8e5m2 2^-2. */
CB_HD float cb_dtype_eps(int t) {
  switch (t) {
  case CB_FLOAT: return 1.1920929e-7f;
  case CB_HALF: return 9.765625e-4f;
  case CB_BF16: return 7.8125e-3f;
  case CB_FP8E4M3: return 0.125f;
  default: return 0.25f;
  }
}

CB_HD int cb_dtype_is_fp8(int t) { return t == CB_FP8E4M3 || t == CB_FP8E5M2; }

/* avg is sum followed by one division by the rank count; the only op that is not exact. */
CB_HD int cb_redop_is_avg(int op) { return op == CB_AVG; }

#ifdef __cplusplus
extern "C" {
#endif

const char *cb_dtype_name(cb_dtype_t t);
/* Accepts the canonical names and common aliases (fp32, float32, fp16, float16, bf16, e4m3,
 * e5m2). Returns 0 on success, -1 for an unknown name. */
int cb_dtype_parse(const char *s, cb_dtype_t *out);
/* "float, half, bfloat16, fp8e4m3, fp8e5m2": for error messages. */
const char *cb_dtype_accepted(void);

const char *cb_redop_name(cb_redop_t op); /* "none" for CB_OP_NONE */
int cb_redop_parse(const char *s, cb_redop_t *out);
const char *cb_redop_accepted(void);

#ifdef __cplusplus
}
#endif

#endif
