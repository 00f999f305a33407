/* The names of cb_dtype_t and cb_redop_t on the command line and in result files, with the
 * aliases the parser accepts (the numeric traits are in dtype.h). */
#include "dtype.h"

#include <string.h>
#include <strings.h>

static const struct {
  const char *name;
  const char *aliases[3];
} dtypes[CB_NDTYPES] = {
    [CB_FLOAT] = {"float", {"fp32", "float32", NULL}},        [CB_HALF] = {"half", {"fp16", "float16", NULL}},
    [CB_BF16] = {"bfloat16", {"bf16", NULL, NULL}},           [CB_FP8E4M3] = {"fp8e4m3", {"e4m3", "float8e4m3", NULL}},
    [CB_FP8E5M2] = {"fp8e5m2", {"e5m2", "float8e5m2", NULL}},
};

static const char *redops[CB_NREDOPS + 1] = {
    [CB_SUM] = "sum", [CB_MAX] = "max", [CB_MIN] = "min", [CB_AVG] = "avg", [CB_OP_NONE] = "none"};

const char *cb_dtype_name(cb_dtype_t t) { return (unsigned)t < CB_NDTYPES ? dtypes[t].name : "?"; }

int cb_dtype_parse(const char *s, cb_dtype_t *out) {
  for (int t = 0; t < CB_NDTYPES; t++) {
    int match = strcasecmp(s, dtypes[t].name) == 0;
    for (int a = 0; !match && a < 3 && dtypes[t].aliases[a]; a++) match = strcasecmp(s, dtypes[t].aliases[a]) == 0;
    if (match) {
      *out = (cb_dtype_t)t;
      return 0;
    }
  }
  return -1;
}

const char *cb_dtype_accepted(void) { return "float, half, bfloat16, fp8e4m3, fp8e5m2"; }

const char *cb_redop_name(cb_redop_t op) { return (unsigned)op <= CB_OP_NONE ? redops[op] : "?"; }

int cb_redop_parse(const char *s, cb_redop_t *out) {
  for (int op = 0; op < CB_NREDOPS; op++)
    if (strcasecmp(s, redops[op]) == 0) {
      *out = (cb_redop_t)op;
      return 0;
    }
  return -1;
}

const char *cb_redop_accepted(void) { return "sum, max, min, avg"; }
