/* The order of a sweep's groups (--order): which loop is outermost.
 *   sizes  (collbench FAMILY's default) cycle > size > type > op > placement > variant: every
 *          type and op at a size, then the next size, so one size's lines stand together
 *   types  (the nccl-tests drop-in) type > op > variant > cycle > size > placement: a whole
 *          sweep of sizes per type, op and root, as nccl-tests' runTest loops (types, ops, roots)
 *          around TimeTest (-N's cycles, then the sizes, each out-of-place then in-place)
 * The bench engine's mode loop (eager, graph) stays inside either. Pure: the CPU test
 * (tests/cpu/test_sweep_order.c) walks both orders. */
#ifndef CB_SWEEP_ORDER_H
#define CB_SWEEP_ORDER_H

enum cb_sweep_order { CB_ORDER_SIZES = 0, CB_ORDER_TYPES = 1 };

/* The loops of a sweep, by name. */
enum cb_sweep_dim { CB_DIM_CYCLE, CB_DIM_POINT, CB_DIM_DTYPE, CB_DIM_OP, CB_DIM_PLACE, CB_DIM_VARIANT, CB_NDIMS };

/* Each loop's count (every count >= 1) and one step's index in each (by enum cb_sweep_dim). */
typedef struct cb_sweep_step {
  int at[CB_NDIMS];
} cb_sweep_step_t;

/* "sizes" or "types" into *order: 0, or -1 for anything else. */
int cb_sweep_order_parse(const char *s, int *order);
const char *cb_sweep_order_name(int order);

/* The number of steps: the product of the counts. */
long long cb_sweep_steps(const int count[CB_NDIMS]);
/* Step i (0 <= i < cb_sweep_steps) of the order: the outermost loop changes slowest. */
void cb_sweep_step(int order, const int count[CB_NDIMS], long long i, cb_sweep_step_t *out);

#endif
