/* Implementation of sweep_order.h: step i read as a number whose digits are the loops' indexes,
 * the innermost loop the lowest digit. */
#include "sweep_order.h"

#include <string.h>

/* Each order's loops, outermost first. */
static const int kNest[2][CB_NDIMS] = {
    [CB_ORDER_SIZES] = {CB_DIM_CYCLE, CB_DIM_POINT, CB_DIM_DTYPE, CB_DIM_OP, CB_DIM_PLACE, CB_DIM_VARIANT},
    [CB_ORDER_TYPES] = {CB_DIM_DTYPE, CB_DIM_OP, CB_DIM_VARIANT, CB_DIM_CYCLE, CB_DIM_POINT, CB_DIM_PLACE},
};

int cb_sweep_order_parse(const char *s, int *order) {
  if (strcmp(s, "sizes") == 0) *order = CB_ORDER_SIZES;
  else if (strcmp(s, "types") == 0) *order = CB_ORDER_TYPES;
  else return -1;
  return 0;
}

const char *cb_sweep_order_name(int order) { return order == CB_ORDER_TYPES ? "types" : "sizes"; }

long long cb_sweep_steps(const int count[CB_NDIMS]) {
  long long n = 1;
  for (int d = 0; d < CB_NDIMS; d++) n *= count[d];
  return n;
}

void cb_sweep_step(int order, const int count[CB_NDIMS], long long i, cb_sweep_step_t *out) {
  const int *nest = kNest[order == CB_ORDER_TYPES ? CB_ORDER_TYPES : CB_ORDER_SIZES];
  for (int k = CB_NDIMS - 1; k >= 0; k--) {
    const int d = nest[k];
    out->at[d] = (int)(i % count[d]);
    i /= count[d];
  }
}
