/* The limits every custom kernel's grid is computed from, taken from the device at start
 * (launcher/world_init.c) rather than written into the code: how many SMs the grid is sized for, how
 * many threads an SM holds at once, and the block cap of the algorithm (CB_MAX_BLOCKS overrides
 * it). Blocks of these kernels wait on the same-numbered blocks of the other ranks, so a grid
 * must never exceed what the GPU holds resident at once: a block that never gets an SM would
 * leave its peers spinning until the timeout. */
#ifndef CB_GRID_H
#define CB_GRID_H

#include <stddef.h>

#include "hostdev.h"

typedef struct cb_grid_limits {
  int max_blocks;     /* the algorithm's cap (or CB_MAX_BLOCKS) */
  int sms;            /* SMs to size for: the smallest of the node's GPUs, capped by --sms / CB_SMS */
  int threads_per_sm; /* threads one SM holds at once (cudaDevAttrMaxThreadsPerMultiProcessor) */
} cb_grid_limits_t;

/* Most blocks of `threads` threads a grid may have under g: the algorithm's cap, and no more
 * than fit on the SMs at once by thread count. */
static inline int cb_grid_cap(const cb_grid_limits_t *g, int threads) {
  int per_sm = threads > 0 ? g->threads_per_sm / threads : 1;
  long resident = (long)g->sms * (per_sm > 0 ? per_sm : 1);
  return resident < g->max_blocks ? (int)resident : g->max_blocks;
}

/* The SMs a grid of `blocks` blocks occupies on a GPU of `device_sms` SMs (the sms column):
 * the scheduler puts each block on its own SM while there are free ones. */
static inline int cb_grid_sms(int blocks, int device_sms) { return blocks < device_sms ? blocks : device_sms; }

/* The grid of a grid-stride kernel over n elements (the small fill, check and compare kernels:
 * check.cu, attn_util.cu, whose blocks never wait on each other): one thread per element in
 * blocks of `threads`, at most `cap` blocks (each thread then strides). */
CB_HD int cb_grid_blocks(size_t n, int threads, int cap) {
  size_t b = (n + (size_t)threads - 1) / (size_t)threads;
  return b < 1 ? 1 : b > (size_t)cap ? cap : (int)b;
}

#endif
