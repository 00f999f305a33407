/* Data types and reduction operators: the one place that says which numbers they are and what
 * they are (element size, machine epsilon, integer or floating, signed, fp8-ness; sum, prod,
 * max, min, avg). Host C, the algorithms and the device code all use these names, never the
 * numbers. The traits below are CB_HD (callable in kernels); the command-line and result-file
 * names live in dtype.c. Device-side conversion of the values themselves is kernels/dtype.cuh.
 *
 * The types are NCCL's (nccl.h ncclDataType_t) minus nothing: the five floating types collbench
 * started with keep their numbers, the integers and double follow. */
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
  CB_INT8,
  CB_UINT8,
  CB_INT32,
  CB_UINT32,
  CB_INT64,
  CB_UINT64,
  CB_DOUBLE, /* fp64 */
  CB_NDTYPES
} cb_dtype_t;

typedef enum cb_redop {
  CB_SUM = 0,
  CB_MAX,
  CB_MIN,
  CB_AVG,
  CB_PROD,
  CB_NREDOPS,
  CB_OP_NONE = CB_NREDOPS /* families that do not reduce (alltoall, allgather, ...) */
} cb_redop_t;

/* Bytes per element (0 for a value outside cb_dtype_t). */
CB_HD size_t cb_dtype_size(int t) {
  switch (t) {
  case CB_INT64:
  case CB_UINT64:
  case CB_DOUBLE: return 8;
  case CB_FLOAT:
  case CB_INT32:
  case CB_UINT32: return 4;
  case CB_HALF:
  case CB_BF16: return 2;
  case CB_FP8E4M3:
  case CB_FP8E5M2:
  case CB_INT8:
  case CB_UINT8: return 1;
  default: return 0;
  }
}

CB_HD int cb_dtype_is_int(int t) { return t >= CB_INT8 && t <= CB_UINT64; }
CB_HD int cb_dtype_is_signed_int(int t) { return t == CB_INT8 || t == CB_INT32 || t == CB_INT64; }
CB_HD int cb_dtype_is_fp8(int t) { return t == CB_FP8E4M3 || t == CB_FP8E5M2; }

/* Machine epsilon, 2^(1 - significand bits): float 2^-23, half 2^-10, bfloat16 2^-7,
 * fp8e4m3 2^-3, fp8e5m2 2^-2, double 2^-52; 0 for the integers (exact). */
CB_HD double cb_dtype_eps(int t) {
  switch (t) {
  case CB_FLOAT: return 1.1920928955078125e-7;
  case CB_HALF: return 9.765625e-4;
  case CB_BF16: return 7.8125e-3;
  case CB_FP8E4M3: return 0.125;
  case CB_FP8E5M2: return 0.25;
  case CB_DOUBLE: return 2.220446049250313e-16;
  default: return 0.0;
  }
}

/* avg is sum followed by one division by the rank count: inexact for the floating types, an
 * integer division (truncating toward zero) for the integers, as NCCL's ncclAvg does. */
CB_HD int cb_redop_is_avg(int op) { return op == CB_AVG; }

#ifdef __cplusplus
extern "C" {
#endif

const char *cb_dtype_name(cb_dtype_t t);
/* Accepts the canonical names and the aliases of nccl-tests and NCCL (int, uint, char, fp16,
 * bf16, fp64, f8e4m3, ...; the list is in dtype.c). Returns 0 on success, -1 for an unknown
 * name. "all" is not a type: the command line expands it (launcher/args_values.c). */
int cb_dtype_parse(const char *s, cb_dtype_t *out);
/* "float, half, bfloat16, ...": every canonical name, for error messages. */
const char *cb_dtype_accepted(void);
/* The names of the types in mask (bit 1u << cb_dtype_t) joined by ", " into buf; returns buf. */
const char *cb_dtype_list(unsigned mask, char *buf, size_t n);

const char *cb_redop_name(cb_redop_t op); /* "none" for CB_OP_NONE */
int cb_redop_parse(const char *s, cb_redop_t *out);
const char *cb_redop_accepted(void);

#ifdef __cplusplus
}
#endif

#endif
