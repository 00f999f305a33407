/* Data types and reduction operators as collbench names them on the command line and in
 * result files. Host-only tables; device-side conversion lives in kernels/dtype.cuh. */
#ifndef CB_DTYPE_H
#define CB_DTYPE_H

#include <stddef.h>

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

const char *cb_dtype_name(cb_dtype_t t);
size_t cb_dtype_size(cb_dtype_t t);
/* Accepts the canonical names and common aliases (fp32, float32, fp16, float16, bf16, e4m3,
 * e5m2). Returns 0 on success, -1 for an unknown name. */
int cb_dtype_parse(const char *s, cb_dtype_t *out);
/* "float, half, bfloat16, fp8e4m3, fp8e5m2": for error messages. */
const char *cb_dtype_accepted(void);
int cb_dtype_is_fp8(cb_dtype_t t);

const char *cb_redop_name(cb_redop_t op); /* "none" for CB_OP_NONE */
int cb_redop_parse(const char *s, cb_redop_t *out);
const char *cb_redop_accepted(void);

#endif
