/* Host-callable launcher of the custom all-to-all (kernels/alltoall.cu). Allocation layout on
 * every rank: [ data: send | recv (buffers.h) ][ LL staging or rail staging ][ signal pad ]. */
#ifndef CB_ALLTOALL_H
#define CB_ALLTOALL_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cb_limits.h"
#include "grid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_a2a_launch {
  void *base[CB_MAX_RANKS]; /* every rank's allocation, mapped here (local rank order) */
  const void *send;         /* this rank's send buffer: n blocks of block_bytes */
  size_t recv_off;          /* recv buffer offset in every allocation */
  size_t ll_off;            /* LL staging offset (LL protocol only) */
  size_t pad_off;           /* signal pad offset */
  uint32_t *epoch;          /* per-block epochs (device memory of this rank) */
  size_t block_bytes;
  int rank, nranks, blocks, threads;
  int ll; /* 1: LL protocol (small messages), 0: direct pushes between two barriers */
  /* Across nodes (alltoall hier; push only): the send buffer holds nnodes * nranks blocks
   * (world rank j * nranks + q = local rank q of node j). Blocks for my node land in the peers'
   * recv (at my world rank); blocks for node j != node land in local rank q's rail staging,
   * slot j * nranks + my local rank, from where q sends them to node j over the network.
   * One node: nnodes = 1, node = 0. */
  int node, nnodes;
  size_t stage_off;
  uint64_t timeout_ns;
  unsigned int *ctl; /* host-mapped control words (signal_pad.h CB_CTL_*) */
} cb_a2a_launch_t;

size_t cb_a2a_ll_scratch(size_t block_bytes, int nranks);
void cb_a2a_grid(size_t block_bytes, int nranks, int ll, const cb_grid_limits_t *g, int *blocks, int *threads);
void cb_a2a_launch(const cb_a2a_launch_t *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
