/* Host-callable launcher of the custom all-to-all (kernels/alltoall.cu). Allocation layout on
 * every rank: [ data: send | recv (buffers.h) ][ LL staging ][ signal pad ]. */
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
  const void *send;  /* this rank's send buffer: n blocks of block_bytes */
  size_t recv_off;   /* recv buffer offset in every allocation */
  size_t ll_off;     /* LL staging offset (LL protocol only) */
  size_t pad_off;    /* signal pad offset */
  uint32_t *epoch;   /* per-block epochs (device memory of this rank) */
  size_t block_bytes;
  int rank, nranks, blocks, threads;
  int ll; /* 1: LL protocol (small messages), 0: direct pushes between two barriers */
  uint64_t timeout_ns;
} cb_a2a_launch_t;

size_t cb_a2a_ll_scratch(size_t block_bytes, int nranks);
void cb_a2a_grid(size_t block_bytes, int nranks, int ll, const cb_grid_limits_t *g, int *blocks, int *threads);
void cb_a2a_launch(const cb_a2a_launch_t *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
