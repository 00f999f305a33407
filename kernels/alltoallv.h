/* Host-callable launcher of the alltoallv over peer memory (kernels/alltoallv.cu). Every rank's
 * allocation is laid out the same (collectives/alltoallv_algo.h):
 *   [ send | recv (at recv_off) ][ signal pad (at pad_off) ]
 * Rank r's block for peer q (bytes[q], a multiple of 16) starts at send_off[q] of its send
 * buffer and lands at dst_off[q] of q's receive buffer. */
#ifndef CB_ALLTOALLV_H
#define CB_ALLTOALLV_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cb_limits.h"
#include "grid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_a2av_launch {
  void *base[CB_MAX_RANKS]; /* every rank's allocation, mapped here (local rank order) */
  const void *send;         /* this rank's send buffer */
  size_t recv_off;          /* receive buffer offset in every allocation */
  size_t pad_off;           /* signal pad offset */
  uint32_t *epoch;          /* per-block epochs (device memory of this rank) */
  size_t send_off[CB_MAX_RANKS], bytes[CB_MAX_RANKS], dst_off[CB_MAX_RANKS];
  size_t max_bytes; /* the largest bytes[q] (the grid's unit of work) */
  int rank, nranks, blocks, threads;
  uint64_t timeout_ns;
  unsigned int *ctl; /* host-mapped control words (signal_pad.h CB_CTL_*) */
} cb_a2av_launch_t;

/* The grid for blocks of up to max_bytes per peer on nranks ranks under g. */
void cb_a2av_grid(size_t max_bytes, int nranks, const cb_grid_limits_t *g, int *blocks, int *threads);
void cb_a2av_launch(const cb_a2av_launch_t *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
