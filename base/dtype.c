/* The names of cb_dtype_t and cb_redop_t on the command line and in result files, with the
 * aliases the parser accepts (the numeric traits are in dtype.h). The canonical names are
 * nccl-tests' where it has the type (int8 ... uint64, half, float, double, bfloat16); its fp8
 * names (f8e4m3, f8e5m2) and NCCL's enum aliases (char, int, uint, float16, float64, ...) are
 * accepted too. */
#include "dtype.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CB_DTYPE_ALIASES 5

static const struct {
  const char *name;
  const char *aliases[CB_DTYPE_ALIASES];
} dtypes[CB_NDTYPES] = {
    [CB_FLOAT] = {"float", {"fp32", "float32", "f32", NULL}},
    [CB_HALF] = {"half", {"fp16", "float16", "f16", NULL}},
    [CB_BF16] = {"bfloat16", {"bf16", NULL}},
    [CB_FP8E4M3] = {"fp8e4m3", {"e4m3", "float8e4m3", "f8e4m3", NULL}},
    [CB_FP8E5M2] = {"fp8e5m2", {"e5m2", "float8e5m2", "f8e5m2", NULL}},
    [CB_INT8] = {"int8", {"char", "i8", NULL}},
    [CB_UINT8] = {"uint8", {"u8", NULL}},
    [CB_INT32] = {"int32", {"int", "i32", NULL}},
    [CB_UINT32] = {"uint32", {"uint", "u32", NULL}},
    [CB_INT64] = {"int64", {"i64", NULL}},
    [CB_UINT64] = {"uint64", {"u64", NULL}},
    [CB_DOUBLE] = {"double", {"fp64", "float64", "f64", NULL}},
};

/* In nccl-tests' -o all order. */
static const char *redops[CB_NREDOPS + 1] = {
    [CB_SUM] = "sum", [CB_MAX] = "max", [CB_MIN] = "min", [CB_AVG] = "avg", [CB_PROD] = "prod", [CB_OP_NONE] = "none"};

const char *cb_dtype_name(cb_dtype_t t) { return (unsigned)t < CB_NDTYPES ? dtypes[t].name : "?"; }

int cb_dtype_parse(const char *s, cb_dtype_t *out) {
  for (int t = 0; t < CB_NDTYPES; t++) {
    int match = strcasecmp(s, dtypes[t].name) == 0;
    for (int a = 0; !match && a < CB_DTYPE_ALIASES && dtypes[t].aliases[a]; a++)
      match = strcasecmp(s, dtypes[t].aliases[a]) == 0;
    if (match) {
      *out = (cb_dtype_t)t;
      return 0;
    }
  }
  return -1;
}

const char *cb_dtype_accepted(void) {
  return "float, half, bfloat16, fp8e4m3, fp8e5m2, int8, uint8, int32, uint32, int64, uint64, double, or all";
}

const char *cb_dtype_list(unsigned mask, char *buf, size_t n) {
  size_t off = 0;
  if (n) buf[0] = 0;
  for (int t = 0; t < CB_NDTYPES && off < n; t++)
    if (mask & (1u << t)) off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? ", " : "", dtypes[t].name);
  return buf;
}

const char *cb_redop_name(cb_redop_t op) { return (unsigned)op <= CB_OP_NONE ? redops[op] : "?"; }

int cb_redop_parse(const char *s, cb_redop_t *out) {
  for (int op = 0; op < CB_NREDOPS; op++)
    if (strcasecmp(s, redops[op]) == 0) {
      *out = (cb_redop_t)op;
      return 0;
    }
  return -1;
}

const char *cb_redop_accepted(void) { return "sum, prod, max, min, avg, or all"; }
